import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { parseDuration } from "../../src/time/duration.js";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["2s", 2000],
    ["30s", 30_000],
    ["15m", 900_000],
    ["2h", 7_200_000],
    ["1d", 86_400_000],
    ["1.5s", 1500],
    ["0", 0],
  ])("reads %s as %d ms", (text, ms) => {
    expect(parseDuration(text, "POLL_INTERVAL")).toBe(ms);
  });

  it.each(["500", "120", " 30 ", "1.5"])(
    "refuses the bare number %j (no unit), naming the setting",
    (text) => {
      // Read as milliseconds, POLL_INTERVAL=500 would poll a live upstream twice a second.
      expect(() => parseDuration(text, "POLL_INTERVAL")).toThrowError(
        expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: "POLL_INTERVAL" }),
      );
    },
  );

  it("shows the bare number with a unit in its message", () => {
    expect(() => parseDuration("500", "--interval")).toThrowError(/500s or 500ms/);
  });

  it("reads a bare zero as zero (zero is zero in every unit: RECONCILE_INTERVAL=0 is off)", () => {
    expect(parseDuration("0", "RECONCILE_INTERVAL")).toBe(0);
    expect(parseDuration("00", "RECONCILE_INTERVAL")).toBe(0);
  });

  it("names the setting when the text is not a duration", () => {
    expect(() => parseDuration("soon", "POLL_INTERVAL")).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: "POLL_INTERVAL" }),
    );
  });
});
