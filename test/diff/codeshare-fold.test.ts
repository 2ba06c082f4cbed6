import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import {
  flightNamesBySet,
  flightNamesOf,
  foldCodeshares,
  isOperatingRecord,
  physicalFlightKey,
} from "../../src/diff/codeshare-fold.js";

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

describe("one physical flight from its records", () => {
  const ZONE = "Europe/Amsterdam";
  const at = (s: string): string => `2026-11-21T10:${s}.000+01:00`;
  /** The operating record of KL1234, a departure of 21 November. */
  const operating = (overrides: Partial<Flight> = {}): Flight => ({
    id: "1",
    flightName: "KL1234",
    mainFlight: "KL1234",
    flightDirection: "D",
    scheduleDate: "2026-11-21",
    scheduleDateTime: at("30:00"),
    lastUpdatedAt: at("00:00"),
    gate: "D7",
    ...overrides,
  });
  const codeshare = (name: string, overrides: Partial<Flight> = {}): Flight =>
    operating({ id: `id-${name}`, flightName: name, ...overrides });
  const only = (records: Flight[]) => {
    const folded = foldCodeshares(records, ZONE);
    expect(folded).toHaveLength(1);
    return folded[0] as (typeof folded)[number];
  };

  it("is keyed by direction, schedule date and main flight, with ? for what a record lacks", () => {
    expect(physicalFlightKey(operating(), ZONE)).toBe("D:2026-11-21:KL1234");
    expect(physicalFlightKey(operating({ flightDirection: undefined }), ZONE)).toBe(
      "?:2026-11-21:KL1234",
    );
    const undated = operating({ scheduleDate: undefined, scheduleDateTime: undefined });
    expect(physicalFlightKey(undated, ZONE)).toBe("D:?:KL1234");
    // Without a main flight, its own name; without either, its id; without any, none.
    expect(physicalFlightKey(operating({ mainFlight: undefined }), ZONE)).toBe(
      "D:2026-11-21:KL1234",
    );
    const anonymous = operating({ mainFlight: undefined, flightName: undefined });
    expect(physicalFlightKey(anonymous, ZONE)).toBe("D:2026-11-21:1");
    expect(physicalFlightKey({ ...anonymous, id: undefined }, ZONE)).toBeUndefined();
  });

  it("takes the schedule date from the local scheduled time when the record has no scheduleDate", () => {
    // 00:30 local on the 22nd is still the 21st in UTC: the airport's date counts.
    const late = operating({
      scheduleDate: undefined,
      scheduleDateTime: "2026-11-22T00:30:00.000+01:00",
    });
    expect(physicalFlightKey(late, ZONE)).toBe("D:2026-11-22:KL1234");
    expect(only([late]).identity.scheduleDate).toBe("2026-11-22");
  });

  it("skips records without any identity", () => {
    const nameless: Flight = { gate: "D9", lastUpdatedAt: at("01:00") };
    expect(foldCodeshares([nameless], ZONE)).toEqual([]);
    expect(foldCodeshares([nameless, operating()], ZONE).map((o) => o.identity.key)).toEqual([
      "D:2026-11-21:KL1234",
    ]);
  });

  it("tells the operating record by its names, and by isOperationalFlight only without them", () => {
    expect(isOperatingRecord(operating())).toBe(true);
    expect(isOperatingRecord(codeshare("DL9341"))).toBe(false);
    expect(isOperatingRecord(codeshare("DL9341", { isOperationalFlight: true }))).toBe(false);
    expect(isOperatingRecord(operating({ mainFlight: undefined }))).toBe(true);
    expect(isOperatingRecord(operating({ flightName: undefined }))).toBe(true);
    expect(
      isOperatingRecord(operating({ flightName: undefined, isOperationalFlight: false })),
    ).toBe(false);
    expect(isOperatingRecord(operating({ mainFlight: undefined, isOperationalFlight: true }))).toBe(
      true,
    );
  });

  it("takes fields from the operating record, else from the newest codeshare record", () => {
    const withOperating = only([
      codeshare("DL9341", { gate: "D9", lastUpdatedAt: at("05:00") }),
      operating({ gate: "D7" }),
    ]);
    expect(withOperating.fromOperating).toBe(true);
    expect(withOperating.fields.gate).toBe("D7");
    expect(withOperating.identity.id).toBe("1");
    expect(withOperating.version).toBe(Date.parse("2026-11-21T09:05:00Z"));

    const codesharesOnly = only([
      codeshare("DL9341", { gate: "D8", lastUpdatedAt: at("01:00") }),
      codeshare("AF8123", { gate: "D9", lastUpdatedAt: at("05:00") }),
      codeshare("KE5678", { gate: "D6", lastUpdatedAt: at("02:00") }),
    ]);
    expect(codesharesOnly.fromOperating).toBe(false);
    expect(codesharesOnly.fields.gate).toBe("D9");
    expect(codesharesOnly.identity.id).toBe("id-AF8123");
    // Equally new: the first read.
    const tie = only([
      codeshare("DL9341", { gate: "D8", lastUpdatedAt: at("05:00") }),
      codeshare("AF8123", { gate: "D9", lastUpdatedAt: at("05:00") }),
    ]);
    expect(tie.fields.gate).toBe("D8");
  });

  it("is version 0 when no record has a lastUpdatedAt, its fields from the first record", () => {
    const unstamped = only([
      codeshare("DL9341", { gate: "D8", lastUpdatedAt: undefined }),
      codeshare("AF8123", { gate: "D9", lastUpdatedAt: undefined }),
    ]);
    expect(unstamped.version).toBe(0);
    expect(unstamped.fields.gate).toBe("D8");
  });

  it("carries the operating carrier, upper-cased, and the operational flag only when given", () => {
    const full = only([
      operating({ prefixIATA: "kl", prefixICAO: "klm", isOperationalFlight: true }),
    ]);
    expect(full.identity).toMatchObject({ prefixIATA: "KL", prefixICAO: "KLM", operational: true });
    const bare = only([operating({ prefixIATA: "", prefixICAO: "" })]).identity;
    expect("prefixIATA" in bare).toBe(false);
    expect("prefixICAO" in bare).toBe(false);
    expect("operational" in bare).toBe(false);
  });

  it("has an empty id when its record has none, and leaves out what the records lack", () => {
    const identity = only([
      operating({
        id: undefined,
        flightDirection: undefined,
        scheduleDate: undefined,
        scheduleDateTime: undefined,
      }),
    ]).identity;
    expect(identity).toStrictEqual({
      key: "?:?:KL1234",
      id: "",
      mainFlight: "KL1234",
      flightNames: ["KL1234"],
    });
    const undirected = only([operating({ flightDirection: undefined })]).identity;
    expect(undirected).toStrictEqual({
      key: "?:2026-11-21:KL1234",
      id: "1",
      mainFlight: "KL1234",
      flightNames: ["KL1234"],
      scheduleDate: "2026-11-21",
      scheduled: Date.parse("2026-11-21T09:30:00Z"),
    });
    const dated = only([operating({ scheduleDateTime: undefined })]).identity;
    expect(dated).toStrictEqual({
      key: "D:2026-11-21:KL1234",
      id: "1",
      mainFlight: "KL1234",
      flightNames: ["KL1234"],
      direction: "D",
      scheduleDate: "2026-11-21",
    });
  });
});
