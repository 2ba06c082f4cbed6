import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWatchCommand } from "../../src/cli/watch-action.js";
import { DEFAULT_DETECTOR_SETTINGS } from "../../src/detect/detector.js";
import type { ChangeEvent } from "../../src/diff/change.js";
import { ErrorCode } from "../../src/errors.js";
import { startPipeline } from "../../src/pipeline/pipeline.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import { startSimulator } from "../../src/simulator/http/start-simulator.js";
import {
  completeLines,
  FAST_SIMULATED_WATCH,
  spawnCli,
  testRedisEnv,
} from "../support/cli-process.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

describe("flightwatch watch, configuration", () => {
  it("names the missing upstream variable", async () => {
    await expect(runWatchCommand({}, { REDIS_URL: TEST_REDIS_URL })).rejects.toMatchObject({
      code: ErrorCode.CONFIG_INVALID,
      setting: "FLIGHT_API_BASE_URL",
    });
  });

  it("names a bad POLL_INTERVAL before connecting to anything", async () => {
    await expect(
      runWatchCommand({ simulator: true }, { POLL_INTERVAL: "often" }),
    ).rejects.toMatchObject({
      code: ErrorCode.CONFIG_INVALID,
      setting: "POLL_INTERVAL",
    });
  });

  it("names bad flags", async () => {
    await expect(runWatchCommand({ simulator: true, group: "a b" }, {})).rejects.toMatchObject({
      setting: "--group",
    });
    await expect(runWatchCommand({ simulator: true, speed: "0" }, {})).rejects.toMatchObject({
      setting: "--speed",
    });
  });

  it("exits 1 saying how to get a Redis when none answers", async () => {
    const proc = spawnCli(["watch", "--simulator"], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(await proc.exited).toBe(1);
    expect(proc.stderr()).toContain("REDIS_URL: no Redis answers at redis://127.0.0.1:1");
    expect(proc.stderr()).toContain("redis-server");
    expect(proc.stderr()).toContain(ErrorCode.REDIS_UNAVAILABLE);
  }, 20_000);
});

describe("flightwatch watch --simulator, a real process", () => {
  let t: TestRedis;
  beforeAll(async () => {
    t = await testRedis("watch-cli");
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("prints change events as JSON lines and exits 0 on SIGTERM", async () => {
    const proc = spawnCli(FAST_SIMULATED_WATCH, testRedisEnv(t.prefix));
    const deadline = Date.now() + 30_000;
    while (completeLines(proc.stdout()).length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    const events = completeLines(proc.stdout()).map((line) => JSON.parse(line) as ChangeEvent);
    expect(events.length).toBeGreaterThanOrEqual(3);
    for (const event of events) {
      expect(event.id).toMatch(/^[\w-]{22}$/);
      expect(event.flight.key).toMatch(/^[AD]:\d{4}-\d{2}-\d{2}:\w+$/);
      expect(event.flight.flightNames[0]).toBe(event.flight.mainFlight);
    }
    expect(proc.stderr()).toContain("watching the built-in simulator");
    expect(proc.stderr()).toMatch(/poll 1 baseline: \d+ requests/);
    expect(proc.stderr()).toMatch(/poll \d+ incremental: \d+ requests/);
  }, 45_000);
});

describe("the pipeline with fresh", () => {
  let t: TestRedis;
  afterAll(async () => {
    await t?.cleanup();
  });

  it("clears the prefix before it starts, and only that prefix", async () => {
    t = await testRedis("watch-fresh");
    const other = await testRedis("watch-fresh-other");
    const stale = `{${t.prefix}}:snapshot:D:2026-11-20:KL0001`;
    await t.redis.set(stale, "{}");
    await other.redis.set(`{${other.prefix}}:snapshot:x`, "{}");
    const sim = await startSimulator({ live: false, flightsPerDay: 50, tokens: ["t"] });
    try {
      const watcher = await startPipeline({
        role: "detect",
        without: ["poll"],
        client: { baseUrl: sim.baseUrl, token: "t" },
        redis: { url: TEST_REDIS_URL, prefix: t.prefix },
        detector: { ...DEFAULT_DETECTOR_SETTINGS, intervalMs: 60_000 },
        zone: "Europe/Amsterdam",
        rules: () => new RuleSet([]),
        consumer: "fresh-test",
        now: Date.now,
        fresh: true,
        observer: {},
      });
      await watcher.stop();
    } finally {
      await sim.close();
    }
    expect(await t.redis.exists(stale)).toBe(0);
    expect(await other.redis.exists(`{${other.prefix}}:snapshot:x`)).toBe(1);
    await other.cleanup();
  });
});
