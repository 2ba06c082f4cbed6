/**
 * What stays fixed over one `match` call: the moment of matching and the airport zone,
 * with the local-day boundaries that `today` / `tomorrow` bounds need worked out once
 * per call rather than once per rule and event.
 */
import { fromLocalDateTime, toLocalDate } from "../../time/local-time.js";

/** The moment of matching, in the airport's zone. */
export class MatchContext {
  readonly now: number;
  readonly zone: string;
  private readonly dayStarts = new Map<number, number>();

  constructor(now: number, zone: string) {
    this.now = now;
    this.zone = zone;
  }

  /**
   * Start of the local day `offset` days after the day of `now` (0 = today), in the
   * airport zone: local midnight, or the first instant of the day when a DST jump
   * skips midnight.
   */
  localDayStart(offset: number): number {
    let start = this.dayStarts.get(offset);
    if (start === undefined) {
      const [year, month, day] = toLocalDate(this.now, this.zone).split("-").map(Number);
      // Date.UTC rolls day overflow into the next month and year.
      const date = new Date(
        Date.UTC(year as number, (month as number) - 1, (day as number) + offset),
      );
      start = fromLocalDateTime(`${date.toISOString().slice(0, 10)}T00:00`, this.zone) as number;
      this.dayStarts.set(offset, start);
    }
    return start;
  }
}
