import { describe, expect, it } from "vitest";
import { admitMatches } from "../../src/dispatch/alert-decision.js";
import { DONE_IDS_MEMORY_MS } from "../../src/dispatch/alert-state.js";
import { Driver, gate, MINUTE, rule, state, summary, time } from "./dispatch-builder.js";

const T0 = Date.parse("2026-11-21T08:00:00Z");
const WINDOW = 10 * MINUTE;

/** Flushes at every due time up to `until`, as the dispatcher's loop does. */
function runUntil(d: Driver, until: number): void {
  while (d.dueAt !== undefined && d.dueAt <= until) d.flush(d.dueAt);
}

describe("flapping: suppress", () => {
  const suppress = rule({
    groupWaitMs: MINUTE,
    flapping: { windowMs: WINDOW, action: "suppress" },
  });

  it("holds every change for the window: A → B → A sends nothing", () => {
    const d = new Driver(suppress);
    d.admit(T0, [gate("D1", "D2", 1)]);
    // First the group's end, then the field's hold.
    expect(d.dueAt).toBe(T0 + MINUTE);
    expect(d.flush(T0 + MINUTE)).toEqual([]);
    expect(d.dueAt).toBe(T0 + WINDOW);
    d.admit(T0 + 3 * MINUTE, [gate("D2", "D1", 2)]);
    expect(d.dueAt).toBe(T0 + WINDOW);
    expect(d.flush(T0 + WINDOW)).toEqual([]);
    expect(d.dueAt).toBeUndefined();
  });

  it("sends the net change once the window has passed, not before", () => {
    const d = new Driver(suppress);
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.admit(T0 + 3 * MINUTE, [gate("D2", "D3", 2)]);
    expect(d.flush(T0 + MINUTE)).toEqual([]);
    expect(d.flush(T0 + WINDOW - 1)).toEqual([]);
    const [alert] = d.flush(T0 + WINDOW);
    expect(summary(alert)).toEqual(["gate D1→D3"]);
    expect(alert).toMatchObject({ openedAt: T0, decidedAt: T0 + WINDOW });
    expect(alert?.changes[0]?.eventIds).toHaveLength(2);
  });

  it("a group_wait longer than the window decides the wait", () => {
    const d = new Driver(
      rule({ groupWaitMs: 15 * MINUTE, flapping: { windowMs: WINDOW, action: "suppress" } }),
    );
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.dueAt).toBe(T0 + 15 * MINUTE);
    expect(d.flush(T0 + 15 * MINUTE).map(summary)).toEqual([["gate D1→D2"]]);
  });

  it("holds per field: a field that joins the group late and reverts within its window sends nothing", () => {
    // Before, the gate was sent with the group DEL opened (T0 + 10m) and its revert alone.
    const d = new Driver(suppress);
    d.admit(T0, [state("DEL", "added", 1)]);
    d.admit(T0 + 9 * MINUTE, [gate("D1", "D2", 2)]);
    runUntil(d, T0 + 10.5 * MINUTE);
    d.admit(T0 + 10.5 * MINUTE, [gate("D2", "D1", 3)]);
    runUntil(d, T0 + 60 * MINUTE);
    expect(d.sent.map(summary)).toEqual([["DEL added"]]);
    expect(d.sent[0]?.decidedAt).toBe(T0 + WINDOW);
  });

  it("a change that stays is sent after the window; with group_wait 0 the hold is due at once", () => {
    const d = new Driver(rule({ flapping: { windowMs: WINDOW, action: "suppress" } }));
    expect(d.admit(T0, [gate("D1", "D2", 1)])).toEqual([]);
    expect(d.dueAt).toBe(T0 + WINDOW);
    expect(d.flush(T0 + WINDOW - 1)).toEqual([]);
    const [alert] = d.flush(T0 + WINDOW);
    expect(summary(alert)).toEqual(["gate D1→D2"]);
    expect(alert).toMatchObject({ openedAt: T0, decidedAt: T0 + WINDOW });
    expect(d.dueAt).toBeUndefined();
  });

  it("a group is sent together once each of its fields has been held for the window", () => {
    const d = new Driver(
      rule({ groupWaitMs: 2 * MINUTE, flapping: { windowMs: WINDOW, action: "suppress" } }),
    );
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.admit(T0 + 1.5 * MINUTE, [state("DEL", "added", 2)]);
    expect(d.dueAt).toBe(T0 + 2 * MINUTE);
    expect(d.flush(T0 + 2 * MINUTE)).toEqual([]);
    expect(d.dueAt).toBe(T0 + 1.5 * MINUTE + WINDOW);
    // After the group's end a new field opens a new group; the gate still joins its own.
    d.admit(T0 + 3 * MINUTE, [time(0, 20, 3), gate("D2", "D3", 3)]);
    expect(d.dueAt).toBe(T0 + 5 * MINUTE);
    expect(d.flush(T0 + 5 * MINUTE)).toEqual([]);
    expect(d.dueAt).toBe(T0 + 1.5 * MINUTE + WINDOW);
    const [first] = d.flush(T0 + 11.5 * MINUTE);
    expect(summary(first)).toEqual(["gate D1→D3", "DEL added"]);
    expect(first).toMatchObject({ openedAt: T0, decidedAt: T0 + 11.5 * MINUTE });
    expect(d.dueAt).toBe(T0 + 3 * MINUTE + WINDOW);
    expect(d.flush(T0 + 13 * MINUTE).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:00→11:20"],
    ]);
    expect(d.dueAt).toBeUndefined();
  });

  it("a late flush sends what is over at once; the net change is against the last alert", () => {
    const d = new Driver(suppress);
    d.admit(T0, [gate("D1", "D2", 1)]);
    const late = T0 + 30 * MINUTE;
    expect(d.admit(late, [gate("D2", "D3", 2)]).map(summary)).toEqual([["gate D1→D2"]]);
    d.admit(late + MINUTE, [gate("D3", "D2", 3)]);
    runUntil(d, late + 60 * MINUTE);
    expect(d.sent).toHaveLength(1);
  });

  it("a revert after the window is news", () => {
    const d = new Driver(suppress);
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.flush(T0 + WINDOW);
    d.admit(T0 + WINDOW + 1, [gate("D2", "D1", 2)]);
    d.flush(T0 + 2 * WINDOW + 1);
    expect(d.sent.map(summary)).toEqual([["gate D1→D2"], ["gate D2→D1"]]);
  });
});

describe("flapping: correct", () => {
  const correct = rule({ flapping: { windowMs: WINDOW, action: "correct" } });

  it("first alert, one correction, further flaps held and sent as their net change at the end", () => {
    const d = new Driver(correct);
    expect(d.admit(T0, [gate("D1", "D2", 1)]).map(summary)).toEqual([["gate D1→D2"]]);
    const [correction] = d.admit(T0 + 2 * MINUTE, [gate("D2", "D1", 2)]);
    expect(summary(correction)).toEqual(["gate D2→D1 (correction)"]);
    expect(correction?.changes[0]?.correction).toBe(true);
    // Held until the correction's window ends; other fields still go out at once.
    expect(d.admit(T0 + 3 * MINUTE, [gate("D1", "D2", 3)])).toEqual([]);
    expect(d.dueAt).toBe(T0 + 2 * MINUTE + WINDOW);
    expect(d.admit(T0 + 4 * MINUTE, [gate("D2", "D1", 4), time(0, 20, 4)]).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:00→11:20"],
    ]);
    expect(d.admit(T0 + 5 * MINUTE, [gate("D1", "D3", 5)])).toEqual([]);
    expect(d.flush(T0 + 2 * MINUTE + WINDOW - 1)).toEqual([]);
    const [release] = d.flush(T0 + 2 * MINUTE + WINDOW);
    expect(summary(release)).toEqual(["gate D1→D3"]);
    expect(release?.changes[0]?.eventIds).toHaveLength(3);
    expect(release?.changes[0]?.correction).toBeUndefined();
    expect(d.sent).toHaveLength(4);
    expect(d.dueAt).toBeUndefined();
  });

  it("held flaps back at the corrected value send nothing", () => {
    const d = new Driver(correct);
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.admit(T0 + MINUTE, [gate("D2", "D1", 2)]);
    for (let v = 3; v <= 9; v++) {
      d.admit(T0 + v * MINUTE, [v % 2 === 1 ? gate("D1", "D2", v) : gate("D2", "D1", v)]);
    }
    // The last flap (v = 9) left it at D2; one more brings it back to D1.
    d.admit(T0 + 10 * MINUTE, [gate("D2", "D1", 10)]);
    expect(d.flush(T0 + MINUTE + WINDOW)).toEqual([]);
    expect(d.sent.map(summary)).toEqual([["gate D1→D2"], ["gate D2→D1 (correction)"]]);
  });

  it("a release is measured against the value last announced, even across a missed step", () => {
    const d = new Driver(correct);
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.admit(T0 + MINUTE, [gate("D2", "D1", 2)]);
    // D1 → D7 was not seen by this rule; D7 → D1 ends where the correction left it.
    d.admit(T0 + 2 * MINUTE, [gate("D7", "D1", 4)]);
    expect(d.flush(T0 + MINUTE + WINDOW)).toEqual([]);
    d.admit(T0 + 12 * MINUTE, [gate("D1", "D2", 5)]);
    d.admit(T0 + 13 * MINUTE, [gate("D2", "D1", 6)]);
    d.admit(T0 + 14 * MINUTE, [gate("D8", "D9", 8)]);
    const [release] = d.flush(T0 + 13 * MINUTE + WINDOW);
    expect(release?.changes[0]).toMatchObject({ action: "changed", old: "D1", new: "D9" });
  });

  it("after the hold, changes are normal again", () => {
    const d = new Driver(correct);
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.admit(T0 + MINUTE, [gate("D2", "D1", 2)]);
    d.flush(T0 + MINUTE + WINDOW);
    expect(d.admit(T0 + 12 * MINUTE, [gate("D1", "D5", 3)]).map(summary)).toEqual([["gate D1→D5"]]);
  });

  it("a revert after the window is not a correction; a change to a third value is none", () => {
    const d = new Driver(correct);
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.admit(T0 + WINDOW + 1, [gate("D2", "D1", 2)]).map(summary)).toEqual([["gate D2→D1"]]);
    const other = new Driver(correct);
    other.admit(T0, [gate("D1", "D2", 1)]);
    expect(other.admit(T0 + MINUTE, [gate("D2", "D3", 2)]).map(summary)).toEqual([["gate D2→D3"]]);
  });

  it("states flap too: DEL added then withdrawn is corrected", () => {
    const d = new Driver(correct);
    d.admit(T0, [state("DEL", "added", 1)]);
    expect(d.admit(T0 + MINUTE, [state("DEL", "withdrawn", 2)]).map(summary)).toEqual([
      ["DEL withdrawn (correction)"],
    ]);
    expect(d.admit(T0 + 2 * MINUTE, [state("DEL", "added", 3)])).toEqual([]);
    expect(d.flush(T0 + MINUTE + WINDOW).map(summary)).toEqual([["DEL added"]]);
  });

  it("with a group_wait the revert is detected at the flush", () => {
    const d = new Driver(
      rule({ groupWaitMs: MINUTE, flapping: { windowMs: WINDOW, action: "correct" } }),
    );
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.flush(T0 + MINUTE);
    d.admit(T0 + 2 * MINUTE, [gate("D2", "D1", 2)]);
    expect(d.flush(T0 + 3 * MINUTE).map(summary)).toEqual([["gate D2→D1 (correction)"]]);
    d.admit(T0 + 4 * MINUTE, [gate("D1", "D2", 3)]);
    expect(d.dueAt).toBe(T0 + 3 * MINUTE + WINDOW);
  });

  it("keeps the memory of a field an hour after the last decision, not longer", () => {
    const d = new Driver(correct);
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.state?.fields?.gate?.sent).toMatchObject({ at: T0 });
    d.admit(T0 + WINDOW + 1, []);
    expect(d.state?.fields?.gate?.sent).toMatchObject({ at: T0 });
    d.admit(T0 + DONE_IDS_MEMORY_MS + 1, []);
    expect(d.state).toBeUndefined();
  });
});

describe("flapping: correct, at the window's edges", () => {
  const correcting = () => rule({ flapping: { windowMs: WINDOW, action: "correct" } });

  it("a revert exactly at the end of the window is still a correction", () => {
    const d = new Driver(correcting());
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.admit(T0 + WINDOW, [gate("D2", "D1", 2)]).map(summary)).toEqual([
      ["gate D2→D1 (correction)"],
    ]);
  });

  it("a change exactly when the hold ends is not held: a flap back then is corrected at once", () => {
    const d = new Driver(correcting());
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.admit(T0 + MINUTE, [gate("D2", "D1", 2)]); // the correction: held until T0 + 1m + window
    const end = T0 + MINUTE + WINDOW;
    expect(d.admit(end - 1, [gate("D1", "D2", 3)])).toEqual([]);
    expect(d.dueAt).toBe(end);

    const atEnd = new Driver(correcting());
    atEnd.admit(T0, [gate("D1", "D2", 1)]);
    atEnd.admit(T0 + MINUTE, [gate("D2", "D1", 2)]);
    expect(atEnd.admit(end, [gate("D1", "D2", 3)]).map(summary)).toEqual([
      ["gate D1→D2 (correction)"],
    ]);
  });

  it("a held change released with a group goes first when its field changed first", () => {
    const d = new Driver(
      rule({ groupWaitMs: MINUTE, flapping: { windowMs: WINDOW, action: "correct" } }),
    );
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.flush(T0 + MINUTE);
    d.admit(T0 + 2 * MINUTE, [gate("D2", "D1", 2)]);
    expect(d.flush(T0 + 3 * MINUTE).map(summary)).toEqual([["gate D2→D1 (correction)"]]);
    const release = T0 + 3 * MINUTE + WINDOW;
    d.admit(T0 + 4 * MINUTE, [gate("D1", "D3", 3)]); // held until the release
    // A group opened a minute before the release closes with it: one alert.
    d.admit(release - MINUTE, [time(0, 20, 4)]);
    expect(d.dueAt).toBe(release);
    const [alert, ...more] = d.flush(release);
    expect(more).toEqual([]);
    expect(summary(alert)).toEqual(["gate D1→D3", "publicEstimatedOffBlockTime 11:00→11:20"]);
    expect(alert).toMatchObject({ openedAt: T0 + 4 * MINUTE, decidedAt: release });
  });

  it("a rule reloaded without flapping sends at once, even within a former correction's hold", () => {
    const correct = correcting();
    let st = admitMatches(
      undefined,
      correct,
      [{ rule: correct, event: gate("D1", "D2", 1) }],
      T0,
    ).state;
    st = admitMatches(
      st,
      correct,
      [{ rule: correct, event: gate("D2", "D1", 2) }],
      T0 + MINUTE,
    ).state;
    expect(st?.fields?.gate?.holdUntil).toBe(T0 + MINUTE + WINDOW);
    const reloaded = rule();
    const next = admitMatches(
      st,
      reloaded,
      [{ rule: reloaded, event: gate("D1", "D3", 3) }],
      T0 + 2 * MINUTE,
    );
    expect(next.alerts.map(summary)).toEqual([["gate D1→D3"]]);
  });
});
