/**
 * The retry schedule: the default (5 s … 1 h, then hourly up to 24 h), jitter within
 * ±20 %, `Retry-After` winning (capped), and the end of the schedule.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  attemptsOf,
  DEFAULT_RETRY_SCHEDULE,
  describeSchedule,
  MAX_RETRY_AFTER_MS,
  nominalDelay,
  retryDelay,
} from "../../src/rules/retry-schedule.js";

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe("retry schedule", () => {
  it("follows the default: 5s, 30s, 2m, 10m, 30m, 1h, then hourly up to 24h", () => {
    const delays: number[] = [];
    for (let retry = 1; nominalDelay(DEFAULT_RETRY_SCHEDULE, retry) !== undefined; retry++) {
      delays.push(nominalDelay(DEFAULT_RETRY_SCHEDULE, retry) as number);
    }
    expect(delays.slice(0, 7)).toEqual([5 * S, 30 * S, 2 * M, 10 * M, 30 * M, H, H]);
    expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(24 * H);
    expect(delays.reduce((a, b) => a + b, 0) + H).toBeGreaterThan(24 * H);
    expect(attemptsOf(DEFAULT_RETRY_SCHEDULE)).toBe(delays.length + 1);
    expect(attemptsOf(DEFAULT_RETRY_SCHEDULE)).toBe(29);
    expect(describeSchedule(DEFAULT_RETRY_SCHEDULE)).toBe(
      "5s, 30s, 2m, 10m, 30m, 1h, then every 1h up to 24h (29 attempts)",
    );
  });

  it("spreads each delay by ±20 %", () => {
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE, 2, () => 0)).toBe(24 * S);
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE, 2, () => 0.5)).toBe(30 * S);
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE, 2, () => 0.999999)).toBe(36 * S);
  });

  it("lets Retry-After win, capped at an hour", () => {
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE, 1, () => 0.5, 90 * S)).toBe(90 * S);
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE, 1, () => 0.5, 5 * H)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE, 1, () => 0.5, 0)).toBe(0);
  });

  it("ends: -1 past the schedule, one attempt without delays", () => {
    const short = { delaysMs: [50], forMs: 100 };
    expect(attemptsOf(short)).toBe(3);
    expect(retryDelay(short, 2, () => 0.5)).toBe(50);
    expect(retryDelay(short, 3, () => 0.5)).toBe(-1);
    expect(retryDelay(short, 3, () => 0.5, 10)).toBe(-1);
    expect(attemptsOf({ delaysMs: [], forMs: 24 * H })).toBe(1);
    expect(attemptsOf({ delaysMs: [0], forMs: H })).toBe(2);
  });

  it("describes a schedule without delays as no retries", () => {
    expect(describeSchedule({ delaysMs: [], forMs: 24 * H })).toBe("no retries");
  });

  it("describes delays that are not whole seconds in milliseconds", () => {
    expect(describeSchedule({ delaysMs: [1500, 90 * S], forMs: 2 * M })).toBe(
      "1500ms, 90s, then every 90s up to 2m (3 attempts)",
    );
  });

  it("counts attempts as the delays it schedules (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 2 * S, max: 5 * M })), {
          maxLength: 6,
        }),
        fc.integer({ min: 1, max: 2 * H }),
        (delaysMs, forMs) => {
          const schedule = { delaysMs, forMs };
          let retries = 0;
          while (retries < 5000 && nominalDelay(schedule, retries + 1) !== undefined) retries++;
          expect(attemptsOf(schedule)).toBe(retries + 1);
        },
      ),
    );
  });
});
