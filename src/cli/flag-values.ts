/**
 * Reading numbers from command-line flags: every bad value is a ConfigError naming
 * the flag. Shared by the subcommands that take numeric flags.
 */
import { ConfigError } from "../errors.js";
import { parseDuration } from "../time/duration.js";
import { fromLocalDateTime } from "../time/local-time.js";

/** An integer from `min` to `max`. */
export function integer(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || n < min || n > max) {
    throw new ConfigError(flag, `"${text}" is not an integer from ${min} to ${max}`);
  }
  return n;
}

/** A finite number that passes `valid`; `want` says what is expected ("a number > 0"). */
export function number(
  flag: string,
  text: string,
  valid: (x: number) => boolean,
  want: string,
): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || !valid(n)) {
    throw new ConfigError(flag, `"${text}" is not ${want}`);
  }
  return n;
}

/**
 * A moment: ISO 8601 with an offset (`2026-11-21T08:00Z`), an airport-local date and
 * time (`2026-11-21T09:00`, or a date: its start) in `zone`, or — with `ago` — a
 * duration before `now` (`2h`: two hours ago). Epoch ms.
 */
export function instant(flag: string, text: string, zone: string, ago?: { now: number }): number {
  const trimmed = text.trim();
  if (ago !== undefined && /^(?:\d+(?:\.\d+)?[a-z]+)+$/i.test(trimmed)) {
    return ago.now - parseDuration(trimmed, flag);
  }
  const iso = Date.parse(trimmed);
  if (/[zZ]|[+-]\d\d:?\d\d$/.test(trimmed) && !Number.isNaN(iso)) return iso;
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}(?::\d{2})?))?$/.exec(trimmed);
  if (m) {
    const ms = fromLocalDateTime(`${m[1]}T${m[2] ?? "00:00"}`, zone);
    if (ms !== undefined) return ms;
  }
  throw new ConfigError(
    flag,
    `"${text}" is not a time (e.g. 2026-11-21T09:00 local, or ISO with an offset${ago ? ", or 2h for two hours ago" : ""})`,
  );
}

/** Range of a 32-bit seed. */
export const SEED_MIN = -(2 ** 31);
export const SEED_MAX = 2 ** 31 - 1;
