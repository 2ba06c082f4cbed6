/**
 * Human durations such as `30s`, `500ms`, `15m`, `2h`, `1d` (and bare milliseconds),
 * as used by `POLL_INTERVAL` and other settings.
 */
import { ConfigError } from "../errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/;

/** Milliseconds of a duration text; throws a ConfigError naming `setting` when unreadable. */
export function parseDuration(text: string, setting: string): number {
  const m = DURATION_RE.exec(text.trim());
  if (!m) {
    throw new ConfigError(
      setting,
      `"${text}" is not a duration (expected e.g. 500ms, 30s, 15m, 2h, 1d)`,
    );
  }
  return Math.round(Number(m[1]) * (UNITS[m[2] ?? "ms"] ?? 1));
}
