/**
 * Airport-local calendar days: where a local date starts and ends (23 or 25 hours on
 * DST days) and which instant a timetable's local time means on a given date.
 */
import { fromLocalDateTime, type Occurrence } from "../time/local-time.js";

const DAY_MS = 86_400_000;

/** `yyyy-MM-dd` plus `days` (may be negative). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, (d ?? 1) + days)).toISOString().slice(0, 10);
}

/** Days since 1970-01-01 of a `yyyy-MM-dd` date. */
export function dayNumber(date: string): number {
  const [y, m, d] = date.split("-").map(Number);
  return Math.round(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1) / DAY_MS);
}

/** One local date in a zone: its bounds and a local-time → instant mapping. */
export class AirportDay {
  /** First instant of the date. */
  readonly startMs: number;
  /** First instant of the next date. */
  readonly endMs: number;
  /** True when the date has no offset change, so wall time is start plus minutes. */
  readonly regular: boolean;
  /** Offsets (minutes) in force at the start and end of the date. */
  private readonly offsetsOfDay: readonly number[];
  /** Wall-clock midnight of the date read as UTC, epoch ms. */
  private readonly wallMidnight: number;

  constructor(
    readonly date: string,
    readonly zone: string,
    private readonly offsetAt: (instantMs: number) => number,
  ) {
    this.startMs = localMidnight(date, zone);
    this.endMs = localMidnight(addDays(date, 1), zone);
    const first = offsetAt(this.startMs);
    const last = offsetAt(this.endMs - 1);
    this.regular = this.endMs - this.startMs === DAY_MS && first === last;
    this.offsetsOfDay = first === last ? [first] : [first, last];
    this.wallMidnight = dayNumber(date) * DAY_MS;
  }

  /**
   * Instant of local `minuteOfDay` on this date. On DST days a time in the spring gap
   * becomes the instant the clock jumps to, and a time shown twice in autumn is its
   * `earlier` or `later` occurrence.
   */
  instantOf(minuteOfDay: number, occurrence: Occurrence = "earlier"): number {
    if (this.regular) return this.startMs + minuteOfDay * 60_000;
    // A wall time is at most two instants, one per offset in force that day.
    const wall = this.wallMidnight + minuteOfDay * 60_000;
    const matches = this.offsetsOfDay
      .map((offset) => wall - offset * 60_000)
      .filter((t) => t + this.offsetAt(t) * 60_000 === wall)
      .sort((a, b) => a - b);
    const match = occurrence === "earlier" ? matches[0] : matches[matches.length - 1];
    if (match !== undefined) return match;
    const hh = String(Math.floor(minuteOfDay / 60)).padStart(2, "0");
    const mm = String(minuteOfDay % 60).padStart(2, "0");
    const instant = fromLocalDateTime(`${this.date}T${hh}:${mm}:00`, this.zone, occurrence);
    if (instant === undefined) throw new RangeError(`bad local time ${this.date} ${hh}:${mm}`);
    return instant;
  }
}

function localMidnight(date: string, zone: string): number {
  const instant = fromLocalDateTime(`${date}T00:00:00`, zone);
  if (instant === undefined) throw new RangeError(`bad date ${date}`);
  return instant;
}
