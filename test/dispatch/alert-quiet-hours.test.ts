/**
 * Quiet hours in the alert decisions: a flight's group opened in the window goes out at
 * its end as one alert with its net changes; a critical change sends the group at once
 * (with what waited); outside the window nothing changes.
 */
import { describe, expect, it } from "vitest";
import type { ChangeSelector, QuietHours } from "../../src/rules/rule.js";
import {
  Driver,
  event,
  flight,
  gate,
  MINUTE,
  rule,
  state,
  summary,
  time,
} from "./dispatch-builder.js";

const CANCELLED: ChangeSelector = {
  name: "cancelled",
  kinds: ["state"],
  states: ["CNX"],
  actions: ["added"],
};
const GATE_SOON: ChangeSelector = { name: "gate", kinds: ["gate"], withinMs: 3_600_000 };
const QUIET: QuietHours = {
  fromMinute: 23 * 60,
  toMinute: 7 * 60,
  zone: "Europe/Amsterdam",
  critical: [CANCELLED],
};
/** A departure at 06:00 in Amsterdam (05:00 UTC), inside the window. */
const EARLY = flight({ scheduled: Date.parse("2026-11-21T05:00:00Z") });
const earlyGate = (old: string, now: string, version: number) =>
  event({ kind: "gate", field: "gate", action: "changed", old, new: now }, version, EARLY, {
    gate: now,
  });
// 00:30 in Amsterdam; the window ends at 07:00 (06:00 UTC).
const NIGHT = Date.parse("2026-11-20T23:30:00Z");
const END = Date.parse("2026-11-21T06:00:00Z");

describe("quiet hours", () => {
  it("hold a flight's changes to the window's end, and send them then as one alert", () => {
    const d = new Driver(rule({ quietHours: QUIET, groupWaitMs: MINUTE }));
    expect(d.admit(NIGHT, [gate("D1", "D2", 1)])).toEqual([]);
    expect(d.dueAt).toBe(END);
    expect(d.admit(NIGHT + 60 * MINUTE, [time(0, 20, 2)])).toEqual([]);
    expect(d.admit(NIGHT + 90 * MINUTE, [gate("D2", "D3", 3)])).toEqual([]);
    expect(d.dueAt).toBe(END);
    expect(d.flush(END - 1)).toEqual([]);
    const [alert, ...more] = d.flush(END);
    expect(more).toEqual([]);
    expect(summary(alert)).toEqual(["gate D1→D3", "publicEstimatedOffBlockTime 11:00→11:20"]);
    expect(alert).toMatchObject({ openedAt: NIGHT, decidedAt: END });
  });

  it("send a critical change at once, with what waited for the flight", () => {
    const d = new Driver(rule({ quietHours: QUIET }));
    expect(d.admit(NIGHT, [gate("D1", "D2", 1)])).toEqual([]);
    const [alert] = d.admit(NIGHT + 10 * MINUTE, [state("CNX", "added", 2)]);
    expect(summary(alert)).toEqual(["gate D1→D2", "CNX added"]);
    expect(d.dueAt).toBeUndefined();
    // After it, the window holds again.
    expect(d.admit(NIGHT + 20 * MINUTE, [gate("D2", "D4", 3)])).toEqual([]);
    expect(d.dueAt).toBe(END);
  });

  it("keep group_wait for a critical change, whether it opens the group or joins it", () => {
    const d = new Driver(rule({ quietHours: QUIET, groupWaitMs: 2 * MINUTE }));
    expect(d.admit(NIGHT, [state("CNX", "added", 1)])).toEqual([]);
    expect(d.dueAt).toBe(NIGHT + 2 * MINUTE);
    const e = new Driver(rule({ quietHours: QUIET, groupWaitMs: 2 * MINUTE }));
    e.admit(NIGHT, [gate("D1", "D2", 1)]);
    e.admit(NIGHT + MINUTE, [state("CNX", "added", 2)]);
    expect(e.dueAt).toBe(NIGHT + 3 * MINUTE);
    // A critical change never makes a group wait longer than it would have.
    const f = new Driver(rule({ quietHours: QUIET, groupWaitMs: 10 * MINUTE }));
    f.admit(NIGHT, [state("CNX", "added", 1)]);
    f.admit(NIGHT + 5 * MINUTE, [state("DIV", "added", 2)]);
    f.admit(NIGHT + 8 * MINUTE, [state("CNX", "withdrawn", 3)]);
    expect(f.dueAt).toBe(NIGHT + 10 * MINUTE);
  });

  it("change nothing outside the window", () => {
    const day = Date.parse("2026-11-21T09:00:00Z");
    const d = new Driver(rule({ quietHours: QUIET, groupWaitMs: MINUTE }));
    expect(d.admit(day, [gate("D1", "D2", 1)])).toEqual([]);
    expect(d.dueAt).toBe(day + MINUTE);
    const now = new Driver(rule({ quietHours: QUIET }));
    expect(now.admit(day, [gate("D1", "D2", 1)])).toHaveLength(1);
    // A group_wait that ends inside the window waits for its end.
    const late = Date.parse("2026-11-21T21:55:00Z"); // 22:55
    const g = new Driver(rule({ quietHours: QUIET, groupWaitMs: 10 * MINUTE }));
    g.admit(late, [gate("D1", "D2", 1)]);
    expect(g.dueAt).toBe(Date.parse("2026-11-22T06:00:00Z"));
  });

  it("let a flight wait no later than the largest critical `within` before it", () => {
    const q = { ...QUIET, critical: [CANCELLED, GATE_SOON] };
    const d = new Driver(rule({ quietHours: q }));
    // 04:00 local: two hours before the flight, a gate change is not critical yet — but
    // it may wait only until an hour before the flight (05:00 local, 04:00 UTC).
    const four = Date.parse("2026-11-21T03:00:00Z");
    expect(d.admit(four, [earlyGate("D1", "D2", 1)])).toEqual([]);
    expect(d.dueAt).toBe(Date.parse("2026-11-21T04:00:00Z"));
    expect(summary(d.flush(Date.parse("2026-11-21T04:00:00Z"))[0])).toEqual(["gate D1→D2"]);
  });

  it("send a group at once when a field already waiting changes again, critically", () => {
    const bigDelay: ChangeSelector = {
      name: "departure_time",
      kinds: ["time"],
      delayAtLeastMinutes: 120,
    };
    const d = new Driver(rule({ quietHours: { ...QUIET, critical: [CANCELLED, bigDelay] } }));
    expect(d.admit(NIGHT, [time(0, 30, 1)])).toEqual([]);
    expect(d.dueAt).toBe(END);
    const [alert] = d.admit(NIGHT + 10 * MINUTE, [time(30, 150, 2)]);
    expect(summary(alert)).toEqual(["publicEstimatedOffBlockTime 11:00→13:30"]);
  });

  it("hold a flight far off to the window's end even with a `within` critical selector", () => {
    const q = { ...QUIET, critical: [CANCELLED, GATE_SOON] };
    const d = new Driver(rule({ quietHours: q }));
    expect(d.admit(NIGHT, [gate("D1", "D2", 1)])).toEqual([]);
    // The flight leaves at 11:00 local: an hour before that is after 07:00.
    expect(d.dueAt).toBe(END);
    expect(d.admit(NIGHT + MINUTE, [state("DEL", "added", 2)])).toEqual([]);
    expect(d.dueAt).toBe(END);
  });

  it("take the largest `within` of the critical selectors, in whatever order they are written", () => {
    const halfHour: ChangeSelector = { name: "gate", kinds: ["gate"], withinMs: 1_800_000 };
    for (const critical of [
      [GATE_SOON, CANCELLED, halfHour],
      [halfHour, GATE_SOON, CANCELLED],
    ]) {
      const d = new Driver(rule({ quietHours: { ...QUIET, critical } }));
      d.admit(Date.parse("2026-11-21T03:00:00Z"), [earlyGate("D1", "D2", 1)]);
      expect(d.dueAt).toBe(Date.parse("2026-11-21T04:00:00Z"));
    }
  });

  it("hold a flight with no known time to the window's end", () => {
    const q = { ...QUIET, critical: [CANCELLED, GATE_SOON] };
    const { scheduled: _, ...untimed } = flight();
    const d = new Driver(rule({ quietHours: q }));
    d.admit(NIGHT, [
      event({ kind: "gate", field: "gate", action: "changed", old: "D1", new: "D2" }, 1, untimed),
    ]);
    expect(d.dueAt).toBe(END);
  });

  it("bring a group forward by group_wait from the critical change, not before it", () => {
    const bigDelay: ChangeSelector = {
      name: "departure_time",
      kinds: ["time"],
      delayAtLeastMinutes: 120,
    };
    const q = { ...QUIET, critical: [CANCELLED, bigDelay] };
    const d = new Driver(rule({ quietHours: q, groupWaitMs: 2 * MINUTE }));
    d.admit(NIGHT, [time(0, 30, 1)]);
    expect(d.dueAt).toBe(END);
    d.admit(NIGHT + 10 * MINUTE, [time(30, 150, 2)]);
    expect(d.dueAt).toBe(NIGHT + 12 * MINUTE);
  });

  it("leave a change held as a flap to its hold, also when its field changes again", () => {
    const day = Date.parse("2026-11-21T09:00:00Z");
    const d = new Driver(
      rule({ quietHours: QUIET, flapping: { windowMs: 10 * MINUTE, action: "correct" } }),
    );
    expect(d.admit(day, [gate("D1", "D2", 1)])).toHaveLength(1);
    expect(d.admit(day + MINUTE, [gate("D2", "D1", 2)])).toHaveLength(1); // the correction
    expect(d.admit(day + 2 * MINUTE, [gate("D1", "D3", 3)])).toEqual([]); // held as a flap
    expect(d.admit(day + 3 * MINUTE, [gate("D3", "D4", 4)])).toEqual([]);
    const [net] = d.flush(d.dueAt as number);
    expect(summary(net)).toEqual(["gate D1→D4"]);
  });
});
