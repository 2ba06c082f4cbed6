/**
 * The real delivery pipeline for end-to-end tests: queues, log and workers on a real
 * Redis (a unique prefix), the real webhook, Slack and email senders, and the real
 * loopback receivers they send to (allowed explicitly, as OUTBOUND_ALLOW=127.0.0.1
 * would) — all closed and cleaned up by `close()`.
 */
import type { LookupFunction } from "node:net";
import { readEmailSettings } from "../../src/config/email-settings.js";
import type { ChannelSender } from "../../src/deliver/channel-sender.js";
import { DeliveryLog, type DeliveryRecord } from "../../src/deliver/delivery-log.js";
import { type DeliveryJob, DeliveryQueues } from "../../src/deliver/delivery-queues.js";
import { DeliveryWorkers, type DeliveryWorkersOptions } from "../../src/deliver/delivery-worker.js";
import { DestinationLimiter } from "../../src/deliver/destination-limiter.js";
import { EmailSender } from "../../src/deliver/email-sender.js";
import { destinationOf } from "../../src/deliver/endpoint.js";
import { notificationsOf } from "../../src/deliver/notification.js";
import { SlackSender } from "../../src/deliver/slack-sender.js";
import { SlackThreads } from "../../src/deliver/slack-threads.js";
import { WebhookSender } from "../../src/deliver/webhook-sender.js";
import type { Alert } from "../../src/dispatch/alert.js";
import { guardedAgent } from "../../src/outbound/guarded-agent.js";
import type { OutboundPolicy } from "../../src/outbound/outbound-policy.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { ChannelSpec, RetrySchedule, Rule } from "../../src/rules/rule.js";
import { connectRedis, type RedisConnection } from "../../src/store/redis-connection.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { rule as baseRule } from "../rules/rule-builder.js";
import { waitFor } from "../support/crash-run.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";
import { type SlackReceiver, startSlackReceiver } from "../support/slack-receiver.js";
import {
  type SmtpReceiver,
  type SmtpReceiverOptions,
  startSmtpReceiver,
} from "../support/smtp-receiver.js";
import {
  type ReceiverResponse,
  startWebhookReceiver,
  type WebhookDelivery,
  type WebhookReceiver,
} from "../support/webhook-receiver.js";
import { FROM, ZONE } from "./email-fixtures.js";
import { SECRET } from "./webhook-fixtures.js";

/** Least time between two messages to one Slack webhook (Slack's is 1 s; shorter keeps tests fast). */
export const PACE_MS = 300;
/** Retries after 300 ms and 600 ms: three attempts in all. */
export const SHORT: RetrySchedule = { delaysMs: [300, 600], forMs: 10_000 };

const SOURCE = { file: "t.yaml", line: 1, column: 1 };

/** A webhook channel signed with SECRET. */
export const hook = (url: string, name = "hook", retry = SHORT): ChannelSpec => ({
  type: "webhook",
  name,
  url,
  secret: SECRET,
  format: "cloudevents",
  retry,
  source: SOURCE,
});

/** A Slack channel. */
export const slackTo = (url: string, name = "slack"): ChannelSpec => ({
  type: "slack",
  name,
  url,
  retry: SHORT,
  source: SOURCE,
});

/** An email channel. */
export const mailTo = (to: string[], name = "mail"): ChannelSpec => ({
  type: "email",
  name,
  to,
  retry: SHORT,
  source: SOURCE,
});

/** The rule `r1` with these channels. */
export const ruleWith = (...channels: ChannelSpec[]): Rule => ({ ...baseRule("r1"), channels });

/** The jobs the notifier makes of an alert: one per channel of its rule. */
export function jobsOf(a: Alert, r: Rule): DeliveryJob[] {
  return notificationsOf(a, r).map((notification) => {
    const channel = r.channels.find((c) => c.name === notification.channel) as ChannelSpec;
    return { notification, retry: channel.retry ?? SHORT, destination: destinationOf(channel) };
  });
}

/** Gaps between consecutive times, ms. */
export const gaps = (times: readonly number[]): number[] =>
  times.slice(1).map((t, i) => t - (times[i] as number));

/** Waits `ms` of real time (receivers are real servers). */
export const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Worker settings a test may change (locks, concurrency, callbacks besides the rig's own). */
export type RigWorkerOptions = Partial<
  Pick<
    DeliveryWorkersOptions,
    "concurrency" | "lockDurationMs" | "stalledIntervalMs" | "onRecord" | "onAbandoned" | "onError"
  >
> & {
  /** Where webhooks and Slack may connect; loopback (the receivers) by default. */
  outbound?: OutboundPolicy;
  /** The webhook sender's resolver (a name that resolves as a test needs); DNS by default. */
  lookup?: LookupFunction;
  /** Where Web API Slack channels (living messages) go: a look-alike's URL; Slack's by default. */
  slackApiUrl?: string;
};

/** One test's delivery pipeline and receivers. */
export class DeliveryRig {
  /** A plain connection (the queues' and the log's). */
  readonly redis: RedisConnection;
  readonly keys: RedisKeys;
  readonly queues: DeliveryQueues;
  readonly log: DeliveryLog;
  /** Every attempt recorded by the workers, in order. */
  readonly records: DeliveryRecord[] = [];
  readonly #workers: DeliveryWorkers[] = [];
  readonly #senders: ChannelSender[] = [];
  readonly #closers: Array<() => Promise<void> | void> = [];
  readonly #test: TestRedis;

  private constructor(
    test: TestRedis,
    /** A Slack look-alike, one path per webhook. */
    readonly slack: SlackReceiver,
  ) {
    this.#test = test;
    this.redis = test.redis;
    this.keys = redisKeys(test.prefix);
    this.queues = new DeliveryQueues(this.redis, this.keys);
    this.log = new DeliveryLog(this.redis, this.keys);
  }

  /** A rig on a fresh Redis prefix, with its Slack look-alike running. */
  static async create(): Promise<DeliveryRig> {
    return new DeliveryRig(await testRedis("receivers"), await startSlackReceiver());
  }

  /** A webhook receiver checking signatures with SECRET, answering `respond` (204 by default). */
  async webhookReceiver(
    respond?: (d: WebhookDelivery, n: number) => ReceiverResponse,
  ): Promise<WebhookReceiver> {
    const receiver = await startWebhookReceiver({
      secret: SECRET,
      ...(respond ? { respond } : {}),
    });
    this.#closers.push(() => receiver.close());
    return receiver;
  }

  /** A real SMTP server, scripted as `options` say. */
  async smtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
    const receiver = await startSmtpReceiver(options);
    this.#closers.push(() => receiver.close());
    return receiver;
  }

  /** A connection of its own (blocking reads, or BullMQ's kind). */
  async connection(forBullmq = false): Promise<RedisConnection> {
    const connection = await connectRedis(TEST_REDIS_URL, { forBullmq });
    this.#closers.push(() => connection.disconnect());
    return connection;
  }

  /**
   * Starts the workers with the real senders, paced at PACE_MS (email to `smtp` when
   * given). Called again, it starts another set, as another process would.
   */
  async start(rules: Rule[], smtp?: SmtpReceiver, options: RigWorkerOptions = {}): Promise<void> {
    const ruleSet = new RuleSet(rules, { zone: ZONE });
    const { outbound = LOOPBACK_OUTBOUND, lookup, slackApiUrl, ...workerOptions } = options;
    const dispatcher = lookup ? guardedAgent(outbound, { lookup }) : undefined;
    if (dispatcher) this.#closers.push(() => dispatcher.close());
    const webhook = new WebhookSender(dispatcher ? { dispatcher } : { outbound });
    const slack = new SlackSender({
      limiter: new DestinationLimiter(this.redis, this.keys),
      threads: new SlackThreads(this.redis, this.keys),
      intervalMs: PACE_MS,
      outbound,
      ...(slackApiUrl !== undefined ? { slackApiUrl } : {}),
    });
    const email = new EmailSender(
      smtp ? readEmailSettings({ SMTP_URL: smtp.url(), EMAIL_FROM: FROM }) : undefined,
    );
    this.#senders.push(webhook, slack, email);
    const workers = new DeliveryWorkers({
      ...workerOptions,
      connection: await this.connection(true),
      keys: this.keys,
      senders: { webhook, slack, email },
      rules: () => ruleSet,
      zone: ZONE,
      log: this.log,
      onRecord: (r) => {
        this.records.push(r);
        workerOptions.onRecord?.(r);
      },
    });
    this.#workers.push(workers);
    await workers.ready();
  }

  /** Resolves once `count` attempts have ended in delivered or dead. */
  settled(count: number, timeoutMs = 8_000): Promise<void> {
    return waitFor(
      async () => this.records.filter((r) => r.result !== "retrying").length >= count,
      timeoutMs,
    );
  }

  /** The results of a notification's attempts, in order. */
  resultsOf(id: string): string[] {
    return this.records.filter((r) => r.id === id).map((r) => r.result);
  }

  /** Stops the workers, then the senders, receivers and connections; deletes the prefix's keys. */
  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.close()));
    await Promise.all(this.#senders.map((s) => s.close()));
    for (const close of this.#closers.reverse()) await close();
    await this.slack.close();
    await this.queues.close();
    await this.#test.cleanup();
  }
}
