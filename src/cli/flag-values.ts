/**
 * Reading numbers from command-line flags: every bad value is a ConfigError naming
 * the flag. Shared by the subcommands that take numeric flags.
 */
import { ConfigError } from "../errors.js";

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

/** Range of a 32-bit seed. */
export const SEED_MIN = -(2 ** 31);
export const SEED_MAX = 2 ** 31 - 1;
