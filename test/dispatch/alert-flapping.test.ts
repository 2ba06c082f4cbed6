import { describe, expect, it } from "vitest";
import { Driver, gate, MINUTE, rule, state, summary, time } from "./dispatch-builder.js";

const T0 = Date.parse("2026-11-21T08:00:00Z");
const WINDOW = 10 * MINUTE;

describe("flapping: suppress", () => {
  const suppress = rule({
    groupWaitMs: MINUTE,
    flapping: { windowMs: WINDOW, action: "suppress" },
  });

  it("holds every change for the window: A → B → A sends nothing", () => {
    const d = new Driver(suppress);
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.dueAt).toBe(T0 + WINDOW);
    d.admit(T0 + 3 * MINUTE, [gate("D2", "D1", 2)]);
    expect(d.dueAt).toBe(T0 + WINDOW);
    expect(d.flush(T0 + MINUTE)).toEqual([]);
    expect(d.flush(T0 + WINDOW)).toEqual([]);
    expect(d.dueAt).toBeUndefined();
  });

  it("sends the net change once the window has passed, not before", () => {
    const d = new Driver(suppress);
    d.admit(T0, [gate("D1", "D2", 1)]);
    d.admit(T0 + 3 * MINUTE, [gate("D2", "D3", 2), state("DEL", "added", 2)]);
    expect(d.flush(T0 + WINDOW - 1)).toEqual([]);
    const [alert] = d.flush(T0 + WINDOW);
    expect(summary(alert)).toEqual(["gate D1→D3", "DEL added"]);
    expect(alert).toMatchObject({ openedAt: T0, decidedAt: T0 + WINDOW });
  });

  it("a group_wait longer than the window decides the wait", () => {
    const d = new Driver(
      rule({ groupWaitMs: 15 * MINUTE, flapping: { windowMs: WINDOW, action: "suppress" } }),
    );
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.dueAt).toBe(T0 + 15 * MINUTE);
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

  it("keeps the memory of a field for the window only", () => {
    const d = new Driver(correct);
    d.admit(T0, [gate("D1", "D2", 1)]);
    expect(d.state?.fields?.gate?.sent).toMatchObject({ at: T0 });
    d.admit(T0 + WINDOW + 1, []);
    expect(d.state?.fields).toBeUndefined();
  });
});
