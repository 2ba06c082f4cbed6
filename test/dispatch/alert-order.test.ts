import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/diff/change.js";
import { DONE_IDS_MEMORY_MS } from "../../src/dispatch/alert-state.js";
import {
  at,
  Driver,
  event,
  flight,
  gate,
  MINUTE,
  rule,
  shiftSelector,
  state,
  summary,
  time,
} from "./dispatch-builder.js";

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

describe("events out of order: what the alert shows", () => {
  it("a late, older observation never replaces the flight and current fields of a newer one", () => {
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    const renamed = flight({ flightNames: ["KL1234", "DL9341"] });
    d.admit(T0, [
      event({ kind: "gate", field: "gate", action: "changed", old: "D1", new: "D2" }, 2, renamed, {
        gate: "D2",
        pier: "D",
      }),
    ]);
    d.admit(T0 + MINUTE, [gate("D0", "D1", 1)]);
    const [alert] = d.flush(T0 + 2 * MINUTE);
    // The alert says D0 → D2: its current fields must say D2, not the late event's D1.
    expect(summary(alert)).toEqual(["gate D0→D2"]);
    expect(alert?.current).toEqual({ gate: "D2", pier: "D" });
    expect(alert?.flight).toEqual(renamed);
    expect(alert?.sequence).toBe(2);
  });

  it("a flight without lastUpdatedAt (version 0): the last observation gives the current fields", () => {
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    d.admit(T0, [gate("D1", "D2", 0)]);
    d.admit(T0 + MINUTE, [gate("D2", "D3", 0)]);
    const [alert] = d.flush(T0 + 2 * MINUTE);
    expect(summary(alert)).toEqual(["gate D1→D3"]);
    expect(alert?.current).toEqual({ gate: "D3" });
    // Nothing to order by: no version is remembered for the field.
    expect(d.state?.fields?.gate).toEqual({
      sent: { new: "D3", old: "D1", at: T0 + 2 * MINUTE },
    });
  });

  it("a late event of the same version as the pending change's first is not known to be older", () => {
    // Two observations with one lastUpdatedAt showed Z → A and A → B; A → B came first.
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    const first = gate("A", "B", 2);
    const newest = gate("B", "C", 3);
    const sameVersion = gate("Z", "A", 2);
    d.admit(T0, [first]);
    d.admit(T0 + 10_000, [newest]);
    d.admit(T0 + 20_000, [sameVersion]);
    const [alert] = d.flush(T0 + 2 * MINUTE);
    expect(alert?.changes).toEqual([
      {
        kind: "gate",
        field: "gate",
        action: "changed",
        old: "A",
        new: "C",
        eventIds: [first.id, newest.id],
      },
    ]);
    expect(d.state?.done).toContain(sameVersion.id);
  });
});

describe("events out of order under shift_at_least", () => {
  const hysteresis = () => rule({ groupWaitMs: 2 * MINUTE, changes: [shiftSelector(10)] });

  /** Admits the events in the order given, a minute apart, and flushes the group. */
  function sent(events: ChangeEvent[]) {
    const d = new Driver(hysteresis());
    for (const [i, e] of events.entries()) d.admit(T0 + i * MINUTE, [e], shiftSelector(10));
    return d.flush(T0 + 2 * MINUTE);
  }

  it("a late first move is measured from where the field really started, as in order", () => {
    // 11:00 → 11:05 → 11:12 is a 12-minute move, whichever event came first.
    const inOrder = sent([time(0, 5, 1), time(5, 12, 2)]);
    expect(inOrder.map(summary)).toEqual([["publicEstimatedOffBlockTime 11:00→11:12"]]);
    const late = sent([time(5, 12, 2), time(0, 5, 1)]);
    expect(late.map(summary)).toEqual([["publicEstimatedOffBlockTime 11:00→11:12"]]);
    expect(late[0]?.changes[0]).toMatchObject({ action: "changed", shiftMinutes: 12 });
  });

  it("a late first estimate is measured from the schedule, as in order", () => {
    const inOrder = sent([time(undefined, 5, 1), time(5, 12, 2)]);
    const late = sent([time(5, 12, 2), time(undefined, 5, 1)]);
    for (const alerts of [inOrder, late]) {
      expect(alerts.map(summary)).toEqual([["publicEstimatedOffBlockTime ∅→11:12"]]);
      expect(alerts[0]?.changes[0]).toMatchObject({ action: "assigned", delayMinutes: 12 });
    }
  });

  it("a baseline from before the pending change stays where it was", () => {
    // 11:00 → 11:04 went by under the threshold; 11:04 → 11:06 comes after 11:06 → 11:12.
    const d = new Driver(hysteresis());
    d.admit(T0, [time(0, 4, 1)], shiftSelector(10));
    expect(d.flush(T0 + 2 * MINUTE)).toEqual([]);
    d.admit(T0 + 3 * MINUTE, [time(6, 12, 3)], shiftSelector(10));
    d.admit(T0 + 4 * MINUTE, [time(4, 6, 2)], shiftSelector(10));
    const [alert] = d.flush(T0 + 5 * MINUTE);
    expect(summary(alert)).toEqual(["publicEstimatedOffBlockTime 11:00→11:12"]);
  });
});
