/**
 * Reminders in the alert decisions, on an injected clock: scheduled from the newest
 * observation's estimate, moved when it moves, dropped when the moment is gone, sent
 * once (the same id however often it is decided), never for a moment already past when
 * the reminders began, and not after the moment itself.
 */
import { describe, expect, it } from "vitest";
import type { SnapshotFields } from "../../src/diff/flight-snapshot.js";
import type { Observation } from "../../src/dispatch/reminder-decision.js";
import { describeAlert } from "../../src/render/alert-text.js";
import { durationText, momentOf, reminderName } from "../../src/rules/reminders.js";
import type { QuietHours, Reminder } from "../../src/rules/rule.js";
import { Driver, event, flight, MINUTE, rule, SCHEDULED, ZONE } from "./dispatch-builder.js";

const BOARDING_30: Reminder = { before: "boarding", byMs: 30 * MINUTE };
const DEPARTURE_3H: Reminder = { before: "departure", byMs: 180 * MINUTE };
/** Boarding 40 minutes before the scheduled departure (09:20 UTC, 10:20 in Amsterdam). */
const BOARDING = SCHEDULED - 40 * MINUTE;

function seen(version: number, fields: SnapshotFields, identity = flight()): Observation {
  return { flight: identity, version, current: fields };
}
const boardingAt = (ms: number, version: number, more: SnapshotFields = {}) =>
  seen(version, { gate: "D7", states: ["SCH"], times: { expectedTimeBoarding: ms }, ...more });

describe("reminders", () => {
  it("go once when due, with the moment's time and words that say what they are", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    const start = BOARDING - 5 * 60 * MINUTE;
    expect(d.see(start, boardingAt(BOARDING, 1))).toEqual([]);
    expect(d.dueAt).toBe(BOARDING - 30 * MINUTE);
    expect(d.flush(BOARDING - 30 * MINUTE - 1)).toEqual([]);
    // As the dispatcher flushes: with the flight as it is now (its snapshot).
    const [alert, ...more] = d.flush(BOARDING - 30 * MINUTE, undefined, boardingAt(BOARDING, 1));
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      ruleId: "r1",
      changes: [],
      reminder: {
        name: "boarding-30m",
        before: "boarding",
        byMinutes: 30,
        at: BOARDING,
        inMinutes: 30,
      },
      openedAt: BOARDING - 30 * MINUTE,
      decidedAt: BOARDING - 30 * MINUTE,
      current: { gate: "D7" },
    });
    // A reminder takes no place in the order of the rule's alerts: no sequence.
    expect(alert && "sequence" in alert).toBe(false);
    expect(describeAlert(alert as NonNullable<typeof alert>, ZONE)).toBe(
      "Boarding for KL1234 starts in 30 min at gate D7 (10:20)",
    );
    expect(describeAlert(alert as NonNullable<typeof alert>, ZONE, { language: "nl" })).toBe(
      "Instappen voor KL1234 begint over 30 min bij gate D7 (10:20)",
    );
    // Sent: never again, whatever comes after.
    expect(d.dueAt).toBeUndefined();
    expect(d.flush(BOARDING - 10 * MINUTE)).toEqual([]);
    expect(d.see(BOARDING - 10 * MINUTE, boardingAt(BOARDING + 40 * MINUTE, 2))).toEqual([]);
    expect(d.dueAt).toBeUndefined();
  });

  it("move with the estimate: boarding 40 min later, its reminder 40 min later", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    const start = BOARDING - 5 * 60 * MINUTE;
    d.see(start, boardingAt(BOARDING, 1));
    d.see(start + MINUTE, boardingAt(BOARDING + 40 * MINUTE, 2));
    expect(d.dueAt).toBe(BOARDING + 10 * MINUTE);
    expect(d.flush(BOARDING - 30 * MINUTE)).toEqual([]);
    const [alert] = d.flush(BOARDING + 10 * MINUTE);
    expect(alert?.reminder).toMatchObject({ at: BOARDING + 40 * MINUTE, inMinutes: 30 });
  });

  it("take no observation older than one already seen", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    const start = BOARDING - 5 * 60 * MINUTE;
    d.see(start, boardingAt(BOARDING + 40 * MINUTE, 5));
    d.see(start + MINUTE, boardingAt(BOARDING, 4));
    expect(d.dueAt).toBe(BOARDING + 10 * MINUTE);
  });

  it("are dropped when the flight is cancelled, and come back if it is not", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    const start = BOARDING - 5 * 60 * MINUTE;
    d.see(start, boardingAt(BOARDING, 1));
    d.see(start + MINUTE, boardingAt(BOARDING, 2, { states: ["CNX"] }));
    expect(d.dueAt).toBeUndefined();
    expect(d.flush(BOARDING - 30 * MINUTE)).toEqual([]);
    d.see(start + 2 * MINUTE, boardingAt(BOARDING, 3));
    expect(d.dueAt).toBe(BOARDING - 30 * MINUTE);
  });

  it("never go for a moment already past when the reminders began", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    // First seen 20 minutes before boarding: its 30-minute reminder was due already.
    expect(d.see(BOARDING - 20 * MINUTE, boardingAt(BOARDING, 1))).toEqual([]);
    expect(d.dueAt).toBeUndefined();
    // Nor when boarding moves later, back past the reminder's time.
    expect(d.see(BOARDING - 19 * MINUTE, boardingAt(BOARDING + 60 * MINUTE, 2))).toEqual([]);
    expect(d.dueAt).toBeUndefined();
  });

  it("go at once when a moment published late is nearer than asked, saying how near", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    const start = BOARDING - 5 * 60 * MINUTE;
    // No boarding time yet: nothing to remind of.
    d.see(start, seen(1, { states: ["SCH"] }));
    expect(d.dueAt).toBeUndefined();
    const [alert] = d.see(BOARDING - 20 * MINUTE, boardingAt(BOARDING, 2));
    expect(alert?.reminder).toMatchObject({ at: BOARDING, inMinutes: 20 });
  });

  it("begin when first scheduled: one due then already goes at once", () => {
    const due = BOARDING - 30 * MINUTE;
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    const [alert] = d.see(due, boardingAt(BOARDING, 1));
    expect(alert?.reminder).toMatchObject({ inMinutes: 30 });
    const late = new Driver(rule({ reminders: [BOARDING_30] }));
    expect(late.see(due + 1, boardingAt(BOARDING, 1))).toEqual([]);
  });

  it("are missed, not sent, when the moment itself has come (after downtime)", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(BOARDING - 5 * 60 * MINUTE, boardingAt(BOARDING, 1));
    expect(d.flush(BOARDING + MINUTE)).toEqual([]);
    expect(d.dueAt).toBeUndefined();
    expect(d.state?.remind?.items["boarding-30m"]).toEqual({ done: "missed" });
  });

  it("keep their id when decided again from the same memory (a crash before the commit)", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(BOARDING - 5 * 60 * MINUTE, boardingAt(BOARDING, 1));
    const before = structuredClone(d.state);
    const [first] = d.flush(BOARDING - 30 * MINUTE);
    d.state = before;
    const [again] = d.flush(BOARDING - 29 * MINUTE);
    expect(again?.id).toBe(first?.id);
    // Another reminder of the same flight has an id of its own.
    const other = new Driver(rule({ reminders: [{ before: "boarding", byMs: 20 * MINUTE }] }));
    other.see(BOARDING - 5 * 60 * MINUTE, boardingAt(BOARDING, 1));
    const [third] = other.flush(BOARDING - 20 * MINUTE);
    expect(third?.id).not.toBe(first?.id);
  });

  it("each go on their own, beside the rule's change alerts and their sequence", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30, DEPARTURE_3H] }));
    const start = SCHEDULED - 6 * 60 * MINUTE;
    d.see(start, boardingAt(BOARDING, 1));
    expect(d.dueAt).toBe(SCHEDULED - 180 * MINUTE);
    const [departure] = d.flush(SCHEDULED - 180 * MINUTE, undefined, boardingAt(BOARDING, 1));
    expect(departure?.reminder).toMatchObject({ before: "departure", at: SCHEDULED });
    expect(describeAlert(departure as NonNullable<typeof departure>, ZONE)).toBe(
      "KL1234 departs in 3 h from gate D7 (11:00)",
    );
    const moved = event(
      { kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9" },
      2,
      flight(),
      { gate: "D9", states: ["SCH"], times: { expectedTimeBoarding: BOARDING } },
    );
    const [changed] = d.admit(SCHEDULED - 100 * MINUTE, [moved]);
    expect(changed?.changes).toHaveLength(1);
    expect(changed?.sequence).toBe(2);
    const [boarding] = d.flush(BOARDING - 30 * MINUTE);
    expect(boarding?.reminder?.before).toBe("boarding");
    // Without the flight at hand: its identity, no fields.
    expect(boarding && "current" in boarding).toBe(false);
    const [later] = d.admit(BOARDING - 20 * MINUTE, [
      event({ kind: "gate", field: "gate", action: "changed", old: "D9", new: "D3" }, 3, flight(), {
        gate: "D3",
      }),
    ]);
    expect(later?.sequence).toBe(3);
  });

  it("wait while catching up when due after detection's last look", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(BOARDING - 5 * 60 * MINUTE, boardingAt(BOARDING, 1));
    const due = BOARDING - 30 * MINUTE;
    const catchUp = { since: due + 2 * MINUTE, seenUntil: due - MINUTE };
    expect(d.flush(due + 3 * MINUTE, catchUp)).toEqual([]);
    expect(d.dueAt).toBe(due);
    expect(d.flush(due + 4 * MINUTE)).toHaveLength(1);
  });

  it("are not held by quiet hours", () => {
    const quiet: QuietHours = { fromMinute: 0, toMinute: 23 * 60 + 59, zone: ZONE, critical: [] };
    const d = new Driver(rule({ reminders: [BOARDING_30], quietHours: quiet }));
    d.see(BOARDING - 5 * 60 * MINUTE, boardingAt(BOARDING, 1));
    expect(d.flush(BOARDING - 30 * MINUTE)).toHaveLength(1);
  });

  it("are forgotten when the rule no longer asks for them", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(BOARDING - 5 * 60 * MINUTE, boardingAt(BOARDING, 1));
    expect(d.state?.remind).toBeDefined();
    const without = new Driver(rule());
    without.state = d.state;
    without.see(BOARDING - 4 * 60 * MINUTE, boardingAt(BOARDING, 2));
    expect(without.state).toBeUndefined();
    expect(without.dueAt).toBeUndefined();
  });
});

describe("momentOf", () => {
  const departure = flight();
  const arrival = flight({ direction: "A", key: "A:2026-11-21:KL1234" });
  it("takes the estimate, else the schedule, of a departure or an arrival", () => {
    expect(momentOf("departure", departure, {})).toBe(SCHEDULED);
    expect(momentOf("departure", departure, { times: { publicEstimatedOffBlockTime: 5 } })).toBe(5);
    expect(momentOf("arrival", arrival, { times: { estimatedLandingTime: 7 } })).toBe(7);
    expect(momentOf("arrival", arrival, {})).toBe(SCHEDULED);
    expect(momentOf("arrival", departure, {})).toBeUndefined();
    expect(momentOf("departure", arrival, {})).toBeUndefined();
    expect(momentOf("boarding", arrival, { times: { expectedTimeBoarding: 3 } })).toBeUndefined();
    expect(momentOf("gate_closing", departure, { times: { expectedTimeGateClosing: 9 } })).toBe(9);
    expect(momentOf("boarding", departure, {})).toBeUndefined();
  });
  it("has none once the moment has come or is gone", () => {
    const times = { expectedTimeBoarding: 3, expectedTimeGateClosing: 4 };
    expect(momentOf("boarding", departure, { times, states: ["BRD"] })).toBeUndefined();
    expect(momentOf("gate_closing", departure, { times, states: ["BRD"] })).toBe(4);
    expect(momentOf("gate_closing", departure, { times, states: ["GCL"] })).toBeUndefined();
    expect(momentOf("departure", departure, { states: ["DEP"] })).toBeUndefined();
    expect(momentOf("departure", departure, { times: { actualOffBlockTime: 1 } })).toBeUndefined();
    expect(momentOf("arrival", arrival, { times: { actualLandingTime: 1 } })).toBeUndefined();
    expect(momentOf("arrival", arrival, { states: ["LND"] })).toBeUndefined();
    for (const gone of ["CNX", "TOM", "DIV"]) {
      expect(momentOf("departure", departure, { states: ["SCH", gone] })).toBeUndefined();
    }
  });
});

describe("reminders, at their edges", () => {
  const start = BOARDING - 5 * 60 * MINUTE;

  it("are none for a rule with an empty list", () => {
    const d = new Driver(rule({ reminders: [] }));
    expect(d.see(start, boardingAt(BOARDING, 1))).toEqual([]);
    expect(d.state).toBeUndefined();
  });

  it("take an unordered observation (version 0) and one of the same version", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(start, boardingAt(BOARDING, 5));
    d.see(start + MINUTE, boardingAt(BOARDING + 10 * MINUTE, 5));
    expect(d.dueAt).toBe(BOARDING - 20 * MINUTE);
    d.see(start + 2 * MINUTE, boardingAt(BOARDING + 20 * MINUTE, 0));
    expect(d.dueAt).toBe(BOARDING - 10 * MINUTE);
  });

  it("remind of the scheduled departure when an observation has no fields, and carry none", () => {
    const d = new Driver(rule({ reminders: [DEPARTURE_3H], labels: { trip: "T1" } }));
    d.see(start, boardingAt(BOARDING, 1));
    d.see(start + MINUTE, { flight: flight(), version: 2 });
    const [alert] = d.flush(SCHEDULED - 180 * MINUTE);
    expect(alert).toBeDefined();
    expect(alert && "current" in alert).toBe(false);
    expect(alert?.labels).toEqual({ trip: "T1" });
    expect(alert?.reminder).toMatchObject({ at: SCHEDULED, inMinutes: 180 });
  });

  it("go for a moment due exactly when they began, and are done: sent, past or missed", () => {
    const due = BOARDING - 30 * MINUTE;
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    expect(d.see(due, boardingAt(BOARDING, 1))).toHaveLength(1);
    expect(d.state?.remind?.items["boarding-30m"]).toEqual({ done: "sent" });
    const past = new Driver(rule({ reminders: [BOARDING_30] }));
    expect(past.see(due + 1, boardingAt(BOARDING, 1))).toEqual([]);
    expect(past.state?.remind?.items["boarding-30m"]).toEqual({ done: "past" });
    // At the moment itself: missed, not sent.
    const late = new Driver(rule({ reminders: [BOARDING_30] }));
    late.see(start, boardingAt(BOARDING, 1));
    expect(late.flush(BOARDING)).toEqual([]);
    expect(late.state?.remind?.items["boarding-30m"]).toEqual({ done: "missed" });
    const justIn = new Driver(rule({ reminders: [BOARDING_30] }));
    justIn.see(start, boardingAt(BOARDING, 1));
    expect(justIn.flush(BOARDING - 1)[0]?.reminder?.inMinutes).toBe(1);
  });

  it("go at once when an estimate moves a scheduled one before they began", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(start, boardingAt(BOARDING, 1));
    // Boarding brought 4 h 50 min forward: due before the reminders began, yet scheduled.
    const [alert] = d.see(start + MINUTE, boardingAt(start + 20 * MINUTE, 2));
    expect(alert?.reminder).toMatchObject({ at: start + 20 * MINUTE, inMinutes: 19 });
  });

  it("go with the estimate at hand when due: an observation or the flight's snapshot", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(start, boardingAt(BOARDING, 1));
    const due = BOARDING - 30 * MINUTE;
    // Due a moment ago, but the observation in hand moves boarding 40 minutes later.
    expect(d.see(due + 3_000, boardingAt(BOARDING + 40 * MINUTE, 2))).toEqual([]);
    expect(d.dueAt).toBe(due + 40 * MINUTE);
    // The snapshot at flush time moves it again.
    expect(d.flush(due + 40 * MINUTE, undefined, boardingAt(BOARDING + 60 * MINUTE, 3))).toEqual(
      [],
    );
    expect(d.dueAt).toBe(due + 60 * MINUTE);
  });

  it("are taken off when the flight is removed, or the rule no longer selects it", () => {
    const removed = new Driver(rule({ reminders: [BOARDING_30] }));
    removed.see(start, boardingAt(BOARDING, 1));
    const removal = event({ kind: "flight", field: "flight", action: "removed" }, 2, flight(), {
      gate: "D7",
      times: { expectedTimeBoarding: BOARDING },
    });
    // The rule takes every change: the removal is its alert; the reminder goes with it.
    expect(removed.admit(start + MINUTE, [removal]).map((a) => a.changes[0]?.action)).toEqual([
      "removed",
    ]);
    expect(removed.dueAt).toBeUndefined();
    const moved = new Driver(rule({ reminders: [BOARDING_30] }));
    moved.see(start, boardingAt(BOARDING, 1));
    // At the flush, its snapshot is gone or no longer selected (`null`): nothing goes.
    expect(moved.flush(BOARDING - 30 * MINUTE, undefined, null)).toEqual([]);
    expect(moved.dueAt).toBeUndefined();
    // Selected again later: scheduled again from what it shows.
    moved.see(BOARDING - 60 * MINUTE, boardingAt(BOARDING, 2));
    expect(moved.dueAt).toBe(BOARDING - 30 * MINUTE);
  });

  it("begin when the rule begins to ask for them, not with the rule's older memory", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(start, boardingAt(BOARDING, 1));
    // A reload adds "3h before departure" 30 minutes before the departure: past already.
    const more = new Driver(rule({ reminders: [BOARDING_30, DEPARTURE_3H] }));
    more.state = d.state;
    expect(more.see(SCHEDULED - 30 * MINUTE, boardingAt(BOARDING, 2))).toEqual([]);
    expect(more.state?.remind?.items["departure-3h"]).toEqual({ done: "past" });
    expect(more.state?.remind?.known).toEqual(["boarding-30m", "departure-3h"]);
  });

  it("forget a reminder the rule dropped, and keep the others", () => {
    const both = rule({ reminders: [BOARDING_30, DEPARTURE_3H] });
    const d = new Driver(both);
    d.see(start - 60 * MINUTE, boardingAt(BOARDING, 1));
    expect(Object.keys(d.state?.remind?.items ?? {}).sort()).toEqual([
      "boarding-30m",
      "departure-3h",
    ]);
    const one = new Driver(rule({ reminders: [BOARDING_30] }));
    one.state = d.state;
    one.see(start - 59 * MINUTE, boardingAt(BOARDING, 2));
    expect(Object.keys(one.state?.remind?.items ?? {})).toEqual(["boarding-30m"]);
    expect(one.dueAt).toBe(BOARDING - 30 * MINUTE);
  });

  it("while catching up, go when due at or before detection's last look", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(start, boardingAt(BOARDING, 1));
    const due = BOARDING - 30 * MINUTE;
    expect(d.flush(due + MINUTE, { since: due + MINUTE, seenUntil: due })).toHaveLength(1);
  });
});

describe("durationText and reminderName", () => {
  it("write a duration in the shortest exact way", () => {
    expect(durationText(3 * 3_600_000)).toBe("3h");
    expect(durationText(90 * MINUTE)).toBe("1h30m");
    expect(durationText(45 * MINUTE)).toBe("45m");
    expect(durationText(90_000)).toBe("1m30s");
    expect(durationText(2 * 3_600_000 + 5_000)).toBe("2h5s");
    expect(durationText(0)).toBe("0s");
    expect(reminderName(BOARDING_30)).toBe("boarding-30m");
    expect(reminderName({ before: "gate_closing", byMs: 90 * MINUTE })).toBe("gate_closing-1h30m");
  });
});

describe("momentOf, state by state", () => {
  const departure = flight();
  const arrival = flight({ direction: "A", key: "A:2026-11-21:KL1234" });
  const times = { expectedTimeBoarding: 3, expectedTimeGateClosing: 4 };
  it("has none for a moment whose state has come, and keeps the later ones", () => {
    for (const s of ["BRD", "GCL", "GTD", "DEP"]) {
      expect(momentOf("boarding", departure, { times, states: [s] }), s).toBeUndefined();
    }
    for (const s of ["GCL", "GTD", "DEP"]) {
      expect(momentOf("gate_closing", departure, { times, states: [s] }), s).toBeUndefined();
    }
    for (const s of ["GTO", "BRD"]) {
      expect(momentOf("gate_closing", departure, { times, states: [s] }), s).toBe(4);
    }
    for (const s of ["LND", "FIB", "ARR"]) {
      expect(momentOf("arrival", arrival, { states: [s] }), s).toBeUndefined();
    }
    expect(momentOf("arrival", arrival, { states: ["AIR", "EXP"] })).toBe(SCHEDULED);
    expect(momentOf("departure", departure, undefined)).toBe(SCHEDULED);
    expect(momentOf("boarding", departure, undefined)).toBeUndefined();
    expect(momentOf("gate_closing", arrival, { times })).toBeUndefined();
    expect(momentOf("gate_closing", departure, {})).toBeUndefined();
    expect(momentOf("gate_closing", departure, { states: ["SCH"] })).toBeUndefined();
  });
});

describe("reminders with no memory yet, or done", () => {
  const start = BOARDING - 5 * 60 * MINUTE;

  it("keep nothing for a flight first seen removed, and flush a group of a rule that gained them", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    // As the dispatcher hands a removal to a rule with reminders that no change selected.
    expect(d.see(start, null)).toEqual([]);
    expect(d.state).toBeUndefined();
    // A group waiting from before the rule asked for reminders goes as ever.
    const grouped = new Driver(rule({ groupWaitMs: MINUTE }));
    grouped.admit(start, [
      event({ kind: "gate", field: "gate", action: "changed", old: "D1", new: "D2" }, 1, flight()),
    ]);
    const now = new Driver(rule({ groupWaitMs: MINUTE, reminders: [BOARDING_30] }));
    now.state = grouped.state;
    expect(now.flush(start + MINUTE)).toHaveLength(1);
  });

  it("stay done when the flight goes away and comes back", () => {
    const d = new Driver(rule({ reminders: [BOARDING_30] }));
    d.see(start, boardingAt(BOARDING, 1));
    expect(d.flush(BOARDING - 30 * MINUTE, undefined, boardingAt(BOARDING, 1))).toHaveLength(1);
    d.see(BOARDING - 29 * MINUTE, boardingAt(BOARDING, 2, { states: ["CNX"] }));
    expect(d.flush(BOARDING - 28 * MINUTE, undefined, null)).toEqual([]);
    expect(d.state?.remind?.items["boarding-30m"]).toEqual({ done: "sent" });
    // Boarding delayed an hour: the same reminder is not sent again.
    expect(d.see(BOARDING - 27 * MINUTE, boardingAt(BOARDING + 60 * MINUTE, 3))).toEqual([]);
    expect(d.dueAt).toBeUndefined();
  });
});
