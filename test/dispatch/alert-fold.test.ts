import { describe, expect, it } from "vitest";
import type { AlertChange } from "../../src/dispatch/alert.js";
import { foldAlert } from "../../src/dispatch/alert-fold.js";
import { alertChange, alertOf, kl1001 } from "../support/alert-builder.js";

const gate = (old: string | undefined, now: string, id: string): AlertChange =>
  alertChange({
    kind: "gate",
    field: "gate",
    action: old === undefined ? "assigned" : "changed",
    ...(old === undefined ? {} : { old }),
    new: now,
    eventIds: [id],
  });
const estimate = (old: string, now: string, id: string): AlertChange =>
  alertChange({
    kind: "time",
    field: "publicEstimatedOffBlockTime",
    action: "changed",
    old,
    new: now,
    shiftMinutes: 5,
    delayMinutes: 30,
    eventIds: [id],
  });
const state = (code: string, action: "added" | "withdrawn", id: string): AlertChange =>
  alertChange({ kind: "state", field: "publicFlightState", action, state: code, eventIds: [id] });

const alert = (id: string, changes: AlertChange[], openedAt: number, sequence: number) =>
  alertOf({ id, ruleId: "r1", flight: kl1001(), changes, openedAt, decidedAt: openedAt, sequence });

describe("foldAlert", () => {
  it("takes each field from the older alert's old value to the newer one's new value", () => {
    const older = alert("a1", [gate("D1", "D2", "e1"), state("BRD", "added", "e2")], 1_000, 10);
    const newer = alert(
      "a2",
      [
        gate("D2", "D3", "e3"),
        estimate("2026-11-21T10:25:00.000+01:00", "2026-11-21T10:55:00.000+01:00", "e4"),
      ],
      2_000,
      20,
    );
    const folded = foldAlert(older, newer);
    expect(folded.id).toBe("a2");
    expect(folded.sequence).toBe(20);
    expect(folded.openedAt).toBe(1_000);
    expect(folded.changes).toEqual([
      { ...gate("D1", "D3", "e3"), eventIds: ["e1", "e3"] },
      state("BRD", "added", "e2"),
      estimate("2026-11-21T10:25:00.000+01:00", "2026-11-21T10:55:00.000+01:00", "e4"),
    ]);
  });

  it("leaves out a field that came back where it started, and keeps a first value an assignment", () => {
    const older = alert("a1", [gate("D1", "D2", "e1")], 0, 1);
    const back = foldAlert(older, alert("a2", [gate("D2", "D1", "e2")], 5, 2));
    expect(back.changes).toEqual([]);
    const cancelled = foldAlert(
      alert("a1", [state("CNX", "added", "e1")], 0, 1),
      alert("a2", [state("CNX", "withdrawn", "e2")], 5, 2),
    );
    expect(cancelled.changes).toEqual([]);
    const assigned = foldAlert(
      alert("a1", [gate(undefined, "D1", "e1")], 0, 1),
      alert("a2", [gate("D1", "D4", "e2")], 5, 2),
    );
    expect(assigned.changes).toEqual([{ ...gate(undefined, "D4", "e2"), eventIds: ["e1", "e2"] }]);
  });

  it("recomputes how far a time moved over both", () => {
    const folded = foldAlert(
      alert(
        "a1",
        [estimate("2026-11-21T10:25:00.000+01:00", "2026-11-21T10:40:00.000+01:00", "e1")],
        0,
        1,
      ),
      alert(
        "a2",
        [estimate("2026-11-21T10:40:00.000+01:00", "2026-11-21T11:05:00+0100", "e2")],
        5,
        2,
      ),
    );
    expect(folded.changes[0]).toMatchObject({ shiftMinutes: 40, delayMinutes: 30 });
  });
});
