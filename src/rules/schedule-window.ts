/** The scheduled-time window of a flight filter, in the rule model (see rule.ts). */

/** A window on the scheduled time; each bound absolute or relative to now. */
export interface ScheduleWindow {
  from?: TimeBound;
  to?: TimeBound;
}

/**
 * An instant: absolute (epoch ms), an offset from the moment of matching, or the start
 * of a local day counted from the day of the moment of matching (`today` = 0,
 * `tomorrow` = 1, in the airport's zone); with `endOfDay` the start of the day after
 * that one (`to: today` = the end of today, as `to` is exclusive).
 */
export type TimeBound =
  | { at: number }
  | { fromNowMs: number }
  | { localDayOffset: number; endOfDay: boolean };
