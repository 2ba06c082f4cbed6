/**
 * The delivery stage as one unit: the notifier (alerts → queued notifications) and
 * the workers (queued notifications → senders), with the queues and the delivery
 * log they share. The caller runs `notifier.step()` in its loop and closes the stage
 * when it stops.
 */
import type { Redis } from "ioredis";
import type { RuleSet } from "../rules/rule-matcher.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { ChannelSender } from "./channel-sender.js";
import { DeliveryLog } from "./delivery-log.js";
import { DeliveryQueues } from "./delivery-queues.js";
import { DeliveryWorkers, type DeliveryWorkersOptions } from "./delivery-worker.js";
import type { ChannelType } from "./notification.js";
import { AlertConsumer, NOTIFY_GROUP, Notifier, type NotifierOptions } from "./notifier.js";

/** What the delivery stage needs. */
export interface DeliveryStageOptions {
  /** Opens a connection of its own (`forBullmq` for the workers). */
  connect: (forBullmq?: boolean) => Promise<Redis>;
  keys: RedisKeys;
  rules: () => RuleSet;
  zone: string;
  /**
   * Senders of the channel types this process delivers (none = enqueue only), or a
   * builder given the stage's plain connection (for the Slack pacing).
   */
  senders:
    | Partial<Record<ChannelType, ChannelSender>>
    | ((redis: Redis) => Partial<Record<ChannelType, ChannelSender>>);
  /** Consumer group on the alerts stream (default `notify`) and this process's consumer name. */
  group?: string;
  consumer: string;
  /** Longest wait for new alerts per notifier step (default 250 ms). */
  blockMs?: number;
  /** Worker tuning and hooks. */
  workers?: Partial<
    Omit<DeliveryWorkersOptions, "connection" | "keys" | "senders" | "rules" | "zone" | "log">
  >;
  onDropped?: NotifierOptions["onDropped"];
  /** Run the notifier (alerts → queued notifications) here (default true). */
  notify?: boolean;
  /** Hears that the notifier's consumer group was missing and was created again. */
  onGroupRecreated?: (stream: string, group: string) => void;
}

/** A running delivery stage. */
export interface DeliveryStage {
  /** Absent when the stage only delivers (`notify: false`). */
  notifier?: Notifier;
  queues: DeliveryQueues;
  log: DeliveryLog;
  workers: DeliveryWorkers;
  /** Stops the workers (in-flight sends finish), closes queues and senders. */
  close(): Promise<void>;
}

/** Builds and starts the delivery stage. */
export async function startDeliveryStage(options: DeliveryStageOptions): Promise<DeliveryStage> {
  const { keys } = options;
  const plain = await options.connect();
  const senders = typeof options.senders === "function" ? options.senders(plain) : options.senders;
  const queues = new DeliveryQueues(plain, keys);
  // The workers' records go through BullMQ's kind of connection, which waits while
  // Redis is away instead of failing after three tries: a record that failed after a
  // webhook was delivered would turn the delivery into a retry and send it twice.
  const connection = await options.connect(true);
  const log = new DeliveryLog(connection, keys);
  let notifier: Notifier | undefined;
  if (options.notify !== false) {
    const consumer = new AlertConsumer({
      redis: await options.connect(),
      keys,
      group: options.group ?? NOTIFY_GROUP,
      consumer: options.consumer,
      blockMs: options.blockMs ?? 250,
      ...(options.onGroupRecreated ? { onGroupRecreated: options.onGroupRecreated } : {}),
    });
    // A new group starts at the stream's end: an upgrade must not send a week of old
    // alerts. The caller starts this stage before the dispatcher, so nothing is missed.
    await consumer.ensureGroup();
    notifier = new Notifier({
      consumer,
      queues,
      rules: options.rules,
      ...(options.onDropped ? { onDropped: options.onDropped } : {}),
    });
  }
  const workers = new DeliveryWorkers({
    ...options.workers,
    connection,
    keys,
    senders,
    rules: options.rules,
    zone: options.zone,
    log,
  });
  await workers.ready();
  return {
    ...(notifier ? { notifier } : {}),
    queues,
    log,
    workers,
    async close() {
      await workers.close();
      await queues.close();
      // One sender may serve several types (the console in a dry run): close it once.
      await Promise.all([...new Set(Object.values(senders))].map((s) => s.close()));
    },
  };
}
