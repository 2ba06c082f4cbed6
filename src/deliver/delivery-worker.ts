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
import { attemptsOf, DEFAULT_RETRY_SCHEDULE, retryDelay } from "../rules/retry-schedule.js";
import { CallBatch } from "../store/call-batch.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { subscriptionIdOf } from "../subscriptions/subscription.js";
import type { SubscriptionRules } from "../subscriptions/subscription-rules.js";
import type { ChannelSender } from "./channel-sender.js";
import type { DeliveryLog, DeliveryRecord } from "./delivery-log.js";
import { type ClaimingJob, DeliveryOrder } from "./delivery-order.js";
import {
  type BundleResult,
  DEFAULT_DEDUP_MS,
  type DeliveryBundle,
  type DeliveryJob,
  DeliveryQueues,
  isBundle,
  type QueuedDelivery,
  queueName,
  type SpinOff,
} from "./delivery-queues.js";
import { endpointOf } from "./endpoint.js";
import type { ChannelType, Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";

/** How the workers run. */
export interface DeliveryWorkersOptions {
  /** A connection for BullMQ (`maxRetriesPerRequest: null`); workers duplicate it for blocking reads. */
  connection: RedisConnection;
  /**
   * A connection of the same kind for the order's scripts (default `connection`), one
   * BullMQ defines none of its own on: an auto-pipelining ioredis connection makes a
   * pipeline each turn of the event loop, and copies into it every script defined on
   * the connection (BullMQ's fifty).
   */
  orderConnection?: RedisConnection;
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
  /**
   * How often failed bundles are looked at for what they had not sent and is not a dead
   * letter yet, the first time that long after start (default 10 minutes).
   */
  sweepEveryMs?: number;
  /** Called after each attempt is recorded. */
  onRecord?: (record: DeliveryRecord) => void;
  /** Called when an attempt is dropped unsent: the job's lock was lost, another worker has it. */
  onAbandoned?: (job: DeliveryJob, attempt: number) => void;
  /** Called on a worker error (Redis trouble); the worker carries on. */
  onError?: (err: Error) => void;
  /** The queues, to look at older notifications of an order (default: its own, on `connection`). */
  queues?: DeliveryQueues;
}

/** Default period of the sweep of failed bundles (DeliveryQueues.sweepFailedBundles). */
const SWEEP_EVERY_MS = 10 * 60_000;

/** Where an operator finds what a failed bundle had not sent, and how to send it. */
const WHERE_STRANDED = "`flightwatch deliveries` lists them, `deliveries retry --all` sends them";

/** What the log says of the dead letters made of what a failed bundle had not sent. */
const madeDeadLetters = (count: number): string =>
  `the ${count} notification(s) it had not sent are dead letters now: ${WHERE_STRANDED}`;

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

/** One notification being attempted, in its own job or in a bundle. */
interface Attempt {
  /** The notification's data (replaced when it takes in what it superseded, or recipients go). */
  data: DeliveryJob;
  /** 1 for the first attempt. */
  attempt: number;
  /** Attempts it has in all. */
  attempts: number;
  /** When the notification was first enqueued, epoch ms. */
  queuedAt: number;
  /** The job it is attempted in (its own, or the bundle). */
  job: Job<QueuedDelivery>;
  token: string | undefined;
  /** The job, as its claims name it. */
  claimAs: ClaimingJob;
  /** Keeps a change of the data where the job run again finds it. */
  save(data: DeliveryJob): Promise<unknown>;
}

/** What an attempt came to. */
type Step =
  /** Settled: delivered, superseded, cancelled; `value` is what its own job returns. */
  | { kind: "ended"; delivered: boolean; value: unknown }
  /** Another job carries it (an enqueue repeated, a bundle run again), or ended it there. */
  | { kind: "carried"; by: string; ended: boolean; delivered: boolean }
  /** Its turn has not come: again in ORDER_WAIT_MS, no attempt used. */
  | { kind: "wait" }
  /** The receiver asked to wait this long: again then, no attempt used. */
  | { kind: "later"; delayMs: number }
  /** Failed, to be tried again on its schedule (recorded). */
  | { kind: "retry"; message: string; retryAfterMs?: number }
  /**
   * Failed for good (recorded): a dead letter with this message. Still in its order: the
   * caller ends it there (#done) once the dead letter is kept — a bundle after spinning
   * it off, so that a bundle run again finds it carried by the dead letter.
   */
  | { kind: "dead"; message: string }
  /** The job's lock was lost: the worker that has it now sends it. */
  | { kind: "abandoned" };

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

/** Runs a task when one of its slots is free. */
type Slots = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * At most `limit` tasks at a time, the others waiting their turn in the order they came:
 * the attempts of one channel type, over the notifications of every bundle and job and
 * the workers of every delivery shard. A notification takes its order's turn only once
 * it has a slot, so that no turn is held while it waits for one.
 */
function slots(limit: number): Slots {
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (inFlight >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else inFlight++;
    try {
      return await task();
    } finally {
      // The slot goes straight to the next waiting task, if any.
      const next = waiting.shift();
      if (next) next();
      else inFlight--;
    }
  };
}

/** Runs the delivery workers of the channel types that have a sender. */
export class DeliveryWorkers {
  readonly #options: DeliveryWorkersOptions;
  readonly #workers: Worker<QueuedDelivery>[] = [];
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #lockDurationMs: number;
  readonly #queues: DeliveryQueues;
  readonly #order: DeliveryOrder;
  /** Notification ids this process delivered, newest last (at most SENT_REMEMBERED). */
  readonly #sent = new Set<string>();
  /** The periodic sweep of failed bundles, and the one under way. */
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  /** Jobs bundles spin off, added together when spun off in one turn of the event loop. */
  readonly #spinOffs: CallBatch<SpinOff, void>;

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
    this.#order = new DeliveryOrder(options.orderConnection ?? connection, keys, DEFAULT_DEDUP_MS);
    this.#spinOffs = new CallBatch<SpinOff, void>(async (jobs) => {
      await this.#queues.spinOff(jobs);
      return [];
    });
    for (const [type, sender] of Object.entries(options.senders) as [
      ChannelType,
      ChannelSender,
    ][]) {
      // The type's jobs in flight are shared out over its shards' workers, and its
      // attempts held to the type's number across them and across the notifications of
      // each bundle (the console's one at a time stays one).
      const total = options.concurrency?.[type] ?? sender.concurrency ?? DEFAULT_CONCURRENCY[type];
      const concurrency = Math.max(1, Math.ceil(total / keys.deliveryShards));
      const limited = slots(total);
      for (let shard = 0; shard < keys.deliveryShards; shard++) {
        const worker = new Worker<QueuedDelivery>(
          queueName(type, shard),
          (job, token) => this.#process(sender, limited, job, token),
          {
            connection,
            prefix: keys.queuePrefixOf(shard),
            concurrency,
            lockDuration: this.#lockDurationMs,
            stalledInterval: stalledIntervalMs,
            // A killed worker must not turn its jobs into dead letters: hand them on again.
            maxStalledCount: 100,
            settings: {
              backoffStrategy: (attemptsMade, _type, err, job) => {
                const data = job?.data as QueuedDelivery | undefined;
                // A bundle fails only when Redis does: again soon, at most every 30 s.
                if (data !== undefined && isBundle(data)) {
                  return Math.min(30_000, 500 * 2 ** Math.min(attemptsMade, 10));
                }
                return retryDelay(
                  data?.retry ?? DEFAULT_RETRY_SCHEDULE,
                  (data?.attemptsBefore ?? 0) + attemptsMade,
                  this.#random,
                  err instanceof RetryLaterError ? err.retryAfterMs : undefined,
                );
              },
            },
          },
        );
        worker.on("error", (err) => options.onError?.(err));
        // A bundle fails for good only after Redis refused it BUNDLE_ATTEMPTS times (or it
        // stalled maxStalledCount times): what it had not sent becomes dead letters of
        // their own, and the log says where they are.
        worker.on("failed", (job, err) => {
          if (job === undefined || !isBundle(job.data) || !job.finishedOn) return;
          const failed = `bundle ${job.id} failed for good after ${job.attemptsMade} attempts (${err.message})`;
          this.#queues.deadLetterStranded(job as Job<DeliveryBundle>).then(
            (count) =>
              options.onError?.(
                new Error(
                  count === 0
                    ? `${failed}; it had ended or handed on every notification it carried`
                    : `${failed}; ${madeDeadLetters(count)}`,
                ),
              ),
            (cause: unknown) =>
              options.onError?.(
                new Error(
                  `${failed}; what it had not sent could not be made dead letters (${String((cause as Error)?.message ?? cause)}), and is listed only while its carriers are kept (3 days): ${WHERE_STRANDED}`,
                ),
              ),
          );
        });
        this.#workers.push(worker);
      }
    }
  }

  /** Resolves once every worker is connected and taking jobs. */
  async ready(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.waitUntilReady()));
    this.#sweepTimer ??= setInterval(
      () => this.#sweep(),
      this.#options.sweepEveryMs ?? SWEEP_EVERY_MS,
    ).unref();
  }

  /** Stops taking jobs, waits for the ones in flight, and closes. */
  async close(): Promise<void> {
    clearInterval(this.#sweepTimer);
    await this.#sweeping;
    await Promise.all(this.#workers.map((w) => w.close()));
  }

  /**
   * Makes dead letters of what bundles that failed for good had not sent, where the
   * worker could not when they failed (Redis refused that too); one sweep at a time.
   */
  #sweep(): void {
    if (this.#sweeping !== undefined) return;
    const { onError } = this.#options;
    this.#sweeping = this.#queues
      .sweepFailedBundles()
      .then(
        (made) => {
          for (const [id, count] of made) {
            onError?.(new Error(`bundle ${id} had failed for good; ${madeDeadLetters(count)}`));
          }
        },
        (err: unknown) => onError?.(err as Error),
      )
      .finally(() => {
        this.#sweeping = undefined;
      });
  }

  /** A job: a bundle of notifications, or one notification's own job. */
  #process(
    sender: ChannelSender,
    limited: Slots,
    job: Job<QueuedDelivery>,
    token: string | undefined,
  ): Promise<unknown> {
    return isBundle(job.data)
      ? this.#processBundle(sender, limited, job as Job<DeliveryBundle>, token)
      : this.#processOwn(sender, limited, job as Job<DeliveryJob>, token);
  }

  /** A notification's own job: what the attempt comes to, as BullMQ moves of the job. */
  async #processOwn(
    sender: ChannelSender,
    limited: Slots,
    job: Job<DeliveryJob>,
    token: string | undefined,
  ): Promise<unknown> {
    // Spun off dead by a bundle, recorded there: it fails at once, to be listed and re-sent.
    if (job.data.dead !== undefined) throw new UnrecoverableError(job.data.dead);
    const attempt: Attempt = {
      data: job.data,
      attempt: (job.data.attemptsBefore ?? 0) + job.attemptsMade + 1,
      attempts: job.opts.attempts ?? 1,
      queuedAt: job.data.queuedAt ?? job.timestamp,
      job,
      token,
      claimAs: claimingJob(job),
      save: (data) => job.updateData(data),
    };
    const step = await limited(() => this.#attemptOne(sender, attempt));
    switch (step.kind) {
      case "ended":
        return step.value;
      case "carried":
        // Ended there: nothing to do. Under way there: wait, as the bundle may hand it
        // over (spin it off to this very job) rather than end it.
        if (step.ended) return { carried: step.by };
        await job.moveToDelayed(this.#now() + ORDER_WAIT_MS, token);
        throw new DelayedError();
      case "wait":
      case "later":
        // Not an attempt: waiting uses none up.
        await job.moveToDelayed(
          this.#now() + (step.kind === "wait" ? ORDER_WAIT_MS : step.delayMs),
          token,
        );
        throw new DelayedError();
      case "retry":
        throw new RetryLaterError(step.message, step.retryAfterMs);
      case "dead":
        await this.#done(attempt, false);
        throw new UnrecoverableError(step.message);
      case "abandoned":
        // After a DelayedError BullMQ leaves the job as it is (as after moveToDelayed):
        // it belongs to the worker that holds its lock now, and nothing is recorded here.
        throw new DelayedError();
    }
  }

  /**
   * A bundle: each notification attempted as its own job would be, at once (held to the
   * channel type's concurrency, shared with every other job). What one cannot finish
   * now — wait for its turn, be tried again, be dead-lettered — goes on in a job of its
   * own, spun off as soon as it is known. Run again (its worker died, Redis failed it), a
   * bundle leaves alone what it ended or spun off already (delivery-order.ts: carriers).
   */
  async #processBundle(
    sender: ChannelSender,
    limited: Slots,
    job: Job<DeliveryBundle>,
    token: string | undefined,
  ): Promise<BundleResult> {
    const claimAs = claimingJob(job);
    const delivered: string[] = [];
    let abandoned = false;
    const settled = await Promise.allSettled(
      job.data.bundle.map(async (data, index) => {
        const queuedAt = data.queuedAt ?? job.timestamp;
        const attempt: Attempt = {
          data,
          attempt: (data.attemptsBefore ?? 0) + 1,
          attempts: attemptsOf(data.retry),
          queuedAt,
          job,
          token,
          claimAs,
          save: async (changed) => {
            // Kept in the bundle: a run again starts from it.
            job.data.bundle[index] = changed;
            await job.updateData(job.data);
          },
        };
        const step = await limited(() => this.#attemptOne(sender, attempt)).catch(
          (err: unknown): Step => {
            // Thrown, not decided (a sender's bug, Redis refusing a write): tried again in a
            // job of its own, as its own job would be by BullMQ — not the whole bundle again.
            const message = String((err as Error)?.message ?? err);
            return attempt.attempt >= attempt.attempts
              ? { kind: "dead", message }
              : { kind: "retry", message };
          },
        );
        const own: DeliveryJob = { ...attempt.data, queuedAt };
        switch (step.kind) {
          case "ended":
            if (step.delivered) delivered.push(data.notification.id);
            return;
          case "carried":
            // Delivered by this bundle before it was run again (its worker died).
            if (step.by === claimAs.id && step.delivered) delivered.push(data.notification.id);
            return;
          case "wait":
            return this.#spinOffs.call({ data: own, delayMs: ORDER_WAIT_MS });
          case "later":
            return this.#spinOffs.call({ data: own, delayMs: step.delayMs });
          case "retry":
            return this.#spinOffs.call({
              data: { ...own, attemptsBefore: attempt.attempt },
              delayMs: Math.max(
                0,
                retryDelay(data.retry, attempt.attempt, this.#random, step.retryAfterMs),
              ),
            });
          case "dead":
            // The dead letter first, then out of the order: never a notification recorded
            // dead with no dead letter to list and send again.
            await this.#spinOffs.call({
              data: { ...own, attemptsBefore: attempt.attempt - 1, dead: step.message },
              delayMs: 0,
            });
            return this.#done(attempt, false);
          case "abandoned":
            abandoned = true;
            return;
        }
      }),
    );
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    // Taken for dead: the worker that holds the lock now runs the bundle (what was done
    // here is left alone there).
    if (abandoned) throw new DelayedError();
    return { delivered };
  }

  /**
   * One attempt at one notification, in its own job or in a bundle; what it came to.
   * Every attempt is recorded; the notification's place in its order is ended or kept.
   */
  async #attemptOne(sender: ChannelSender, a: Attempt): Promise<Step> {
    // From its slot on (a wait for the slot is not the attempt's).
    const startedAt = performance.now();
    // One at a time per (rule, flight, channel), oldest first (BullMQ's own workers always
    // pass a token; without one there is no lock, and no turn to wait for).
    const turn = a.token === undefined ? ({ kind: "go" } as const) : await this.#takeTurn(a);
    if (turn.kind === "carried") return turn;
    if (turn.kind === "wait") return { kind: "wait" };
    // After the turn: the data may have taken in what it superseded.
    const { notification } = a.data;
    if (turn.kind === "superseded") return this.#notSent(a, "superseded", turn.detail);
    // Sent by this process already, but the record or the job's completion failed (Redis
    // refusing writes, its memory full): the job came back (started again, unlike a job
    // an operator sends again, whose attempts are reset). Done, not sent again.
    // A bundle's notification comes back in a job of its own (spun off after its attempt
    // threw), with the bundle's attempts counted.
    const cameBack =
      this.#sent.has(notification.id) &&
      (a.job.attemptsStarted > 1 || (a.data.attemptsBefore ?? 0) > 0);
    const outcome: SendOutcome = cameBack
      ? { status: "delivered" }
      : await this.#send(sender, a, startedAt);
    if (outcome.status === "delivered") this.#remember(notification.id);
    if (outcome.status === "abandoned") {
      this.#options.onAbandoned?.(a.data, a.attempt);
      return { kind: "abandoned" };
    }
    if (outcome.status === "cancelled") return this.#notSent(a, "cancelled", outcome.detail);
    const record = baseRecord(a.data, a.attempt, this.#now());
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
      await this.#done(a, true);
      return { kind: "ended", delivered: true, value: { code: outcome.code, attempts: a.attempt } };
    }
    if (outcome.status === "failed") {
      await this.#record({ ...record, result: "dead" });
      return { kind: "dead", message: `${outcome.reason}: ${outcome.detail}` };
    }
    // It will be tried again: the turn goes (a newer notification may supersede it).
    await this.#order.release(notification);
    if (outcome.retryRecipients) {
      a.data = { ...a.data, recipients: outcome.retryRecipients };
      await a.save(a.data);
    }
    const now = this.#now();
    const inTime = now - a.queuedAt < a.data.retry.forMs;
    // Being told to slow down is not a failed attempt: wait as asked, without using one up.
    if (
      outcome.reason === "rate_limited" &&
      outcome.retryAfterMs !== undefined &&
      inTime &&
      a.token
    ) {
      await this.#record({ ...record, result: "retrying", nextAt: now + outcome.retryAfterMs });
      return { kind: "later", delayMs: outcome.retryAfterMs };
    }
    if (a.attempt >= a.attempts) {
      await this.#record({ ...record, result: "dead" });
      return {
        kind: "dead",
        message: `${outcome.reason}: ${outcome.detail} (gave up after ${a.attempt} attempt${a.attempt === 1 ? "" : "s"})`,
      };
    }
    await this.#record({ ...record, result: "retrying" });
    return {
      kind: "retry",
      message: `${outcome.reason}: ${outcome.detail}`,
      ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
    };
  }

  /** Ends a notification that is not to be sent (superseded, cancelled): recorded, out of its order. */
  async #notSent(a: Attempt, result: "superseded" | "cancelled", detail: string): Promise<Step> {
    await this.#record({ ...baseRecord(a.data, a.attempt, this.#now()), result, detail });
    await this.#done(a, false);
    return {
      kind: "ended",
      delivered: false,
      value: result === "superseded" ? { superseded: true } : { cancelled: true },
    };
  }

  /**
   * Takes the turn to send the notification in its order (see delivery-order.ts):
   * `go`; `wait` while another of the order is being sent, or an older one is waiting
   * to go first; `superseded` when a newer one was delivered already, or when what it
   * superseded cancels out what it says; `carried` when another job carries it (an
   * enqueue repeated, a bundle run again). An older one that failed and waits to be tried again is superseded
   * here: taken out of its queue, its changes folded into this notification, recorded
   * as superseded.
   */
  async #takeTurn(
    a: Attempt,
  ): Promise<
    | { kind: "go" }
    | { kind: "wait" }
    | { kind: "superseded"; detail: string }
    | { kind: "carried"; by: string; ended: boolean; delivered: boolean }
  > {
    const queue = this.#queues.queueOf(a.data.notification);
    for (let round = 0; round < MAX_TURN_ROUNDS; round++) {
      const notification = a.data.notification;
      const turn = await this.#order.claim(
        notification,
        ORDER_LOCK_LOCKS * this.#lockDurationMs,
        a.claimAs,
      );
      if (turn.kind === "go") return { kind: "go" };
      if (turn.kind === "carried") return turn;
      if (turn.kind === "busy") return { kind: "wait" };
      if (turn.kind === "stale") {
        return {
          kind: "superseded",
          detail: `a newer notification of this rule about this flight (sequence ${turn.delivered}) was delivered already`,
        };
      }
      let wait = false;
      for (const id of turn.ids) {
        // Carrier first: a bundle spinning it off meanwhile has added its job before it
        // hands it over, so it is found either way.
        if (await this.#inBundleUnderWay(notification, id)) {
          wait = true; // waiting in a bundle, or being sent from one: it goes first
          continue;
        }
        const older = await Job.fromId<QueuedDelivery>(queue, id);
        if (older === undefined || isBundle(older.data)) {
          // Its job never came, or ended and is gone: out of the way.
          await this.#order.forget(notification, [id]);
          continue;
        }
        const state = await older.getState();
        if (state === "completed" || state === "failed" || state === "unknown") {
          // Done (its end not noted: a crash), or its job never came: out of the way.
          await this.#order.forget(notification, [id]);
          continue;
        }
        if (state !== "delayed" || attemptsMadeOf(older) < 1) {
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
        const olderData = older.data as DeliveryJob;
        const alert = foldAlert(olderData.notification.alert, a.data.notification.alert);
        a.data = { ...a.data, notification: { ...a.data.notification, alert } };
        await a.save(a.data);
        await this.#record({
          ...baseRecord(
            olderData,
            (olderData.attemptsBefore ?? 0) + older.attemptsMade,
            this.#now(),
          ),
          result: "superseded",
          supersededBy: a.data.notification.id,
          detail: `superseded by the newer ${a.data.notification.id}, which carries its changes`,
        });
        await this.#order.forget(notification, [id]);
      }
      if (wait) return { kind: "wait" };
      if (a.data.notification.alert.changes.length === 0) {
        return {
          kind: "superseded",
          detail: "its changes cancel out with those of the older notifications it superseded",
        };
      }
    }
    return { kind: "wait" };
  }

  /** Whether notification `id` of `notification`'s order is carried by a bundle not finished yet. */
  async #inBundleUnderWay(notification: Notification, id: string): Promise<boolean> {
    const carrier = await this.#order.carrierIn(notification, id);
    if (carrier === undefined || carrier.ended || carrier.job === id) return false;
    const bundle = await Job.fromId<QueuedDelivery>(
      this.#queues.queueOf(notification),
      carrier.job,
    );
    if (bundle === undefined) return false;
    const state = await bundle.getState();
    return state !== "completed" && state !== "failed" && state !== "unknown";
  }

  /**
   * Ends a notification's place in its order, and hands the turn to the next one at once
   * when it waits for it (rather than when its wait for the turn runs out).
   */
  async #done(a: Attempt, delivered: boolean): Promise<void> {
    const { notification } = a.data;
    const next = await this.#order.done(notification, delivered, a.job.id);
    if (next === undefined) return;
    const job = await Job.fromId<QueuedDelivery>(this.#queues.queueOf(notification), next);
    // Only one waiting for its turn (never used an attempt); a retry keeps its backoff.
    if (job && attemptsMadeOf(job) === 0 && (await job.getState()) === "delayed") {
      await job.promote().catch(() => undefined);
    }
  }

  /** One attempt: find the channel, skip disabled endpoints, send, disable on 410. */
  async #send(sender: ChannelSender, a: Attempt, startedAt: number): Promise<SendOutcome> {
    const { notification } = a.data;
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
    if (reminder !== undefined && this.#now() - a.queuedAt >= reminder.inMinutes * 60_000) {
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
      attempt: a.attempt,
      ...(a.data.recipients ? { recipients: a.data.recipients } : {}),
      stillMine: (waited) => this.#stillMine(a.job, a.token, waited ? undefined : startedAt),
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
    job: Job<QueuedDelivery>,
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

/** Attempts made at a job's notification, those of the bundle that spun it off included. */
function attemptsMadeOf(job: Job<QueuedDelivery>): number {
  return (isBundle(job.data) ? 0 : (job.data.attemptsBefore ?? 0)) + job.attemptsMade;
}

/** A job as its claims name it (delivery-order.ts). */
function claimingJob(job: Job<QueuedDelivery>): ClaimingJob {
  return { id: job.id as string, keyPrefix: `${job.queueQualifiedName}:` };
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
