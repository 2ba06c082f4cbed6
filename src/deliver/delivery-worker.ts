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
 * the job to the worker that has it when the lock is gone. A send that did not wait
 * and comes within a quarter of the lock's duration of taking the job (no pace wait,
 * no stall: the common case) cannot have lost it, and skips the check.
 */
import { DelayedError, Job, UnrecoverableError, Worker } from "bullmq";
import { crashPoint } from "../crash-point.js";
import { foldAlert } from "../dispatch/alert-fold.js";
import type { RuleSet } from "../rules/match/rule-matcher.js";
import { DEFAULT_RETRY_SCHEDULE, retryDelay } from "../rules/retry-schedule.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { subscriptionIdOf } from "../subscriptions/subscription.js";
import type { SubscriptionRules } from "../subscriptions/subscription-rules.js";
import type { ChannelSender } from "./channel-sender.js";
import type { DeliveryLog, DeliveryRecord } from "./delivery-log.js";
import { DeliveryOrder } from "./delivery-order.js";
import {
  DEFAULT_DEDUP_MS,
  type DeliveryJob,
  DeliveryQueues,
  queueName,
} from "./delivery-queues.js";
import { endpointOf } from "./endpoint.js";
import type { ChannelType, Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";

/** How the workers run. */
export interface DeliveryWorkersOptions {
  /** A connection for BullMQ (`maxRetriesPerRequest: null`); workers duplicate it for blocking reads. */
  connection: RedisConnection;
  keys: RedisKeys;
  /** One sender per channel type served; types without one are not worked here. */
  senders: Partial<Record<ChannelType, ChannelSender>>;
  /** The live rule set. */
  rules: () => RuleSet;
  /** Passenger subscriptions: the rules of their notifications (none when absent). */
  subscriptions?: SubscriptionRules;
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
  /**
   * Jobs in flight per channel type (defaults: the sender's own `concurrency` — email:
   * twice SMTP_MAX_CONNECTIONS — else webhook 64, slack 8, email 8, console 1), shared
   * out over the type's delivery shards (each shard's worker takes its share, at least 1).
   */
  concurrency?: Partial<Record<ChannelType, number>>;
  /**
   * A dead worker's notifications are sent by another within this (default 30 s,
   * DELIVERY_STALL_TIMEOUT). BullMQ hands a job on when its lock has expired *and* a
   * stalled-job check found it marked by the check before (two checks), so the lock is
   * half of this and the checks come every quarter: a worker killed right after renewing
   * its lock is found at most ¾ of it later.
   */
  stallTimeoutMs?: number;
  /** Overrides the lock derived from `stallTimeoutMs` (tests). */
  lockDurationMs?: number;
  /** Overrides the stalled-check period derived from `stallTimeoutMs` (tests). */
  stalledIntervalMs?: number;
  /** Called after each attempt is recorded. */
  onRecord?: (record: DeliveryRecord) => void;
  /** Called when an attempt is dropped unsent: the job's lock was lost, another worker has it. */
  onAbandoned?: (job: DeliveryJob, attempt: number) => void;
  /** Called on a worker error (Redis trouble); the worker carries on. */
  onError?: (err: Error) => void;
  /** The queues, to look at older notifications of an order (default: its own, on `connection`). */
  queues?: DeliveryQueues;
}

/**
 * How many delivered notification ids a process remembers, so that a job whose
 * completion Redis refused is not sent again when it comes back to the same process.
 */
const SENT_REMEMBERED = 10_000;

/** How long a notification waits before it asks again for its turn in its order, ms. */
const ORDER_WAIT_MS = 250;
/**
 * An order's turn lasts this many job locks: a send is never cut short by it, and a job
 * handed over after its worker died takes the turn back (it is named after the
 * notification), so only a dead notification's newer ones wait for it to run out.
 */
const ORDER_LOCK_LOCKS = 4;
/** Rounds of superseding before a notification waits instead (each round takes some). */
const MAX_TURN_ROUNDS = 4;

/** Default of DELIVERY_STALL_TIMEOUT. */
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;

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

/**
 * A sender that has at most `limit` sends in flight, the others waiting their turn in
 * the order they came (the workers of several delivery shards share one type's limit).
 */
function limitSends(sender: ChannelSender, limit: number): ChannelSender {
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const limited: ChannelSender = {
    type: sender.type,
    ...(sender.concurrency !== undefined ? { concurrency: sender.concurrency } : {}),
    async send(notification, channel, context) {
      if (inFlight >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else inFlight++;
      try {
        return await sender.send(notification, channel, context);
      } finally {
        // The slot goes straight to the next waiting send, if any.
        const next = waiting.shift();
        if (next) next();
        else inFlight--;
      }
    },
    close: () => sender.close(),
  };
  return limited;
}

/** Runs the delivery workers of the channel types that have a sender. */
export class DeliveryWorkers {
  readonly #options: DeliveryWorkersOptions;
  readonly #workers: Worker<DeliveryJob>[] = [];
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #lockDurationMs: number;
  readonly #queues: DeliveryQueues;
  readonly #order: DeliveryOrder;
  /** Notification ids this process delivered, newest last (at most SENT_REMEMBERED). */
  readonly #sent = new Set<string>();

  constructor(options: DeliveryWorkersOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    const stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    this.#lockDurationMs = options.lockDurationMs ?? Math.max(500, Math.floor(stallTimeoutMs / 2));
    const stalledIntervalMs =
      options.stalledIntervalMs ?? Math.max(250, Math.floor(stallTimeoutMs / 4));
    const { connection, keys } = options;
    this.#queues = options.queues ?? new DeliveryQueues(connection, keys);
    this.#order = new DeliveryOrder(connection, keys, DEFAULT_DEDUP_MS);
    for (const [type, sender] of Object.entries(options.senders) as [
      ChannelType,
      ChannelSender,
    ][]) {
      // The type's jobs in flight are shared out over its shards' workers, and its sends
      // held to the type's number across them (the console's one at a time stays one).
      const total = options.concurrency?.[type] ?? sender.concurrency ?? DEFAULT_CONCURRENCY[type];
      const concurrency = Math.max(1, Math.ceil(total / keys.deliveryShards));
      const shared = keys.deliveryShards > 1 ? limitSends(sender, total) : sender;
      for (let shard = 0; shard < keys.deliveryShards; shard++) {
        const worker = new Worker<DeliveryJob>(
          queueName(type, shard),
          (job, token) => this.#process(shared, job, token),
          {
            connection,
            prefix: keys.queuePrefixOf(shard),
            concurrency,
            lockDuration: this.#lockDurationMs,
            stalledInterval: stalledIntervalMs,
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
    const startedAt = performance.now();
    const attempt = job.attemptsMade + 1;
    // One at a time per (rule, flight, channel), oldest first (BullMQ's own workers always
    // pass a token; without one there is no lock, and no turn to wait for).
    const turn = token === undefined ? ({ kind: "go" } as const) : await this.#takeTurn(job);
    if (turn.kind === "wait" && token !== undefined) {
      // Not an attempt: waiting for the turn uses none up.
      await job.moveToDelayed(this.#now() + ORDER_WAIT_MS, token);
      throw new DelayedError();
    }
    // After the turn: the job's data may have taken in what it superseded.
    const { notification } = job.data;
    if (turn.kind === "superseded")
      return this.#notSent(job.data, attempt, "superseded", turn.detail);
    // Sent by this process already, but the record or the job's completion failed (Redis
    // refusing writes, its memory full): the job came back (started again, unlike a job
    // an operator sends again, whose attempts are reset). Done, not sent again.
    const cameBack = this.#sent.has(notification.id) && job.attemptsStarted > 1;
    const outcome: SendOutcome = cameBack
      ? { status: "delivered" }
      : await this.#attempt(sender, job, attempt, token, startedAt);
    if (outcome.status === "delivered") this.#remember(notification.id);
    if (outcome.status === "abandoned") {
      this.#options.onAbandoned?.(job.data, attempt);
      // After a DelayedError BullMQ leaves the job as it is (as after moveToDelayed):
      // it belongs to the worker that holds its lock now, and nothing is recorded here.
      throw new DelayedError();
    }
    if (outcome.status === "cancelled") {
      return this.#notSent(job.data, attempt, "cancelled", outcome.detail);
    }
    const record = baseRecord(job.data, attempt, this.#now());
    if (outcome.status !== "delivered") {
      record.reason = outcome.reason;
      record.detail = outcome.detail;
    } else if (outcome.detail !== undefined) {
      record.detail = outcome.detail;
    }
    if (outcome.code !== undefined) record.code = outcome.code;
    if (outcome.refused?.length) record.refused = outcome.refused;

    if (outcome.status === "delivered") {
      await this.#record(record);
      await this.#done(notification, true);
      return { code: outcome.code, attempts: attempt };
    }
    if (outcome.status === "failed") {
      await this.#record({ ...record, result: "dead" });
      await this.#done(notification, false);
      throw new UnrecoverableError(`${outcome.reason}: ${outcome.detail}`);
    }
    // It will be tried again: the turn goes (a newer notification may supersede it).
    await this.#order.release(notification);
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
      await this.#done(notification, false);
      throw new UnrecoverableError(
        `${outcome.reason}: ${outcome.detail} (gave up after ${attempt} attempt${attempt === 1 ? "" : "s"})`,
      );
    }
    await this.#record({ ...record, result: "retrying" });
    throw new RetryLaterError(`${outcome.reason}: ${outcome.detail}`, outcome.retryAfterMs);
  }

  /** Ends a notification that is not to be sent (superseded, cancelled): recorded, out of its order. */
  async #notSent(
    data: DeliveryJob,
    attempt: number,
    result: "superseded" | "cancelled",
    detail: string,
  ): Promise<{ superseded: true } | { cancelled: true }> {
    await this.#record({ ...baseRecord(data, attempt, this.#now()), result, detail });
    await this.#done(data.notification, false);
    return result === "superseded" ? { superseded: true } : { cancelled: true };
  }

  /**
   * Takes the turn to send the job's notification in its order (see delivery-order.ts):
   * `go`; `wait` while another of the order is being sent, or an older one is waiting
   * to go first; `superseded` when a newer one was delivered already, or when what it
   * superseded cancels out what it says. An older one that failed and waits to be tried
   * again is superseded here: taken out of its queue, its changes folded into this
   * notification, recorded as superseded.
   */
  async #takeTurn(
    job: Job<DeliveryJob>,
  ): Promise<{ kind: "go" } | { kind: "wait" } | { kind: "superseded"; detail: string }> {
    const queue = this.#queues.queueOf(job.data.notification);
    for (let round = 0; round < MAX_TURN_ROUNDS; round++) {
      const notification = job.data.notification;
      const turn = await this.#order.claim(notification, ORDER_LOCK_LOCKS * this.#lockDurationMs);
      if (turn.kind === "go") return { kind: "go" };
      if (turn.kind === "busy") return { kind: "wait" };
      if (turn.kind === "stale") {
        return {
          kind: "superseded",
          detail: `a newer notification of this rule about this flight (sequence ${turn.delivered}) was delivered already`,
        };
      }
      let wait = false;
      for (const id of turn.ids) {
        const older = await Job.fromId<DeliveryJob>(queue, id);
        const state = older ? await older.getState() : "unknown";
        if (!older || state === "completed" || state === "failed" || state === "unknown") {
          // Done (its end not noted: a crash), or its job never came: out of the way.
          await this.#order.forget(notification, [id]);
          continue;
        }
        if (state !== "delayed" || older.attemptsMade < 1) {
          wait = true; // waiting, or being sent: it goes first
          continue;
        }
        // It failed and waits to be tried again: this one takes its place.
        const removed = await older.remove().then(
          () => true,
          () => false,
        );
        if (!removed) {
          wait = true; // taken by a worker meanwhile
          continue;
        }
        const alert = foldAlert(older.data.notification.alert, job.data.notification.alert);
        await job.updateData({ ...job.data, notification: { ...job.data.notification, alert } });
        await this.#record({
          ...baseRecord(older.data, older.attemptsMade, this.#now()),
          result: "superseded",
          supersededBy: job.data.notification.id,
          detail: `superseded by the newer ${job.data.notification.id}, which carries its changes`,
        });
        await this.#order.forget(notification, [id]);
      }
      if (wait) return { kind: "wait" };
      if (job.data.notification.alert.changes.length === 0) {
        return {
          kind: "superseded",
          detail: "its changes cancel out with those of the older notifications it superseded",
        };
      }
    }
    return { kind: "wait" };
  }

  /**
   * Ends a notification's place in its order, and hands the turn to the next one at once
   * when it waits for it (rather than when its wait for the turn runs out).
   */
  async #done(notification: Notification, delivered: boolean): Promise<void> {
    const next = await this.#order.done(notification, delivered);
    if (next === undefined) return;
    const job = await Job.fromId<DeliveryJob>(this.#queues.queueOf(notification), next);
    // Only one waiting for its turn (never used an attempt); a retry keeps its backoff.
    if (job && job.attemptsMade === 0 && (await job.getState()) === "delayed") {
      await job.promote().catch(() => undefined);
    }
  }

  /** One attempt: find the channel, skip disabled endpoints, send, disable on 410. */
  async #attempt(
    sender: ChannelSender,
    job: Job<DeliveryJob>,
    attempt: number,
    token: string | undefined,
    startedAt: number,
  ): Promise<SendOutcome> {
    const { notification } = job.data;
    const rule =
      this.#options.rules().get(notification.ruleId) ??
      (await this.#options.subscriptions?.get([notification.ruleId]))?.get(notification.ruleId);
    const channel = rule?.channels.find(
      (c) => c.name === notification.channel && c.type === notification.type,
    );
    if (!rule || !channel) {
      const subscriptionId = subscriptionIdOf(notification.ruleId);
      const why =
        subscriptionId === undefined ? undefined : await this.#whyNot(notification.ruleId);
      if (why !== undefined && "ended" in why) {
        return {
          status: "cancelled",
          detail: `subscription ${subscriptionId} is not active any more (unsubscribed, removed or expired)`,
        };
      }
      if (why !== undefined) {
        // Active, but its channel cannot be used now: a dead letter, to send again once fixed.
        return {
          status: "failed",
          reason: "channel_removed",
          detail: `subscription ${subscriptionId} is active, but its channel cannot be used: ${why.invalid}`,
        };
      }
      return {
        status: "failed",
        reason: "channel_removed",
        detail: `rule ${notification.ruleId} has no ${notification.type} channel ${notification.channel} any more`,
      };
    }
    // A reminder that waited (retries, an outage) as long as it was early helps nobody:
    // "boarding starts in 30 min" after boarding began. Not sent, and not a failure.
    const reminder = notification.alert.reminder;
    if (reminder !== undefined && this.#now() - job.timestamp >= reminder.inMinutes * 60_000) {
      return {
        status: "cancelled",
        detail: `a reminder ${reminder.inMinutes} min before ${reminder.before.replace("_", " ")} not sent by then: its moment has come`,
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
      stillMine: (waited) => this.#stillMine(job, token, waited ? undefined : startedAt),
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
   * Without a wait (`startedAt` given), within a quarter of the lock's duration of
   * taking the job — by the monotonic clock since this attempt began and by the wall
   * clock since BullMQ took the job (a stall before the attempt began) — the lock
   * cannot have run out: yes, without asking.
   */
  /** Why a subscription's rule was not found (no subscriptions here: it ended). */
  async #whyNot(ruleId: string): Promise<{ ended: true } | { invalid: string }> {
    return (await this.#options.subscriptions?.whyNot(ruleId)) ?? { ended: true };
  }

  async #stillMine(
    job: Job<DeliveryJob>,
    token: string | undefined,
    startedAt: number | undefined,
  ): Promise<boolean> {
    // BullMQ's own workers always pass a token; without one there is no lock to lose.
    if (token === undefined) return true;
    const quarter = this.#lockDurationMs / 4;
    const sinceTaken = Date.now() - (job.processedOn ?? Number.NEGATIVE_INFINITY);
    if (
      startedAt !== undefined &&
      performance.now() - startedAt < quarter &&
      sinceTaken >= 0 &&
      sinceTaken < quarter
    ) {
      return true;
    }
    try {
      return (await job.extendLock(token, this.#lockDurationMs)) === 1;
    } catch (err) {
      this.#options.onError?.(err as Error);
      return false;
    }
  }

  #remember(id: string): void {
    this.#sent.delete(id);
    this.#sent.add(id);
    if (this.#sent.size > SENT_REMEMBERED) {
      const oldest = this.#sent.values().next().value;
      if (oldest !== undefined) this.#sent.delete(oldest);
    }
  }

  async #record(record: DeliveryRecord): Promise<void> {
    await this.#options.log.record(record);
    this.#options.onRecord?.(record);
  }
}

/** The record of an attempt at a job's notification, delivered unless said otherwise. */
function baseRecord(data: DeliveryJob, attempt: number, at: number): DeliveryRecord {
  const { notification, destination } = data;
  return {
    at,
    id: notification.id,
    ruleId: notification.ruleId,
    channel: notification.channel,
    type: notification.type,
    flight: notification.alert.flight.key,
    destination,
    attempt,
    result: "delivered",
    ...(notification.replayOf !== undefined ? { replayOf: notification.replayOf } : {}),
  };
}
