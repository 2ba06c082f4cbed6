/**
 * Human durations such as `30s`, `500ms`, `15m`, `2h`, `1d` and combinations such as
 * `1h30m`. Settings (`POLL_INTERVAL` …) also take bare milliseconds; rule files do not
 * (a bare `90` there is more likely a slip than 90 ms). One reader serves both.
 */
import { ConfigError } from "../errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** One `<number><unit>` part; `ms` before `m` and `s` so `5ms` is never read as `5m` + `s`. */
const PART_RE = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*/y;
const BARE_RE = /^(\d+(?:\.\d+)?)$/;

/** How `durationMs` reads its text. */
export interface DurationOptions {
  /** Accept a bare number as milliseconds (settings do; rule files do not). */
  bareMs?: boolean;
}

/**
 * Milliseconds of a duration text (`500ms`, `30s`, `1h30m`; surrounding spaces ignored),
 * rounded to the millisecond, or undefined when it is not one.
 */
export function durationMs(text: string, options: DurationOptions = {}): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (BARE_RE.test(trimmed)) return options.bareMs ? Math.round(Number(trimmed)) : undefined;
  let total = 0;
  PART_RE.lastIndex = 0;
  while (PART_RE.lastIndex < trimmed.length) {
    const m = PART_RE.exec(trimmed);
    if (!m) return undefined;
    total += Number(m[1]) * (UNITS[m[2] as string] ?? 0);
  }
  return Math.round(total);
}

/** Whether a text is a bare number (the rule-file mistake worth its own message). */
export function isBareNumber(text: string): boolean {
  return BARE_RE.test(text.trim());
}

/** Milliseconds of a duration text; throws a ConfigError naming `setting` when unreadable. */
export function parseDuration(text: string, setting: string): number {
  const ms = durationMs(text, { bareMs: true });
  if (ms === undefined) {
    throw new ConfigError(
      setting,
      `"${text}" is not a duration (expected e.g. 500ms, 30s, 15m, 2h, 1d or 1h30m)`,
    );
  }
  return ms;
}
