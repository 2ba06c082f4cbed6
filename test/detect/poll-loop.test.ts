import { Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PollReport } from "../../src/detect/detector.js";
import { leaseMsFor, PollLoop } from "../../src/detect/poll-loop.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

interface Tally {
  active: number;
  maxActive: number;
  runs: string[];
}

const report = (outcome: PollReport["outcome"]): PollReport => ({
  outcome,
  mode: "incremental",
  startedAt: Date.now(),
  durationMs: 0,
  requests: 1,
  records: 0,
  flights: 0,
  events: [],
});

/** A poll that takes `ms`, records who ran it and how many ran at once. */
function poller(name: string, tally: Tally, ms: number, outcome: () => PollReport["outcome"]) {
  return {
    async poll(): Promise<PollReport> {
      tally.active++;
      tally.runs.push(name);
      tally.maxActive = Math.max(tally.maxActive, tally.active);
      await new Promise((resolve) => setTimeout(resolve, ms));
      tally.active--;
      return report(outcome());
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error("timed out waiting");
    await sleep(20);
  }
}

describe("PollLoop on a real Redis", () => {
  let t: TestRedis;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const close of closers.splice(0).reverse()) await close();
    await t?.cleanup();
  });

  function start(detector: { poll(): Promise<PollReport> }, intervalMs: number) {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    const errors: Error[] = [];
    const loop = PollLoop.start({
      redis,
      keys: redisKeys(t.prefix),
      detector,
      intervalMs,
      onError: (err) => errors.push(err),
    });
    closers.push(async () => {
      await loop.close();
      redis.disconnect();
    });
    return { loop, redis, errors };
  }

  it("runs one poll per interval across three processes, never two at once", async () => {
    t = await testRedis("loop");
    const tally: Tally = { active: 0, maxActive: 0, runs: [] };
    const started = performance.now();
    for (const name of ["a", "b", "c"])
      start(
        poller(name, tally, 20, () => "committed"),
        150,
      );
    await sleep(2_000);
    const intervals = (performance.now() - started) / 150;
    expect(tally.maxActive).toBe(1);
    expect(tally.runs.length).toBeGreaterThanOrEqual(5);
    // Three pollers, but polls follow the interval, not the number of processes.
    expect(tally.runs.length).toBeLessThanOrEqual(Math.ceil(intervals) + 2);
  });

  it("never overlaps a poll that outlasts the interval, and polls again as soon as it ends", async () => {
    t = await testRedis("loop-slow");
    const tally: Tally = { active: 0, maxActive: 0, runs: [] };
    start(
      poller("a", tally, 300, () => "committed"),
      100,
    );
    start(
      poller("b", tally, 300, () => "committed"),
      100,
    );
    await sleep(1_800);
    expect(tally.maxActive).toBe(1);
    expect(tally.runs.length).toBeGreaterThanOrEqual(3);
    expect(tally.runs.length).toBeLessThanOrEqual(7);
  });

  it("hands the turn on when the polling process is lost half-way through a poll", async () => {
    t = await testRedis("loop-lost");
    const tally: Tally = { active: 0, maxActive: 0, runs: [] };
    // `a` starts first and hangs in its first poll; then its connection is cut, as
    // when the process dies: its lease is no longer renewed.
    const hang = { poll: () => new Promise<PollReport>(() => undefined) };
    const a = start(
      {
        poll: () => {
          tally.runs.push("a");
          return hang.poll();
        },
      },
      1_000,
    );
    await until(() => tally.runs.length === 1, 5_000);
    start(
      poller("b", tally, 10, () => "committed"),
      1_000,
    );
    await sleep(1_500);
    // While `a` is alive its lease holds: no second poll starts beside it.
    expect(tally.runs).toEqual(["a"]);
    closers.shift(); // `a` is gone: nothing of it to close later
    a.redis.disconnect();
    await until(() => tally.runs.includes("b"), 10_000);
    expect(leaseMsFor(1_000)).toBe(1_000);
  });

  it("gives the turn up after a failed poll, so another poller takes the next one", async () => {
    t = await testRedis("loop-failed");
    const tally: Tally = { active: 0, maxActive: 0, runs: [] };
    start(
      poller("a", tally, 10, () => "failed"),
      200,
    );
    await until(() => tally.runs.length === 1, 5_000);
    start(
      poller("b", tally, 10, () => "committed"),
      200,
    );
    await until(() => tally.runs.length >= 2, 5_000);
    // After `a` failed, `b` took the turn. (That healthy `b` then keeps it is the usual
    // course, not a promise: on a busy machine its 20 ms of slack may pass, and `a`
    // take a turn; either is correct.)
    expect(tally.runs.slice(0, 2)).toEqual(["a", "b"]);
  });

  it("keeps polling when the wall clock is stepped back an hour: it waits on monotonic time only", async () => {
    t = await testRedis("loop-clock");
    const tally: Tally = { active: 0, maxActive: 0, runs: [] };
    start(
      poller("a", tally, 5, () => "committed"),
      100,
    );
    await until(() => tally.runs.length >= 2, 5_000);
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => realNow() - 3_600_000);
    const before = tally.runs.length;
    await until(() => tally.runs.length >= before + 3, 5_000);
  });

  it("counts a poll that throws (Redis trouble around it) as a failed poll", async () => {
    t = await testRedis("loop-throws");
    const reports: PollReport[] = [];
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    const loop = PollLoop.start({
      redis,
      keys: redisKeys(t.prefix),
      detector: {
        poll: async () => {
          throw new Error("OOM command not allowed when used memory > 'maxmemory'.");
        },
      },
      intervalMs: 100,
      onPoll: (r) => reports.push(r),
    });
    closers.push(async () => {
      await loop.close();
      redis.disconnect();
    });
    await until(() => reports.length >= 1, 5_000);
    expect(reports[0]).toMatchObject({ outcome: "failed" });
    expect(reports[0]?.error?.message).toMatch(/^OOM/);
  });
});
