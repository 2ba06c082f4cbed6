/**
 * The notify stage: reads decided alerts from the alerts stream (its own consumer
 * group) and enqueues one notification per channel of the alert's rule, then
 * acknowledges the entry. Enqueueing is idempotent (the job id is the notification
 * id), so a crash between enqueue and acknowledgement enqueues nothing twice.
 */

import { crashPoint } from "../crash-point.js";
import type { Alert } from "../dispatch/alert.js";
import type { RuleSet } from "../rules/match/rule-matcher.js";
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from "../rules/retry-schedule.js";
import type { ChannelSpec } from "../rules/rule.js";
import { alertOfFields } from "../store/alert-store.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { StreamConsumer, type StreamConsumerOptions } from "../store/stream-consumer.js";
import { lookupRule, type SubscriptionRules } from "../subscriptions/subscription-rules.js";
import type { DeliveryJob, DeliveryQueues } from "./delivery-queues.js";
import { destinationOf } from "./endpoint.js";
import { notificationOf } from "./notification.js";

/** Default consumer group of the notifier on the alerts stream. */
export const NOTIFY_GROUP = "notify";

/** A reader of one consumer group of the alerts stream. */
export class AlertConsumer extends StreamConsumer<Alert> {
  constructor(
    options: Omit<StreamConsumerOptions<Alert>, "stream" | "decode"> & {
      keys: RedisKeys;
      redis: RedisConnection;
    },
  ) {
    const { keys, ...rest } = options;
    super({ ...rest, stream: keys.alerts, decode: alertOfFields });
  }
}

/** What the notifier works with. */
export interface NotifierOptions {
  consumer: AlertConsumer;
  queues: DeliveryQueues;
  /** The live rule set: an alert goes to the channels its rule has now. */
  rules: () => RuleSet;
  /** Passenger subscriptions: the rules of their alerts (none when absent). */
  subscriptions?: SubscriptionRules;
  /** An alert whose rule is gone (removed by a reload) is dropped; this hears of it. */
  onDropped?: (alert: Alert) => void;
}

/** Turns alerts into queued notifications, one batch at a time. */
export class Notifier {
  readonly #options: NotifierOptions;

  constructor(options: NotifierOptions) {
    this.#options = options;
  }

  /** One round: read waiting alerts (blocking up to the consumer's `blockMs`), enqueue, acknowledge. Resolves to the jobs enqueued. */
  async step(): Promise<DeliveryJob[]> {
    const { consumer, queues } = this.#options;
    const entries = await consumer.read();
    if (entries.length === 0) return [];
    const ruleSet = this.#options.rules();
    const subscribed = await this.#options.subscriptions?.get(entries.map((e) => e.value.ruleId));
    const jobs: DeliveryJob[] = [];
    for (const { value: alert } of entries) {
      const rule = lookupRule(ruleSet, subscribed, alert.ruleId);
      if (!rule) {
        this.#options.onDropped?.(alert);
        continue;
      }
      for (const channel of rule.channels) {
        jobs.push({
          notification: notificationOf(alert, channel),
          retry: retryOf(channel),
          destination: destinationOf(channel),
        });
      }
    }
    try {
      await queues.enqueue(jobs, { bundled: true });
      crashPoint("notify.before-ack");
      await consumer.ack(entries.map((e) => e.entryId));
    } catch (err) {
      consumer.rewind();
      throw err;
    }
    return jobs;
  }
}

/** A channel's retry schedule: its own (`retry` in the rule file) or the default. */
function retryOf(channel: ChannelSpec): RetrySchedule {
  return channel.retry ?? DEFAULT_RETRY_SCHEDULE;
}
