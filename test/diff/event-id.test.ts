import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Change, type ChangeEvent, toChangeEvent } from "../../src/diff/change.js";
import { eventId } from "../../src/diff/event-id.js";
import type { FlightIdentity } from "../../src/diff/flight-snapshot.js";

const KEY = "D:2026-11-21:KL1234";
const V = 1_763_715_600_000;

describe("eventId", () => {
  it("is 22 base64url characters, pinned for a known change (a new scheme must be deliberate)", () => {
    expect(eventId(KEY, "gate", "changed", undefined, "D7", "D9", V)).toBe(
      "erbH85DQPzY1G5TQfVa_5Q",
    );
    expect(eventId(KEY, "publicFlightState", "added", "DEL", ["SCH"], ["DEL", "SCH"], V)).toBe(
      "0-5069Q5aG0U60fnJQ986A",
    );
    expect(eventId(KEY, "flight", "added", undefined, undefined, undefined, 0)).toBe(
      "QeW8vQABxgukQDwtUZIdaA",
    );
  });

  it("changes with every component", () => {
    const base = eventId(KEY, "gate", "changed", undefined, "D7", "D9", V);
    const variants = [
      eventId("D:2026-11-21:KL1235", "gate", "changed", undefined, "D7", "D9", V),
      eventId(KEY, "pier", "changed", undefined, "D7", "D9", V),
      eventId(KEY, "gate", "assigned", undefined, "D7", "D9", V),
      eventId(KEY, "gate", "changed", "BRD", "D7", "D9", V),
      eventId(KEY, "gate", "changed", undefined, "D8", "D9", V),
      eventId(KEY, "gate", "changed", undefined, "D7", "D8", V),
      eventId(KEY, "gate", "changed", undefined, "D7", "D9", V + 1),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it("tells apart values that would read alike if simply concatenated or stringified", () => {
    const ids = [
      eventId(KEY, "ab", "c", undefined, undefined, undefined, V),
      eventId(KEY, "a", "bc", undefined, undefined, undefined, V),
      eventId(KEY, "gate", "changed", undefined, "1", 1, V),
      eventId(KEY, "gate", "changed", undefined, 1, "1", V),
      eventId(KEY, "gate", "changed", undefined, "null", 1, V),
      eventId(KEY, "gate", "changed", undefined, ["a", "b"], 1, V),
      eventId(KEY, "gate", "changed", undefined, ["a,b"], 1, V),
      eventId(KEY, "gate", "changed", undefined, "a,b", 1, V),
      eventId(KEY, "gate", "changed", undefined, [["a"], "b"], 1, V),
      eventId(KEY, "gate", "changed", undefined, ["a", ["b"]], 1, V),
      eventId(KEY, "gate", "changed", undefined, [], 1, V),
      eventId(KEY, "gate", "changed", undefined, [""], 1, V),
      eventId(KEY, "gate", "changed", undefined, "", 1, V),
      eventId(KEY, "gate", "changed", undefined, 1.5, 1, V),
      eventId(KEY, "gate", "changed", undefined, "1.5", 1, V),
      eventId(KEY, "gate", "changed", undefined, -1, 1, V),
      eventId(KEY, "gate", "changed", undefined, 2 ** 32 - 1, 1, V),
      eventId(KEY, "gate", "changed", undefined, { rows: [], desks: [1] }, 1, V),
      eventId(KEY, "gate", "changed", undefined, '{"rows":[],"desks":[1]}', 1, V),
      eventId(KEY, "gate", "changed", undefined, "\u00e9", 1, V),
      eventId(KEY, "gate", "changed", undefined, "\u00e9\u0000", 1, V),
      eventId(KEY, "gate", "changed", undefined, "\u0100", 1, V),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("is pinned for large integers, fractions and check-in summaries too", () => {
    expect(eventId(KEY, "terminal", "changed", undefined, 2 ** 40 + 5, -(2 ** 33) - 7, V)).toBe(
      "YCPbZTuet_I7KHsJFGZ4WQ",
    );
    expect(eventId(KEY, "terminal", "changed", undefined, 1.5, 2.25, V)).toBe(
      "inwKi7aUducIVYLAm0nAhA",
    );
    const checkin = { rows: ["12"], desks: [1, 2], opens: 5 };
    expect(
      eventId(KEY, "checkinAllocations", "changed", undefined, checkin, { rows: [], desks: [] }, V),
    ).toBe("EpLGkL69ES2Ntx59REHeKg");
  });

  it("tells apart numbers that are equal as 32-bit integers, and check-ins that differ", () => {
    const ids = [
      eventId(KEY, "terminal", "changed", undefined, 1, 2, V),
      eventId(KEY, "terminal", "changed", undefined, 1.5, 2, V),
      eventId(KEY, "terminal", "changed", undefined, 2 ** 32 + 1, 2, V),
      eventId(KEY, "terminal", "changed", undefined, 2 ** 53 + 2, 2, V),
      eventId(KEY, "terminal", "changed", undefined, { rows: ["1"], desks: [] }, 2, V),
      eventId(KEY, "terminal", "changed", undefined, { rows: ["2"], desks: [] }, 2, V),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("treats a missing value and null alike, as the JSON basis of the first design did", () => {
    expect(eventId(KEY, "gate", "assigned", undefined, undefined, "D9", V)).toBe(
      eventId(KEY, "gate", "assigned", null as unknown as undefined, null, "D9", V),
    );
  });

  it("is a function of its inputs, and distinct inputs give distinct ids (property)", () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 30 }),
      fc.string({ unit: "binary", maxLength: 8 }),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }),
    );
    const input = fc.tuple(
      fc.string({ maxLength: 24 }),
      fc.constantFrom("gate", "publicFlightState", "estimatedLandingTime"),
      fc.constantFrom("assigned", "changed", "added", "withdrawn"),
      fc.option(fc.constantFrom("BRD", "CNX", "DEL"), { nil: undefined }),
      value,
      value,
      fc.integer({ min: 0, max: 2 ** 50 }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(input, { selector: canonical, maxLength: 200 }), (inputs) => {
        const ids = inputs.map((t) => eventId(...t));
        expect(new Set(ids).size).toBe(inputs.length);
        expect(inputs.map((t) => eventId(...t))).toEqual(ids);
      }),
      { numRuns: 200 },
    );
  });
});

/** Inputs that must share an id read alike here: undefined as null, -0 as 0, types kept apart. */
const canonical = (input: readonly unknown[]): string =>
  JSON.stringify(input, (_key, v: unknown) => {
    if (v === undefined || v === null) return null;
    if (typeof v === "number") return `number ${Object.is(v, -0) ? 0 : String(v)}`;
    if (typeof v === "string") return `string ${v}`;
    return v;
  });

describe("toChangeEvent", () => {
  const flight: FlightIdentity = {
    key: KEY,
    id: "123456789012345678",
    mainFlight: "KL1234",
    flightNames: ["KL1234", "DL9341"],
    direction: "D",
    scheduleDate: "2026-11-21",
  };

  it("is the change with its id, flight and version: the same keys in the same order as a spread", () => {
    const changes: Change[] = [
      { kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9" },
      { kind: "state", field: "publicFlightState", action: "added", state: "DEL", new: ["DEL"] },
      {
        kind: "time",
        field: "publicEstimatedOffBlockTime",
        action: "changed",
        new: "2026-11-21T11:25:00.000+01:00",
        old: "2026-11-21T11:00:00.000+01:00",
        shiftMinutes: 25,
        delayMinutes: 25,
      },
      { kind: "flight", field: "flight", action: "removed" },
    ];
    for (const change of changes) {
      const event = toChangeEvent(change, flight, V);
      const spread: ChangeEvent = { id: event.id, ...change, flight, version: V };
      expect(event).toStrictEqual(spread);
      expect(Object.keys(event)).toEqual(Object.keys(spread));
      expect(event.id).toBe(
        eventId(KEY, change.field, change.action, change.state, change.old, change.new, V),
      );
    }
  });

  it("keeps the keys and their order for every shape of change, with and without current fields", () => {
    const current = { gate: "D9", states: ["SCH"] };
    const changes: Change[] = [
      { kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9" },
      { kind: "gate", field: "gate", action: "assigned", new: "D9" },
      { kind: "state", field: "publicFlightState", action: "added", state: "DEL", new: ["DEL"] },
      {
        kind: "state",
        field: "publicFlightState",
        action: "withdrawn",
        state: "SCH",
        new: ["DEL"],
        old: ["SCH"],
      },
      {
        kind: "time",
        field: "expectedTimeBoarding",
        action: "changed",
        new: "2026-11-21T11:25:00.000+01:00",
        old: "2026-11-21T11:00:00.000+01:00",
        shiftMinutes: 25,
      },
      {
        kind: "time",
        field: "expectedTimeBoarding",
        action: "assigned",
        new: "2026-11-21T11:25:00.000+01:00",
        delayMinutes: 5,
      },
      {
        kind: "time",
        field: "expectedTimeBoarding",
        action: "changed",
        new: "2026-11-21T11:25:00.000+01:00",
        old: "2026-11-21T11:00:00.000+01:00",
        shiftMinutes: 25,
        delayMinutes: 25,
      },
      { kind: "flight", field: "flight", action: "added" },
      // Not shapes the differ makes: other key orders, an undefined value, extra keys.
      { field: "gate", kind: "gate", action: "changed", old: "D7", new: "D9" },
      // Every key in another place than a shape of the differ's has it.
      { field: "gate", action: "changed", kind: "gate", new: "D9", old: "D7" },
      { kind: "gate", field: "gate", action: "changed", new: "D9", old: "D7" },
      { kind: "gate", field: "gate", action: "changed", old: undefined, new: "D9" },
      { kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9", extra: 1 } as Change,
      Object.assign(Object.create({ inherited: true }) as Change, {
        kind: "gate",
        field: "gate",
        action: "changed",
        old: "D7",
        new: "D9",
      }),
    ];
    for (const change of changes) {
      const plain = toChangeEvent(change, flight, V);
      const plainSpread = { id: plain.id, ...change, flight, version: V };
      expect(plain).toStrictEqual(plainSpread);
      expect(Object.keys(plain)).toEqual(Object.keys(plainSpread));
      const withCurrent = toChangeEvent(change, flight, V, current);
      const spread = { id: plain.id, ...change, flight, version: V, current };
      expect(withCurrent).toStrictEqual(spread);
      expect(Object.keys(withCurrent)).toEqual(Object.keys(spread));
    }
  });

  it("leaves the change as it was", () => {
    const change: Change = { kind: "gate", field: "gate", action: "assigned", new: "D9" };
    toChangeEvent(change, flight, V);
    expect(change).toStrictEqual({ kind: "gate", field: "gate", action: "assigned", new: "D9" });
  });
});
