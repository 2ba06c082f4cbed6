import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import type { Change } from "../../src/diff/change.js";
import { toChangeEvent } from "../../src/diff/change.js";
import { foldCodeshares, type ObservedFlight } from "../../src/diff/codeshare-fold.js";
import { diffFlight, removedChange } from "../../src/diff/flight-diff.js";
import {
  type FlightSnapshot,
  type SnapshotFields,
  TIME_FIELDS,
} from "../../src/diff/flight-snapshot.js";
import { formatApiDateTime, parseApiDateTime } from "../../src/time/local-time.js";

const ZONE = "Europe/Amsterdam";
const T0 = Date.parse("2026-11-21T10:00:00Z");
const at = (minutes: number): string => formatApiDateTime(T0 + minutes * 60_000, ZONE);

/** A departure KL1234 with every diffable field present. */
function departure(overrides: Partial<Flight> = {}): Flight {
  return {
    id: "123456789012345678",
    flightName: "KL1234",
    mainFlight: "KL1234",
    flightDirection: "D",
    isOperationalFlight: true,
    scheduleDate: "2026-11-21",
    scheduleTime: "11:00:00",
    scheduleDateTime: at(0),
    lastUpdatedAt: at(-60),
    gate: "D7",
    pier: "D",
    terminal: 2,
    publicFlightState: { flightStates: ["SCH"] },
    publicEstimatedOffBlockTime: at(0),
    baggageClaim: { belts: ["12"] },
    codeshares: { codeshares: ["DL9341", "AF8123"] },
    aircraftType: { iataMain: "73H", iataSub: "73H" },
    aircraftRegistration: "PHBXA",
    route: { destinations: ["LHR"], eu: "E", visa: false },
    serviceType: "J",
    checkinAllocations: {
      checkinAllocations: [
        {
          startTime: at(-180),
          endTime: at(-40),
          rows: {
            rows: [{ position: "12", desks: { desks: [{ position: 1 }, { position: 2 }] } }],
          },
        },
      ],
    },
    ...overrides,
  };
}

const observe = (flight: Flight): ObservedFlight => {
  const [only] = foldCodeshares([flight], ZONE);
  if (!only) throw new Error("no observation");
  return only;
};

const snapshotOf = (flight: Flight): FlightSnapshot =>
  diffFlight(undefined, observe(flight), ZONE).snapshot;

const changesBetween = (a: Flight, b: Flight): Change[] =>
  diffFlight(snapshotOf(a), observe(b), ZONE).changes;

describe("diffFlight: semantic changes", () => {
  it("reports a new flight as added, never as stale", () => {
    const result = diffFlight(undefined, observe(departure()), ZONE);
    expect(result.changes).toEqual([{ kind: "flight", field: "flight", action: "added" }]);
    expect(result.stale).toBe(false);
  });

  it("reports a flight no longer listed upstream as removed", () => {
    expect(removedChange()).toStrictEqual({ kind: "flight", field: "flight", action: "removed" });
  });

  it("reports a gate change with old and new value", () => {
    const later = departure({ gate: "D9", lastUpdatedAt: at(-30) });
    expect(changesBetween(departure(), later)).toEqual([
      { kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9" },
    ]);
  });

  it("reports a gate that appears for the first time as assigned, with no old value", () => {
    const before = departure({ gate: undefined });
    expect(changesBetween(before, departure({ lastUpdatedAt: at(-30) }))).toStrictEqual([
      { kind: "gate", field: "gate", action: "assigned", new: "D7" },
    ]);
  });

  it("reports the first states of a flight as added, and nothing withdrawn", () => {
    const before = departure({ publicFlightState: undefined });
    const later = departure({ publicFlightState: { flightStates: ["SCH", "DEL"] } });
    expect(changesBetween(before, later)).toStrictEqual([
      {
        kind: "state",
        field: "publicFlightState",
        action: "added",
        state: "DEL",
        new: ["DEL", "SCH"],
      },
      {
        kind: "state",
        field: "publicFlightState",
        action: "added",
        state: "SCH",
        new: ["DEL", "SCH"],
      },
    ]);
  });

  it("reports a time given for the first time as assigned: no old value, no shift", () => {
    const before = departure({ publicEstimatedOffBlockTime: undefined });
    const later = departure({ publicEstimatedOffBlockTime: at(10) });
    expect(changesBetween(before, later)).toStrictEqual([
      {
        kind: "time",
        field: "publicEstimatedOffBlockTime",
        action: "assigned",
        new: at(10),
        delayMinutes: 10,
      },
    ]);
  });

  it("gives no delay for a flight without a scheduled time", () => {
    const unscheduled = { scheduleDateTime: undefined, scheduleTime: undefined };
    const before = departure(unscheduled);
    const later = departure({ ...unscheduled, publicEstimatedOffBlockTime: at(25) });
    expect(changesBetween(before, later)).toStrictEqual([
      {
        kind: "time",
        field: "publicEstimatedOffBlockTime",
        action: "changed",
        old: at(0),
        new: at(25),
        shiftMinutes: 25,
      },
    ]);
  });

  it("writes times in the zone it is given, also after diffing the same instant in another", () => {
    const later = departure({ publicEstimatedOffBlockTime: at(25) });
    const amsterdam = changesBetween(departure(), later);
    const newYork = diffFlight(
      diffFlight(undefined, observe(departure()), "America/New_York").snapshot,
      observe(later),
      "America/New_York",
    ).changes;
    const again = changesBetween(departure(), later);
    expect(amsterdam[0]?.new).toBe("2026-11-21T11:25:00.000+01:00");
    expect(newYork[0]?.new).toBe("2026-11-21T05:25:00.000-05:00");
    expect(again[0]?.new).toBe(amsterdam[0]?.new);
  });

  it("reports each state added and withdrawn, e.g. un-cancellation", () => {
    const cancelled = departure({ publicFlightState: { flightStates: ["CNX"] } });
    const back = departure({ publicFlightState: { flightStates: ["SCH", "DEL"] } });
    const changes = changesBetween(cancelled, back);
    expect(changes.map((c) => [c.state, c.action])).toEqual([
      ["DEL", "added"],
      ["SCH", "added"],
      ["CNX", "withdrawn"],
    ]);
  });

  it("reports a time change with its shift and the delay against schedule", () => {
    const later = departure({ publicEstimatedOffBlockTime: at(25) });
    expect(changesBetween(departure(), later)).toEqual([
      {
        kind: "time",
        field: "publicEstimatedOffBlockTime",
        action: "changed",
        old: at(0),
        new: at(25),
        shiftMinutes: 25,
        delayMinutes: 25,
      },
    ]);
  });

  /** Every other reported field of `departure()` moved to a new value. */
  const otherFieldsChanged: Partial<Flight> = {
    baggageClaim: { belts: ["14"] },
    codeshares: { codeshares: ["DL9341"] },
    route: { destinations: ["LHR", "DUB"] },
    aircraftType: { iataMain: "320", iataSub: "32A" },
    aircraftRegistration: "PHEXA",
    terminal: 3,
    pier: "E",
    serviceType: "C",
  };

  it("reports belts, codeshares, route, aircraft, registration, terminal, pier, service type", () => {
    const later = departure(otherFieldsChanged);
    const kinds = changesBetween(departure(), later).map((c) => c.kind);
    expect(kinds.sort()).toEqual(
      [
        "aircraftType",
        "belt",
        "codeshares",
        "pier",
        "registration",
        "route",
        "serviceType",
        "terminal",
      ].sort(),
    );
  });

  it("reports check-in changes: desks, rows, opening and closing", () => {
    const later = departure({
      checkinAllocations: {
        checkinAllocations: [
          {
            startTime: at(-150),
            endTime: at(-40),
            rows: { rows: [{ position: "14", desks: { desks: [{ position: 5 }] } }] },
          },
        ],
      },
    });
    const [change] = changesBetween(departure(), later);
    expect(change).toMatchObject({
      kind: "checkin",
      action: "changed",
      old: { rows: ["12"], desks: [1, 2], opens: T0 - 180 * 60_000 },
      new: { rows: ["14"], desks: [5], opens: T0 - 150 * 60_000 },
    });
  });

  /** A check-in allocation of row 12, desks 1–2, opening and closing at these minutes. */
  const checkin = (opens: number, closes: number): Flight["checkinAllocations"] => ({
    checkinAllocations: [
      {
        startTime: at(opens),
        endTime: at(closes),
        rows: { rows: [{ position: "12", desks: { desks: [{ position: 1 }, { position: 2 }] } }] },
      },
    ],
  });

  it("reports a check-in allocation that appears for the first time as assigned", () => {
    const before = departure({ checkinAllocations: undefined });
    expect(changesBetween(before, departure({ lastUpdatedAt: at(-30) }))).toEqual([
      {
        kind: "checkin",
        field: "checkinAllocations",
        action: "assigned",
        new: { rows: ["12"], desks: [1, 2], opens: T0 - 180 * 60_000, closes: T0 - 40 * 60_000 },
      },
    ]);
  });

  it("reports a check-in that only opens earlier, or only closes later", () => {
    const opensEarlier = changesBetween(
      departure({ checkinAllocations: checkin(-180, -40) }),
      departure({ checkinAllocations: checkin(-200, -40) }),
    );
    expect(opensEarlier).toMatchObject([
      {
        kind: "checkin",
        field: "checkinAllocations",
        action: "changed",
        old: { opens: T0 - 180 * 60_000, closes: T0 - 40 * 60_000 },
        new: { opens: T0 - 200 * 60_000, closes: T0 - 40 * 60_000 },
      },
    ]);
    const closesLater = changesBetween(
      departure({ checkinAllocations: checkin(-180, -40) }),
      departure({ checkinAllocations: checkin(-180, -35) }),
    );
    expect(closesLater).toMatchObject([
      {
        kind: "checkin",
        old: { closes: T0 - 40 * 60_000 },
        new: { closes: T0 - 35 * 60_000 },
      },
    ]);
  });

  it("reports only what changed in a state list: SCH kept, DEL added", () => {
    const changes = changesBetween(
      departure(),
      departure({ publicFlightState: { flightStates: ["SCH", "DEL"] } }),
    );
    expect(changes).toEqual([
      {
        kind: "state",
        field: "publicFlightState",
        action: "added",
        state: "DEL",
        old: ["SCH"],
        new: ["DEL", "SCH"],
      },
    ]);
  });

  it("names the upstream field of every change it reports", () => {
    const later = departure({
      ...otherFieldsChanged,
      gate: "D9",
      checkinAllocations: checkin(-170, -40),
    });
    const fields = Object.fromEntries(
      changesBetween(departure(), later).map((c) => [c.kind, c.field]),
    );
    expect(fields).toEqual({
      gate: "gate",
      belt: "baggageClaim",
      codeshares: "codeshares",
      route: "route",
      aircraftType: "aircraftType",
      registration: "aircraftRegistration",
      terminal: "terminal",
      pier: "pier",
      serviceType: "serviceType",
      checkin: "checkinAllocations",
    });
  });

  it("ignores noise: lastUpdatedAt bump, reordered arrays, +0100 vs +01:00", () => {
    const base = departure();
    const noisy = departure({
      lastUpdatedAt: at(-1),
      codeshares: { codeshares: ["AF8123", "DL9341"] },
      publicEstimatedOffBlockTime: at(0).replace("+01:00", "+0100"),
      checkinAllocations: {
        checkinAllocations: [
          {
            startTime: at(-180).replace("+01:00", "+0100"),
            endTime: at(-40),
            rows: {
              rows: [{ position: "12", desks: { desks: [{ position: 2 }, { position: 1 }] } }],
            },
          },
        ],
      },
    });
    expect(changesBetween(base, noisy)).toEqual([]);
  });

  it("treats missing and emptied fields as unknown, and keeps the last known value", () => {
    const gone = departure({
      gate: undefined,
      baggageClaim: { belts: [] },
      publicFlightState: undefined,
    });
    const first = diffFlight(snapshotOf(departure()), observe(gone), ZONE);
    expect(first.changes).toEqual([]);
    expect(first.snapshot.fields.gate).toBe("D7");
    // The same gate coming back is still no change; a different one is.
    expect(diffFlight(first.snapshot, observe(departure()), ZONE).changes).toEqual([]);
    expect(
      diffFlight(first.snapshot, observe(departure({ gate: "D8" })), ZONE).changes,
    ).toMatchObject([{ kind: "gate", old: "D7", new: "D8" }]);
  });

  it("ignores an observation older than the snapshot", () => {
    const newer = snapshotOf(departure({ lastUpdatedAt: at(-10) }));
    const result = diffFlight(
      newer,
      observe(departure({ gate: "X1", lastUpdatedAt: at(-20) })),
      ZONE,
    );
    expect(result).toMatchObject({ stale: true, changes: [] });
    expect(result.snapshot).toBe(newer);
  });
});

describe("diffFlight: what the snapshot keeps", () => {
  /** The codeshare record AF8123 of KL1234, alone (its operating record not in the read). */
  const codeshareOnly = (overrides: Partial<Flight> = {}): Flight =>
    departure({
      id: "223456789012345678",
      flightName: "AF8123",
      mainFlight: "KL1234",
      codeshares: undefined,
      lastUpdatedAt: at(-30),
      ...overrides,
    });

  it("adds a flight number seen later (a codeshare record alone) to the numbers it is known by", () => {
    const before = snapshotOf(departure({ codeshares: { codeshares: ["DL9341"] } }));
    expect(before.flightNames).toEqual(["KL1234", "DL9341"]);
    const { snapshot } = diffFlight(before, observe(codeshareOnly()), ZONE);
    // The operating number first, then the others in order, as a fold lists them.
    expect(snapshot.flightNames).toEqual(["KL1234", "AF8123", "DL9341"]);
    // Seen again, the numbers stay as they are.
    const again = diffFlight(snapshot, observe(codeshareOnly()), ZONE).snapshot;
    expect(again.flightNames).toEqual(["KL1234", "AF8123", "DL9341"]);
  });

  it("keeps every number it knew when a later read lists fewer", () => {
    const before = snapshotOf(departure());
    const fewer = observe(departure({ codeshares: { codeshares: ["DL9341"] } }));
    expect(diffFlight(before, fewer, ZONE).snapshot.flightNames).toEqual(before.flightNames);
  });

  it("takes identity from the operating record: a new id, schedule or carrier replaces the old", () => {
    const before = snapshotOf(departure({ prefixIATA: "KL", prefixICAO: "KLM" }));
    const moved = departure({
      id: "999456789012345678",
      scheduleDateTime: at(30),
      prefixIATA: "HV",
      prefixICAO: "TRA",
      isOperationalFlight: false,
      lastUpdatedAt: at(-30),
    });
    const { snapshot } = diffFlight(before, observe(moved), ZONE);
    expect(snapshot).toMatchObject({
      id: "999456789012345678",
      scheduled: T0 + 30 * 60_000,
      prefixIATA: "HV",
      prefixICAO: "TRA",
      operational: false,
    });
  });

  it("keeps what it knew of the identity when the operating record leaves it out", () => {
    const before = snapshotOf(
      departure({ prefixIATA: "KL", prefixICAO: "KLM", isOperationalFlight: true }),
    );
    const sparse = departure({
      id: "",
      prefixIATA: undefined,
      prefixICAO: undefined,
      isOperationalFlight: undefined,
      scheduleDateTime: undefined,
      lastUpdatedAt: at(-30),
    });
    const { snapshot } = diffFlight(before, observe(sparse), ZONE);
    expect(snapshot).toMatchObject({
      id: "123456789012345678",
      direction: "D",
      scheduleDate: "2026-11-21",
      scheduled: before.scheduled,
      prefixIATA: "KL",
      prefixICAO: "KLM",
      operational: true,
    });
  });

  it("carries no carrier or operational flag that no record gave", () => {
    const before = snapshotOf(departure({ isOperationalFlight: undefined }));
    const { snapshot } = diffFlight(
      before,
      observe(departure({ isOperationalFlight: undefined })),
      ZONE,
    );
    expect("prefixIATA" in snapshot).toBe(false);
    expect("prefixICAO" in snapshot).toBe(false);
    expect("operational" in snapshot).toBe(false);
  });

  it("keeps a flight known without a scheduled time, and adds no schedule it never saw", () => {
    const unscheduled = { scheduleDateTime: undefined, scheduleTime: undefined };
    const before = snapshotOf(departure(unscheduled));
    expect(before.scheduled).toBeUndefined();
    const { snapshot, changes } = diffFlight(
      before,
      observe(departure({ ...unscheduled, gate: "D9", lastUpdatedAt: at(-30) })),
      ZONE,
    );
    expect(changes).toMatchObject([{ kind: "gate", new: "D9" }]);
    expect(snapshot).toMatchObject({
      key: before.key,
      id: before.id,
      direction: "D",
      scheduleDate: "2026-11-21",
      version: parseApiDateTime(at(-30), ZONE),
    });
    expect(snapshot.fields.gate).toBe("D9");
    expect("scheduled" in snapshot).toBe(false);
  });

  it("keeps a flight known without a direction, adding none", () => {
    const bare = departure({ flightDirection: undefined });
    const before = snapshotOf(bare);
    const { snapshot, stale } = diffFlight(before, observe({ ...bare, gate: "D9" }), ZONE);
    expect(stale).toBe(false);
    expect(snapshot.fields.gate).toBe("D9");
    expect(snapshot).toMatchObject({ scheduleDate: "2026-11-21", scheduled: before.scheduled });
    expect("direction" in snapshot).toBe(false);
  });

  it("keeps a flight known without any schedule, adding no schedule date", () => {
    const bare = departure({
      scheduleDate: undefined,
      scheduleDateTime: undefined,
      scheduleTime: undefined,
    });
    const before = snapshotOf(bare);
    const { snapshot } = diffFlight(before, observe({ ...bare, gate: "D9" }), ZONE);
    expect(snapshot.fields.gate).toBe("D9");
    expect(snapshot.direction).toBe("D");
    expect("scheduleDate" in snapshot).toBe(false);
    expect("scheduled" in snapshot).toBe(false);
  });

  it("keeps the operating record's identity through a codeshare-only sighting", () => {
    const before = snapshotOf(departure());
    const { snapshot } = diffFlight(before, observe(codeshareOnly({ gate: "D9" })), ZONE);
    expect(snapshot).toMatchObject({
      key: before.key,
      id: "123456789012345678",
      mainFlight: "KL1234",
      direction: "D",
      scheduleDate: "2026-11-21",
      scheduled: before.scheduled,
    });
    expect(snapshot.fields.gate).toBe("D9");
  });

  it("diffs records without a lastUpdatedAt (version 0), and keeps the newest version it knew", () => {
    const before = snapshotOf(departure());
    const unstamped = observe(departure({ gate: "D9", lastUpdatedAt: undefined }));
    expect(unstamped.version).toBe(0);
    const result = diffFlight(before, unstamped, ZONE);
    expect(result.stale).toBe(false);
    expect(result.changes).toEqual([
      { kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9" },
    ]);
    expect(result.snapshot.version).toBe(before.version);
  });
});

describe("foldCodeshares", () => {
  const operating = departure();
  const codeshare = (name: string, id: string): Flight =>
    departure({
      id,
      flightName: name,
      isOperationalFlight: false,
      codeshares: undefined,
      prefixIATA: name.slice(0, 2),
    });

  it("folds codeshare records into one observation with every flight number", () => {
    const folded = foldCodeshares(
      [
        codeshare("DL9341", "200000000000000001"),
        operating,
        codeshare("AF8123", "200000000000000002"),
      ],
      ZONE,
    );
    expect(folded).toHaveLength(1);
    expect(folded[0]?.identity).toMatchObject({
      id: operating.id,
      mainFlight: "KL1234",
      flightNames: ["KL1234", "AF8123", "DL9341"],
    });
    expect(folded[0]?.fromOperating).toBe(true);
  });

  it("tells codeshares by mainFlight even when they are marked operational, as real data does", () => {
    const marked = {
      ...codeshare("DL9341", "200000000000000001"),
      isOperationalFlight: true,
      gate: "Z9",
    };
    const folded = foldCodeshares([marked, operating], ZONE);
    expect(folded).toHaveLength(1);
    expect(folded[0]?.identity.id).toBe(operating.id);
    expect(folded[0]?.fields.gate).toBe("D7");
    expect(foldCodeshares([marked], ZONE)[0]?.fromOperating).toBe(false);
  });

  it("keeps flights of other days or directions apart", () => {
    const tomorrow = departure({ id: "9", scheduleDate: "2026-11-22" });
    const arrival = departure({ id: "8", flightDirection: "A" });
    expect(foldCodeshares([operating, tomorrow, arrival], ZONE)).toHaveLength(3);
  });

  it("never yields more than one observation per physical flight, in any order (property)", () => {
    const names = ["DL9341", "AF8123", "KE5678", "MU1234"];
    fc.assert(
      fc.property(
        fc.shuffledSubarray(names),
        fc.boolean(),
        fc.nat(),
        (partners, withOperating, turn) => {
          const records = partners.map((n, i) => codeshare(n, `30000000000000000${i}`));
          if (withOperating) records.push(operating);
          const cut = records.length > 0 ? turn % records.length : 0;
          const folded = foldCodeshares([...records.slice(cut), ...records.slice(0, cut)], ZONE);
          expect(folded.length).toBe(records.length > 0 ? 1 : 0);
          if (folded[0]) {
            expect(folded[0].identity.flightNames[0]).toBe("KL1234");
            for (const n of partners) expect(folded[0].identity.flightNames).toContain(n);
          }
        },
      ),
    );
  });

  it("gives one change, not one per codeshare, when the physical flight changes", () => {
    const before = foldCodeshares([operating, codeshare("DL9341", "2")], ZONE)[0]!;
    const snap = diffFlight(undefined, before, ZONE).snapshot;
    const after = foldCodeshares(
      [departure({ gate: "E1" }), { ...codeshare("DL9341", "2"), gate: "E1" }],
      ZONE,
    )[0]!;
    expect(diffFlight(snap, after, ZONE).changes).toHaveLength(1);
  });
});

describe("change event ids", () => {
  it("are equal for the same change at the same version, different otherwise", () => {
    const identity = snapshotOf(departure());
    const change: Change = { kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9" };
    const a = toChangeEvent(change, identity, 1000);
    expect(toChangeEvent({ ...change }, identity, 1000).id).toBe(a.id);
    expect(toChangeEvent(change, identity, 1001).id).not.toBe(a.id);
    expect(toChangeEvent({ ...change, new: "D8" }, identity, 1000).id).not.toBe(a.id);
  });
});

// --- properties of the differ over random records -----------------------------------

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined });
const instant = fc.integer({ min: T0 - 6 * 3_600_000, max: T0 + 6 * 3_600_000 });
const timeText = instant.chain((ms) =>
  fc.constantFrom(
    formatApiDateTime(ms, ZONE),
    formatApiDateTime(ms, ZONE).replace(/:(\d\d)$/, "$1"),
  ),
);
const codes = (values: string[]): fc.Arbitrary<string[]> => fc.subarray(values);

/** Random departures of one physical flight, any field possibly absent. */
const randomFlight: fc.Arbitrary<Flight> = fc
  .record({
    gate: maybe(fc.constantFrom("D1", "D7", "E3", "F9")),
    pier: maybe(fc.constantFrom("D", "E", "F")),
    terminal: maybe(fc.integer({ min: 1, max: 3 })),
    states: maybe(codes(["SCH", "DEL", "GTO", "BRD", "GCL", "GTD", "DEP", "CNX"])),
    belts: maybe(codes(["11", "12", "13", "14"])),
    route: maybe(codes(["LHR", "CDG", "JFK"])),
    registration: maybe(fc.constantFrom("PHBXA", "PHBXB")),
    aircraft: maybe(fc.constantFrom("73H", "320", "E90")),
    serviceType: maybe(fc.constantFrom("J", "C", "F")),
    codeshares: maybe(codes(["DL9341", "AF8123", "KE5601"])),
    checkin: maybe(
      fc.record({
        start: maybe(timeText),
        end: maybe(timeText),
        rows: codes(["11", "12", "13"]),
        desks: fc.subarray([1, 2, 3, 14]),
      }),
    ),
    times: fc.tuple(...TIME_FIELDS.map(() => maybe(timeText))),
  })
  .map((r) => {
    const flight = departure({
      gate: r.gate,
      pier: r.pier,
      terminal: r.terminal,
      publicFlightState: r.states ? { flightStates: r.states } : undefined,
      baggageClaim: r.belts ? { belts: r.belts } : undefined,
      route: r.route ? { destinations: r.route } : undefined,
      aircraftRegistration: r.registration,
      aircraftType: r.aircraft ? { iataMain: r.aircraft, iataSub: r.aircraft } : undefined,
      serviceType: r.serviceType,
      codeshares: r.codeshares ? { codeshares: r.codeshares } : undefined,
      checkinAllocations: r.checkin
        ? {
            checkinAllocations: [
              {
                ...(r.checkin.start ? { startTime: r.checkin.start } : {}),
                ...(r.checkin.end ? { endTime: r.checkin.end } : {}),
                rows: {
                  rows: r.checkin.rows.map((position, i) => ({
                    position,
                    desks: {
                      desks: r.checkin?.desks.slice(i, i + 2).map((d) => ({ position: d })) ?? [],
                    },
                  })),
                },
              },
            ],
          }
        : undefined,
      publicEstimatedOffBlockTime: undefined,
    });
    TIME_FIELDS.forEach((field, i) => {
      const value = r.times[i];
      if (value !== undefined) flight[field] = value;
    });
    return flight;
  });

/**
 * Applies reported changes to known fields, as a consumer of the events would: each
 * value change must name the field it moves and the value it moves from; states are
 * added and withdrawn one by one, not taken whole from the change.
 */
function applyChanges(known: SnapshotFields, changes: Change[]): SnapshotFields {
  const out: SnapshotFields = structuredClone(known);
  for (const c of changes) {
    expect(c.field).toBe(UPSTREAM_FIELD[c.kind] ?? c.field);
    if (c.kind !== "state" && c.kind !== "time") {
      const was = out[SNAPSHOT_FIELD[c.kind] as keyof SnapshotFields];
      expect(c.action).toBe(was === undefined ? "assigned" : "changed");
      expect(c.old).toEqual(was);
    }
    switch (c.kind) {
      case "gate":
      case "pier":
      case "serviceType":
        out[c.kind] = c.new as string;
        break;
      case "terminal":
        out.terminal = c.new as number;
        break;
      case "registration":
        out.registration = c.new as string;
        break;
      case "aircraftType":
        out.aircraftType = c.new as string;
        break;
      case "state": {
        const states = new Set(out.states);
        expect(states.has(c.state as string)).toBe(c.action === "withdrawn");
        if (c.action === "added") states.add(c.state as string);
        else states.delete(c.state as string);
        // Every state change of one diff carries the list before it and after all of them.
        expect(c.old).toEqual(known.states);
        out.states = [...states].sort();
        break;
      }
      case "checkin":
        out.checkin = c.new as SnapshotFields["checkin"];
        break;
      case "belt":
        out.belts = c.new as string[];
        break;
      case "route":
        out.route = c.new as string[];
        break;
      case "codeshares":
        out.codeshares = c.new as string[];
        break;
      case "time": {
        const field = c.field as keyof NonNullable<SnapshotFields["times"]>;
        const was = out.times?.[field];
        expect(c.action).toBe(was === undefined ? "assigned" : "changed");
        expect(c.old === undefined ? undefined : parseApiDateTime(c.old as string, ZONE)).toBe(was);
        out.times = { ...out.times, [c.field]: parseApiDateTime(c.new as string, ZONE) };
        break;
      }
      default:
        throw new Error(`a change of kind ${c.kind} between two sightings of one flight`);
    }
  }
  // The states a change lists as the new list are the list after all of them.
  for (const c of changes) if (c.kind === "state") expect(c.new).toEqual(out.states);
  return out;
}

/** The upstream field each kind of change names (time changes name their own). */
const UPSTREAM_FIELD: Partial<Record<Change["kind"], string>> = {
  gate: "gate",
  pier: "pier",
  terminal: "terminal",
  aircraftType: "aircraftType",
  registration: "aircraftRegistration",
  serviceType: "serviceType",
  state: "publicFlightState",
  belt: "baggageClaim",
  codeshares: "codeshares",
  route: "route",
  checkin: "checkinAllocations",
};

/** The snapshot field each kind of value change moves. */
const SNAPSHOT_FIELD: Partial<Record<Change["kind"], keyof SnapshotFields>> = {
  gate: "gate",
  pier: "pier",
  terminal: "terminal",
  aircraftType: "aircraftType",
  registration: "registration",
  serviceType: "serviceType",
  belt: "belts",
  codeshares: "codeshares",
  route: "route",
  checkin: "checkin",
};

describe("diffFlight properties", () => {
  it("diff(a, a) is empty", () => {
    fc.assert(
      fc.property(randomFlight, (a) => {
        expect(changesBetween(a, a)).toEqual([]);
      }),
    );
  });

  it("absent fields never yield changes", () => {
    fc.assert(
      fc.property(
        randomFlight,
        fc.subarray([
          "gate",
          "pier",
          "terminal",
          "publicFlightState",
          "baggageClaim",
          "route",
          "aircraftRegistration",
          ...TIME_FIELDS,
        ]),
        (a, dropped) => {
          const b: Flight = { ...a };
          for (const key of dropped) delete b[key];
          expect(changesBetween(a, b)).toEqual([]);
        },
      ),
    );
  });

  it("applying the reported changes to a gives what is known after b", () => {
    fc.assert(
      fc.property(randomFlight, randomFlight, (a, b) => {
        const snap = snapshotOf(a);
        const result = diffFlight(snap, observe(b), ZONE);
        expect(applyChanges(snap.fields, result.changes)).toEqual(result.snapshot.fields);
        // And seeing b again reports nothing more.
        expect(diffFlight(result.snapshot, observe(b), ZONE).changes).toEqual([]);
      }),
    );
  });
});
