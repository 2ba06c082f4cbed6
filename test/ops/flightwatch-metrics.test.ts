/**
 * FlightwatchMetrics fed with real objects: PollReports and ExchangeEvents from a real
 * Detector polling the simulator, DeliveryRecords from real delivery workers, queue
 * depths and dead letters read from real BullMQ queues on a real Redis, and the poll
 * status from the real DetectionStore. Assertions parse the Prometheus text.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseCollectionBody } from "../../src/api/response-body.js";
import type { ChannelSender } from "../../src/deliver/channel-sender.js";
import { DeliveryLog, type DeliveryRecord } from "../../src/deliver/delivery-log.js";
import { type DeliveryJob, DeliveryQueues } from "../../src/deliver/delivery-queues.js";
import { DeliveryWorkers } from "../../src/deliver/delivery-worker.js";
import { destinationOf } from "../../src/deliver/endpoint.js";
import { notificationsOf } from "../../src/deliver/notification.js";
import type { SendOutcome } from "../../src/deliver/send-outcome.js";
import { PollProgress } from "../../src/detect/poll-progress.js";
import type { Alert } from "../../src/dispatch/alert.js";
import { ErrorCode } from "../../src/errors.js";
import { FlightwatchMetrics, type QueueCounts } from "../../src/ops/flightwatch-metrics.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { ChannelSpec, Rule } from "../../src/rules/rule.js";
import { connectRedis, type RedisConnection } from "../../src/store/redis-connection.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type DetectHarness, detectHarness } from "../detect/detect-harness.js";
import { rule as baseRule } from "../rules/rule-builder.js";
import { alertOf } from "../support/alert-builder.js";
import { waitFor } from "../support/crash-run.js";
import {
  type PrometheusSample,
  parsePrometheusText,
  samplesOf,
  sampleValue,
} from "../support/prometheus-text.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";

async function scrape(metrics: FlightwatchMetrics): Promise<PrometheusSample[]> {
  return parsePrometheusText(await metrics.metrics());
}

/** The only label names flightwatch's metrics may use: each takes values from a closed set. */
const BOUNDED_LABELS = new Set([
  "mode",
  "outcome",
  "code",
  "kind",
  "operation",
  "status",
  "channel",
  "reason",
  "state",
  "source",
  "le",
]);

/** Label names used by flightwatch's own metrics that are not in BOUNDED_LABELS. */
function unboundedLabels(samples: readonly PrometheusSample[]): string[] {
  return samples
    .filter((s) => s.name.startsWith("flightwatch_"))
    .flatMap((s) => Object.keys(s.labels))
    .filter((name) => !BOUNDED_LABELS.has(name));
}

describe("FlightwatchMetrics: detection", () => {
  let h: DetectHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("counts polls, their duration, upstream requests by status, changes by kind and poll lag", async () => {
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    h = await detectHarness({
      label: "ops-metrics",
      client: { onExchange: (event) => metrics.exchange(event), maxAttempts: 2 },
    });
    const harness = h;
    metrics.observePollStatus(() => harness.store.readStatus());
    // Lag is timed on a monotonic clock from the commits seen (here: this test's own).
    let monotonic = 0;
    const progress = new PollProgress({
      readSeq: () => harness.store.readSeq(),
      monotonic: () => monotonic,
    });
    metrics.observePollAge(() => progress.ageMs());

    // Before any poll: no lag is known, so none is reported (0 would read as "fresh").
    let s = await scrape(metrics);
    expect(samplesOf(s, "flightwatch_poll_lag_seconds")).toEqual([]);
    expect(samplesOf(s, "flightwatch_upstream_stamp_lag_seconds")).toEqual([]);
    expect(samplesOf(s, "flightwatch_poll_overlap_seconds")).toEqual([]);
    expect(sampleValue(s, "flightwatch_poll_failures")).toBe(0);

    const baseline = await h.detector.poll();
    metrics.poll(baseline);
    h.moveGate("Z99");
    const incremental = await h.detector.poll();
    metrics.poll(incremental);
    progress.noteCommit();
    expect(incremental.events.map((e) => e.kind)).toEqual(["gate"]);

    h.clock.advance(90_000);
    monotonic += 90_000;
    const scrapedAt = Date.now();
    s = await scrape(metrics);
    const polls = (mode: string, outcome: string) =>
      sampleValue(s, "flightwatch_polls_total", { mode, outcome });
    expect(polls("baseline", "committed")).toBe(1);
    expect(polls("incremental", "committed")).toBe(1);
    expect(sampleValue(s, "flightwatch_poll_duration_seconds_count", { mode: "baseline" })).toBe(1);
    expect(
      sampleValue(s, "flightwatch_poll_duration_seconds_sum", { mode: "baseline" }),
    ).toBeCloseTo(baseline.durationMs / 1000, 3);
    expect(
      sampleValue(s, "flightwatch_poll_duration_seconds_bucket", {
        le: "+Inf",
        mode: "incremental",
      }),
    ).toBe(1);
    // One sample per attempt, labelled by the real status (200 for pages, 204 for an empty result).
    const requests = baseline.requests + incremental.requests;
    expect(sampleValue(s, "flightwatch_upstream_requests_total")).toBe(requests);
    expect(
      sampleValue(s, "flightwatch_upstream_requests_total", {
        operation: "getFlights",
        status: "200",
      }),
    ).toBeGreaterThan(0);
    expect(sampleValue(s, "flightwatch_upstream_request_duration_seconds_count")).toBe(requests);
    expect(sampleValue(s, "flightwatch_changes_total", { kind: "gate" })).toBe(1);
    // No lag seen on the simulator: the stamp lag is 0 and the overlap its floor.
    expect(sampleValue(s, "flightwatch_upstream_stamp_lag_seconds")).toBe(0);
    expect(sampleValue(s, "flightwatch_poll_overlap_seconds")).toBe(2);
    // Every kind is present from the start, so rate() works before its first change.
    expect(sampleValue(s, "flightwatch_changes_total", { kind: "state" })).toBe(0);
    expect(sampleValue(s, "flightwatch_tracked_flights")).toBe(baseline.flights);
    expect(sampleValue(s, "flightwatch_poll_records_total", { mode: "baseline" })).toBe(
      baseline.records,
    );
    // The last commit (the incremental poll) was seen 90 s ago.
    expect(sampleValue(s, "flightwatch_poll_lag_seconds")).toBeCloseTo(90, 6);
    const at = sampleValue(s, "flightwatch_last_successful_poll_timestamp_seconds") ?? 0;
    expect(at * 1000).toBeGreaterThanOrEqual(scrapedAt - 90_000 - 1_000);
    expect(at * 1000).toBeLessThanOrEqual(Date.now() - 90_000 + 1_000);

    // The upstream fails: 503s, then dropped connections (no status: the reason is the label).
    h.sim.faults.update({ serverErrorRate: 1, serverErrorStatuses: [503] });
    const failed = await h.detector.poll();
    metrics.poll(failed);
    expect(failed.outcome).toBe("failed");
    const skipped = await h.detector.poll(); // backing off
    metrics.poll(skipped);
    expect(skipped.outcome).toBe("skipped");
    h.clock.advance(10_000);
    monotonic += 10_000;
    h.sim.faults.update({ serverErrorRate: 0, dropRate: 1 });
    metrics.poll(await h.detector.poll());

    s = await scrape(metrics);
    expect(polls("incremental", "failed")).toBe(2);
    expect(polls("", "skipped")).toBe(1);
    expect(sampleValue(s, "flightwatch_poll_duration_seconds_count")).toBe(4);
    expect(sampleValue(s, "flightwatch_poll_errors_total", { code: ErrorCode.UPSTREAM_HTTP })).toBe(
      1,
    );
    expect(
      sampleValue(s, "flightwatch_poll_errors_total", { code: ErrorCode.UPSTREAM_NETWORK }),
    ).toBe(1);
    expect(
      sampleValue(s, "flightwatch_upstream_requests_total", {
        operation: "getFlights",
        status: "503",
      }),
    ).toBe(2);
    expect(
      sampleValue(s, "flightwatch_upstream_requests_total", {
        operation: "getFlights",
        status: "connection",
      }),
    ).toBe(2);
    expect(sampleValue(s, "flightwatch_poll_failures")).toBe(2);
    expect(sampleValue(s, "flightwatch_poll_lag_seconds")).toBeCloseTo(100, 6);
    expect(unboundedLabels(s)).toEqual([]);
  });
});

/** A sender answering from a script keyed by alert id. */
class ScriptedSender implements ChannelSender {
  readonly type = "webhook" as const;
  constructor(readonly answer: (alertId: string) => SendOutcome) {}
  async send(n: { alert: Alert }): Promise<SendOutcome> {
    return this.answer(n.alert.id);
  }
  async close(): Promise<void> {}
}

const hookChannel: ChannelSpec = {
  type: "webhook",
  name: "hook",
  url: "http://127.0.0.1:9/hook",
  format: "json",
  retry: { delaysMs: [60_000], forMs: 600_000 },
  source: { file: "t.yaml", line: 1, column: 1 },
};

describe("FlightwatchMetrics: delivery", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let queues: DeliveryQueues;
  let workers: DeliveryWorkers | undefined;
  let connection: RedisConnection | undefined;

  afterEach(async () => {
    await workers?.close();
    workers = undefined;
    connection?.disconnect();
    await queues?.close();
    await t?.cleanup();
  });

  it("reports queue depths and dead letters from real queues, and notifications by channel, outcome and reason", async () => {
    t = await testRedis("ops-metrics");
    keys = redisKeys(t.prefix);
    queues = new DeliveryQueues(t.redis, keys);
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    metrics.observeQueues(() => queues.counts());
    const r: Rule = { ...baseRule("r-secret-rule"), channels: [hookChannel] };
    const jobsOf = (a: Alert): DeliveryJob[] =>
      notificationsOf(a, r).map((notification) => ({
        notification,
        retry: hookChannel.retry ?? { delaysMs: [], forMs: 0 },
        destination: destinationOf(hookChannel),
      }));

    let s = await scrape(metrics);
    expect(sampleValue(s, "flightwatch_queue_jobs", { channel: "webhook", state: "waiting" })).toBe(
      0,
    );
    expect(sampleValue(s, "flightwatch_dead_letters", { channel: "email" })).toBe(0);

    // No workers yet: the job waits.
    await queues.enqueue(jobsOf(alertOf({ id: "a-ok", ruleId: r.id })));
    s = await scrape(metrics);
    expect(sampleValue(s, "flightwatch_queue_jobs", { channel: "webhook", state: "waiting" })).toBe(
      1,
    );
    expect(sampleValue(s, "flightwatch_queue_jobs", { state: "waiting" })).toBe(1);

    const records: DeliveryRecord[] = [];
    connection = await connectRedis(TEST_REDIS_URL, { forBullmq: true });
    workers = new DeliveryWorkers({
      connection,
      keys,
      senders: {
        webhook: new ScriptedSender((id) =>
          id === "a-ok"
            ? { status: "delivered", code: 204 }
            : id === "a-dead"
              ? { status: "failed", reason: "bad_request", detail: "HTTP 400", code: 400 }
              : { status: "retry", reason: "server_error", detail: "HTTP 503", code: 503 },
        ),
      },
      rules: () => new RuleSet([r], { zone: ZONE }),
      zone: ZONE,
      log: new DeliveryLog(t.redis, keys),
      onRecord: (record) => {
        records.push(record);
        metrics.delivery(record);
      },
    });
    await workers.ready();
    await queues.enqueue([
      ...jobsOf(alertOf({ id: "a-dead", ruleId: r.id })),
      ...jobsOf(alertOf({ id: "a-later", ruleId: r.id })),
    ]);
    await waitFor(async () => records.length >= 3, 10_000);
    const alert = alertOf({ id: "a-ok", ruleId: r.id });
    metrics.alert(alert);

    s = await scrape(metrics);
    const notifications = (outcome: string, reason: string) =>
      sampleValue(s, "flightwatch_notifications_total", { channel: "webhook", outcome, reason });
    expect(notifications("delivered", "")).toBe(1);
    expect(notifications("dead", "bad_request")).toBe(1);
    expect(notifications("retrying", "server_error")).toBe(1);
    expect(
      sampleValue(s, "flightwatch_notifications_total", { channel: "slack", outcome: "delivered" }),
    ).toBe(0);
    expect(sampleValue(s, "flightwatch_dead_letters", { channel: "webhook" })).toBe(1);
    // The retry waits a minute in the delayed set.
    expect(sampleValue(s, "flightwatch_queue_jobs", { channel: "webhook", state: "delayed" })).toBe(
      1,
    );
    expect(sampleValue(s, "flightwatch_queue_jobs", { channel: "webhook", state: "waiting" })).toBe(
      0,
    );
    expect(sampleValue(s, "flightwatch_alerts_total")).toBe(1);
    // Bounded labels: no rule, alert, notification or flight identity anywhere.
    expect(unboundedLabels(s)).toEqual([]);
    const values = s.flatMap((x) => Object.values(x.labels));
    for (const identity of [r.id, alert.id, alert.flight.key, records[0]?.id]) {
      expect(values).not.toContain(identity);
    }
  });
});

describe("FlightwatchMetrics: scrape-time sources", () => {
  it("omits the gauges of a source that throws, rejects or hangs, counts the error, and still scrapes", async () => {
    const metrics = new FlightwatchMetrics({ defaultMetrics: false, collectTimeoutMs: 50 });
    const idle = { waiting: 0, active: 0, delayed: 0, failed: 0 };
    let queuesRead: () => Promise<QueueCounts> = async () => ({
      webhook: { waiting: 3, active: 1, delayed: 0, failed: 2 },
      slack: idle,
      email: idle,
      console: idle,
    });
    metrics.observeQueues(() => queuesRead());
    metrics.observePollStatus(() => {
      throw new Error("redis is down");
    });
    let s = await scrape(metrics);
    expect(sampleValue(s, "flightwatch_queue_jobs", { channel: "webhook", state: "waiting" })).toBe(
      3,
    );
    expect(sampleValue(s, "flightwatch_dead_letters", { channel: "webhook" })).toBe(2);
    expect(samplesOf(s, "flightwatch_poll_lag_seconds")).toEqual([]);
    expect(samplesOf(s, "flightwatch_poll_failures")).toEqual([]);
    expect(sampleValue(s, "flightwatch_scrape_errors_total", { source: "poll_status" })).toBe(1);
    expect(sampleValue(s, "flightwatch_alerts_total")).toBe(0);

    // The queue read now rejects: its gauges go (stale depths would look current).
    queuesRead = async () => {
      throw new Error("connection lost");
    };
    s = await scrape(metrics);
    expect(samplesOf(s, "flightwatch_queue_jobs")).toEqual([]);
    expect(samplesOf(s, "flightwatch_dead_letters")).toEqual([]);
    expect(sampleValue(s, "flightwatch_scrape_errors_total", { source: "queues" })).toBe(1);
    expect(sampleValue(s, "flightwatch_scrape_errors_total", { source: "poll_status" })).toBe(2);

    // A read that never answers is cut off after collectTimeoutMs.
    queuesRead = () => new Promise(() => undefined);
    const started = performance.now();
    s = await scrape(metrics);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(sampleValue(s, "flightwatch_scrape_errors_total", { source: "queues" })).toBe(2);

    // And recovers.
    metrics.observePollStatus(async () => ({ failures: 0, lastSuccessAt: 4_000 }));
    metrics.observePollAge(() => 6_000);
    s = await scrape(metrics);
    expect(sampleValue(s, "flightwatch_poll_lag_seconds")).toBe(6);
    expect(sampleValue(s, "flightwatch_poll_failures")).toBe(0);
  });
});

describe("FlightwatchMetrics: malformed upstream records", () => {
  it("counts skipped records by their field (a closed set), never by flight", async () => {
    const parsed = parseCollectionBody("flights", {
      flights: [
        { id: "1", terminal: "1" },
        { id: "2", terminal: "4" },
        { id: "3", baggageClaim: { belts: "3" } },
        "not a record",
      ],
    });
    if (!parsed.ok) throw new Error(parsed.problem);
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    for (const record of parsed.value.malformed) metrics.malformedRecord({ ...record, url: "u" });
    const s = await scrape(metrics);
    const name = "flightwatch_upstream_malformed_records_total";
    expect(sampleValue(s, name, { field: "terminal" })).toBe(2);
    expect(sampleValue(s, name, { field: "baggageClaim" })).toBe(1);
    expect(sampleValue(s, name, { field: "record" })).toBe(1);
    for (const sample of samplesOf(s, name)) expect(Object.keys(sample.labels)).toEqual(["field"]);
  });
});

describe("FlightwatchMetrics: clocks and failures Redis cannot record", () => {
  it("reports poll lag in real seconds on the monotonic clock, whatever the wall clock does", async () => {
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    let monotonic = 0;
    const progress = new PollProgress({ readSeq: async () => "1", monotonic: () => monotonic });
    metrics.observePollAge(() => progress.ageMs());
    progress.noteCommit();
    monotonic += 10_000;
    // The wall clock is stepped back an hour (NTP, a VM resume): the lag stays true.
    const realNow = Date.now.bind(Date);
    const spy = vi.spyOn(Date, "now").mockImplementation(() => realNow() - 3_600_000);
    try {
      const s = await scrape(metrics);
      expect(sampleValue(s, "flightwatch_poll_lag_seconds")).toBeCloseTo(10, 6);
    } finally {
      spy.mockRestore();
    }
  });

  it("counts this process's failed polls when the shared status could not record them", async () => {
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    // Redis refuses writes (OOM): the status still says 0 failures.
    metrics.observePollStatus(async () => ({ failures: 0 }));
    const failed = {
      outcome: "failed" as const,
      startedAt: 0,
      durationMs: 1,
      requests: 0,
      records: 0,
      flights: 0,
      events: [],
      error: new Error("OOM command not allowed when used memory > 'maxmemory'."),
    };
    metrics.poll(failed);
    metrics.poll(failed);
    let s = await scrape(metrics);
    expect(sampleValue(s, "flightwatch_poll_failures")).toBe(2);
    expect(sampleValue(s, "flightwatch_polls_total", { mode: "", outcome: "failed" })).toBe(2);
    metrics.poll({ ...failed, outcome: "committed", error: undefined });
    s = await scrape(metrics);
    expect(sampleValue(s, "flightwatch_poll_failures")).toBe(0);
  });
});

describe("FlightwatchMetrics: registries", () => {
  it("includes the standard process metrics by default, unprefixed, and instances do not clash", async () => {
    const a = new FlightwatchMetrics();
    const b = new FlightwatchMetrics();
    a.alert(alertOf());
    const [sa, sb] = await Promise.all([scrape(a), scrape(b)]);
    expect(sampleValue(sa, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(samplesOf(sa, "nodejs_heap_size_used_bytes")).toHaveLength(1);
    expect(sampleValue(sa, "flightwatch_alerts_total")).toBe(1);
    expect(sampleValue(sb, "flightwatch_alerts_total")).toBe(0);
    expect(a.contentType).toMatch(/^text\/plain; version=0\.0\.4/);

    const bare = await scrape(new FlightwatchMetrics({ defaultMetrics: false }));
    expect(bare.filter((x) => !x.name.startsWith("flightwatch_"))).toEqual([]);
    // Nothing observed yet: gauges that would read 0 ("no lag", "no flights") are absent.
    for (const name of [
      "flightwatch_poll_lag_seconds",
      "flightwatch_last_successful_poll_timestamp_seconds",
      "flightwatch_poll_failures",
      "flightwatch_tracked_flights",
      "flightwatch_queue_jobs",
      "flightwatch_dead_letters",
    ]) {
      expect(samplesOf(bare, name), name).toEqual([]);
    }
  });
});
