/**
 * Quiet hours' clock (src/rules/quiet-hours.ts): whether an instant is in the local
 * window and when that window ends — on the wall clock of the window's zone, across
 * midnight and across both DST changes — and what is critical.
 */
import { describe, expect, it } from "vitest";
import { groupDue, inQuietHours, isCritical, quietEnd } from "../../src/rules/quiet-hours.js";
import type { ChangeSelector, QuietHours } from "../../src/rules/rule.js";
import { flight, gate, state } from "../dispatch/dispatch-builder.js";

const AMS = "Europe/Amsterdam";
const CANCELLED: ChangeSelector = {
  name: "cancelled",
  kinds: ["state"],
  states: ["CNX"],
  actions: ["added"],
};
const night = (over: Partial<QuietHours> = {}): QuietHours => ({
  fromMinute: 23 * 60,
  toMinute: 7 * 60,
  zone: AMS,
  critical: [CANCELLED],
  ...over,
});
const utc = (text: string) => Date.parse(text);

describe("quiet hours' clock", () => {
  it("holds the window across midnight, its start in and its end out", () => {
    const q = night();
    // Amsterdam is UTC+1 in November.
    expect(inQuietHours(q, utc("2026-11-21T21:59:59Z"))).toBe(false); // 22:59:59
    expect(inQuietHours(q, utc("2026-11-21T22:00:00Z"))).toBe(true); // 23:00
    expect(inQuietHours(q, utc("2026-11-21T23:30:00Z"))).toBe(true); // 00:30
    expect(inQuietHours(q, utc("2026-11-22T05:59:00Z"))).toBe(true); // 06:59
    expect(inQuietHours(q, utc("2026-11-22T06:00:00Z"))).toBe(false); // 07:00
    expect(inQuietHours(q, utc("2026-11-22T12:00:00Z"))).toBe(false);
    // Ends at the next 07:00, whether the instant is before or after midnight.
    expect(quietEnd(q, utc("2026-11-21T22:00:00Z"))).toBe(utc("2026-11-22T06:00:00Z"));
    expect(quietEnd(q, utc("2026-11-22T05:59:00Z"))).toBe(utc("2026-11-22T06:00:00Z"));
    // The end is the first `to` after the instant: at 07:00 itself, the next day's.
    expect(quietEnd(q, utc("2026-11-22T06:00:00Z"))).toBe(utc("2026-11-23T06:00:00Z"));
  });

  it("holds a window within one day, and one in another zone", () => {
    const lunch = night({ fromMinute: 12 * 60, toMinute: 13 * 60 + 30 });
    expect(inQuietHours(lunch, utc("2026-11-21T11:00:00Z"))).toBe(true); // 12:00
    expect(inQuietHours(lunch, utc("2026-11-21T12:30:00Z"))).toBe(false); // 13:30
    expect(inQuietHours(lunch, utc("2026-11-21T10:59:00Z"))).toBe(false);
    expect(quietEnd(lunch, utc("2026-11-21T11:10:00Z"))).toBe(utc("2026-11-21T12:30:00Z"));
    // New York: 23:00–07:00 there is 04:00–12:00 UTC in November.
    const ny = night({ zone: "America/New_York" });
    expect(inQuietHours(ny, utc("2026-11-21T04:00:00Z"))).toBe(true);
    expect(inQuietHours(ny, utc("2026-11-21T03:59:00Z"))).toBe(false);
    expect(quietEnd(ny, utc("2026-11-21T05:00:00Z"))).toBe(utc("2026-11-21T12:00:00Z"));
  });

  it("follows the wall clock across the DST changes: the night is an hour longer or shorter", () => {
    const q = night();
    // 25 October 2026: Amsterdam goes back from 03:00 CEST to 02:00 CET. 23:00 CEST on
    // the 24th is 21:00 UTC; 07:00 CET on the 25th is 06:00 UTC: a nine-hour night.
    expect(inQuietHours(q, utc("2026-10-24T21:00:00Z"))).toBe(true);
    expect(inQuietHours(q, utc("2026-10-24T20:59:00Z"))).toBe(false);
    expect(quietEnd(q, utc("2026-10-24T21:00:00Z"))).toBe(utc("2026-10-25T06:00:00Z"));
    expect(inQuietHours(q, utc("2026-10-25T05:59:00Z"))).toBe(true);
    expect(inQuietHours(q, utc("2026-10-25T06:00:00Z"))).toBe(false);
    // 29 March 2026: forward from 02:00 CET to 03:00 CEST. 23:00 CET is 22:00 UTC, 07:00
    // CEST is 05:00 UTC: a seven-hour night.
    expect(quietEnd(q, utc("2026-03-28T22:00:00Z"))).toBe(utc("2026-03-29T05:00:00Z"));
    expect(inQuietHours(q, utc("2026-03-29T04:59:00Z"))).toBe(true);
    expect(inQuietHours(q, utc("2026-03-29T05:00:00Z"))).toBe(false);
    // A window ending in the hour the clock reads twice (London, 01:30 on 25 October):
    // within its second pass, it ends at the second 01:30, not a day later.
    const london = night({ fromMinute: 23 * 60, toMinute: 90, zone: "Europe/London" });
    expect(inQuietHours(london, utc("2026-10-25T01:10:00Z"))).toBe(true); // 01:10 GMT
    expect(quietEnd(london, utc("2026-10-25T01:10:00Z"))).toBe(utc("2026-10-25T01:30:00Z"));
    expect(quietEnd(london, utc("2026-10-25T00:10:00Z"))).toBe(utc("2026-10-25T00:30:00Z"));
    // A window ending at 02:30, a time that night skips, ends when the clock jumps (03:00).
    const gap = night({ fromMinute: 60, toMinute: 2 * 60 + 30 });
    expect(quietEnd(gap, utc("2026-03-29T00:30:00Z"))).toBe(utc("2026-03-29T01:00:00Z"));
  });

  it("sends a group at group_wait unless that falls in the window, then at its end; a critical one never waits", () => {
    const q = night();
    const evening = utc("2026-11-21T21:50:00Z"); // 22:50
    expect(groupDue(undefined, evening, 20 * 60_000, false)).toBe(evening + 20 * 60_000);
    expect(groupDue(q, evening, 5 * 60_000, false)).toBe(evening + 5 * 60_000);
    // Due at 23:10: in the window, so at 07:00.
    expect(groupDue(q, evening, 20 * 60_000, false)).toBe(utc("2026-11-22T06:00:00Z"));
    expect(groupDue(q, evening, 20 * 60_000, true)).toBe(evening + 20 * 60_000);
  });

  it("calls critical what its selectors take, at the moment asked", () => {
    const q = night({
      critical: [CANCELLED, { name: "gate", kinds: ["gate"], withinMs: 3_600_000 }],
    });
    // The flight is scheduled 10:00 UTC.
    const scheduled = flight().scheduled as number;
    expect(isCritical(q, state("CNX", "added", 1), scheduled - 5 * 3_600_000)).toBe(true);
    expect(isCritical(q, state("DEL", "added", 1), scheduled - 5 * 3_600_000)).toBe(false);
    expect(isCritical(q, gate("D1", "D2", 1), scheduled - 2 * 3_600_000)).toBe(false);
    expect(isCritical(q, gate("D1", "D2", 1), scheduled - 30 * 60_000)).toBe(true);
    expect(isCritical(night({ critical: [] }), state("CNX", "added", 1), scheduled)).toBe(false);
  });
});
