/**
 * The daemon as one unit: the pipeline stages its role runs (poller: poll, detect,
 * match, enqueue; worker: deliver; all: both), the health/readiness/metrics server, and
 * a bounded graceful stop. The CLI builds the configuration, logger and senders and
 * hands them here; tests start it in-process the same way.
 */
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import type { FlightApiClientOptions } from "../api/client-options.js";
import type { DaemonConfig } from "../config/daemon-config.js";
import { type DeliveryRecord, describeRecord } from "../deliver/delivery-log.js";
import { DeliveryQueues } from "../deliver/delivery-queues.js";
import type { DeliveryStageOptions } from "../deliver/delivery-stage.js";
import { describePoll } from "../detect/describe-poll.js";
import type { PollReport } from "../detect/detector.js";
import { startWatch, type Watcher } from "../detect/watch.js";
import type { Alert } from "../dispatch/alert.js";
import { describeError } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { FlightwatchMetrics } from "../ops/flightwatch-metrics.js";
import { type OpsServer, type Readiness, startOpsServer } from "../ops/ops-server.js";
import type { RuleSet } from "../rules/rule-matcher.js";
import { DetectionStore } from "../store/detection-store.js";
import { connectRedis } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import { RedisTroubleLog } from "./redis-trouble.js";

/** What a daemon is built from. */
export interface DaemonOptions {
  config: DaemonConfig;
  /** The upstream (the embedded simulator's, or `config.client`). */
  client: FlightApiClientOptions;
  /** The live rules. */
  rules: () => RuleSet;
  /** Senders of this process (the worker and all roles). */
  senders: DeliveryStageOptions["senders"];
  log: Logger;
  /** Airport clock (default Date.now) and how fast it runs against real time (default 1). */
  now?: () => number;
  clockRate?: number;
  /** Delete the prefix's keys first (the embedded simulator is a new airport each time). */
  fresh?: boolean;
  /** Consumer name, stable across restarts (default the host name). */
  consumer?: string;
  /** Log decided alerts and deliveries at debug (the console already shows them). */
  quietAlerts?: boolean;
  /** Extra listeners (the demo's live view). */
  onPoll?: (report: PollReport) => void;
  onDecided?: (alerts: readonly Alert[]) => void;
  onRecord?: (record: DeliveryRecord) => void;
}

/** A running daemon. */
export interface Daemon {
  /** The health/metrics server's URL, when HTTP_PORT is not off. */
  readonly url?: string;
  readonly metrics: FlightwatchMetrics;
  /** Resolves when the pipeline ends on its own (a fatal error); `stop` ends it too. */
  readonly done: Promise<void>;
  readiness(): Promise<Readiness>;
  /**
   * Graceful stop: no new polls or jobs, in-flight sends finish, connections close.
   * Past SHUTDOWN_TIMEOUT the rest is handed back (BullMQ gives a stalled job to
   * another worker) and `clean` is false.
   */
  stop(): Promise<{ clean: boolean }>;
}

/** Readiness needs a successful poll within this many intervals. */
export const READY_POLL_INTERVALS = 3;

/** Starts the daemon; rejects (FW_ERR_REDIS_UNAVAILABLE) when Redis is not there. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config, log } = options;
  const keys = redisKeys(config.redis.prefix);
  const now = options.now ?? Date.now;
  const clockRate = options.clockRate ?? 1;
  const role = config.role;
  const polls = role !== "worker";
  const delivers = role !== "poller";
  const metrics = new FlightwatchMetrics({ now, clockRate });
  const ops: Redis = await connectRedis(config.redis.url);
  // Every connection drops together when Redis goes away; the ops one coming back says
  // Redis is back (it reconnects by itself, idle or not).
  const trouble = new RedisTroubleLog(log);
  ops.on("ready", () => trouble.recovered());
  const queues = new DeliveryQueues(ops, keys, {
    onError: (err) => log.debug({ err }, "queue connection error"),
  });
  const detection = new DetectionStore(ops, keys);
  metrics.observeQueues(() => queues.counts());
  metrics.observePollStatus(() => detection.readStatus());

  let watcher: Watcher | undefined;
  let polled = 0;
  const quiet = options.quietAlerts ? "debug" : "info";
  let server: OpsServer | undefined;
  const readiness = async (): Promise<Readiness> => {
    const checks: Readiness["checks"] = {};
    try {
      await ops.ping();
      checks.redis = { ok: true, detail: `answers at ${keys.prefix}` };
    } catch (err) {
      checks.redis = { ok: false, detail: describeError(err) };
    }
    if (watcher === undefined) checks.pipeline = { ok: false, detail: "starting" };
    if (polls && checks.redis.ok) checks.poll = pollCheck(await detection.readStatus());
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  };
  const pollCheck = (status: Awaited<ReturnType<DetectionStore["readStatus"]>>) => {
    const limit = READY_POLL_INTERVALS * config.detector.intervalMs * clockRate;
    if (status.lastSuccessAt === undefined) {
      return { ok: false, detail: "no successful poll yet" };
    }
    const age = now() - status.lastSuccessAt;
    const detail = `last successful poll ${Math.round(age / clockRate / 100) / 10} s ago`;
    if (age > limit) {
      const why = status.lastError ? `; last error: ${status.lastError}` : "";
      return { ok: false, detail: `${detail} (more than ${READY_POLL_INTERVALS} intervals)${why}` };
    }
    return { ok: true, detail };
  };

  try {
    // The port first: a port in use (or a bad HTTP_HOST) must fail the start before
    // anything is polled or written.
    if (config.http) {
      server = await startOpsServer({
        port: config.http.port,
        host: config.http.host,
        metrics,
        readiness,
        ...(config.dashboard ? { dashboard: { queues: queues.all() } } : {}),
      });
    }
    watcher = await startWatch({
      client: {
        ...options.client,
        onExchange: (event) => {
          metrics.exchange(event);
          if (event.outcome !== "ok") {
            log.warn(
              {
                operation: event.operation,
                status: event.status,
                attempt: event.attempt,
                reason: event.outcome,
                willRetry: event.willRetry,
              },
              "upstream request failed",
            );
          }
        },
      },
      redis: config.redis,
      settings: config.detector,
      consumer: options.consumer ?? hostname(),
      ...(options.now ? { now: options.now } : {}),
      noPoll: !polls,
      fresh: Boolean(options.fresh),
      rules: {
        current: options.rules,
        noDispatch: !polls,
        onDecided: (alerts) => {
          for (const alert of alerts) {
            metrics.alert(alert);
            log[quiet](
              {
                alertId: alert.id,
                ruleId: alert.ruleId,
                flightId: alert.flight.id,
                flight: alert.flight.key,
                changes: alert.changes.map((c) => c.kind),
              },
              "alert decided",
            );
          }
          options.onDecided?.(alerts);
        },
      },
      delivery: {
        senders: delivers ? options.senders : {},
        notify: polls,
        workers: {
          ...(config.stallTimeoutMs !== undefined
            ? {
                lockDurationMs: config.stallTimeoutMs,
                stalledIntervalMs: Math.max(250, config.stallTimeoutMs / 2),
              }
            : {}),
          onRecord: (record) => {
            metrics.delivery(record);
            const fields = {
              notificationId: record.id,
              ruleId: record.ruleId,
              channel: record.channel,
              type: record.type,
              flight: record.flight,
              destination: record.destination,
              attempt: record.attempt,
              ...(record.reason ? { reason: record.reason } : {}),
            };
            if (record.result === "delivered") log[quiet](fields, describeRecord(record));
            else if (record.result === "retrying") log.warn(fields, describeRecord(record));
            else log.error(fields, describeRecord(record));
            options.onRecord?.(record);
          },
          onAbandoned: (job, attempt) =>
            log.warn(
              {
                notificationId: job.notification.id,
                ruleId: job.notification.ruleId,
                channel: job.notification.channel,
                type: job.notification.type,
                flight: job.notification.alert.flight.key,
                destination: job.destination,
                attempt,
              },
              "lock lost before sending; another worker has it",
            ),
          onError: (err) => trouble.error(err, "delivery worker error"),
        },
        onDropped: (alert) =>
          log.warn({ alertId: alert.id, ruleId: alert.ruleId }, "alert not sent: its rule is gone"),
      },
      onPoll: (report) => {
        metrics.poll(report);
        logPoll(log, ++polled, report);
        options.onPoll?.(report);
      },
      onError: (err) => trouble.error(err, "pipeline error"),
    });
  } catch (err) {
    await watcher?.stop().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await queues.close().catch(() => undefined);
    ops.disconnect();
    throw err;
  }
  const running = watcher;
  let stopping: Promise<{ clean: boolean }> | undefined;
  return {
    ...(server ? { url: server.url } : {}),
    metrics,
    done: running.done,
    readiness,
    stop() {
      stopping ??= (async () => {
        server?.setShuttingDown();
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), config.shutdownTimeoutMs);
        });
        const result = await Promise.race([
          running.stop().then(() => "stopped" as const),
          timedOut,
        ]);
        clearTimeout(timer);
        if (result === "timeout") {
          log.warn(
            { timeoutMs: config.shutdownTimeoutMs },
            "graceful stop took too long; in-flight notifications are handed back to the other workers",
          );
        }
        await queues.close().catch(() => undefined);
        ops.disconnect();
        await server?.close();
        return { clean: result === "stopped" };
      })();
      return stopping;
    },
  };
}

/**
 * Polls are logged by what they mean to an operator: a failure is a warning, a poll
 * that found changes is news, a quiet one is debug detail (every 30 s otherwise).
 */
function logPoll(log: Logger, count: number, report: PollReport): void {
  const fields = {
    poll: count,
    mode: report.mode,
    outcome: report.outcome,
    durationMs: report.durationMs,
    requests: report.requests,
    events: report.events.length,
  };
  const text = describePoll(count, report);
  if (report.outcome === "failed") log.warn({ ...fields, err: report.error }, text);
  else if (report.events.length > 0) log.info(fields, text);
  else log.debug(fields, text);
}
