/**
 * Human durations such as `30s`, `500ms`, `15m`, `2h`, `1d` and combinations such as
 * `1h30m`. A unit is always required, in settings (`POLL_INTERVAL` …) as in rule files:
 * a bare `500` could mean 500 ms or 500 s, and read as milliseconds it would hammer a
 * live upstream. Only a bare `0` is accepted, since zero is zero in every unit.
 */
import { ConfigError } from "../errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** One `<number><unit>` part; `ms` before `m` and `s` so `5ms` is never read as `5m` + `s`. */
const PART_RE = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*/y;
const BARE_RE = /^(\d+(?:\.\d+)?)$/;
const ZERO_RE = /^0+(?:\.0+)?$/;

/**
 * Milliseconds of a duration text (`500ms`, `30s`, `1h30m`; surrounding spaces ignored),
 * rounded to the millisecond, or undefined when it is not one (a bare number included).
 */
export function durationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "" || BARE_RE.test(trimmed)) return undefined;
  let total = 0;
  PART_RE.lastIndex = 0;
  while (PART_RE.lastIndex < trimmed.length) {
    const m = PART_RE.exec(trimmed);
    if (!m) return undefined;
    total += Number(m[1]) * (UNITS[m[2] as string] ?? 0);
  }
  return Math.round(total);
}

/** Whether a text is a bare number (the mistake worth its own message). */
export function isBareNumber(text: string): boolean {
  return BARE_RE.test(text.trim());
}

/**
 * Milliseconds of a setting's duration text; throws a ConfigError naming `setting` (a
 * variable or a flag) when unreadable or when the unit is missing. A bare `0` is 0.
 */
export function parseDuration(text: string, setting: string): number {
  const trimmed = text.trim();
  if (ZERO_RE.test(trimmed)) return 0;
  if (isBareNumber(trimmed)) {
    throw new ConfigError(
      setting,
      `"${trimmed}" has no unit; write it with one, e.g. ${trimmed}s or ${trimmed}ms (units: ms, s, m, h, d)`,
    );
  }
  const ms = durationMs(trimmed);
  if (ms === undefined) {
    throw new ConfigError(
      setting,
      `"${text}" is not a duration (expected e.g. 500ms, 30s, 15m, 2h, 1d or 1h30m)`,
    );
  }
  return ms;
}
