import { describe, expect, it } from "vitest";
import { admitMatches, alertId, flushDue } from "../../src/dispatch/alert-decision.js";
import { DONE_IDS_LIMIT, DONE_IDS_MEMORY_MS } from "../../src/dispatch/alert-state.js";
import {
  at,
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

const T0 = Date.parse("2026-11-21T08:00:00Z");

describe("grouping", () => {
  it("group_wait 0: the changes of one observation go out at once as one alert", () => {
    const d = new Driver(rule());
    const g = gate("D1", "D2", 1);
    const t = time(0, 15, 1);
    const [alert, ...more] = d.admit(T0, [g, t]);
    expect(more).toEqual([]);
    expect(summary(alert)).toEqual(["gate D1→D2", "publicEstimatedOffBlockTime 11:00→11:15"]);
    expect(alert).toMatchObject({
      ruleId: "r1",
      labels: { team: "ops" },
      flight: flight(),
      openedAt: T0,
      decidedAt: T0,
    });
    expect(alert?.changes[0]).toEqual({
      kind: "gate",
      field: "gate",
      action: "changed",
      old: "D1",
      new: "D2",
      eventIds: [g.id],
    });
    expect(alert?.changes[1]).toMatchObject({ shiftMinutes: 15, delayMinutes: 15 });
    expect(alert?.id).toBe(alertId("r1", flight().key, [g.id, t.id]));
    expect(d.dueAt).toBeUndefined();
  });

  it("group_wait > 0: later matches before the end join; the group goes out when due", () => {
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    const g = gate("D1", "D2", 1);
    expect(d.admit(T0, [g])).toEqual([]);
    expect(d.dueAt).toBe(T0 + 2 * MINUTE);
    const t = time(0, 20, 2);
    expect(d.admit(T0 + MINUTE, [t])).toEqual([]);
    expect(d.dueAt).toBe(T0 + 2 * MINUTE);
    expect(d.flush(T0 + 2 * MINUTE - 1)).toEqual([]);
    const [alert] = d.flush(T0 + 2 * MINUTE);
    expect(summary(alert)).toEqual(["gate D1→D2", "publicEstimatedOffBlockTime 11:00→11:20"]);
    expect(alert).toMatchObject({ openedAt: T0, decidedAt: T0 + 2 * MINUTE });
    expect(d.dueAt).toBeUndefined();
  });

  it("a change after the group's end opens a new group, even when the flush comes late", () => {
    const d = new Driver(rule({ groupWaitMs: 2 * MINUTE }));
    d.admit(T0, [gate("D1", "D2", 1)]);
    // No flush ran at T0+2m: the admit at T0+3m sends the old group first.
    const sent = d.admit(T0 + 3 * MINUTE, [gate("D2", "D3", 2)]);
    expect(sent.map(summary)).toEqual([["gate D1→D2"]]);
    expect(d.dueAt).toBe(T0 + 5 * MINUTE);
    expect(d.flush(T0 + 5 * MINUTE).map(summary)).toEqual([["gate D2→D3"]]);
  });

  it("a field is sent once, from its first old to its last new, with every event id", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    const events = [gate(undefined, "D1", 1), gate("D1", "D2", 2), gate("D2", "D3", 3)];
    for (const [i, e] of events.entries()) d.admit(T0 + i * 1000, [e]);
    const [alert] = d.flush(T0 + MINUTE);
    expect(alert?.changes).toEqual([
      {
        kind: "gate",
        field: "gate",
        action: "assigned",
        new: "D3",
        eventIds: events.map((e) => e.id),
      },
    ]);
  });

  it("time fields: the shift is recomputed over the group, the delay is the last one", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    d.admit(T0, [time(0, 5, 1)]);
    d.admit(T0 + 1000, [time(5, 12, 2)]);
    const [alert] = d.flush(T0 + MINUTE);
    expect(alert?.changes[0]).toMatchObject({
      action: "changed",
      old: at(0),
      new: at(12),
      shiftMinutes: 12,
      delayMinutes: 12,
    });
  });

  it("A → B → A within the group is left out; a group left with nothing sends nothing", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    d.admit(T0, [gate("D1", "D2", 1), state("DEL", "added", 1)]);
    d.admit(T0 + 1000, [gate("D2", "D1", 2), time(0, 30, 2)]);
    d.admit(T0 + 2000, [state("DEL", "withdrawn", 3)]);
    expect(d.flush(T0 + MINUTE).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:00→11:30"],
    ]);

    const quiet = new Driver(rule({ groupWaitMs: MINUTE }));
    quiet.admit(T0, [gate("D1", "D2", 1)]);
    quiet.admit(T0 + 1000, [gate("D2", "D1", 2)]);
    expect(quiet.flush(T0 + MINUTE)).toEqual([]);
    expect(quiet.dueAt).toBeUndefined();
  });

  it("times compare as instants: +0100 and +01:00 spellings of one moment are no change", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    const there = event(
      { kind: "time", field: "expectedTimeBoarding", action: "changed", old: at(0), new: at(9) },
      1,
    );
    const back = event(
      {
        kind: "time",
        field: "expectedTimeBoarding",
        action: "changed",
        old: at(9),
        new: at(0).replace("+01:00", "+0100"),
      },
      2,
    );
    d.admit(T0, [there]);
    d.admit(T0 + 1, [back]);
    expect(d.flush(T0 + MINUTE)).toEqual([]);
  });

  it("changes are listed in the order their fields first changed", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    d.admit(T0, [state("BRD", "added", 1), gate("D1", "D2", 1)]);
    d.admit(T0 + 1000, [time(0, 10, 2), gate("D2", "D3", 2)]);
    const [alert] = d.flush(T0 + MINUTE);
    expect(summary(alert)).toEqual([
      "BRD added",
      "gate D1→D3",
      "publicEstimatedOffBlockTime 11:00→11:10",
    ]);
  });

  it("the newest event gives the alert's flight and current fields", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    d.admit(T0, [gate("D1", "D2", 1)]);
    const renamed = flight({ flightNames: ["KL1234", "DL9341"] });
    const newer = event(
      { kind: "gate", field: "gate", action: "changed", old: "D2", new: "D4" },
      2,
      renamed,
      { gate: "D4", pier: "D" },
    );
    d.admit(T0 + 1000, [newer]);
    const [alert] = d.flush(T0 + MINUTE);
    expect(alert?.flight).toEqual(renamed);
    expect(alert?.current).toEqual({ gate: "D4", pier: "D" });
  });
});

describe("what an alert tells", () => {
  it("a value assigned anew after one the recipient was told is a change from that value", () => {
    // The flight was dropped and found again: its gate comes as a fresh assignment.
    const d = new Driver(rule());
    expect(d.admit(T0, [gate(undefined, "D1", 1)]).map(summary)).toEqual([["gate ∅→D1"]]);
    const again = gate(undefined, "D2", 3);
    const [alert] = d.admit(T0 + MINUTE, [again]);
    expect(alert?.changes).toEqual([
      {
        kind: "gate",
        field: "gate",
        action: "changed",
        old: "D1",
        new: "D2",
        eventIds: [again.id],
      },
    ]);
  });

  it("a first estimate has no shift: there is no earlier time to move from", () => {
    const d = new Driver(rule());
    const [alert] = d.admit(T0, [time(undefined, 15, 1)]);
    expect(alert?.changes[0]).toMatchObject({ action: "assigned", new: at(15), delayMinutes: 15 });
    expect(alert?.changes[0]?.shiftMinutes).toBeUndefined();
  });

  it("a terminal change (a number) tells no shift: only times move", () => {
    const d = new Driver(rule());
    const moved = event(
      { kind: "terminal", field: "terminal", action: "changed", old: 1, new: 2 },
      1,
    );
    const [alert] = d.admit(T0, [moved]);
    expect(alert?.changes).toEqual([
      {
        kind: "terminal",
        field: "terminal",
        action: "changed",
        old: 1,
        new: 2,
        eventIds: [moved.id],
      },
    ]);
  });

  it("is the same after JSON (stored and delivered as JSON): what it lacks is left out", () => {
    const unscheduled = flight();
    delete unscheduled.scheduled;
    const observations = [
      [gate(undefined, "D1", 1)],
      // No schedule, so no delay, and no current fields known.
      [
        event(
          {
            kind: "time",
            field: "publicEstimatedOffBlockTime",
            action: "changed",
            old: at(0),
            new: at(10),
            shiftMinutes: 10,
          },
          2,
          unscheduled,
        ),
      ],
      [event({ kind: "flight", field: "flight", action: "removed" }, 3)],
    ];
    const d = new Driver(rule());
    for (const [i, events] of observations.entries()) d.admit(T0 + i * MINUTE, events);
    expect(d.sent.flatMap((a) => a.changes.map((c) => `${c.field} ${c.action}`))).toEqual([
      "gate assigned",
      "publicEstimatedOffBlockTime changed",
      "flight removed",
    ]);
    for (const alert of d.sent) expect(JSON.parse(JSON.stringify(alert))).toStrictEqual(alert);
  });
});

describe("cool-down", () => {
  const coolDown = rule({ coolDownMs: 30 * MINUTE });

  it("the same field reaching the same value again is not sent within the cool-down", () => {
    const d = new Driver(coolDown);
    expect(d.admit(T0, [state("DEL", "added", 1)]).map(summary)).toEqual([["DEL added"]]);
    // The withdrawal in between is not matched by this rule; DEL added again is a repeat.
    expect(d.admit(T0 + 10 * MINUTE, [state("DEL", "added", 3)])).toEqual([]);
    expect(d.admit(T0 + 30 * MINUTE, [state("DEL", "added", 5)]).map(summary)).toEqual([
      ["DEL added"],
    ]);
  });

  it("a different value is always sent; only the last announced value is a repeat", () => {
    const d = new Driver(coolDown);
    expect(d.admit(T0, [gate("D1", "D2", 1)]).map(summary)).toEqual([["gate D1→D2"]]);
    expect(d.admit(T0 + MINUTE, [gate("D2", "D3", 2)]).map(summary)).toEqual([["gate D2→D3"]]);
    expect(d.admit(T0 + 2 * MINUTE, [gate("D3", "D2", 3)]).map(summary)).toEqual([["gate D3→D2"]]);
    // D2 → D7 is not seen by this rule (say, an outage); D7 → D2 repeats the last alert.
    expect(d.admit(T0 + 3 * MINUTE, [gate("D7", "D2", 5)])).toEqual([]);
  });

  it("cool_down 0 is off: a repeat is sent again", () => {
    const d = new Driver(rule());
    d.admit(T0, [state("DEL", "added", 1)]);
    expect(d.admit(T0 + 1, [state("DEL", "added", 3)]).map(summary)).toEqual([["DEL added"]]);
  });

  it("the memory of a field lasts an hour after the last decision, or the cool-down if longer", () => {
    const d = new Driver(coolDown);
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.state?.fields?.gate).toEqual({ sent: { new: "D2", old: "D1", at: T0 }, version: 1 });
    d.admit(T0 + 30 * MINUTE, []);
    expect(d.state?.fields?.gate?.sent).toBeDefined();
    d.admit(T0 + DONE_IDS_MEMORY_MS + 1, []);
    expect(d.state).toBeUndefined();

    const long = new Driver(rule({ coolDownMs: 2 * DONE_IDS_MEMORY_MS }));
    long.admit(T0, [gate("D1", "D2", 1)]);
    long.admit(T0 + DONE_IDS_MEMORY_MS + 1, []);
    expect(long.state).toEqual({ fields: { gate: { sent: { new: "D2", old: "D1", at: T0 } } } });
    long.admit(T0 + 2 * DONE_IDS_MEMORY_MS, []);
    expect(long.state).toBeUndefined();
  });

  it("a value last announced is not announced again, whatever the cool-down, while remembered", () => {
    // D2 → D7 is not seen by this rule; D7 → D2 tells the recipient nothing new.
    const d = new Driver(rule());
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.admit(T0 + MINUTE, [gate("D7", "D2", 3)])).toEqual([]);
    // Past the memory the event is taken as it comes.
    const later = T0 + MINUTE + DONE_IDS_MEMORY_MS + 1;
    expect(d.admit(later, [gate("D8", "D2", 5)]).map(summary)).toEqual([["gate D8→D2"]]);
  });
});

describe("idempotence", () => {
  it("an event admitted twice counts once, pending or already sent", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    const g = gate("D1", "D2", 1);
    d.admit(T0, [g]);
    d.admit(T0 + 1000, [g, g]);
    const [alert] = d.flush(T0 + MINUTE);
    expect(alert?.changes[0]?.eventIds).toEqual([g.id]);
    expect(d.admit(T0 + 2 * MINUTE, [g])).toEqual([]);
    expect(d.flush(T0 + 10 * MINUTE)).toEqual([]);

    const now = new Driver(rule());
    expect(now.admit(T0, [g])).toHaveLength(1);
    expect(now.admit(T0 + 1000, [g])).toEqual([]);
  });

  it("remembers a bounded number of decided events", () => {
    const d = new Driver(rule());
    for (let v = 1; v <= DONE_IDS_LIMIT + 10; v++) d.admit(T0 + v, [gate(`G${v}`, `G${v + 1}`, v)]);
    expect(d.state?.done).toHaveLength(DONE_IDS_LIMIT);
  });

  it("flushDue twice at the same time sends once; before the due time it changes nothing", () => {
    const r = rule({ groupWaitMs: MINUTE });
    const first = admitMatches(undefined, r, [{ rule: r, event: gate("D1", "D2", 1) }], T0);
    const early = flushDue(first.state, r, T0 + MINUTE - 1);
    expect(early).toEqual({ state: first.state, alerts: [], dueAt: T0 + MINUTE });
    const due = flushDue(first.state, r, T0 + MINUTE);
    expect(due.alerts).toHaveLength(1);
    expect(flushDue(due.state, r, T0 + MINUTE)).toEqual({ state: due.state, alerts: [] });
    expect(flushDue(undefined, r, T0)).toEqual({ state: undefined, alerts: [] });
  });

  it("a flush with nothing due hands back the state it was given, however late", () => {
    const r = rule({ groupWaitMs: MINUTE });
    const first = admitMatches(undefined, r, [{ rule: r, event: gate("D1", "D2", 1) }], T0);
    const sent = flushDue(first.state, r, T0 + MINUTE);
    expect(sent.state).toBeDefined();
    // Only the memory of the alert is left; past its hour the next decision drops it.
    const later = T0 + MINUTE + DONE_IDS_MEMORY_MS + 1;
    expect(flushDue(sent.state, r, later)).toStrictEqual({ state: sent.state, alerts: [] });
    expect(admitMatches(sent.state, r, [], later).state).toBeUndefined();
  });

  it("a flush before the due time hands back the state it was given, even memory past its time", () => {
    const r = rule({ groupWaitMs: 10 * MINUTE });
    const first = admitMatches(undefined, r, [{ rule: r, event: gate("D1", "D2", 1) }], T0);
    const sent = flushDue(first.state, r, T0 + 10 * MINUTE);
    // A new group opens near the end of the alert's memory and is due after it.
    const opened = T0 + 10 * MINUTE + DONE_IDS_MEMORY_MS - MINUTE;
    const next = admitMatches(sent.state, r, [{ rule: r, event: gate("D2", "D3", 2) }], opened);
    expect(next.state?.done).toBeDefined();
    const early = flushDue(next.state, r, opened + 5 * MINUTE);
    expect(early).toStrictEqual({ state: next.state, alerts: [], dueAt: opened + 10 * MINUTE });
  });

  it("decisions never change the state they are given", () => {
    const r = rule({ groupWaitMs: MINUTE, coolDownMs: MINUTE });
    const first = admitMatches(undefined, r, [{ rule: r, event: gate("D1", "D2", 1) }], T0);
    const before = JSON.stringify(first.state);
    admitMatches(first.state, r, [{ rule: r, event: gate("D2", "D3", 2) }], T0 + 1);
    flushDue(first.state, r, T0 + MINUTE);
    expect(JSON.stringify(first.state)).toBe(before);
  });
});

describe("catching up after downtime", () => {
  const r = rule({ groupWaitMs: MINUTE });
  const open = () => admitMatches(undefined, r, [{ rule: r, event: gate("D1", "D2", 1) }], T0);
  const back = T0 + 10 * MINUTE;
  // Detection last looked 1 s after the group opened; the daemon came back 10 min later.
  const catchUp = { since: back, seenUntil: T0 + 1_000 };
  const moves = (alerts: readonly { changes: { old?: unknown; new?: unknown }[] }[]) =>
    alerts.map((a) => a.changes.map((c) => `${c.old}→${c.new}`));

  it("a group whose window outlasted detection's last look stays open and takes what catch-up finds", () => {
    const held = flushDue(open().state, r, back, catchUp);
    expect(held.alerts).toEqual([]);
    const joined = admitMatches(
      held.state,
      r,
      [{ rule: r, event: gate("D2", "D3", 2) }],
      back,
      catchUp,
    );
    expect(joined.alerts).toEqual([]);
    // Caught up: it goes out as the flight is now.
    expect(moves(flushDue(joined.state, r, back + 500).alerts)).toEqual([["D1→D3"]]);
  });

  it("without catch-up, the late change finds its group closed: D1→D2, then D2→D3 a group later", () => {
    const late = admitMatches(open().state, r, [{ rule: r, event: gate("D2", "D3", 2) }], back);
    expect(moves(late.alerts)).toEqual([["D1→D2"]]);
  });

  it("a group that closed before detection's last look, or opened since, closes on time", () => {
    const seenPast = { since: back, seenUntil: T0 + MINUTE };
    expect(moves(flushDue(open().state, r, back, seenPast).alerts)).toEqual([["D1→D2"]]);
    const now0 = rule();
    const fresh = admitMatches(
      undefined,
      now0,
      [{ rule: now0, event: gate("D1", "D2", 1) }],
      back,
      catchUp,
    );
    expect(moves(fresh.alerts)).toEqual([["D1→D2"]]);
  });

  // A hold that began before the stop and ended while nobody watched is kept like a group.
  const down = { since: T0 + 12 * MINUTE, seenUntil: T0 + 2 * MINUTE };
  const json = <T>(x: T): T => JSON.parse(JSON.stringify(x));

  it("flapping suppress: a group closed into a hold before the stop takes what catch-up finds (D1→D3 once)", () => {
    const s = rule({ groupWaitMs: MINUTE, flapping: { action: "suppress", windowMs: 5 * MINUTE } });
    const opened = admitMatches(undefined, s, [{ rule: s, event: gate("D1", "D2", 1) }], T0);
    const closed = flushDue(opened.state, s, T0 + MINUTE); // held until T0+5m
    expect(closed.alerts).toEqual([]);
    const stored = json(closed.state);
    // Without downtime the later move joins the hold: one alert D1→D3.
    const live = admitMatches(
      stored,
      s,
      [{ rule: s, event: gate("D2", "D3", 2) }],
      T0 + 3 * MINUTE,
    );
    expect(moves(flushDue(json(live.state), s, T0 + 8 * MINUTE).alerts)).toEqual([["D1→D3"]]);
    // Down from T0+2m to T0+12m: the first poll back finds D3.
    const first = admitMatches(
      stored,
      s,
      [{ rule: s, event: gate("D2", "D3", 2) }],
      down.since,
      down,
    );
    expect(first.alerts).toEqual([]);
    expect(flushDue(json(first.state), s, down.since + 1_000, down).alerts).toEqual([]);
    const caughtUp = flushDue(json(first.state), s, down.since + 2_000);
    expect(moves(caughtUp.alerts)).toEqual([["D1→D3"]]);
  });

  it("flapping correct: a change held after a correction before the stop takes what catch-up finds", () => {
    const c = rule({ flapping: { action: "correct", windowMs: 5 * MINUTE } });
    let st = admitMatches(undefined, c, [{ rule: c, event: gate("D1", "D2", 1) }], T0).state;
    const corrected = admitMatches(st, c, [{ rule: c, event: gate("D2", "D1", 2) }], T0 + 30_000);
    expect(moves(corrected.alerts)).toEqual([["D2→D1"]]); // the correction; hold until T0+5.5m
    const held = admitMatches(
      corrected.state,
      c,
      [{ rule: c, event: gate("D1", "D4", 3) }],
      T0 + MINUTE,
    );
    expect(held.alerts).toEqual([]);
    st = json(held.state);
    const first = admitMatches(st, c, [{ rule: c, event: gate("D4", "D5", 4) }], down.since, down);
    expect(first.alerts).toEqual([]);
    expect(moves(flushDue(json(first.state), c, down.since + 2_000).alerts)).toEqual([["D1→D5"]]);
  });

  it("flapping suppress: a group closed into its hold only after the stop still takes what catch-up finds", () => {
    // Due at T0+1m but not flushed before the stop; its hold (to T0+5m) outlasted the last look.
    const s = rule({ groupWaitMs: MINUTE, flapping: { action: "suppress", windowMs: 5 * MINUTE } });
    const opened = admitMatches(undefined, s, [{ rule: s, event: gate("D1", "D2", 1) }], T0);
    const first = flushDue(json(opened.state), s, down.since, down);
    expect(first.alerts).toEqual([]);
    // The first poll back finds D1 again: a flap within the window, as if flushed in time.
    const back = admitMatches(
      json(first.state),
      s,
      [{ rule: s, event: gate("D2", "D1", 2) }],
      down.since,
      down,
    );
    expect(back.alerts).toEqual([]);
    expect(flushDue(json(back.state), s, down.since + 2_000).alerts).toEqual([]);
  });

  it("a hold that ended before detection's last look, or began since, is released on time", () => {
    const c = rule({ flapping: { action: "correct", windowMs: MINUTE } });
    let st = admitMatches(undefined, c, [{ rule: c, event: gate("D1", "D2", 1) }], T0).state;
    st = admitMatches(st, c, [{ rule: c, event: gate("D2", "D1", 2) }], T0 + 1_000).state;
    st = admitMatches(st, c, [{ rule: c, event: gate("D1", "D4", 3) }], T0 + 2_000).state;
    // held until T0+61s, before detection's last look at T0+2m
    expect(moves(flushDue(json(st), c, down.since, down).alerts)).toEqual([["D1→D4"]]);
    const late = { since: T0 + 1_500, seenUntil: T0 + 1_000 }; // held after the restart
    expect(moves(flushDue(json(st), c, T0 + 2 * MINUTE, late).alerts)).toEqual([["D1→D4"]]);
  });
});

describe("alert ids", () => {
  it("are deterministic: rule, flight and events in order", () => {
    // A fixed value: ids must be the same in every process and after restarts.
    expect(alertId("r1", "D:2026-11-21:KL1234", ["a", "b"])).toBe("n-sKChsl4pubIhGlLZjayQ");
    const ids = new Set([
      alertId("r1", "D:2026-11-21:KL1234", ["a", "b"]),
      alertId("r1", "D:2026-11-21:KL1234", ["b", "a"]),
      alertId("r1", "D:2026-11-21:KL1234", ["ab"]),
      alertId("r2", "D:2026-11-21:KL1234", ["a", "b"]),
      alertId("r1", "D:2026-11-21:KL1235", ["a", "b"]),
      alertId("r1D:2026-11-21:KL1234", "", ["a", "b"]),
      alertId("r1", "D:2026-11-21:KL1234", []),
    ]);
    expect(ids.size).toBe(7);
  });

  it("the same group decided twice (after a crash) has the same id", () => {
    const r = rule({ groupWaitMs: MINUTE });
    const events = [gate("D1", "D2", 1), time(0, 20, 1)];
    const decide = () => {
      const open = admitMatches(
        undefined,
        r,
        events.map((event) => ({ rule: r, event })),
        T0,
      );
      return flushDue(open.state, r, T0 + MINUTE).alerts[0]?.id;
    };
    expect(decide()).toBeDefined();
    expect(decide()).toBe(decide());
  });
});

describe("sequence", () => {
  it("is the version of the newest observation the alert reflects", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    d.admit(T0, [gate("D1", "D2", 1_000)]);
    d.admit(T0 + 1_000, [time(0, 20, 2_000)]);
    const [alert] = d.flush(T0 + MINUTE);
    expect(alert?.sequence).toBe(2_000);
    d.admit(T0 + 2 * MINUTE, [gate("D2", "D3", 5_000)]);
    const [next] = d.flush(T0 + 3 * MINUTE);
    expect(next?.sequence).toBe(5_000);
  });

  it("always rises from one alert of the rule about the flight to the next, even from one observation", () => {
    // A group and a change held back by a flap correction, released from the same
    // observation: the second alert still orders after the first.
    const d = new Driver(rule({ flapping: { windowMs: 10 * MINUTE, action: "correct" } }));
    const sequences: number[] = [];
    for (const [i, e] of [
      gate("D1", "D2", 7_000),
      gate("D2", "D1", 7_000),
      gate("D1", "D3", 7_000),
    ].entries()) {
      for (const alert of d.admit(T0 + i * MINUTE, [e])) sequences.push(alert.sequence ?? 0);
      while (d.dueAt !== undefined && d.dueAt <= T0 + (i + 1) * MINUTE) {
        for (const alert of d.flush(d.dueAt)) sequences.push(alert.sequence ?? 0);
      }
    }
    while (d.dueAt !== undefined) {
      for (const alert of d.flush(d.dueAt)) sequences.push(alert.sequence ?? 0);
    }
    expect(sequences.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < sequences.length; i++) {
      expect(sequences[i]).toBeGreaterThan(sequences[i - 1] as number);
    }
    expect(sequences[0]).toBe(7_000);
  });
});
