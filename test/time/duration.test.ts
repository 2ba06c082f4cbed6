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
    ["250", 250],
  ])("reads %s as %d ms", (text, ms) => {
    expect(parseDuration(text, "POLL_INTERVAL")).toBe(ms);
  });

  it("names the setting when the text is not a duration", () => {
    expect(() => parseDuration("soon", "POLL_INTERVAL")).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: "POLL_INTERVAL" }),
    );
  });
});
