/**
 * Quiet hours of a rule (docs/rules.md, "Quiet hours"): whether an instant lies in the
 * local window, when that window ends, and whether a change is critical — pure, in the
 * window's own zone, across DST: a window written 23:00–07:00 is 23:00–07:00 on the
 * wall clock every night, whatever its length in hours that night.
 */
import type { ChangeEvent } from "../diff/change.js";
import { fromLocalDateTime, toLocalDateTime } from "../time/local-time.js";
import { compileSelectorList } from "./match/change-selector.js";
import { bestKnownTime, CheckMemo, EventView } from "./match/event-view.js";
import { MatchContext } from "./match/match-context.js";
import { nextDate } from "./read/rule-time.js";
import type { QuietHours } from "./rule.js";

/** The default `critical`, as a rule file writes it: what a traveller must hear at any hour. */
export const DEFAULT_CRITICAL_TEXT = '["cancelled", "diverted", {"kind": "gate", "within": "1h"}]';

/** Minutes after local midnight of an instant, in `zone`. */
function localMinute(t: number, zone: string): number {
  const local = toLocalDateTime(t, zone);
  return Number(local.slice(11, 13)) * 60 + Number(local.slice(14, 16));
}

/** Whether `t` lies in the window (its start included, its end not). */
export function inQuietHours(q: QuietHours, t: number): boolean {
  const m = localMinute(t, q.zone);
  // Stryker disable next-line EqualityOperator: from and to are never equal (the reader refuses it)
  return q.fromMinute < q.toMinute
    ? m >= q.fromMinute && m < q.toMinute
    : m >= q.fromMinute || m < q.toMinute;
}

/**
 * The end of the window that `t` lies in: the first instant after `t` at which the local
 * clock reads `to` (a `to` the clock skips that night — a spring gap — is where it jumps to).
 */
export function quietEnd(q: QuietHours, t: number): number {
  const hh = String(Math.floor(q.toMinute / 60)).padStart(2, "0");
  const mm = String(q.toMinute % 60).padStart(2, "0");
  const day = toLocalDateTime(t, q.zone).slice(0, 10);
  // `to` on the local day of `t`, or else on the next.
  const at = (date: string, occurrence: "earlier" | "later" = "earlier"): number =>
    fromLocalDateTime(`${date}T${hh}:${mm}`, q.zone, occurrence) as number;
  const today = at(day);
  if (today > t) return today;
  // A `to` the clock reads twice that night (autumn): its second reading, if still ahead.
  // Stryker disable next-line StringLiteral: fromLocalDateTime reads any occurrence but "earlier" as the later one
  const later = at(day, "later");
  return later > t ? later : at(nextDate(day));
}

const compiled = new WeakMap<QuietHours, ReturnType<typeof compileSelectorList>>();

/** Whether a change goes through quiet hours at once (matches a `critical` selector at `now`). */
export function isCritical(q: QuietHours, event: ChangeEvent, now: number): boolean {
  let first = compiled.get(q);
  // Stryker disable next-line ConditionalExpression: a cache; compiling again gives the same
  if (first === undefined) {
    first = compileSelectorList(q.critical);
    compiled.set(q, first);
  }
  return first(new EventView(event, new MatchContext(now, q.zone), new CheckMemo(0))) >= 0;
}

/**
 * The latest moment a flight's changes may wait in quiet hours: the largest `within` of
 * the critical selectors before the flight's best known time (a gate change 90 minutes
 * ahead is not critical yet, but is by the time the flight is an hour away); undefined
 * when no critical selector has a `within`, or the flight no time.
 */
export function quietDeadline(q: QuietHours, event: ChangeEvent): number | undefined {
  // `within` is more than 0 when written: 0 stands for none.
  const within = Math.max(0, ...q.critical.map((s) => s.withinMs ?? 0));
  const time = bestKnownTime(event);
  return within === 0 || time === undefined ? undefined : time - within;
}

/**
 * When a flight's group that opens at `now` goes out: after `waitMs` (group_wait), or —
 * when that moment lies in quiet hours and the change is not critical — at the end of
 * the window, but no later than `deadline` (quietDeadline).
 */
export function groupDue(
  q: QuietHours | undefined,
  now: number,
  waitMs: number,
  critical: boolean,
  deadline?: number,
): number {
  const due = now + waitMs;
  if (q === undefined || critical || !inQuietHours(q, due)) return due;
  const end = quietEnd(q, due);
  return deadline === undefined ? end : Math.min(end, Math.max(due, deadline));
}
