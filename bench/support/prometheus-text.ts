/**
 * A small parser of the Prometheus text exposition format (version 0.0.4), so tests
 * assert on metric samples rather than on substrings of `/metrics`. It is strict:
 * a line it cannot read throws, which makes it a format check as well.
 */

/** One sample line: `name{label="value",…} value`. */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** Every sample of an exposition, in order; comments and blank lines are skipped. */
export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    try {
      samples.push(parseSample(line));
    } catch (err) {
      throw new Error(`line ${index + 1} of the metrics text: ${(err as Error).message}: ${line}`);
    }
  });
  return samples;
}

/** Samples named `name` whose labels include every one of `labels`. */
export function samplesOf(
  samples: readonly PrometheusSample[],
  name: string,
  labels: Record<string, string> = {},
): PrometheusSample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** Sum of the values of `samplesOf(…)`, or undefined when there is none. */
export function sampleValue(
  samples: readonly PrometheusSample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samplesOf(samples, name, labels);
  return found.length === 0 ? undefined : found.reduce((sum, s) => sum + s.value, 0);
}

function parseSample(line: string): PrometheusSample {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) throw new Error("no metric name");
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    while (!rest.startsWith("}")) {
      const label = LABEL_NAME.exec(rest)?.[0];
      if (label === undefined || rest[label.length] !== "=" || rest[label.length + 1] !== '"') {
        throw new Error("malformed label");
      }
      rest = rest.slice(label.length + 2);
      let value = "";
      for (;;) {
        const c = rest[0];
        if (c === undefined) throw new Error("unterminated label value");
        rest = rest.slice(1);
        if (c === '"') break;
        if (c === "\\") {
          const escaped = rest[0];
          rest = rest.slice(1);
          if (escaped === "n") value += "\n";
          else if (escaped === "\\" || escaped === '"') value += escaped;
          else throw new Error("bad escape in label value");
        } else {
          value += c;
        }
      }
      if (label in labels) throw new Error(`label ${label} repeated`);
      labels[label] = value;
      if (rest.startsWith(",")) rest = rest.slice(1);
      else if (!rest.startsWith("}")) throw new Error("expected , or } after a label");
    }
    rest = rest.slice(1);
  }
  const fields = rest.trim().split(/\s+/);
  if (!rest.startsWith(" ") || fields.length < 1 || fields.length > 2) {
    throw new Error("expected one value and an optional timestamp");
  }
  return { name, labels, value: parseValue(fields[0] as string) };
}

// Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes `Nan`).
function parseValue(text: string): number {
  const lower = text.toLowerCase();
  if (lower === "+inf" || lower === "inf") return Number.POSITIVE_INFINITY;
  if (lower === "-inf") return Number.NEGATIVE_INFINITY;
  if (lower === "nan") return Number.NaN;
  const value = Number(text);
  if (text === "" || Number.isNaN(value)) throw new Error(`bad value ${text}`);
  return value;
}
