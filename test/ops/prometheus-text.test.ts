/** The test parser of the Prometheus text format reads what prom-client writes and refuses the rest. */
import { describe, expect, it } from "vitest";
import { parsePrometheusText, samplesOf, sampleValue } from "../support/prometheus-text.js";

describe("parsePrometheusText", () => {
  it("reads names, escaped label values, special values and timestamps; skips comments", () => {
    const text = [
      "# HELP a_total Help with \\n an escape.",
      "# TYPE a_total counter",
      'a_total{x="1",y="q\\"uote\\\\ and \\n line, {brace}"} 3',
      'a_total{x="2",y=""} 4 1700000000000',
      'b_bucket{le="+Inf"} 7',
      "c NaN",
      "d Nan",
      "e -Inf",
      "f 1.5e-3",
      "",
    ].join("\n");
    const samples = parsePrometheusText(text);
    expect(samples).toHaveLength(7);
    expect(samples[0]).toEqual({
      name: "a_total",
      labels: { x: "1", y: 'q"uote\\ and \n line, {brace}' },
      value: 3,
    });
    expect(sampleValue(samples, "a_total")).toBe(7);
    expect(sampleValue(samples, "a_total", { y: "" })).toBe(4);
    expect(samplesOf(samples, "a_total", { x: "3" })).toEqual([]);
    expect(sampleValue(samples, "missing")).toBeUndefined();
    expect(sampleValue(samples, "b_bucket", { le: "+Inf" })).toBe(7);
    expect(sampleValue(samples, "c")).toBeNaN();
    expect(sampleValue(samples, "d")).toBeNaN();
    expect(sampleValue(samples, "e")).toBe(Number.NEGATIVE_INFINITY);
    expect(sampleValue(samples, "f")).toBe(0.0015);
  });

  it.each([
    ["no value", "a_total"],
    ["a value that is not a number", "a_total ten"],
    ["an unterminated label value", 'a_total{x="1} 3'],
    ["an unquoted label value", "a_total{x=1} 3"],
    ["a repeated label", 'a_total{x="1",x="2"} 3'],
    ["an unknown escape", 'a_total{x="\\t"} 3'],
    ["too many fields", "a_total 1 2 3"],
  ])("refuses %s", (_what, line) => {
    expect(() => parsePrometheusText(line)).toThrow(/line 1 of the metrics text/);
  });
});
