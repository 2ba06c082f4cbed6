import { describe, expect, it } from "vitest";
import { DONE_IDS_MEMORY_MS } from "../../src/dispatch/alert-state.js";
import { at, Driver, gate, MINUTE, rule, state, summary, time } from "./dispatch-builder.js";

const T0 = Date.parse("2026-11-21T08:00:00Z");

describe("events out of order (lower version after a higher one)", () => {
  it("group_wait 2m: B→C (v2) then A→B (v1) goes out as A→C, with both events in version order", () => {
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    const late = gate("A", "B", 1);
    const early = gate("B", "C", 2);
    d.admit(T0, [early]);
    d.admit(T0 + MINUTE, [late]);
    const [alert] = d.flush(T0 + 2 * MINUTE);
    expect(alert?.changes).toEqual([
      {
        kind: "gate",
        field: "gate",
        action: "changed",
        old: "A",
        new: "C",
        eventIds: [late.id, early.id],
      },
    ]);
  });

  it("group_wait 0: B→C (v2) then A→B (v1) sends B→C only; the late one is remembered", () => {
    const d = new Driver(rule());
    const late = gate("A", "B", 1);
    expect(d.admit(T0, [gate("B", "C", 2)]).map(summary)).toEqual([["gate B→C"]]);
    expect(d.admit(T0 + MINUTE, [late])).toEqual([]);
    expect(d.state?.done).toContain(late.id);
    expect(d.admit(T0 + 2 * MINUTE, [late])).toEqual([]);
    expect(d.dueAt).toBeUndefined();
  });

  it("an alert starts from the value last announced: B→C after A was told goes out as A→C", () => {
    const d = new Driver(rule());
    expect(d.admit(T0, [gate("D0", "A", 1)]).map(summary)).toEqual([["gate D0→A"]]);
    expect(d.admit(T0 + MINUTE, [gate("B", "C", 3)]).map(summary)).toEqual([["gate A→C"]]);
    expect(d.admit(T0 + 2 * MINUTE, [gate("A", "B", 2)])).toEqual([]);
    expect(d.sent).toHaveLength(2);
  });

  it("a late event joins no pending change once something was announced about the field", () => {
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    d.admit(T0, [gate("D0", "A", 1)]);
    d.flush(T0 + 2 * MINUTE);
    const newest = gate("C", "D", 4);
    d.admit(T0 + 3 * MINUTE, [newest]);
    d.admit(T0 + 3.5 * MINUTE, [gate("A", "B", 2), gate("B", "C", 3)]);
    const [alert] = d.flush(T0 + 5 * MINUTE);
    expect(alert?.changes[0]).toMatchObject({ old: "A", new: "D", eventIds: [newest.id] });
  });

  it("a late event between the pending change's events only counts as done", () => {
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    const first = gate("A", "B", 1);
    const third = gate("C", "D", 3);
    d.admit(T0, [first, third]);
    d.admit(T0 + MINUTE, [gate("B", "C", 2)]);
    const [alert] = d.flush(T0 + 2 * MINUTE);
    expect(alert?.changes[0]).toMatchObject({ old: "A", new: "D", eventIds: [first.id, third.id] });
    expect(d.state?.done).toHaveLength(3);
  });

  it("states: a late withdrawal never undoes a newer add; out of order within a group nets out", () => {
    const now = new Driver(rule());
    expect(now.admit(T0, [state("DEL", "added", 2)]).map(summary)).toEqual([["DEL added"]]);
    expect(now.admit(T0 + MINUTE, [state("DEL", "withdrawn", 1)])).toEqual([]);

    const grouped = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    grouped.admit(T0, [state("DEL", "withdrawn", 2)]);
    grouped.admit(T0 + MINUTE, [state("DEL", "added", 1)]);
    expect(grouped.flush(T0 + 2 * MINUTE)).toEqual([]);
  });

  it("times: a late estimate never replaces a newer one", () => {
    const d = new Driver(rule());
    d.admit(T0, [time(0, 20, 1)]);
    d.admit(T0 + MINUTE, [time(30, 40, 3)]);
    expect(d.admit(T0 + 2 * MINUTE, [time(20, 30, 2)])).toEqual([]);
    expect(d.sent.map((a) => a.changes[0]?.new)).toEqual([at(20), at(40)]);
    expect(d.sent[1]?.changes[0]).toMatchObject({ old: at(20), shiftMinutes: 20 });
  });

  it("a late event held after a correction, or under suppress, does not set the value either", () => {
    const correct = new Driver(rule({ flapping: { windowMs: 10 * MINUTE, action: "correct" } }));
    correct.admit(T0, [gate("A", "B", 1)]);
    correct.admit(T0 + MINUTE, [gate("B", "A", 2)]);
    correct.admit(T0 + 2 * MINUTE, [gate("A", "C", 4)]);
    correct.admit(T0 + 3 * MINUTE, [gate("C", "A", 3)]);
    expect(correct.flush(T0 + 11 * MINUTE).map(summary)).toEqual([["gate A→C"]]);

    const suppress = new Driver(rule({ flapping: { windowMs: 10 * MINUTE, action: "suppress" } }));
    suppress.admit(T0, [gate("B", "C", 2)]);
    suppress.admit(T0 + MINUTE, [gate("A", "B", 1)]);
    expect(suppress.flush(T0 + 10 * MINUTE).map(summary)).toEqual([["gate A→C"]]);
  });

  it("version 0 is unordered: never late, and it leaves the field's version as it was", () => {
    const d = new Driver(rule());
    d.admit(T0, [gate("A", "B", 5)]);
    expect(d.admit(T0 + MINUTE, [gate("B", "C", 0)]).map(summary)).toEqual([["gate B→C"]]);
    expect(d.state?.fields?.gate?.version).toBe(5);
    expect(d.admit(T0 + 2 * MINUTE, [gate("B", "D", 4)])).toEqual([]);
    expect(d.admit(T0 + 3 * MINUTE, [gate("C", "E", 6)]).map(summary)).toEqual([["gate C→E"]]);
  });

  it("equal versions are not late: the later arrival wins", () => {
    const d = new Driver(rule());
    d.admit(T0, [gate("A", "B", 5)]);
    expect(d.admit(T0 + MINUTE, [gate("B", "C", 5)]).map(summary)).toEqual([["gate B→C"]]);
  });

  it("the field's version is remembered an hour after the last decision, then forgotten", () => {
    const d = new Driver(rule());
    d.admit(T0, [gate("A", "B", 5)]);
    expect(d.admit(T0 + DONE_IDS_MEMORY_MS, [gate("X", "Y", 4)])).toEqual([]);
    // The late event was a decision too; an hour after it, nothing is left to compare with.
    const later = T0 + 2 * DONE_IDS_MEMORY_MS + 1;
    expect(d.admit(later, [gate("X", "Z", 3)]).map(summary)).toEqual([["gate X→Z"]]);
  });
});
