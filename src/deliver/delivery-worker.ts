/**
 * The delivery workers: one BullMQ worker per channel type, each sending one
 * notification per job through that type's sender and deciding — once, here — what
 * the outcome means: done, try again (on the channel's schedule, or when the
 * receiver's `Retry-After` says), or dead letter (a permanent failure, or the
 * schedule used up). Every attempt is recorded.
 *
 * The rule and channel are looked up in the live rule set at each attempt, so a
 * fixed URL in a rule file applies to retries and re-sent dead letters, and no
 * secret is stored in the queue. A worker killed mid-send leaves its job locked;
 * BullMQ's stalled-job check hands it to another worker, which sends it again under
 * the same notification id — a repeat the receiver can recognise. A worker that is
 * alive but was taken for dead (its lock renewals late: a stalled event loop, a long
 * pace wait under load) checks and renews its lock just before the send, and leaves
 * the job to the worker that has it when the lock is gone.
 */
import { DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { crashPoint } from "../crash-point.js";
import type { RuleSet } from "../rules/rule-matcher.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { ChannelSender } from "./channel-sender.js";
import type { DeliveryLog, DeliveryRecord } from "./delivery-log.js";
import { type DeliveryJob, queueName } from "./delivery-queues.js";
import { endpointOf } from "./endpoint.js";
import type { ChannelType } from "./notification.js";
import { DEFAULT_RETRY_SCHEDULE, retryDelay } from "./retry-schedule.js";
import type { SendOutcome } from "./send-outcome.js";

/** How the workers run. */
export interface DeliveryWorkersOptions {
  /** A connection for BullMQ (`maxRetriesPerRequest: null`); workers duplicate it for blocking reads. */
  connection: Redis;
  keys: RedisKeys;
  /** One sender per channel type served; types without one are not worked here. */
  senders: Partial<Record<ChannelType, ChannelSender>>;
  /** The live rule set. */
  rules: () => RuleSet;
  /** Airport time zone for messages. */
  zone: string;
  /**
   * Where attempts are recorded; on a connection that waits for Redis (BullMQ's kind):
   * a record that fails after a delivery would make the job send it again.
   */
  log: DeliveryLog;
  /** Wall clock (default Date.now): signatures and `Retry-After` dates are real time. */
  now?: () => number;
  /** Jitter source (default Math.random). */
  random?: () => number;
  /** Jobs in flight per channel type (defaults: webhook 64, slack 8, email 8, console 1). */
  concurrency?: Partial<Record<ChannelType, number>>;
  /** A worker that stops renewing its lock this long is taken as dead (default 30 s). */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for (default 30 s). */
  stalledIntervalMs?: number;
  /** Called after each attempt is recorded. */
  onRecord?: (record: DeliveryRecord) => void;
  /** Called when an attempt is dropped unsent: the job's lock was lost, another worker has it. */
  onAbandoned?: (job: DeliveryJob, attempt: number) => void;
  /** Called on a worker error (Redis trouble); the worker carries on. */
  onError?: (err: Error) => void;
}

const DEFAULT_CONCURRENCY: Record<ChannelType, number> = {
  webhook: 64,
  slack: 8,
  email: 8,
  console: 1,
};

/** A retryable failure, carrying the receiver's `Retry-After` to the backoff. */
class RetryLaterError extends Error {
  override name = "RetryLaterError";
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** Runs the delivery workers of the channel types that have a sender. */
export class DeliveryWorkers {
  readonly #options: DeliveryWorkersOptions;
  readonly #workers: Worker<DeliveryJob>[] = [];
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #lockDurationMs: number;

  constructor(options: DeliveryWorkersOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#lockDurationMs = options.lockDurationMs ?? 30_000;
    const { connection, keys } = options;
    for (const [type, sender] of Object.entries(options.senders) as [
      ChannelType,
      ChannelSender,
    ][]) {
      const worker = new Worker<DeliveryJob>(
        queueName(type),
        (job, token) => this.#process(sender, job, token),
        {
          connection,
          prefix: keys.queuePrefix,
          concurrency: options.concurrency?.[type] ?? DEFAULT_CONCURRENCY[type],
          lockDuration: this.#lockDurationMs,
          stalledInterval: options.stalledIntervalMs ?? 30_000,
          // A killed worker must not turn its jobs into dead letters: hand them on again.
          maxStalledCount: 100,
          settings: {
            backoffStrategy: (attemptsMade, _type, err, job) =>
              retryDelay(
                (job?.data as DeliveryJob | undefined)?.retry ?? DEFAULT_RETRY_SCHEDULE,
                attemptsMade,
                this.#random,
                err instanceof RetryLaterError ? err.retryAfterMs : undefined,
              ),
          },
        },
      );
      worker.on("error", (err) => options.onError?.(err));
      this.#workers.push(worker);
    }
  }

  /** Resolves once every worker is connected and taking jobs. */
  async ready(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.waitUntilReady()));
  }

  /** Stops taking jobs, waits for the ones in flight, and closes. */
  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.close()));
  }

  async #process(
    sender: ChannelSender,
    job: Job<DeliveryJob>,
    token: string | undefined,
  ): Promise<unknown> {
    const { notification, destination } = job.data;
    const attempt = job.attemptsMade + 1;
    const outcome = await this.#attempt(sender, job, attempt, token);
    if (outcome.status === "abandoned") {
      this.#options.onAbandoned?.(job.data, attempt);
      // After a DelayedError BullMQ leaves the job as it is (as after moveToDelayed):
      // it belongs to the worker that holds its lock now, and nothing is recorded here.
      throw new DelayedError();
    }
    const record: DeliveryRecord = {
      at: this.#now(),
      id: notification.id,
      ruleId: notification.ruleId,
      channel: notification.channel,
      type: notification.type,
      flight: notification.alert.flight.key,
      destination,
      attempt,
      result: "delivered",
    };
    if (outcome.status !== "delivered") {
      record.reason = outcome.reason;
      record.detail = outcome.detail;
    }
    if (outcome.code !== undefined) record.code = outcome.code;
    if (outcome.refused?.length) record.refused = outcome.refused;

    if (outcome.status === "delivered") {
      await this.#record(record);
      return { code: outcome.code, attempts: attempt };
    }
    if (outcome.status === "failed") {
      await this.#record({ ...record, result: "dead" });
      throw new UnrecoverableError(`${outcome.reason}: ${outcome.detail}`);
    }
    if (outcome.retryRecipients) {
      await job.updateData({ ...job.data, recipients: outcome.retryRecipients });
    }
    const now = this.#now();
    const inTime = now - job.timestamp < job.data.retry.forMs;
    // Being told to slow down is not a failed attempt: wait as asked, without using one up.
    if (
      outcome.reason === "rate_limited" &&
      outcome.retryAfterMs !== undefined &&
      inTime &&
      token
    ) {
      await this.#record({ ...record, result: "retrying", nextAt: now + outcome.retryAfterMs });
      await job.moveToDelayed(now + outcome.retryAfterMs, token);
      throw new DelayedError();
    }
    const attempts = job.opts.attempts ?? 1;
    if (attempt >= attempts) {
      await this.#record({ ...record, result: "dead" });
      throw new UnrecoverableError(
        `${outcome.reason}: ${outcome.detail} (gave up after ${attempt} attempt${attempt === 1 ? "" : "s"})`,
      );
    }
    await this.#record({ ...record, result: "retrying" });
    throw new RetryLaterError(`${outcome.reason}: ${outcome.detail}`, outcome.retryAfterMs);
  }

  /** One attempt: find the channel, skip disabled endpoints, send, disable on 410. */
  async #attempt(
    sender: ChannelSender,
    job: Job<DeliveryJob>,
    attempt: number,
    token: string | undefined,
  ): Promise<SendOutcome> {
    const { notification } = job.data;
    const rule = this.#options.rules().get(notification.ruleId);
    const channel = rule?.channels.find(
      (c) => c.name === notification.channel && c.type === notification.type,
    );
    if (!rule || !channel) {
      return {
        status: "failed",
        reason: "channel_removed",
        detail: `rule ${notification.ruleId} has no ${notification.type} channel ${notification.channel} any more`,
      };
    }
    const endpoint = endpointOf(channel);
    if (endpoint) {
      const disabled = await this.#options.log.disabled(endpoint.id);
      if (disabled) {
        return {
          status: "failed",
          reason: "endpoint_disabled",
          detail: `endpoint ${endpoint.id} (${endpoint.label}) disabled since ${new Date(disabled.at).toISOString()}: ${disabled.detail}; re-enable it with \`flightwatch deliveries enable ${endpoint.id}\``,
        };
      }
    }
    crashPoint("deliver.before-send");
    const outcome = await sender.send(notification, channel, {
      rule,
      zone: this.#options.zone,
      now: this.#now,
      attempt,
      ...(job.data.recipients ? { recipients: job.data.recipients } : {}),
      stillMine: () => this.#stillMine(job, token),
    });
    crashPoint("deliver.after-send");
    if (endpoint && outcome.status === "failed" && outcome.disableEndpoint) {
      await this.#options.log.disable({
        ...endpoint,
        at: this.#now(),
        detail: outcome.detail,
        ruleId: rule.id,
        channel: channel.name,
      });
    }
    return outcome;
  }

  /**
   * Whether this worker still holds the job's lock, renewing it if so (BullMQ's
   * extendLock answers 1 only to the token that holds it). A check that fails is a
   * "no": the job is then sent after its lock expires, by whichever worker takes it.
   */
  async #stillMine(job: Job<DeliveryJob>, token: string | undefined): Promise<boolean> {
    // BullMQ's own workers always pass a token; without one there is no lock to lose.
    if (token === undefined) return true;
    try {
      return (await job.extendLock(token, this.#lockDurationMs)) === 1;
    } catch (err) {
      this.#options.onError?.(err as Error);
      return false;
    }
  }

  async #record(record: DeliveryRecord): Promise<void> {
    await this.#options.log.record(record);
    this.#options.onRecord?.(record);
  }
}
