import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  alertEventType,
  changeEventType,
  EVENT_TYPES,
  GENERAL_EVENT_TYPE,
} from "../../src/deliver/event-type.js";
import type { Change } from "../../src/diff/change.js";
import { diffFields } from "../../src/diff/flight-diff.js";
import type { SnapshotFields } from "../../src/diff/flight-snapshot.js";
import { gate, SCHEDULED, state, time, ZONE } from "../dispatch/dispatch-builder.js";

/** The changes the real differ reports between two sets of known fields. */
const diff = (before: SnapshotFields, after: SnapshotFields): Change[] =>
  diffFields(before, after, SCHEDULED, ZONE);

const states = (...codes: string[]): SnapshotFields => ({ states: codes.sort() });

describe("event types of one change", () => {
  it("names each kind of change", () => {
    expect(changeEventType(gate("D7", "D9", 1))).toBe("flight.gate.changed");
    expect(changeEventType(gate(undefined, "D9", 1))).toBe("flight.gate.changed");
    expect(changeEventType(time(0, 25, 1))).toBe("flight.time.changed");
    expect(changeEventType({ kind: "belt", field: "baggageClaim", action: "assigned" })).toBe(
      "flight.belt.changed",
    );
    expect(
      changeEventType({ kind: "aircraftType", field: "aircraftType", action: "changed" }),
    ).toBe("flight.aircraft_type.changed");
    expect(changeEventType({ kind: "serviceType", field: "serviceType", action: "changed" })).toBe(
      "flight.service_type.changed",
    );
    expect(changeEventType({ kind: "flight", field: "flight", action: "added" })).toBe(
      "flight.added",
    );
    expect(changeEventType({ kind: "flight", field: "flight", action: "removed" })).toBe(
      "flight.removed",
    );
  });

  it("gives cancellation, its withdrawal and diversion types of their own", () => {
    expect(changeEventType(state("CNX", "added", 1))).toBe("flight.cancelled");
    expect(changeEventType(state("CNX", "withdrawn", 1))).toBe("flight.uncancelled");
    expect(changeEventType(state("DIV", "added", 1))).toBe("flight.diverted");
    expect(changeEventType(state("DIV", "withdrawn", 1))).toBe("flight.state.changed");
    expect(changeEventType(state("BRD", "added", 1))).toBe("flight.state.changed");
  });

  it("has a rank in the precedence for every type it gives", () => {
    const kinds: Change[] = [
      ...["gate", "pier", "terminal", "time", "belt", "checkin", "codeshares"].map(
        (kind) => ({ kind, field: kind, action: "changed" }) as Change,
      ),
      ...["aircraftType", "registration", "route", "serviceType"].map(
        (kind) => ({ kind, field: kind, action: "changed" }) as Change,
      ),
      { kind: "flight", field: "flight", action: "added" },
      { kind: "flight", field: "flight", action: "removed" },
      state("CNX", "added", 1),
      state("CNX", "withdrawn", 1),
      state("DIV", "added", 1),
      state("BRD", "added", 1),
    ];
    expect(new Set(kinds.map(changeEventType))).toEqual(new Set(EVENT_TYPES));
  });
});

describe("event type of an alert: its most significant change", () => {
  it("types a cancellation that replaces the state list as a cancellation", () => {
    // What the upstream sends: the list replaced, not CNX appended.
    for (const before of [states("SCH"), states("BRD"), states("DEL", "GTO")]) {
      const changes = diff(before, states("CNX"));
      expect(changes.map((c) => `${c.state} ${c.action}`)).toContain("CNX added");
      expect(changes.length).toBeGreaterThan(1);
      expect(alertEventType(changes)).toBe("flight.cancelled");
    }
  });

  it("types an un-cancellation that restores the states as an un-cancellation", () => {
    expect(alertEventType(diff(states("CNX"), states("SCH")))).toBe("flight.uncancelled");
    expect(alertEventType(diff(states("CNX"), states("DEL", "GTO")))).toBe("flight.uncancelled");
  });

  it("types a diversion that replaces the state list as a diversion", () => {
    expect(alertEventType(diff(states("AIR", "EXP"), states("DIV")))).toBe("flight.diverted");
    expect(alertEventType(diff(states("FIR"), { states: ["DIV"], route: ["RTM"] }))).toBe(
      "flight.diverted",
    );
  });

  it("lets cancellation win over a gate change and a delay in the same alert", () => {
    const changes = diff(
      { gate: "D7", pier: "D", states: ["BRD"] },
      {
        gate: "D9",
        pier: "D",
        states: ["CNX"],
        times: { publicEstimatedOffBlockTime: SCHEDULED + 40 * 60_000 },
      },
    );
    expect(new Set(changes.map((c) => c.kind))).toEqual(new Set(["gate", "state", "time"]));
    expect(alertEventType(changes)).toBe("flight.cancelled");
  });

  it("types a gate move with its pier as a gate change, a delay with its DEL as a time change", () => {
    expect(alertEventType(diff({ gate: "E2", pier: "E" }, { gate: "F3", pier: "F" }))).toBe(
      "flight.gate.changed",
    );
    expect(
      alertEventType(
        diff(
          { states: ["SCH"] },
          { states: ["DEL"], times: { publicEstimatedOffBlockTime: SCHEDULED + 25 * 60_000 } },
        ),
      ),
    ).toBe("flight.time.changed");
    expect(alertEventType([gate("D7", "D9", 1), time(0, 25, 1)])).toBe("flight.gate.changed");
  });

  it("keeps the common type of changes of one type", () => {
    expect(alertEventType([time(0, 25, 1), time(0, 40, 2, "expectedTimeBoarding")])).toBe(
      "flight.time.changed",
    );
    expect(alertEventType(diff(states("SCH"), states("BRD")))).toBe("flight.state.changed");
  });

  it("never depends on the order of the changes, and always names one of them", () => {
    const pool: Change[] = [
      gate("D7", "D9", 1),
      time(0, 25, 1),
      state("CNX", "added", 1),
      state("CNX", "withdrawn", 1),
      state("DIV", "added", 1),
      state("BRD", "withdrawn", 1),
      { kind: "pier", field: "pier", action: "changed", old: "D", new: "E" },
      { kind: "belt", field: "baggageClaim", action: "assigned", new: ["12"] },
      { kind: "flight", field: "flight", action: "removed" },
      { kind: "codeshares", field: "codeshares", action: "changed" },
    ];
    fc.assert(
      fc.property(fc.subarray(pool, { minLength: 1 }), fc.context(), (changes, ctx) => {
        const type = alertEventType(changes);
        ctx.log(type);
        expect(changes.map(changeEventType)).toContain(type);
        expect(alertEventType([...changes].reverse())).toBe(type);
        const rank = EVENT_TYPES.indexOf(type as (typeof EVENT_TYPES)[number]);
        for (const c of changes) {
          expect(EVENT_TYPES.indexOf(changeEventType(c))).toBeGreaterThanOrEqual(rank);
        }
      }),
    );
  });

  it("types an alert without changes flight.changed, the type earlier versions sent", () => {
    expect(alertEventType([])).toBe("flight.changed");
  });

  it("falls back to flight.changed only for an alert without changes", () => {
    expect(alertEventType([])).toBe(GENERAL_EVENT_TYPE);
    expect(EVENT_TYPES).not.toContain(GENERAL_EVENT_TYPE);
  });
});
