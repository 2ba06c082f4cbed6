import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { flightNamesBySet, flightNamesOf, foldCodeshares } from "../../src/diff/codeshare-fold.js";

/** The names gathered the general way, through a Set: what the fast path must give. */
const referenceNames = flightNamesBySet;

const name = fc.constantFrom("KL1234", "DL9341", "AF8123", "KE5678", "", "kl1234", "MU1");
/** Records as the upstream sends them, and malformed ones (non-string names, odd lists). */
const record: fc.Arbitrary<Flight> = fc.record(
  {
    flightName: fc.oneof(name, fc.constant(7 as unknown as string)),
    codeshares: fc.oneof(
      fc.record({ codeshares: fc.array(name, { maxLength: 5 }) }),
      fc.record({
        codeshares: fc.array(fc.oneof(name, fc.constant(null as unknown as string)), {
          maxLength: 3,
        }),
      }),
      fc.record({ codeshares: fc.constant("DL9341" as unknown as string[]) }),
      fc.constant({}),
    ),
  },
  { requiredKeys: [] },
);

describe("flightNamesOf", () => {
  it("gives the main flight first, then every other name once, sorted (property)", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 6 }), name, (group, main) => {
        expect(flightNamesOf(group, main)).toEqual(referenceNames(group, main));
      }),
      { numRuns: 3000 },
    );
  });

  it("gives each call its own array", () => {
    const group: Flight[] = [{ flightName: "KL1234", codeshares: { codeshares: ["DL9341"] } }];
    const first = flightNamesOf(group, "KL1234");
    const second = flightNamesOf(group, "KL1234");
    expect(first).toEqual(["KL1234", "DL9341"]);
    expect(second).not.toBe(first);
    second.push("XX1");
    expect(first).toEqual(["KL1234", "DL9341"]);
  });
});

describe("foldCodeshares", () => {
  it("reads a lastUpdatedAt shared by several records once, and keeps the newest", () => {
    const at = (s: string): string => `2026-11-21T10:${s}.000+01:00`;
    const folded = foldCodeshares(
      [
        { id: "1", flightName: "KL1234", mainFlight: "KL1234", lastUpdatedAt: at("00:00") },
        { id: "2", flightName: "DL9341", mainFlight: "KL1234", lastUpdatedAt: at("00:00") },
        { id: "3", flightName: "AF8123", mainFlight: "KL1234", lastUpdatedAt: at("05:00") },
        { id: "4", flightName: "KE5678", mainFlight: "KL1234", lastUpdatedAt: at("00:00") },
      ],
      "Europe/Amsterdam",
    );
    expect(folded).toHaveLength(1);
    expect(folded[0]?.version).toBe(Date.parse("2026-11-21T09:05:00Z"));
    expect(folded[0]?.identity.flightNames).toEqual(["KL1234", "AF8123", "DL9341", "KE5678"]);
  });
});
