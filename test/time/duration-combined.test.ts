import { describe, expect, it } from "vitest";
import { durationMs, isBareNumber, parseDuration } from "../../src/time/duration.js";

describe("durationMs", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["15m", 900_000],
    ["3h", 10_800_000],
    ["1d", 86_400_000],
    ["1h30m", 5_400_000],
    ["1d2h3m4s5ms", 93_784_005],
    ["1h 30m", 5_400_000],
    [" 1.5h ", 5_400_000],
    ["0s", 0],
    ["5ms", 5],
    ["1m5s", 65_000],
  ])("reads %s as %d ms", (text, ms) => {
    expect(durationMs(text)).toBe(ms);
    expect(parseDuration(text, "X")).toBe(ms);
  });

  it.each([["90"], [""], ["h"], ["1x"], ["-5m"], ["1h30"], ["m1"], ["1..5s"]])(
    "refuses %j",
    (text) => {
      expect(durationMs(text)).toBeUndefined();
    },
  );

  it("never takes a bare number for milliseconds", () => {
    expect(durationMs("250")).toBeUndefined();
    expect(isBareNumber(" 90 ")).toBe(true);
    expect(isBareNumber("90s")).toBe(false);
  });
});
