/**
 * The daemon around the pipeline (src/pipeline/pipeline.ts, which composes the stages
 * of its role): the health/readiness/metrics server, a clock the wall clock cannot send
 * back, the guard that notices Redis losing its data, the metrics and log lines of
 * everything the pipeline reports, and a bounded graceful stop. `runDaemon` builds the
 * configuration, logger and senders and hands them here; tests start it the same way.
 */
import { hostname } from "node:os";
import type { FlightApiClientOptions } from "../api/client-options.js";
import type { DaemonConfig } from "../config/daemon-config.js";
import { DeliveryQueues } from "../deliver/delivery-queues.js";
import { PollProgress } from "../detect/poll-progress.js";
import { describeError, ErrorCode } from "../errors.js";
import { subscriptionsApi } from "../http-api/subscriptions-api.js";
import type { Logger } from "../log/logger.js";
import { FlightwatchMetrics } from "../ops/flightwatch-metrics.js";
import {
  type Liveness,
  type OpsServer,
  type Readiness,
  startOpsServer,
} from "../ops/ops-server.js";
import { observeAll, type PipelineObserver, type StageName } from "../pipeline/observer.js";
import {
  type Pipeline,
  type PipelineGroups,
  type PipelineOptions,
  type PipelineRole,
  stagesOf,
  startPipeline,
} from "../pipeline/pipeline.js";
import type { RuleSet } from "../rules/match/rule-matcher.js";
import { agreeDeliveryShards } from "../store/delivery-shards.js";
import { DetectionStore, type PollStatus } from "../store/detection-store.js";
import type { RedisConnection } from "../store/redis-connection.js";
import { connectRedis } from "../store/redis-connection.js";
import { type RedisKeys, redisKeys } from "../store/redis-keys.js";
import { StateGuard, type StateLoss } from "../store/state-guard.js";
import { JumpSafeClock } from "../time/jump-safe-clock.js";
import { type PassengerWeb, startPassengerWeb } from "../web/passenger-web.js";
import { daemonObserver } from "./daemon-observer.js";
import { MalformedRecordLog } from "./malformed-record-log.js";
import { RedisTroubleLog } from "./redis-trouble.js";
import { StageHealth } from "./stage-health.js";

/** What a daemon is built from. */
export interface DaemonOptions {
  config: DaemonConfig;
  /** What this process runs (default the configuration's `--role`). */
  role?: PipelineRole;
  /** Stages of the role left to other processes (`watch --no-poll`). */
  without?: readonly StageName[];
  /** Consumer groups other than the default ones (`watch --group`). */
  groups?: PipelineGroups;
  /** The upstream (the embedded simulator's, or `config.client`). */
  client: FlightApiClientOptions;
  /** The live rules. */
  rules: () => RuleSet;
  /** Senders of this process (the worker and all roles). */
  senders: PipelineOptions["senders"];
  log: Logger;
  /** Airport clock (default Date.now). */
  now?: () => number;
  /** Delete the prefix's keys first (the embedded simulator is a new airport each time). */
  fresh?: boolean;
  /** Consumer name, stable across restarts (default the host name). */
  consumer?: string;
  /** Log decided alerts and deliveries at debug (the console already shows them). */
  quietAlerts?: boolean;
  /** Hears the pipeline beside the metrics and the log (the live view, `watch`'s output). */
  observer?: PipelineObserver;
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
  const keys = redisKeys(config.redis.prefix, config.redis.deliveryShards);
  const role = options.role ?? config.role;
  const stagesRun = stagesOf(role, options.without);
  const polls = stagesRun.has("poll");
  const delivers = stagesRun.has("deliver");
  const metrics = new FlightwatchMetrics();
  // The wall clock may be stepped back (NTP, a VM resume); the instants the daemon keeps
  // in Redis (due groups, backoff, catch-up) must not wait for it to catch up again.
  const clock = new JumpSafeClock({
    ...(options.now ? { wall: options.now } : {}),
    onJump: (backMs) => clockStepped(backMs),
  });
  const now = clock.now;
  const ops: RedisConnection = await connectRedis(config.redis.url);
  // Every connection drops together when Redis goes away; the ops one coming back says
  // Redis is back (it reconnects by itself, idle or not).
  const trouble = new RedisTroubleLog(log, { onError: (reason) => metrics.redisError(reason) });
  ops.on("ready", () => trouble.recovered());
  const malformed = new MalformedRecordLog(log);
  // Before any queue is opened (opening one writes its meta key): a process with another
  // number of delivery shards than the deployment's is refused first.
  if (stagesRun.has("notify") || delivers) {
    await agreeDeliveryShards(ops, keys, { write: true }).catch((err: unknown) => {
      ops.disconnect();
      throw err;
    });
  }
  const queues = new DeliveryQueues(ops, keys, {
    onError: (err) => log.debug({ err }, "queue connection error"),
  });
  const detection = new DetectionStore(ops, keys);
  const intervalMs = config.detector.intervalMs;
  const progress = new PollProgress({ readSeq: () => detection.readSeq() });
  const stages = new StageHealth(
    config.stuckTimeoutMs === undefined ? {} : { stuckAfterMs: config.stuckTimeoutMs },
  );
  metrics.observeQueues(() => queues.counts());
  metrics.observePollStatus(() => detection.readStatus());
  metrics.observePollAge(() => progress.ageMs());

  const guard = new StateGuard({
    redis: ops,
    keys,
    observe: async () => {
      const [notifications, alerts, groups] = await Promise.all([
        queues.outstanding(),
        unqueuedAlerts(ops, keys),
        ops.zcard(keys.alertsDue),
      ]);
      metrics.outstandingSeen(notifications.count);
      return {
        notifications: notifications.count,
        notificationIds: notifications.ids,
        alerts,
        groups,
      };
    },
    onLoss: (loss) => reportStateLoss(log, keys.prefix, loss, metrics),
  });
  const clockStepped = (backMs: number) => {
    metrics.clockStepBack();
    log.warn(
      { backMs: Math.round(backMs) },
      `the wall clock went back ${seconds(backMs)} (an NTP step, a VM resume?): flightwatch keeps its own time and converges on the wall clock over ${seconds(2 * backMs)}${delivers ? "; notifications waiting to retry are moved earlier by as much" : ""}`,
    );
    if (delivers) {
      queues
        .shiftDelayed(backMs)
        .catch((err: unknown) => trouble.error(asError(err), "retry shift"));
    }
  };
  const checkStateSoon = () =>
    void guard.check().catch((err: unknown) => trouble.error(asError(err), "state check"));

  let pipeline: Pipeline | undefined;
  let watchTimer: NodeJS.Timeout | undefined;
  let server: OpsServer | undefined;
  let passengers: PassengerWeb | undefined;
  let apiRedis: RedisConnection | undefined;
  const readiness = async (): Promise<Readiness> => {
    const checks: Readiness["checks"] = {};
    try {
      // A command on the prefix's key, not PING: on a cluster it is the slot's master that
      // must answer, and PING goes to any node.
      await ops.exists(keys.detection);
      checks.redis = { ok: true, detail: `answers at ${keys.prefix}` };
    } catch (err) {
      checks.redis = { ok: false, detail: describeError(err) };
    }
    if (pipeline === undefined) checks.pipeline = { ok: false, detail: "starting" };
    if (polls && checks.redis.ok) {
      await progress.refresh();
      checks.poll = pollCheck(await detection.readStatus());
    }
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  };
  const pollCheck = (status: PollStatus) => {
    // The upstream refusing the credentials is not something time mends.
    if (status.failures > 0 && status.lastErrorCode === ErrorCode.UPSTREAM_AUTH) {
      return { ok: false, detail: `the upstream refuses the credentials: ${status.lastError}` };
    }
    const age = progress.ageMs();
    if (age === undefined) {
      const why = status.lastError ? `; last error: ${status.lastError}` : "";
      return { ok: false, detail: `no successful poll seen yet${why}` };
    }
    const detail = `last successful poll committed ${Math.round(age / 100) / 10} s ago`;
    if (age > READY_POLL_INTERVALS * intervalMs) {
      const why = status.lastError ? `; last error: ${status.lastError}` : "";
      return { ok: false, detail: `${detail} (more than ${READY_POLL_INTERVALS} intervals)${why}` };
    }
    return { ok: true, detail };
  };
  const liveness = async (): Promise<Liveness> => {
    const stuck = stages.stuck();
    if (stuck.length === 0) return { live: true, detail: "ok" };
    // A Redis out of reach is readiness's business: restarting would not bring it back.
    try {
      await ops.exists(keys.detection);
    } catch {
      return { live: true, detail: "Redis out of reach; waiting for it" };
    }
    return {
      live: false,
      detail: stuck
        .map(
          (s) =>
            `${s.stage} has failed for ${Math.round(s.forMs / 1000)} s while Redis answers (${s.failures} failures; last: ${s.lastError})`,
        )
        .join("; "),
    };
  };

  try {
    // With PUBLIC_URL: the passenger pages, and their links in subscriptions' emails
    // (reading or writing only the key that signs them).
    if (config.publicUrl !== undefined) {
      passengers = await startPassengerWeb({
        redis: ops,
        keys,
        context: { zone: config.zone, outbound: config.outbound },
        publicUrl: config.publicUrl,
        ...(config.subscriptionSecret !== undefined ? { secret: config.subscriptionSecret } : {}),
        ...(config.email ? { email: config.email } : {}),
        ...(config.subscriptionKeepMs !== undefined ? { keepMs: config.subscriptionKeepMs } : {}),
        now,
        trustProxy: config.trustProxy,
        tuning: { limits: config.subscribeLimits },
        onError: (err, what) => log.warn({ err }, what),
      });
    }
    // Passengers' emails without PUBLIC_URL have no unsubscribe link to carry.
    if (passengers === undefined && delivers && config.email !== undefined) {
      const subscribed = await ops.zcard(keys.subscriptionFlights);
      if (subscribed > 0) {
        log.warn(
          { flights: subscribed },
          "passenger subscriptions' emails will carry no unsubscribe link: set PUBLIC_URL to the address passengers reach flightwatch at (the passenger pages serve one-click unsubscribe)",
        );
      }
    }
    // The port first: a port in use (or a bad HTTP_HOST) must fail the start before
    // anything is polled or written.
    if (config.http) {
      // The API's own connection: a burst of creates never queues behind, or ahead of,
      // the probes' and the pipeline's commands; concurrent requests' commands share
      // writes to the socket.
      apiRedis = await connectRedis(config.redis.url, { autoPipelining: true });
      server = await startOpsServer({
        port: config.http.port,
        host: config.http.host,
        metrics,
        readiness,
        liveness,
        ...(config.metricsToken !== undefined ? { metricsToken: config.metricsToken } : {}),
        ...(config.dashboard && config.dashboardToken !== undefined
          ? { dashboard: { queues: queues.all(), token: config.dashboardToken } }
          : {}),
        ...(passengers ? { pages: passengers.pages } : {}),
        api: subscriptionsApi({
          redis: apiRedis,
          keys,
          context: { zone: config.zone, outbound: config.outbound },
          ...(config.subscriptionKeepMs !== undefined ? { keepMs: config.subscriptionKeepMs } : {}),
          now,
          onError: (err) => trouble.error(asError(err), "an API request failed"),
        }),
      });
    }
    const observer = daemonObserver({
      log,
      metrics,
      stages,
      progress,
      trouble,
      malformed,
      ...(options.quietAlerts ? { quietAlerts: true } : {}),
      checkState: checkStateSoon,
    });
    pipeline = await startPipeline({
      role,
      ...(options.without ? { without: options.without } : {}),
      ...(options.groups ? { groups: options.groups } : {}),
      client: options.client,
      redis: config.redis,
      detector: config.detector,
      zone: config.zone,
      rules: options.rules,
      outbound: config.outbound,
      ...(config.subscriptionKeepMs !== undefined
        ? { subscriptionKeepMs: config.subscriptionKeepMs }
        : {}),
      ...(passengers ? { unsubscribeUrl: passengers.unsubscribeUrl } : {}),
      senders: options.senders,
      ...(config.stallTimeoutMs !== undefined ? { stallTimeoutMs: config.stallTimeoutMs } : {}),
      consumer: options.consumer ?? hostname(),
      now,
      observer: options.observer ? observeAll(observer, options.observer) : observer,
      fresh: Boolean(options.fresh),
    });
    // After the start (which clears the prefix of a fresh demo airport).
    await guard.start();
    // What Redis holds is looked at regularly: a loss is noticed (and named) within
    // seconds even when no stage trips over it, and progress seen by the other pollers
    // is timed on this process's monotonic clock.
    watchTimer = setInterval(
      () => {
        now(); // a step of the wall clock is noticed even in a process with nothing to time
        checkStateSoon();
        if (polls) progress.refresh().catch(() => undefined);
      },
      Math.min(intervalMs, STATE_CHECK_MS),
    );
    watchTimer.unref();
  } catch (err) {
    clearInterval(watchTimer);
    await pipeline?.stop().catch(() => undefined);
    await server?.close().catch(() => undefined);
    passengers?.close();
    apiRedis?.disconnect();
    await queues.close().catch(() => undefined);
    ops.disconnect();
    throw err;
  }
  const running = pipeline;
  let stopping: Promise<{ clean: boolean }> | undefined;
  return {
    ...(server ? { url: server.url } : {}),
    metrics,
    done: running.done,
    readiness,
    stop() {
      stopping ??= (async () => {
        clearInterval(watchTimer);
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
        // Bounded too: a queue's close waits on Redis, which may be the very trouble.
        await Promise.race([
          queues.close().catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, CLOSE_QUEUES_MS).unref()),
        ]);
        ops.disconnect();
        await server?.close();
        passengers?.close();
        apiRedis?.disconnect();
        return { clean: result === "stopped" };
      })();
      return stopping;
    },
  };
}

/** The longest wait for the queues to close once the pipeline has stopped (or given up). */
const CLOSE_QUEUES_MS = 2_000;

/** How often what Redis holds is looked at (data loss, progress of other pollers), at most. */
const STATE_CHECK_MS = 5_000;

/** Decided alerts the notifiers have not taken yet, or hold unacknowledged. */
async function unqueuedAlerts(redis: RedisConnection, keys: RedisKeys): Promise<number> {
  if ((await redis.exists(keys.alerts)) === 0) return 0;
  const groups = (await redis.call("XINFO", "GROUPS", keys.alerts)) as unknown[][];
  let most = 0;
  for (const group of groups) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < group.length; i += 2) fields.set(String(group[i]), group[i + 1]);
    const waiting = Number(fields.get("pending") ?? 0) + Number(fields.get("lag") ?? 0);
    if (Number.isFinite(waiting)) most = Math.max(most, waiting);
  }
  return most;
}

/** Says once, clearly, that Redis lost flightwatch's data, and what went with it. */
function reportStateLoss(
  log: Logger,
  prefix: string,
  loss: StateLoss,
  metrics: FlightwatchMetrics,
): void {
  const what = `Redis lost flightwatch's state (the keys under ${prefix} are gone: a restart without persistence, FLUSHALL, a failover to an empty replica, or deleted keys); re-baselining: changes until the next poll are taken in silently, later ones are reported`;
  if (!loss.recreated) {
    metrics.stateLoss();
    log.warn({ prefix }, `${what} (another process noticed first and reports what was lost)`);
    return;
  }
  const o = loss.outstanding;
  metrics.stateLoss(o?.notifications ?? 0);
  if (!o) {
    log.error({ prefix }, `${what}; what it held was not looked at before (unknown losses)`);
    return;
  }
  const ids = o.notificationIds.slice(0, LOST_IDS_LOGGED);
  const more = o.notifications - ids.length;
  const lost =
    o.notifications + o.alerts + o.groups === 0
      ? "nothing was waiting to be sent"
      : `lost with it: ${o.notifications} notification(s) queued or retrying${
          ids.length > 0 ? ` (${ids.join(", ")}${more > 0 ? `, and ${more} more` : ""})` : ""
        }, ${o.alerts} decided alert(s) not yet queued, ${o.groups} group(s) waiting for their time`;
  log.error(
    {
      prefix,
      lostNotifications: o.notifications,
      lostNotificationIds: ids,
      lostAlerts: o.alerts,
      lostGroups: o.groups,
      observedAgoMs: loss.observedAgoMs,
    },
    `${what}; ${lost} (as of ${Math.round((loss.observedAgoMs ?? 0) / 100) / 10} s before it was noticed)`,
  );
}

/** Most notification ids named in the log line of a loss. */
const LOST_IDS_LOGGED = 50;

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
