/**
 * The schedule-date horizon: which flights flightwatch watches. Sent explicitly as
 * `fromScheduleDate`/`toScheduleDate` on every request, so results never depend on
 * the upstream's default of "today".
 */
import { ConfigError } from "../errors.js";
import { toLocalDate } from "../time/local-time.js";

/** Days before and after the airport-local today that are watched. */
export interface HorizonDays {
  /** Default 1: yesterday's flights are still watched (late arrivals, belts). */
  past: number;
  /** Default 2: up to the day after tomorrow. */
  future: number;
}

export const DEFAULT_HORIZON_DAYS: HorizonDays = { past: 1, future: 2 };

/** An inclusive range of airport-local schedule dates (`yyyy-MM-dd`). */
export interface ScheduleHorizon {
  from: string;
  to: string;
}

/** The horizon around `nowMs` in the airport's zone. */
export function scheduleHorizon(nowMs: number, zone: string, days: HorizonDays): ScheduleHorizon {
  const today = toLocalDate(nowMs, zone);
  return { from: addDays(today, -days.past), to: addDays(today, days.future) };
}

/** Every date of a horizon, in order. */
export function horizonDates(horizon: ScheduleHorizon): string[] {
  const dates: string[] = [];
  for (let d = horizon.from; d <= horizon.to; d = addDays(d, 1)) dates.push(d);
  return dates;
}

/** `yyyy-MM-dd` plus `n` calendar days (n may be negative). */
export function addDays(date: string, n: number): string {
  const ms = Date.parse(`${date}T00:00:00Z`) + n * 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}

/** Checks horizon settings; `setting` names the variable in errors. */
export function checkHorizonDays(days: HorizonDays, setting: string): HorizonDays {
  for (const [name, value] of Object.entries(days)) {
    if (!Number.isInteger(value) || value < 0 || value > 14) {
      throw new ConfigError(
        setting,
        `${name} days must be a whole number from 0 to 14, got ${value}`,
      );
    }
  }
  return days;
}
