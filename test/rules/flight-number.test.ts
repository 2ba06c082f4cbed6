import { describe, expect, it } from "vitest";
import { airlineDesignator, normaliseFlightNumber } from "../../src/rules/flight-number.js";

describe("normaliseFlightNumber", () => {
  it.each([
    ["KL601", "KL601"],
    ["KL0601", "KL601"],
    ["kl 0601", "KL601"],
    [" K L 6 0 1 ", "KL601"],
    ["KL\u00a00601", "KL601"],
    ["KL00601", "KL601"],
    ["KL1000", "KL1000"],
    ["KL0600", "KL600"],
    ["KL000", "KL0"],
    ["KL0601a", "KL601A"],
    ["KLM601", "KLM601"],
    ["U21234", "U21234"],
    ["3U0123", "3U123"],
    // A letter-digit designator (B6, U2, S7) reads the first digit as the airline's.
    ["K601", "K61"],
  ])("%j → %s", (text, normal) => {
    expect(normaliseFlightNumber(text)).toBe(normal);
  });

  it.each([
    "",
    "KL",
    "601",
    "12345",
    "KL12345",
    "KL012345",
    "KL-601",
    "KL601AB",
    "ABCD12",
    "99123",
  ])("%j is not a flight number", (text) => {
    expect(normaliseFlightNumber(text)).toBeUndefined();
  });

  it("is idempotent", () => {
    for (const text of ["kl 0601", "U20012", "KLM0007B"]) {
      const once = normaliseFlightNumber(text) as string;
      expect(normaliseFlightNumber(once)).toBe(once);
    }
  });
});

describe("airlineDesignator", () => {
  it.each([
    ["KL0601", "KL"],
    ["klm 601", "KLM"],
    ["U21234", "U2"],
    ["3U123", "3U"],
  ])("%j → %s", (text, designator) => {
    expect(airlineDesignator(text)).toBe(designator);
  });

  it("is undefined for text that is not a flight number", () => {
    expect(airlineDesignator("hello")).toBeUndefined();
  });
});
