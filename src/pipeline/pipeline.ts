/**
 * The composition root: the whole pipeline, read top to bottom in data-flow order.
 *
 *   poll      the upstream → diff against the snapshots → the outbox      (detect/, diff/, store/)
 *   changes   the outbox → `observer.changed`                             (watch: detect-only)
 *   dispatch  the outbox × the rules → decided alerts on the alerts stream (dispatch/, rules/)
 *   alerts    the alerts stream → `observer.alerted`                      (watch --rules --no-deliver)
 *   notify    the alerts stream → one queued notification per channel     (deliver/)
 *   deliver   the queues → the senders: Slack, email, webhooks, console   (deliver/)
 *
 * A role picks the stages a process runs; processes sharing one Redis and prefix share
 * the work (the poll is taken in turns, consumer groups and BullMQ share the items).
 * Each stage is built from its units and reports to one PipelineObserver; nothing
 * below this file knows which role it runs in.
 */
import { randomUUID } from "node:crypto";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { FlightApiClient } from "../api/flight-api-client.js";
import { crashPoint } from "../crash-point.js";
import type { ChannelSender } from "../deliver/channel-sender.js";
import { DeliveryLog } from "../deliver/delivery-log.js";
import { DeliveryQueues } from "../deliver/delivery-queues.js";
import { DeliveryWorkers } from "../deliver/delivery-worker.js";
import type { ChannelType } from "../deliver/notification.js";
import { AlertConsumer, NOTIFY_GROUP, Notifier } from "../deliver/notifier.js";
import { Detector, type DetectorSettings } from "../detect/detector.js";
import { PollLoop } from "../detect/poll-loop.js";
import { type AlertState, nextDue } from "../dispatch/alert-state.js";
import { DISPATCH_GROUP, Dispatcher } from "../dispatch/dispatcher.js";
import type { OutboundPolicy } from "../outbound/outbound-policy.js";
import type { RuleSet } from "../rules/match/rule-matcher.js";
import { AlertStore } from "../store/alert-store.js";
import { DetectionStore } from "../store/detection-store.js";
import { OutboxConsumer } from "../store/outbox-consumer.js";
import type { RedisConnection } from "../store/redis-connection.js";
import { connectRedis, deleteByPattern } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import type { StreamConsumer } from "../store/stream-consumer.js";
import type { Subscription } from "../subscriptions/subscription.js";
import { SubscriptionRules } from "../subscriptions/subscription-rules.js";
import { SubscriptionStore } from "../subscriptions/subscription-store.js";
import { observeAll, type PipelineObserver, type StageName } from "./observer.js";

/** What a process runs. */
export type PipelineRole = "all" | "poller" | "worker" | "detect" | "decide";

/** The stages of each role, in data-flow order. */
export const ROLE_STAGES: Readonly<Record<PipelineRole, readonly StageName[]>> = {
  /** Everything, in one process. */
  all: ["poll", "dispatch", "notify", "deliver"],
  /** Everything up to the queues. */
  poller: ["poll", "dispatch", "notify"],
  /** Delivery only. */
  worker: ["deliver"],
  /** Change detection alone (`watch`): change events to the observer. */
  detect: ["poll", "changes"],
  /** Detection and alert decisions (`watch --rules --no-deliver`): alerts to the observer. */
  decide: ["poll", "dispatch", "alerts"],
};

/** The stages a process runs: its role's, but for those it leaves to other processes. */
export function stagesOf(
  role: PipelineRole,
  without: readonly StageName[] = [],
): ReadonlySet<StageName> {
  return new Set(ROLE_STAGES[role].filter((stage) => !without.includes(stage)));
}

/** Names of the consumer groups the stages read in. */
export interface PipelineGroups {
  /** `changes` and `alerts`: watchers in one group share the items (default `watch`). */
  print?: string;
  /** `dispatch` on the outbox (default `dispatch`). */
  dispatch?: string;
  /** `notify` on the alerts stream (default `notify`). */
  notify?: string;
}

/** What the pipeline is built from: validated settings, the live rules, the senders. */
export interface PipelineOptions {
  role: PipelineRole;
  /** Stages of the role left to other processes (`watch --no-poll`). */
  without?: readonly StageName[];
  /** The upstream (needed by `poll`). */
  client: FlightApiClientOptions;
  redis: { url: string; prefix: string; deliveryShards?: number };
  detector: DetectorSettings;
  /** Airport time zone (message texts). */
  zone: string;
  /** The live rule set (read for every item, so a reload applies at once). */
  rules: () => RuleSet;
  /** Internal destinations subscriptions' webhooks may reach (OUTBOUND_ALLOW); none when absent. */
  outbound?: OutboundPolicy;
  /** How long subscriptions are kept after their flight's date (SUBSCRIPTION_RETENTION). */
  subscriptionKeepMs?: number;
  /** The one-click unsubscribe link of a subscription's emails (the passenger pages'). */
  unsubscribeUrl?: (subscription: Subscription) => string;
  /** The senders `deliver` uses, or a builder given a plain connection (Slack's pacing). */
  senders?:
    | Partial<Record<ChannelType, ChannelSender>>
    | ((redis: RedisConnection) => Partial<Record<ChannelType, ChannelSender>>);
  /** How long a worker's lock on a job lasts without renewal (DELIVERY_STALL_TIMEOUT). */
  stallTimeoutMs?: number;
  /** This process's consumer name, stable across restarts. */
  consumer: string;
  groups?: PipelineGroups;
  /** The airport clock (the simulator's when it is embedded). */
  now: () => number;
  observer: PipelineObserver;
  /**
   * Delete every key of the prefix first: for a simulated airport that is new at every
   * start, whose old snapshots would only produce spurious changes.
   */
  fresh?: boolean;
}

/** A running pipeline. */
export interface Pipeline {
  /** The delivery queues and log, when this process notifies or delivers. */
  readonly queues?: DeliveryQueues;
  readonly deliveryLog?: DeliveryLog;
  /** Resolves when the stages end: after `stop`. */
  readonly done: Promise<void>;
  /** Stops polling and consuming (in-flight sends finish), closes every connection. */
  stop(): Promise<void>;
}

/** A stage's step, run in a loop until the stop. */
type Step = () => Promise<void>;

/** Wait after a failed step before the next one. */
const RETRY_STEP_MS = 500;
/** Longest wait for new stream entries per step. */
const BLOCK_MS = 250;
/**
 * Most entries the dispatcher and the notifier take per read (and the dispatcher
 * decides per transaction): a burst of thousands of changes goes through in a few
 * round trips each, while a read of a quiet stream returns at once with what there is.
 */
const BATCH = 500;

/** Builds the stages of `options.role` and starts them. Rejects when Redis is not there. */
export async function startPipeline(options: PipelineOptions): Promise<Pipeline> {
  const stages = stagesOf(options.role, options.without);
  const observer = observeAll(options.observer);
  const keys = redisKeys(options.redis.prefix, options.redis.deliveryShards);
  const { consumer, now } = options;
  const groups = options.groups ?? {};
  const closers: Array<() => unknown> = [];
  const connect = async (forBullmq = false) => {
    // BullMQ's kind (the delivery workers') auto-pipelines: the commands that many jobs in
    // flight issue in one turn of the event loop go out as one write, instead of a system
    // call each (in the wire-speed benchmark: 0.6 → 0.35 round trips a notification, about
    // 9 % less Redis CPU).
    const redis = await connectRedis(options.redis.url, { forBullmq, autoPipelining: forBullmq });
    closers.push(() => redis.disconnect());
    return redis;
  };
  const recreated = { onGroupRecreated: observer.groupRecreated };
  const steps: Array<[StageName, Step]> = [];
  let startPoll: (() => PollLoop) | undefined;
  let detection: DetectionStore | undefined;
  let queues: DeliveryQueues | undefined;
  let deliveryLog: DeliveryLog | undefined;
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) {
      await Promise.resolve(closer()).catch(() => undefined);
    }
  };
  try {
    // Plain commands (the queues, Slack's pacing); each consumer below blocks on a
    // connection of its own, so that no command waits behind a blocking read.
    const plain = await connect();
    if (options.fresh) await deleteByPattern(plain, keys.pattern);
    // Passenger subscriptions: rules kept as data, looked up by the stages that match,
    // notify and deliver.
    const subscriptions = new SubscriptionRules(
      new SubscriptionStore(plain, keys, {
        zone: options.zone,
        ...(options.subscriptionKeepMs !== undefined ? { keepMs: options.subscriptionKeepMs } : {}),
      }),
      {
        zone: options.zone,
        ...(options.outbound ? { outbound: options.outbound } : {}),
        ...(options.unsubscribeUrl ? { unsubscribeUrl: options.unsubscribeUrl } : {}),
      },
    );

    // poll: the upstream → diff against the snapshots → the outbox.
    if (stages.has("poll")) {
      const client = new FlightApiClient({
        ...options.client,
        onExchange: observer.exchanged,
        onMalformed: observer.malformed,
      });
      closers.push(() => client.close());
      detection = new DetectionStore(await connect(), keys);
      const detector = new Detector({
        client,
        store: detection,
        settings: options.detector,
        now,
        name: `${consumer}:${process.pid}`,
      });
      const redis = await connect();
      startPoll = () =>
        PollLoop.start({
          redis,
          keys,
          detector,
          // Names the process holding the turn or the lease (ops, the take-over benchmark).
          token: `${consumer}:${process.pid}:${randomUUID().slice(0, 8)}`,
          intervalMs: options.detector.intervalMs,
          onPoll: observer.polled,
          onError: (err) => observer.failed(err, "pipeline error"),
        });
    }

    // changes: the outbox → the observer (detect-only).
    if (stages.has("changes")) {
      const outbox = new OutboxConsumer({
        redis: await connect(),
        keys,
        group: groups.print ?? "watch",
        consumer,
        ...recreated,
      });
      await outbox.ensureGroup();
      steps.push([
        "changes",
        () =>
          handEach(outbox, async (events) => {
            for (const event of events) await observer.changed(event);
          }),
      ]);
    }

    // dispatch: the outbox × the rules → decided alerts on the alerts stream.
    if (stages.has("dispatch")) {
      const outbox = new OutboxConsumer({
        redis: await connect(),
        keys,
        group: groups.dispatch ?? DISPATCH_GROUP,
        consumer,
        blockMs: BLOCK_MS,
        count: BATCH,
        ...recreated,
      });
      await outbox.ensureGroup();
      const dispatcher = new Dispatcher({
        consumer: outbox,
        store: new AlertStore<AlertState>(await connect(), keys, {
          stateTtlMs: options.detector.snapshotTtlMs,
          alertRetentionMs: options.detector.outboxRetentionMs,
          now,
          dueOf: nextDue,
        }),
        rules: options.rules,
        subscriptions,
        now,
        // A process that polls catches up after downtime before groups close.
        ...(detection ? { detection } : {}),
        // Reminders of flights that do not change again are scheduled from their snapshots.
        snapshots: new DetectionStore(plain, keys),
        zone: options.zone,
      });
      steps.push([
        "dispatch",
        async () => {
          const alerts = await dispatcher.step();
          if (alerts.length > 0) observer.decided(alerts);
        },
      ]);
    }

    // alerts: the alerts stream → the observer (decided, not delivered).
    if (stages.has("alerts")) {
      const alerts = new AlertConsumer({
        redis: await connect(),
        keys,
        group: groups.print ?? "watch",
        consumer,
        ...recreated,
      });
      await alerts.ensureGroup();
      steps.push(["alerts", () => handEach(alerts, (alert) => observer.alerted(alert))]);
    }

    if (stages.has("notify") || stages.has("deliver")) {
      const q = new DeliveryQueues(plain, keys);
      closers.push(() => q.close());
      queues = q;
    }

    // notify: the alerts stream → one queued notification per channel of the alert's rule.
    if (stages.has("notify") && queues) {
      const alerts = new AlertConsumer({
        redis: await connect(),
        keys,
        group: groups.notify ?? NOTIFY_GROUP,
        consumer,
        blockMs: BLOCK_MS,
        count: BATCH,
        ...recreated,
      });
      // A new group starts at the stream's end (an upgrade must not send a week of old
      // alerts); it exists before the dispatcher's first step, so nothing is missed.
      await alerts.ensureGroup();
      const notifier = new Notifier({
        consumer: alerts,
        queues,
        rules: options.rules,
        subscriptions,
        onDropped: observer.dropped,
      });
      steps.push([
        "notify",
        async () => {
          await notifier.step();
        },
      ]);
    }

    // deliver: the queues → the senders; retries, dead letters, the delivery log.
    if (stages.has("deliver") && queues) {
      const senderSet =
        typeof options.senders === "function" ? options.senders(plain) : (options.senders ?? {});
      // One sender may serve several types (the console in a dry run): closed once.
      closers.push(() => Promise.all([...new Set(Object.values(senderSet))].map((s) => s.close())));
      // The workers' records go through BullMQ's kind of connection, which waits while
      // Redis is away instead of failing after three tries: a record that failed after a
      // webhook was delivered would turn the delivery into a retry and send it twice.
      const connection = await connect(true);
      // The order and the log on one of the same kind that BullMQ defines no scripts on
      // (see DeliveryWorkersOptions.orderConnection): 2 % of a worker's CPU in the
      // wire-speed benchmark went to copying them into each auto-pipeline.
      const orderConnection = await connect(true);
      deliveryLog = new DeliveryLog(orderConnection, keys);
      const workers = new DeliveryWorkers({
        connection,
        orderConnection,
        keys,
        senders: senderSet,
        rules: options.rules,
        subscriptions,
        zone: options.zone,
        log: deliveryLog,
        ...(options.stallTimeoutMs !== undefined ? { stallTimeoutMs: options.stallTimeoutMs } : {}),
        onRecord: (record) => {
          observer.stepped("deliver");
          observer.delivered(record);
        },
        onAbandoned: observer.abandoned,
        onError: (err) => {
          observer.stepped("deliver", err);
          observer.failed(err, "delivery worker error");
        },
      });
      closers.push(() => workers.close());
      await workers.ready();
    }
  } catch (err) {
    await close();
    throw err;
  }

  // Every group exists now: the loops start, the poll last.
  let stopping = false;
  const loops = steps.map(([stage, step]) => runLoop(stage, step, observer, () => stopping));
  const poll = startPoll?.();
  // A process with no consume loop (a delivery worker) is done only when stopped.
  let stopped: (() => void) | undefined;
  if (loops.length === 0) loops.push(new Promise<void>((resolve) => (stopped = resolve)));
  const done = Promise.all(loops).then(() => undefined);
  return {
    ...(queues ? { queues } : {}),
    ...(deliveryLog ? { deliveryLog } : {}),
    done,
    async stop() {
      stopping = true;
      stopped?.();
      await poll?.close();
      await done.catch(() => undefined);
      await close();
    },
  };
}

/** Runs `step` until the stop; a failed step is reported and tried again shortly. */
async function runLoop(
  stage: StageName,
  step: Step,
  observer: Required<PipelineObserver>,
  stopping: () => boolean,
): Promise<void> {
  while (!stopping()) {
    try {
      await step();
      observer.stepped(stage);
    } catch (err) {
      if (stopping()) break;
      const error = err instanceof Error ? err : new Error(String(err));
      observer.stepped(stage, error);
      observer.failed(error, "pipeline error");
      await new Promise((resolve) => setTimeout(resolve, RETRY_STEP_MS));
    }
  }
}

/**
 * Reads one batch and hands each entry on, acknowledging it afterwards; on a failure
 * the consumer rewinds, so the entries left over come again before newer ones.
 */
async function handEach<T>(
  consumer: StreamConsumer<T>,
  hand: (value: T) => void | Promise<void>,
): Promise<void> {
  try {
    for (const entry of await consumer.read()) {
      await hand(entry.value);
      crashPoint("watch.after-print");
      await consumer.ack([entry.entryId]);
    }
  } catch (err) {
    consumer.rewind();
    throw err;
  }
}
