/**
 * Detection, and optionally dispatch, as `flightwatch watch` runs it: the poll
 * scheduler and worker, plus either a consumer of the outbox that hands each change
 * event to `onEvent`, or — with `rules` — the dispatcher (rules → alerts) and a
 * consumer of the alerts stream that hands each alert to `onAlert`, and — with
 * `delivery` — the delivery stage (alerts → queued notifications → channels). Items are
 * acknowledged after their handler resolves. Any number of watchers may share one
 * Redis: the polls are shared (one per tick), and watchers in one consumer group
 * share the items; watchers in different groups each get every item.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { FlightApiClient } from "../api/flight-api-client.js";
import { crashPoint } from "../crash-point.js";
import {
  type DeliveryStage,
  type DeliveryStageOptions,
  startDeliveryStage,
} from "../deliver/delivery-stage.js";
import { AlertConsumer } from "../deliver/notifier.js";
import type { ChangeEvent } from "../diff/change.js";
import type { Alert } from "../dispatch/alert.js";
import { DISPATCH_GROUP, Dispatcher } from "../dispatch/dispatcher.js";
import type { RuleSet } from "../rules/rule-matcher.js";
import { AlertStore } from "../store/alert-store.js";
import { DetectionStore } from "../store/detection-store.js";
import { OutboxConsumer } from "../store/outbox-consumer.js";
import { connectRedis, deleteByPattern } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import type { StreamConsumer } from "../store/stream-consumer.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import type { RedisSettings } from "./detect-config.js";
import { Detector, type DetectorSettings, type PollReport } from "./detector.js";
import { PollLoop } from "./poll-loop.js";

/** What `startWatch` runs: upstream, Redis, settings, consumers and handlers. */
export interface WatchOptions {
  client: FlightApiClientOptions;
  redis: RedisSettings;
  settings: DetectorSettings;
  /** Consumer group of the outbox (default `watch`). */
  group?: string;
  /** Consumer name (default the host name). */
  consumer?: string;
  /** Airport clock (default Date.now; the simulator's clock when it is embedded). */
  now?: () => number;
  /** Receives each change event (without `rules`); acknowledged once this resolves. */
  onEvent?: (event: ChangeEvent) => void | Promise<void>;
  /** Match the changes against rules and hand each decided alert to `onAlert`. */
  rules?: {
    /** The live rule set (read for every outbox entry, so reloads apply at once). */
    current: () => RuleSet;
    /** Receives each alert; acknowledged once this resolves. */
    onAlert?: (alert: Alert) => void | Promise<void>;
    /** Dispatcher's consumer group on the outbox (default `dispatch`). */
    group?: string;
    /** Run no dispatcher in this process (a delivery-only worker). */
    noDispatch?: boolean;
    /** Told of the alerts each dispatcher step committed (metrics, the demo view). */
    onDecided?: (alerts: readonly Alert[]) => void;
  };
  /**
   * Deliver the alerts through their rules' channels (needs `rules`): the notifier
   * and the workers of the channel types that have a sender.
   */
  delivery?: Pick<DeliveryStageOptions, "senders" | "group" | "workers" | "onDropped" | "notify">;
  onPoll?: (report: PollReport) => void;
  onError?: (err: Error) => void;
  /**
   * Hears how each stage's steps go (`dispatch`, `notify`, `alerts`, `outbox`; `poll` is
   * told through `onPoll`): `err` when a step failed, none when one went through.
   */
  onStep?: (stage: string, err?: Error) => void;
  /** Hears that a consumer group was missing and was created again (Redis lost its data?). */
  onGroupRecreated?: (stream: string, group: string) => void;
  /** Run no poller in this process, only consume (default false). */
  noPoll?: boolean;
  /**
   * Delete every key of the prefix before starting (default false): for a simulated
   * airport that is new at every start, whose old snapshots would only produce
   * spurious changes.
   */
  fresh?: boolean;
}

/** A running watcher. */
export interface Watcher {
  /** Stops polling and consuming, closes connections; resolves when all is closed. */
  stop(): Promise<void>;
  /** Resolves when the consume loop ends (after `stop`, or on a fatal error). */
  readonly done: Promise<void>;
}

/**
 * Reads one batch and hands each entry to `handle`, acknowledging it afterwards; on a
 * failure the consumer rewinds, so the entries left over come again before newer ones.
 */
async function handleEach<T>(
  consumer: StreamConsumer<T>,
  handle: (value: T) => void | Promise<void>,
): Promise<void> {
  try {
    for (const entry of await consumer.read()) {
      await handle(entry.value);
      crashPoint("watch.after-print");
      await consumer.ack([entry.entryId]);
    }
  } catch (err) {
    consumer.rewind();
    throw err;
  }
}

/** Starts watching. Rejects (with FW_ERR_REDIS_UNAVAILABLE) when Redis is not there. */
export async function startWatch(options: WatchOptions): Promise<Watcher> {
  const keys = redisKeys(options.redis.prefix);
  const connections: Redis[] = [];
  const connect = async (forBullmq = false) => {
    const redis = await connectRedis(options.redis.url, { forBullmq });
    connections.push(redis);
    return redis;
  };
  // A process that does not poll (a delivery worker) has no upstream, maybe not even a URL.
  const client = options.noPoll ? undefined : new FlightApiClient(options.client);
  let scheduler: PollLoop | undefined;
  let delivery: DeliveryStage | undefined;
  const close = async () => {
    await delivery?.close().catch(() => undefined);
    for (const redis of connections) redis.disconnect();
    await client?.close();
  };
  try {
    const consumerRedis = await connect();
    if (options.fresh) await deleteByPattern(consumerRedis, `${keys.prefix}:*`);
    const consumerName = options.consumer ?? hostname();
    const group = options.group ?? "watch";
    const now = options.now ?? Date.now;
    let stopping = false;
    const loops: Array<Promise<void>> = [];
    const loop = (stage: string, step: () => Promise<void>) =>
      loops.push(
        (async () => {
          while (!stopping) {
            try {
              await step();
              options.onStep?.(stage);
            } catch (err) {
              if (stopping) break;
              const error = err instanceof Error ? err : new Error(String(err));
              options.onStep?.(stage, error);
              options.onError?.(error);
              await new Promise((resolve) => setTimeout(resolve, 500));
            }
          }
        })(),
      );
    const onGroupRecreated = options.onGroupRecreated;
    const recreated = onGroupRecreated ? { onGroupRecreated } : {};
    // Every group exists before the first poll, so nothing is committed unseen.
    if (options.rules) {
      const { rules } = options;
      const outbox = rules.noDispatch
        ? undefined
        : new OutboxConsumer({
            redis: consumerRedis,
            keys,
            group: rules.group ?? DISPATCH_GROUP,
            consumer: consumerName,
            blockMs: 250,
            ...recreated,
          });
      await outbox?.ensureGroup();
      if (rules.onAlert) {
        const onAlert = rules.onAlert;
        const alerts = new AlertConsumer({
          redis: await connect(),
          keys,
          group,
          consumer: consumerName,
          ...recreated,
        });
        await alerts.ensureGroup();
        loop("alerts", () => handleEach(alerts, (alert) => onAlert(alert)));
      }
      if (options.delivery) {
        const stage = await startDeliveryStage({
          ...options.delivery,
          connect,
          keys,
          rules: rules.current,
          zone: options.client.airportTimezone ?? DEFAULT_AIRPORT_TIMEZONE,
          consumer: consumerName,
          ...recreated,
        });
        delivery = stage;
        const { notifier } = stage;
        if (notifier) {
          loop("notify", async () => {
            await notifier.step();
          });
        }
      }
      if (outbox) {
        const dispatcher = new Dispatcher({
          consumer: outbox,
          store: new AlertStore(await connect(), keys, {
            stateTtlMs: options.settings.snapshotTtlMs,
            alertRetentionMs: options.settings.outboxRetentionMs,
          }),
          rules: rules.current,
          now,
          // A process that polls catches up after downtime before groups close.
          ...(client ? { detection: new DetectionStore(await connect(), keys) } : {}),
        });
        loop("dispatch", async () => {
          const alerts = await dispatcher.step();
          if (alerts.length > 0) rules.onDecided?.(alerts);
        });
      }
    } else {
      const onEvent = options.onEvent ?? (() => undefined);
      const consumer = new OutboxConsumer({
        redis: consumerRedis,
        keys,
        group,
        consumer: consumerName,
        ...recreated,
      });
      await consumer.ensureGroup();
      loop("outbox", () =>
        handleEach(consumer, async (events) => {
          for (const event of events) await onEvent(event);
        }),
      );
    }
    if (client) {
      const detector = new Detector({
        client,
        store: new DetectionStore(await connect(), keys),
        settings: options.settings,
        ...(options.now ? { now: options.now } : {}),
        name: `${consumerName}:${process.pid}`,
      });
      scheduler = PollLoop.start({
        redis: await connect(),
        keys,
        detector,
        // Names the process holding the turn or the lease (ops, the take-over benchmark).
        token: `${consumerName}:${process.pid}:${randomUUID().slice(0, 8)}`,
        intervalMs: options.settings.intervalMs,
        ...(options.onPoll ? { onPoll: options.onPoll } : {}),
        ...(options.onError ? { onError: options.onError } : {}),
      });
    }
    // A process with no consume loop (a delivery worker) is still done only when stopped.
    let stopped: (() => void) | undefined;
    if (loops.length === 0) loops.push(new Promise<void>((resolve) => (stopped = resolve)));
    const done = Promise.all(loops).then(() => undefined);
    return {
      done,
      async stop() {
        stopping = true;
        stopped?.();
        await scheduler?.close();
        await done.catch(() => undefined);
        await close();
      },
    };
  } catch (err) {
    await scheduler?.close().catch(() => undefined);
    await close();
    throw err;
  }
}
