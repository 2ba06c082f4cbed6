import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { PollReport } from "../../src/detect/detector.js";
import { PollScheduler } from "../../src/detect/poll-scheduler.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

/** A poll that takes `ms` and counts how many run at once. */
function slowPoll(ms: number, tally: { active: number; maxActive: number; runs: number }) {
  return {
    async poll(): Promise<PollReport> {
      tally.active++;
      tally.runs++;
      tally.maxActive = Math.max(tally.maxActive, tally.active);
      await new Promise((resolve) => setTimeout(resolve, ms));
      tally.active--;
      return {
        outcome: "committed",
        mode: "incremental",
        startedAt: Date.now(),
        durationMs: ms,
        requests: 1,
        records: 0,
        flights: 0,
        events: [],
      };
    },
  };
}

describe("PollScheduler on a real Redis", () => {
  let t: TestRedis;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await t?.cleanup();
  });

  async function start(tally: Parameters<typeof slowPoll>[1], pollMs: number, intervalMs: number) {
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const scheduler = await PollScheduler.start({
      connection,
      prefix: redisKeys(t.prefix).prefix,
      detector: slowPoll(pollMs, tally),
      intervalMs,
    });
    closers.push(async () => {
      await scheduler.close();
      connection.disconnect();
    });
    return scheduler;
  }

  it("runs one poll per tick across three processes, never two at once", async () => {
    t = await testRedis("sched");
    const tally = { active: 0, maxActive: 0, runs: 0 };
    const started = Date.now();
    for (let i = 0; i < 3; i++) await start(tally, 20, 150);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const ticks = (Date.now() - started) / 150;
    expect(tally.maxActive).toBe(1);
    expect(tally.runs).toBeGreaterThanOrEqual(5);
    // Three workers, but polls follow the ticks, not the number of processes.
    expect(tally.runs).toBeLessThanOrEqual(Math.ceil(ticks) + 2);
  });

  it("never overlaps a poll that outlasts the interval", async () => {
    t = await testRedis("sched-slow");
    const tally = { active: 0, maxActive: 0, runs: 0 };
    await start(tally, 300, 100);
    await start(tally, 300, 100);
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect(tally.maxActive).toBe(1);
    expect(tally.runs).toBeGreaterThanOrEqual(3);
    expect(tally.runs).toBeLessThanOrEqual(7);
  });
});
