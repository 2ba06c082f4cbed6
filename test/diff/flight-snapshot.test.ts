import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import {
  type FlightSnapshot,
  identityOf,
  mergeFields,
  type SnapshotFields,
  snapshotFields,
  TIME_FIELDS,
  UNROLLED_TIME_FIELDS,
} from "../../src/diff/flight-snapshot.js";
import { formatApiDateTime } from "../../src/time/local-time.js";

const ZONE = "Europe/Amsterdam";
const T0 = Date.parse("2026-11-21T10:00:00Z");
/** The airport-local text of T0 plus `minutes`. */
const t = (minutes: number): string => formatApiDateTime(T0 + minutes * 60_000, ZONE);

/** The overlay as it was first written: what mergeFields must still give. */
function referenceMerge(known: SnapshotFields, observed: SnapshotFields): SnapshotFields {
  const merged: SnapshotFields = { ...known, ...observed };
  if (known.times || observed.times) merged.times = { ...known.times, ...observed.times };
  return merged;
}

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined, freq: 4 });
const names = fc.array(fc.constantFrom("A", "B", "C"), { maxLength: 3 });
const times = fc.record(
  Object.fromEntries(TIME_FIELDS.map((f) => [f, maybe(fc.integer({ min: T0, max: T0 + 9e6 }))])),
  { requiredKeys: [], noNullPrototype: true },
) as fc.Arbitrary<SnapshotFields["times"]>;
/** Fields as the differ makes them, and some it never does (undefined values, unknown keys). */
const fields: fc.Arbitrary<SnapshotFields> = fc.record(
  {
    gate: maybe(fc.constantFrom("D7", "D9")),
    pier: maybe(fc.constantFrom("D", "E")),
    terminal: maybe(fc.integer({ min: 1, max: 3 })),
    states: maybe(names),
    times: maybe(times),
    belts: maybe(names),
    checkin: maybe(fc.record({ rows: names, desks: fc.array(fc.nat(9), { maxLength: 2 }) })),
    codeshares: maybe(names),
    aircraftType: maybe(fc.constantFrom("73H/73H", "320/")),
    registration: maybe(fc.constantFrom("PHBXA", "PHEXA")),
    route: maybe(names),
    serviceType: maybe(fc.constantFrom("J", "C")),
    legacyField: maybe(fc.string()),
  },
  // Plain objects, as snapshotFields and JSON.parse make them (the shortcut returns
  // the observation itself, prototype included).
  { requiredKeys: [], noNullPrototype: true },
);

describe("mergeFields", () => {
  it("gives what the spread overlay gives, for any known and observed fields (property)", () => {
    fc.assert(
      fc.property(fields, fields, fc.boolean(), (known, other, covering) => {
        // Half the time the observation has every known field: the shortcut's case.
        const observed = covering
          ? { ...known, ...other, times: other.times ?? known.times }
          : other;
        expect(mergeFields(known, observed)).toStrictEqual(referenceMerge(known, observed));
      }),
      { numRuns: 3000 },
    );
  });

  it("returns the observation itself when it has every known field", () => {
    const known = snapshotFields(record(), ZONE);
    const observed = snapshotFields(record({ gate: "D9" }), ZONE);
    expect(mergeFields(known, observed)).toBe(observed);
  });

  it("keeps known fields and known times the observation lacks", () => {
    const known = snapshotFields(record(), ZONE);
    const observed = snapshotFields(
      record({ gate: undefined, expectedTimeBoarding: undefined }),
      ZONE,
    );
    const merged = mergeFields(known, observed);
    expect(merged).not.toBe(observed);
    expect(merged.gate).toBe("D7");
    expect(merged.times?.expectedTimeBoarding).toBe(known.times?.expectedTimeBoarding);
  });

  it("keeps a field of a kind it does not know, as the overlay always did", () => {
    const known = { ...snapshotFields(record(), ZONE), legacyField: 1 } as SnapshotFields;
    const observed = snapshotFields(record(), ZONE);
    expect(mergeFields(known, observed)).toStrictEqual({ ...observed, legacyField: 1 });
  });
});

describe("snapshotFields", () => {
  it("names the time fields one by one exactly as TIME_FIELDS lists them", () => {
    expect([...UNROLLED_TIME_FIELDS]).toEqual(TIME_FIELDS);
  });

  it("reads every time field, in TIME_FIELDS order", () => {
    const all: Flight = record();
    TIME_FIELDS.forEach((field, i) => {
      all[field] = formatApiDateTime(T0 + i * 60_000, ZONE);
    });
    const times = snapshotFields(all, ZONE).times ?? {};
    expect(Object.keys(times)).toEqual(TIME_FIELDS);
    TIME_FIELDS.forEach((field, i) => {
      expect(times[field]).toBe(T0 + i * 60_000);
    });
  });

  it("sorts and de-duplicates lists, dropping empty and non-string entries", () => {
    const messy = record({
      publicFlightState: { flightStates: ["SCH", "DEL", "SCH", "", 5 as unknown as string] },
      route: { destinations: ["LHR", "CDG", "LHR"] },
    });
    const fields = snapshotFields(messy, ZONE);
    expect(fields.states).toEqual(["DEL", "SCH"]);
    expect(fields.route).toEqual(["CDG", "LHR"]);
    expect(
      snapshotFields(record({ route: { destinations: ["", ""] } }), ZONE).route,
    ).toBeUndefined();
  });

  it("reads a record with any one time field alone", () => {
    const timeless = (): Flight => {
      const r = record();
      for (const field of TIME_FIELDS) delete r[field];
      return r;
    };
    TIME_FIELDS.forEach((field, i) => {
      const one = timeless();
      one[field] = formatApiDateTime(T0 + i * 60_000, ZONE);
      expect(snapshotFields(one, ZONE).times).toStrictEqual({ [field]: T0 + i * 60_000 });
    });
    expect(snapshotFields(timeless(), ZONE)).not.toHaveProperty("times");
  });

  it("writes an aircraft type with either part missing", () => {
    const type = (iataMain?: string, iataSub?: string) =>
      snapshotFields(record({ aircraftType: { iataMain, iataSub } }), ZONE).aircraftType;
    expect(type("73H", "73W")).toBe("73H/73W");
    expect(type("73H", undefined)).toBe("73H/");
    expect(type(undefined, "73W")).toBe("/73W");
    expect(type(" ", undefined)).toBeUndefined();
  });

  it("sums up check-in: earliest opening, latest closing, every row and desk", () => {
    const desk = (position: number) => ({ position });
    const checkin = snapshotFields(
      record({
        checkinAllocations: {
          checkinAllocations: [
            {
              startTime: t(-120),
              endTime: t(-50),
              rows: { rows: [{ position: "13", desks: { desks: [desk(10), desk(2)] } }] },
            },
            {
              startTime: t(-180),
              endTime: t(-40),
              rows: { rows: [{ position: "12", desks: { desks: [desk(2), desk(1)] } }] },
            },
            { startTime: t(-150), endTime: t(-60) },
          ],
        },
      }),
      ZONE,
    ).checkin;
    expect(checkin).toStrictEqual({
      rows: ["12", "13"],
      desks: [1, 2, 10],
      opens: T0 - 180 * 60_000,
      closes: T0 - 40 * 60_000,
    });
  });

  it("keeps check-in known only in part, and none when the allocations say nothing", () => {
    const checkin = (
      allocations: NonNullable<Flight["checkinAllocations"]>["checkinAllocations"],
    ) =>
      snapshotFields(record({ checkinAllocations: { checkinAllocations: allocations } }), ZONE)
        .checkin;
    expect(checkin([{ endTime: t(-40) }])).toStrictEqual({
      rows: [],
      desks: [],
      closes: T0 - 40 * 60_000,
    });
    expect(checkin([{ startTime: t(-90) }])).toStrictEqual({
      rows: [],
      desks: [],
      opens: T0 - 90 * 60_000,
    });
    expect(checkin([{ rows: { rows: [{ position: "12" }] } }])).toStrictEqual({
      rows: ["12"],
      desks: [],
    });
    expect(
      checkin([{ rows: { rows: [{ position: "", desks: { desks: [{ position: 4 }] } }] } }]),
    ).toStrictEqual({ rows: [], desks: [4] });
    expect(checkin([{ rows: { rows: [] } }])).toBeUndefined();
    expect(checkin([])).toBeUndefined();
  });

  it("de-duplicates and cleans lists that come in order too", () => {
    const fields = snapshotFields(
      record({
        publicFlightState: { flightStates: ["DEL", "SCH", "SCH"] },
        route: { destinations: ["CDG", 7 as unknown as string] },
        baggageClaim: { belts: ["11", "12"] },
      }),
      ZONE,
    );
    expect(fields.states).toEqual(["DEL", "SCH"]);
    expect(fields.route).toEqual(["CDG"]);
    expect(fields.belts).toEqual(["11", "12"]);
    const odd = snapshotFields(record({ route: { destinations: [7 as unknown as string] } }), ZONE);
    expect(odd).not.toHaveProperty("route");
  });

  it("gives lists of its own, never the record's", () => {
    const flight = record({ baggageClaim: { belts: ["11", "12"] } });
    const fields = snapshotFields(flight, ZONE);
    flight.baggageClaim?.belts?.push("13");
    expect(fields.belts).toEqual(["11", "12"]);
  });

  it("lists no desk without a position", () => {
    const checkin = snapshotFields(
      record({
        checkinAllocations: {
          checkinAllocations: [
            { rows: { rows: [{ position: "12", desks: { desks: [{ position: 3 }, {}] } }] } },
          ],
        },
      }),
      ZONE,
    ).checkin;
    expect(checkin).toStrictEqual({ rows: ["12"], desks: [3] });
  });

  it("trims text fields and drops blank ones", () => {
    const fields = snapshotFields(record({ gate: " D7 ", pier: "  " }), ZONE);
    expect(fields.gate).toBe("D7");
    expect(fields).not.toHaveProperty("pier");
  });
});

describe("identityOf", () => {
  it("is what change events carry of a snapshot: its identity, without fields or version", () => {
    const snapshot: FlightSnapshot = {
      key: "D:2026-11-21:KL1234",
      id: "1",
      mainFlight: "KL1234",
      flightNames: ["KL1234", "DL9341"],
      direction: "D",
      scheduleDate: "2026-11-21",
      scheduled: T0,
      prefixIATA: "KL",
      prefixICAO: "KLM",
      operational: true,
      version: T0 - 60_000,
      fields: { gate: "D7" },
    };
    const { version: _v, fields: _f, ...identity } = snapshot;
    expect(identityOf(snapshot)).toStrictEqual(identity);
  });

  it("leaves out what the snapshot does not know, keeping a flag that is false", () => {
    const bare: FlightSnapshot = {
      key: "?:?:KL1234",
      id: "",
      mainFlight: "KL1234",
      flightNames: ["KL1234"],
      operational: false,
      version: 0,
      fields: {},
    };
    expect(identityOf(bare)).toStrictEqual({
      key: "?:?:KL1234",
      id: "",
      mainFlight: "KL1234",
      flightNames: ["KL1234"],
      operational: false,
    });
    expect(identityOf({ ...bare, scheduled: 0 })).toHaveProperty("scheduled", 0);
    const { operational: _o, ...unflagged } = bare;
    expect(identityOf(unflagged)).not.toHaveProperty("operational");
  });
});

function record(overrides: Partial<Flight> = {}): Flight {
  return {
    id: "123456789012345678",
    flightName: "KL1234",
    mainFlight: "KL1234",
    flightDirection: "D",
    scheduleDate: "2026-11-21",
    scheduleDateTime: formatApiDateTime(T0, ZONE),
    lastUpdatedAt: formatApiDateTime(T0 - 3_600_000, ZONE),
    gate: "D7",
    pier: "D",
    terminal: 2,
    publicFlightState: { flightStates: ["SCH"] },
    publicEstimatedOffBlockTime: formatApiDateTime(T0, ZONE),
    expectedTimeBoarding: formatApiDateTime(T0 - 40 * 60_000, ZONE),
    baggageClaim: { belts: ["12"] },
    codeshares: { codeshares: ["DL9341"] },
    aircraftType: { iataMain: "73H", iataSub: "73H" },
    aircraftRegistration: "PHBXA",
    route: { destinations: ["LHR"] },
    serviceType: "J",
    ...overrides,
  };
}
