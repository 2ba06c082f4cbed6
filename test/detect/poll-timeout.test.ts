/**
 * A poll against an upstream that trickles its bodies a byte a second must end at
 * POLL_TIMEOUT: reported `failed` with FW_ERR_POLL_TIMEOUT (so the poll status, the
 * failure backoff and the metrics see it), every request it had in flight aborted,
 * nothing committed — not even the pages it had read before the stall. The client's
 * own per-attempt deadline is set far away here: only the poll's deadline can end it.
 * Real loopback server and real Redis; each poll that stalls costs about 2 s.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import type { Flight } from "../../src/api/types.js";
import { Detector } from "../../src/detect/detector.js";
import { ErrorCode, PollTimeoutError } from "../../src/errors.js";
import { FlightwatchMetrics } from "../../src/ops/flightwatch-metrics.js";
import { DetectionStore } from "../../src/store/detection-store.js";
import { readOutboxEvents } from "../../src/store/outbox-entry.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import {
  type ContractServer,
  type Fault,
  sampleFlights,
  startContractServer,
} from "../support/contract-server.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";
/** 2026-11-21 10:00 local: sampleFlights are scheduled from 06:00 that day. */
const START_MS = Date.parse("2026-11-21T09:00:00Z");
const POLL_TIMEOUT_MS = 2_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Rig {
  server: ContractServer;
  flights: Flight[];
  redis: TestRedis;
  store: DetectionStore;
  detector: Detector;
  clock: { now: number };
  /** Makes every request after the first `after` ones of the next polls trickle. */
  stall(after: number): void;
  heal(): void;
}

async function rig(): Promise<Rig> {
  const flights = sampleFlights(6);
  let stallAfter: number | undefined;
  let seen = 0;
  const trickle: Fault = { kind: "trickle" };
  const server = await startContractServer({
    flights,
    pageSize: 2,
    faultFor: () => {
      if (stallAfter === undefined) return undefined;
      return seen++ >= stallAfter ? trickle : undefined;
    },
  });
  cleanups.push(() => server.close());
  const client = new FlightApiClient({
    baseUrl: server.baseUrl,
    airportTimezone: ZONE,
    // Far away on purpose: only the poll's deadline can end a trickle here.
    requestTimeoutMs: 120_000,
    bodyTimeoutMs: 120_000,
  });
  cleanups.push(() => client.close());
  const redis = await testRedis("poll-timeout");
  cleanups.push(() => redis.cleanup());
  const keys = redisKeys(redis.prefix);
  const connection = redis.redis.duplicate();
  cleanups.push(async () => {
    connection.disconnect();
  });
  const clock = { now: START_MS };
  const detector = new Detector({
    client,
    store: new DetectionStore(connection, keys),
    settings: { intervalMs: 1_000, reconcileEveryMs: 0, pollTimeoutMs: POLL_TIMEOUT_MS },
    now: () => clock.now,
  });
  return {
    server,
    flights,
    redis,
    store: new DetectionStore(redis.redis, keys),
    detector,
    clock,
    stall(after) {
      stallAfter = after;
      seen = 0;
    },
    heal() {
      stallAfter = undefined;
    },
  };
}

/** Waits (up to 30 s) until `check` holds: the server hears a closed connection a moment later. */
async function eventually(check: () => boolean): Promise<void> {
  const until = performance.now() + 30_000;
  while (!check() && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
}

describe("a poll against an upstream that trickles", () => {
  it("fails at POLL_TIMEOUT with FW_ERR_POLL_TIMEOUT, aborts its request, counts the failure and backs off", async () => {
    const r = await rig();
    r.stall(0);
    const started = performance.now();
    const report = await r.detector.poll();
    const elapsed = performance.now() - started;

    expect(report.outcome).toBe("failed");
    expect(report.mode).toBe("baseline");
    expect(report.error).toBeInstanceOf(PollTimeoutError);
    expect((report.error as PollTimeoutError).code).toBe(ErrorCode.POLL_TIMEOUT);
    expect((report.error as PollTimeoutError).timeoutMs).toBe(POLL_TIMEOUT_MS);
    expect(elapsed).toBeGreaterThanOrEqual(POLL_TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(POLL_TIMEOUT_MS + 10_000);
    // The stalled request was cut off by the client, not left trickling.
    await eventually(() => r.server.cutOff === r.server.requests.length);
    expect(r.server.requests).toHaveLength(1);
    expect(r.server.cutOff).toBe(1);

    const status = await r.store.readStatus();
    expect(status.failures).toBe(1);
    expect(status.lastError).toContain(ErrorCode.POLL_TIMEOUT);
    expect(status.lastError).toContain("POLL_TIMEOUT");
    expect(status.nextAttemptAt).toBe(START_MS + 1_000);
    expect((await r.store.readState()).watermark).toBeUndefined();

    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    metrics.poll(report);
    expect(await metrics.metrics()).toContain(
      'flightwatch_poll_errors_total{code="FW_ERR_POLL_TIMEOUT"} 1',
    );

    // The upstream recovers: the next poll after the backoff takes the baseline.
    r.heal();
    r.clock.now += 1_000;
    const next = await r.detector.poll();
    expect(next).toMatchObject({ outcome: "committed", mode: "baseline" });
    expect((await r.store.readStatus()).failures).toBe(0);
  });

  it("commits nothing of a poll that stalled after reading some pages, and finds the change once later", async () => {
    const r = await rig();
    expect(await r.detector.poll()).toMatchObject({ outcome: "committed", mode: "baseline" });
    const state = await r.store.readState();
    const first = r.flights[0] as Flight;
    const oldGate = first.gate;

    r.clock.now += 60_000;
    first.gate = "Z9";
    first.lastUpdatedAt = "2026-11-21T10:00:30.000+01:00";
    // The first page comes whole (the changed flight is on it); the next one trickles.
    r.stall(1);
    const report = await r.detector.poll();
    expect(report.outcome).toBe("failed");
    expect(report.mode).toBe("incremental");
    expect(report.error).toBeInstanceOf(PollTimeoutError);
    expect(r.server.requests.length).toBeGreaterThanOrEqual(2);
    expect(await readOutboxEvents(r.redis.redis, redisKeys(r.redis.prefix))).toEqual([]);
    expect(await r.store.readState()).toEqual(state);
    const [key] = await r.store
      .indexedKeys("2026-11-21", "2026-11-21")
      .then((keys) => keys.filter((k) => k.endsWith(`:${first.flightName}`)));
    const snapshot = (await r.store.loadSnapshots([key as string])).get(key as string);
    expect(snapshot?.fields.gate).toBe(oldGate);
    await eventually(() => r.server.cutOff >= 1);
    expect(r.server.cutOff).toBe(1);

    r.heal();
    r.clock.now += 1_000;
    const next = await r.detector.poll();
    expect(next.outcome).toBe("committed");
    expect(next.events.map((e) => [e.kind, e.old, e.new])).toEqual([["gate", oldGate, "Z9"]]);
  });
});
