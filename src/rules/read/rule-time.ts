/**
 * Times and durations as rule files write them (docs/rules.md "Durations and times"):
 * schedule bounds (`2026-11-21`, `2026-11-21T06:30`, `now`, `+3h`, `today` …) read in
 * the airport's zone, and durations (`90s`, `1h30m`; a bare number is refused).
 */
import { durationMs, isBareNumber } from "../../time/duration.js";
import { fromLocalDateTime } from "../../time/local-time.js";
import type { TimeBound } from "../rule.js";

/** A value read, or why not: a message and how to fix it. */
export type Read<T> = { ok: true; value: T } | { ok: false; message: string; hint?: string };

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;
const RELATIVE_RE = /^([+-])\s*(.+)$/;
const TIME_FORMS =
  "write a date (2026-11-21), a local date-time (2026-11-21T06:30), now, today, tomorrow, " +
  "or a time from now such as +3h or -30m";

/**
 * A `schedule` bound. A plain date (or `today`/`tomorrow`) as `to` stands for the end of
 * that day: the start of the next, since `to` is exclusive. Local date-times are read in
 * `zone`; one the autumn change shows twice is its first occurrence, one the spring
 * change skips is the moment the clock jumps to (see `fromLocalDateTime`).
 */
export function readScheduleBound(
  text: string,
  edge: "from" | "to",
  zone: string,
): Read<TimeBound> {
  // Passenger files repeat a few dates thousands of times: read each once.
  const key = `${zone}\u0000${edge}\u0000${text}`;
  const cached = boundCache.get(key);
  if (cached !== undefined) return cached;
  const read = readBound(text, edge, zone);
  if (read.ok) Object.freeze(read.value);
  if (boundCache.size >= 10_000) boundCache.clear();
  boundCache.set(key, read);
  return read;
}

/**
 * Bounds already read. Frozen, so the windows of every rule that writes them share
 * them (a frozen copy would cost a hidden class of its own each: copies made by spreading
 * do not share one when frozen).
 */
const boundCache = new Map<string, Read<TimeBound>>();

function readBound(text: string, edge: "from" | "to", zone: string): Read<TimeBound> {
  const word = text.trim().toLowerCase();
  if (word === "now") return { ok: true, value: { fromNowMs: 0 } };
  if (word === "today" || word === "tomorrow") {
    const localDayOffset = word === "today" ? 0 : 1;
    return { ok: true, value: { localDayOffset, endOfDay: edge === "to" } };
  }
  const relative = RELATIVE_RE.exec(word);
  if (relative) {
    const ms = durationMs(relative[2] as string);
    if (ms === undefined) {
      return {
        ok: false,
        message: `\`${text}\` is not a time from now`,
        hint: "write a sign and a duration, such as +3h, -30m, +2d or +1h30m",
      };
    }
    return { ok: true, value: { fromNowMs: relative[1] === "-" ? -ms : ms } };
  }
  const date = DATE_RE.exec(word);
  if (date) {
    let day = `${date[1]}-${date[2]}-${date[3]}`;
    if (fromLocalDateTime(`${day}T00:00`, zone) === undefined) {
      return {
        ok: false,
        message: `\`${text}\` is not a date`,
        hint: "write yyyy-MM-dd, e.g. 2026-11-21",
      };
    }
    if (edge === "to") day = nextDate(day);
    return { ok: true, value: { at: fromLocalDateTime(`${day}T00:00`, zone) as number } };
  }
  if (DATE_TIME_RE.test(text.trim())) {
    const at = fromLocalDateTime(text.trim(), zone);
    if (at === undefined) {
      return {
        ok: false,
        message: `\`${text}\` is not a date and time`,
        hint: "write yyyy-MM-ddTHH:mm, e.g. 2026-11-21T06:30",
      };
    }
    return { ok: true, value: { at } };
  }
  if (isDurationLike(word)) {
    return {
      ok: false,
      message: `\`${text}\` is not a time`,
      hint: `a time from now needs a sign: +${word} or -${word}`,
    };
  }
  return { ok: false, message: `\`${text}\` is not a time`, hint: TIME_FORMS };
}

const isDurationLike = (text: string): boolean => durationMs(text) !== undefined;

/** The date after `yyyy-MM-dd` (calendar arithmetic: no time zone involved). */
export function nextDate(day: string): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/**
 * Whether `from` is certainly not before `to` (an empty window). Bounds of different
 * forms (`today` and `+3h`) depend on the moment of matching and are not compared.
 */
export function isEmptyWindow(from: TimeBound, to: TimeBound): boolean {
  if ("at" in from && "at" in to) return from.at >= to.at;
  if ("fromNowMs" in from && "fromNowMs" in to) return from.fromNowMs >= to.fromNowMs;
  if ("localDayOffset" in from && "localDayOffset" in to) {
    const start = (b: typeof from): number => b.localDayOffset + (b.endOfDay ? 1 : 0);
    return start(from) >= start(to as typeof from);
  }
  return false;
}

/** A rule-file duration in milliseconds: a number with a unit, or combined (`1h30m`). */
export function readRuleDuration(text: string): Read<number> {
  const ms = durationMs(text);
  if (ms !== undefined) return { ok: true, value: ms };
  if (isBareNumber(text)) {
    const n = text.trim();
    return {
      ok: false,
      message: `\`${n}\` has no unit`,
      hint: `durations need a unit: say ${n}s or ${n}m (units ms, s, m, h, d)`,
    };
  }
  return {
    ok: false,
    message: `\`${text}\` is not a duration`,
    hint: "write a number and a unit, e.g. 500ms, 30s, 15m, 3h, 1d, or combined 1h30m",
  };
}
