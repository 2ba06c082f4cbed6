/**
 * The daemon's Prometheus metrics, on a registry of their own (never prom-client's
 * global one, so tests and several instances in one process do not clash).
 *
 * Counters and histograms are fed by the daemon as things happen (`poll`, `exchange`,
 * `alert`, `delivery`); queue depths and the poll status are read from Redis at scrape
 * time through callbacks the daemon registers. Every label takes values from a closed
 * set (modes, outcomes, operation ids, HTTP statuses, channel types, failure reasons):
 * with up to 100,000 rules, a rule id or flight as a label would swamp Prometheus.
 */
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type LabelValues,
  Registry,
} from "prom-client";
import type { MalformedReport } from "../api/client-options.js";
import type { ExchangeEvent } from "../api/exchange-event.js";
import { type DeliveryRecord, settled } from "../deliver/delivery-log.js";
import type { ChannelType } from "../deliver/notification.js";
import type { PollReport } from "../detect/detector.js";
import { CHANGE_KINDS } from "../diff/change.js";
import type { Alert } from "../dispatch/alert.js";
import { FlightwatchError } from "../errors.js";
import { CHANNEL_TYPES } from "../rules/rule.js";
import type { PollStatus } from "../store/detection-store.js";

/** Options of the metrics. */
export interface FlightwatchMetricsOptions {
  /**
   * Node.js process metrics (CPU, memory, event loop, GC) under their standard
   * unprefixed names, `process_*` and `nodejs_*` (default true).
   */
  defaultMetrics?: boolean;
  /** A scrape-time callback that has not answered after this long counts as failed (default 2 s). */
  collectTimeoutMs?: number;
}

/** Queue counts per channel type and BullMQ state, as `DeliveryQueues.counts()` returns them. */
export type QueueCounts = Record<ChannelType, Record<string, number>>;

/** Queue states reported as depth; `failed` is reported as dead letters, `completed` not at all. */
const QUEUE_STATES = ["waiting", "active", "delayed"] as const;

/** Poll durations: an incremental poll takes ~50 ms, a baseline of a busy airport up to a minute. */
const POLL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
/** Upstream attempts: a few ms on a LAN simulator, seconds when the service is slow. */
const REQUEST_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const DEFAULT_COLLECT_TIMEOUT_MS = 2_000;

/** One scrape-time source: the daemon's callback, read once per scrape, bounded in time. */
class ScrapeSource<T> {
  read: (() => Promise<T>) | undefined;

  constructor(
    readonly name: string,
    readonly timeoutMs: number,
  ) {}

  /** The callback's answer, or an error when it threw, rejected or took too long. */
  async sample(): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | undefined> {
    const read = this.read;
    if (read === undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.name} did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return { ok: true, value: await Promise.race([read(), timeout]) };
    } catch (error) {
      return { ok: false, error };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** flightwatch's metrics and their Prometheus text. */
export class FlightwatchMetrics {
  /** The registry every flightwatch metric lives in (the daemon may add its own). */
  readonly registry = new Registry();
  /** Content-Type of `metrics()`'s text. */
  readonly contentType: string;

  readonly #polls: Counter<"mode" | "outcome">;
  readonly #pollDuration: Histogram<"mode">;
  readonly #pollErrors: Counter<"code">;
  readonly #pollRecords: Counter<"mode">;
  readonly #trackedFlights: Gauge;
  readonly #changes: Counter<"kind">;
  readonly #upstreamRequests: Counter<"operation" | "status">;
  readonly #upstreamDuration: Histogram<"operation">;
  readonly #malformedRecords: Counter<"field">;
  readonly #alerts: Counter;
  readonly #notifications: Counter<"channel" | "outcome" | "reason">;
  readonly #scrapeErrors: Counter<"source">;
  readonly #queueJobs: Gauge<"channel" | "state">;
  readonly #deadLetters: Gauge<"channel">;
  readonly #pollLag: Gauge;
  readonly #lastSuccess: Gauge;
  readonly #pollFailures: Gauge;
  readonly #stampLag: Gauge;
  readonly #pollOverlap: Gauge;
  readonly #redisErrors: Counter<"reason">;
  readonly #stateLosses: Counter;
  readonly #lostNotifications: Counter;
  readonly #outstanding: Gauge;
  readonly #clockSteps: Counter;
  readonly #queues: ScrapeSource<QueueCounts>;
  readonly #pollStatus: ScrapeSource<PollStatus>;
  /** Ms since the last commit this process saw (see PollProgress), read at scrape time. */
  #pollAge: (() => number | undefined) | undefined;
  /** Polls failed in a row by this process: the failure count the status cannot record (Redis refusing writes). */
  #ownFailures = 0;

  constructor(options: FlightwatchMetricsOptions = {}) {
    this.contentType = this.registry.contentType;
    const timeoutMs = options.collectTimeoutMs ?? DEFAULT_COLLECT_TIMEOUT_MS;
    this.#queues = new ScrapeSource("queues", timeoutMs);
    this.#pollStatus = new ScrapeSource("poll_status", timeoutMs);
    const registers = [this.registry];

    this.#polls = new Counter({
      name: "flightwatch_polls_total",
      help: "Polls run by this process, by mode (baseline, incremental, reconcile; empty when none was chosen) and outcome (committed, skipped, conflict, failed).",
      labelNames: ["mode", "outcome"],
      registers,
    });
    this.#pollDuration = new Histogram({
      name: "flightwatch_poll_duration_seconds",
      help: "Wall time of polls that ran (skipped ones excluded), by mode.",
      labelNames: ["mode"],
      buckets: POLL_BUCKETS,
      registers,
    });
    this.#pollErrors = new Counter({
      name: "flightwatch_poll_errors_total",
      help: "Failed polls by error code (FW_ERR_…, or `unknown`).",
      labelNames: ["code"],
      registers,
    });
    this.#pollRecords = new Counter({
      name: "flightwatch_poll_records_total",
      help: "Upstream flight records read by polls, by mode.",
      labelNames: ["mode"],
      registers,
    });
    this.#trackedFlights = new Gauge({
      name: "flightwatch_tracked_flights",
      help: "Physical flights in the schedule horizon, as of this process's last full read (baseline or reconcile).",
      registers,
    });
    this.#trackedFlights.remove({});
    this.#changes = new Counter({
      name: "flightwatch_changes_total",
      help: "Change events committed by polls, by kind.",
      labelNames: ["kind"],
      registers,
    });
    for (const kind of CHANGE_KINDS) this.#changes.inc({ kind }, 0);
    this.#upstreamRequests = new Counter({
      name: "flightwatch_upstream_requests_total",
      help: "HTTP attempts against the upstream API, by operation and status (the HTTP status, or the failure reason when nothing was answered: timeout, connection, network).",
      labelNames: ["operation", "status"],
      registers,
    });
    this.#upstreamDuration = new Histogram({
      name: "flightwatch_upstream_request_duration_seconds",
      help: "Wall time of HTTP attempts against the upstream API, body included, by operation.",
      labelNames: ["operation"],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#malformedRecords = new Counter({
      name: "flightwatch_upstream_malformed_records_total",
      help: "Upstream records skipped because they break the contract (each time one is read), by the top-level field of the first problem (`record` when the record as a whole is wrong). Their flights keep their last good snapshots.",
      labelNames: ["field"],
      registers,
    });
    this.#alerts = new Counter({
      name: "flightwatch_alerts_total",
      help: "Alerts decided by this process's dispatcher.",
      registers,
    });
    this.#notifications = new Counter({
      name: "flightwatch_notifications_total",
      help: "Delivery attempts by channel type, outcome (delivered, retrying, dead, superseded, cancelled) and failure reason (empty unless retrying or dead).",
      labelNames: ["channel", "outcome", "reason"],
      registers,
    });
    for (const channel of CHANNEL_TYPES) {
      this.#notifications.inc({ channel, outcome: "delivered", reason: "" }, 0);
    }
    this.#redisErrors = new Counter({
      name: "flightwatch_redis_errors_total",
      help: "Errors from Redis seen by this process, by reason: connection (out of reach), oom, readonly, cluster, auth, misconf (refusals the operator must fix), crossslot (a flightwatch defect), other.",
      labelNames: ["reason"],
      registers,
    });
    this.#stateLosses = new Counter({
      name: "flightwatch_redis_state_losses_total",
      help: "Times this process found that Redis had lost flightwatch's data (restart without persistence, FLUSHALL, failover to an empty replica) and re-baselined.",
      registers,
    });
    this.#lostNotifications = new Counter({
      name: "flightwatch_notifications_lost_total",
      help: "Notifications waiting or retrying that were lost with Redis's data (counted by the process that noticed the loss first).",
      registers,
    });
    this.#outstanding = new Gauge({
      name: "flightwatch_notifications_outstanding",
      help: "Notifications waiting, retrying or being sent, as this process's state guard last looked (every poll interval): what a loss of Redis's data would take with it.",
      registers,
    });
    this.#outstanding.remove({});
    this.#clockSteps = new Counter({
      name: "flightwatch_clock_steps_back_total",
      help: "Times this process saw the wall clock go back by more than a second (NTP step, VM resume); its own time then converges on it slowly.",
      registers,
    });
    this.#scrapeErrors = new Counter({
      name: "flightwatch_scrape_errors_total",
      help: "Scrape-time reads that failed or timed out, by source (queues, poll_status); their gauges are omitted from that scrape.",
      labelNames: ["source"],
      registers,
    });
    this.#queueJobs = new Gauge({
      name: "flightwatch_queue_jobs",
      help: "Jobs in the delivery queues, by channel type and state (waiting, active, delayed); a bundle of up to 50 notifications is one job (flightwatch_notifications_outstanding counts notifications).",
      labelNames: ["channel", "state"],
      registers,
    });
    this.#deadLetters = new Gauge({
      name: "flightwatch_dead_letters",
      help: "Dead letters (failed delivery jobs still kept), by channel type.",
      labelNames: ["channel"],
      registers,
    });
    this.#pollLag = new Gauge({
      name: "flightwatch_poll_lag_seconds",
      help: "How stale detection is: seconds since this process last saw a poll of any process commit (monotonic; real seconds).",
      registers,
    });
    this.#lastSuccess = new Gauge({
      name: "flightwatch_last_successful_poll_timestamp_seconds",
      help: "When this process last saw a poll of any process commit, Unix time.",
      registers,
    });
    this.#stampLag = new Gauge({
      name: "flightwatch_upstream_stamp_lag_seconds",
      help: "How far the upstream's lastUpdatedAt stamps have been seen to lag its clock (the largest lag observed, halving every 6 h), as of this process's last committed poll.",
      registers,
    });
    this.#pollOverlap = new Gauge({
      name: "flightwatch_poll_overlap_seconds",
      help: "How far this process's last incremental poll reached back before what the poll before it had covered (sized from the stamp lag, within POLL_OVERLAP_MIN and POLL_OVERLAP; at least 2 s until the lag is measured).",
      registers,
    });
    this.#pollFailures = new Gauge({
      name: "flightwatch_poll_failures",
      help: "Consecutive failed polls (0 after a success): the shared count, or this process's own when Redis could not record it.",
      registers,
    });
    // Unlabelled gauges start at 0, which would read as "no lag": absent until known.
    for (const gauge of [
      this.#pollLag,
      this.#lastSuccess,
      this.#pollFailures,
      this.#stampLag,
      this.#pollOverlap,
    ]) {
      gauge.remove({});
    }

    if (options.defaultMetrics ?? true) {
      // Unprefixed: process_cpu_seconds_total, process_resident_memory_bytes and the
      // nodejs_* names are what every client library and stock Node.js dashboard use;
      // Prometheus's job/instance labels already say which service they come from.
      collectDefaultMetrics({ register: this.registry });
    }
  }

  /** Counts one poll, its duration, records read and the changes it committed. */
  poll(report: PollReport): void {
    const mode = report.mode ?? "";
    this.#polls.inc({ mode, outcome: report.outcome });
    if (report.outcome === "skipped") return;
    this.#ownFailures = report.outcome === "failed" ? this.#ownFailures + 1 : 0;
    this.#pollDuration.observe({ mode }, report.durationMs / 1000);
    if (report.records > 0) this.#pollRecords.inc({ mode }, report.records);
    if (report.outcome === "failed") {
      const code = report.error instanceof FlightwatchError ? report.error.code : "unknown";
      this.#pollErrors.inc({ code });
      return;
    }
    if (report.outcome !== "committed") return;
    if (report.mode === "baseline" || report.mode === "reconcile") {
      this.#trackedFlights.set(report.flights);
    }
    if (report.stampLagMs !== undefined) this.#stampLag.set(report.stampLagMs / 1000);
    if (report.overlapMs !== undefined) this.#pollOverlap.set(report.overlapMs / 1000);
    for (const event of report.events) this.#changes.inc({ kind: event.kind });
  }

  /** Counts one HTTP attempt against the upstream and its duration. */
  exchange(event: ExchangeEvent): void {
    const status = event.status === undefined ? event.outcome : String(event.status);
    this.#upstreamRequests.inc({ operation: event.operation, status });
    this.#upstreamDuration.observe({ operation: event.operation }, event.durationMs / 1000);
  }

  /**
   * Counts one skipped malformed record. The field is one of the record's top-level
   * fields or `record` (a closed set); the flight id goes to the log, never a label.
   */
  malformedRecord(report: MalformedReport): void {
    this.#malformedRecords.inc({ field: report.field });
  }

  /** Counts one decided alert (no rule label: there may be 100,000 rules). */
  alert(_alert: Alert): void {
    this.#alerts.inc();
  }

  /** Counts one delivery attempt by channel type, outcome and failure reason. */
  delivery(record: DeliveryRecord): void {
    const reason = settled(record.result) ? "" : (record.reason ?? "unknown");
    this.#notifications.inc({ channel: record.type, outcome: record.result, reason });
  }

  /** Counts one error from Redis by reason (see RedisRefusal; `connection`, `other`). */
  redisError(reason: string): void {
    this.#redisErrors.inc({ reason });
  }

  /** What the state guard saw outstanding at its last look. */
  outstandingSeen(notifications: number): void {
    this.#outstanding.set(notifications);
  }

  /** Counts one loss of Redis's data noticed here, and the notifications it took (when this process reports them). */
  stateLoss(lostNotifications = 0): void {
    this.#stateLosses.inc();
    if (lostNotifications > 0) this.#lostNotifications.inc(lostNotifications);
  }

  /** Counts one step back of the wall clock. */
  clockStepBack(): void {
    this.#clockSteps.inc();
  }

  /** Reads the age of the last commit seen (ms, monotonic) at each scrape, for poll lag. */
  observePollAge(read: () => number | undefined): void {
    this.#pollAge = read;
  }

  /** Reads queue depths and dead letters at each scrape (the shape of `DeliveryQueues.counts()`). */
  observeQueues(read: () => Promise<QueueCounts>): void {
    this.#queues.read = read;
  }

  /** Reads the shared poll status at each scrape, for consecutive failures. */
  observePollStatus(read: () => Promise<PollStatus>): void {
    this.#pollStatus.read = read;
  }

  /**
   * The Prometheus text. Scrape-time sources are read first, concurrently, so a
   * failed read is counted in this very scrape; a failed source's gauges are omitted
   * rather than left at stale values that would look current.
   */
  async metrics(): Promise<string> {
    const [queues, status] = await Promise.all([this.#queues.sample(), this.#pollStatus.sample()]);
    if (queues !== undefined) {
      this.#queueJobs.reset();
      this.#deadLetters.reset();
      if (queues.ok) this.#setQueues(queues.value);
      else this.#scrapeErrors.inc({ source: this.#queues.name });
    }
    if (status !== undefined) {
      this.#pollFailures.remove({});
      if (status.ok) {
        this.#pollFailures.set(Math.max(status.value.failures, this.#ownFailures));
      } else {
        this.#scrapeErrors.inc({ source: this.#pollStatus.name });
      }
    }
    this.#setPollAge();
    return this.registry.metrics();
  }

  #setQueues(counts: QueueCounts): void {
    for (const [channel, byState] of Object.entries(counts)) {
      for (const state of QUEUE_STATES) {
        const labels: LabelValues<"channel" | "state"> = { channel, state };
        this.#queueJobs.set(labels, byState[state] ?? 0);
      }
      this.#deadLetters.set({ channel }, byState.failed ?? 0);
    }
  }

  #setPollAge(): void {
    this.#pollLag.remove({});
    this.#lastSuccess.remove({});
    const ageMs = this.#pollAge?.();
    if (ageMs === undefined) return;
    this.#lastSuccess.set((Date.now() - ageMs) / 1000);
    this.#pollLag.set(ageMs / 1000);
  }
}
