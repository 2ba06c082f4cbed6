/**
 * When a failed notification is tried again. Pure: randomness comes from the caller.
 *
 * The default follows Standard Webhooks / Svix: the first attempt at once, then after
 * 5 s, 30 s, 2 min, 10 min, 30 min and 1 h, then hourly until 24 h have passed since
 * the first attempt; each delay is spread by ±20 % so that receivers that failed
 * together are not hit together again. A receiver's `Retry-After` replaces the
 * scheduled delay (it knows best), within `maxRetryAfterMs`.
 */

import type { RetrySchedule } from "./rule.js";

export type { RetrySchedule };

/** The default schedule (see the module comment). */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  delaysMs: [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000],
  forMs: 24 * 3_600_000,
};

/** Spread of each scheduled delay: ±20 %. */
export const RETRY_JITTER = 0.2;

/** Longest `Retry-After` honoured as given (a longer one is cut to this). */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/** The scheduled delay before retry number `retry` (1-based), without jitter; undefined past the end. */
export function nominalDelay(schedule: RetrySchedule, retry: number): number | undefined {
  const { delaysMs, forMs } = schedule;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut, the loop gives undefined too (for retry < 1 it never runs; an empty list gives undefined delays)
  if (delaysMs.length === 0 || retry < 1) return undefined;
  let elapsed = 0;
  for (let i = 1; i <= retry; i++) {
    const delay = delaysMs[Math.min(i, delaysMs.length) - 1] as number;
    // A zero delay repeated forever would never use up the time: stop at the list's end.
    if (delay <= 0 && i > delaysMs.length) return undefined;
    elapsed += delay;
    if (elapsed > forMs) return undefined;
    if (i === retry) return delay;
  }
  return undefined;
}

/** Attempts a notification gets in all: the first plus every scheduled retry (one pass). */
export function attemptsOf(schedule: RetrySchedule): number {
  const { delaysMs, forMs } = schedule;
  if (delaysMs.length === 0) return 1;
  let elapsed = 0;
  let retries = 0;
  for (;;) {
    const delay = delaysMs[Math.min(retries, delaysMs.length - 1)] as number;
    // The same stopping rules as nominalDelay: past the list, a zero delay never ends.
    if (delay <= 0 && retries >= delaysMs.length) break;
    elapsed += delay;
    if (elapsed > forMs) break;
    retries++;
  }
  return retries + 1;
}

/**
 * Delay before retry number `retry` (1-based): the receiver's `Retry-After` when
 * given (capped), else the scheduled delay spread by ±`RETRY_JITTER`; -1 when the
 * schedule is used up. `random` returns a number in [0, 1).
 */
export function retryDelay(
  schedule: RetrySchedule,
  retry: number,
  random: () => number,
  retryAfterMs?: number,
): number {
  const nominal = nominalDelay(schedule, retry);
  if (nominal === undefined) return -1;
  if (retryAfterMs !== undefined) return Math.max(0, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
  const spread = 1 - RETRY_JITTER + 2 * RETRY_JITTER * Math.min(Math.max(random(), 0), 1);
  return Math.round(nominal * spread);
}

/** The schedule as people write it: `5s, 30s, 2m … then every 1h for 24h`. */
export function describeSchedule(schedule: RetrySchedule): string {
  const fmt = (ms: number) =>
    ms % 3_600_000 === 0
      ? `${ms / 3_600_000}h`
      : ms % 60_000 === 0
        ? `${ms / 60_000}m`
        : ms % 1000 === 0
          ? `${ms / 1000}s`
          : `${ms}ms`;
  const last = schedule.delaysMs.at(-1);
  const list = schedule.delaysMs.map(fmt).join(", ");
  return last === undefined
    ? "no retries"
    : `${list}, then every ${fmt(last)} up to ${fmt(schedule.forMs)} (${attemptsOf(schedule)} attempts)`;
}
