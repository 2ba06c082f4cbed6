/**
 * Format checks for parameter values, stricter than the contract's patterns alone:
 * `2026-02-30` matches `yyyy-MM-dd` but is no date, and the upstream's answer to it
 * is not shown, so the client refuses it before sending.
 */
import { DATE_PATTERN, LOCAL_DATE_TIME_PATTERN, SCHEDULE_TIME_PATTERN } from "./contract.js";

function isCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** True for a real calendar date written `yyyy-MM-dd`. */
export function isApiDate(text: string): boolean {
  if (!DATE_PATTERN.test(text)) return false;
  return isCalendarDate(
    Number(text.slice(0, 4)),
    Number(text.slice(5, 7)),
    Number(text.slice(8, 10)),
  );
}

/** True for a real clock time written `HH:mm` (00:00–23:59). */
export function isApiTime(text: string): boolean {
  if (!SCHEDULE_TIME_PATTERN.test(text)) return false;
  return Number(text.slice(0, 2)) < 24 && Number(text.slice(3, 5)) < 60;
}

/** True for a real local date-time written `yyyy-MM-dd'T'HH:mm:ss` (no offset). */
export function isApiLocalDateTime(text: string): boolean {
  if (!LOCAL_DATE_TIME_PATTERN.test(text)) return false;
  return (
    isApiDate(text.slice(0, 10)) &&
    Number(text.slice(11, 13)) < 24 &&
    Number(text.slice(14, 16)) < 60 &&
    Number(text.slice(17, 19)) < 60
  );
}
