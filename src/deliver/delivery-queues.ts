/**
 * The delivery queues: one BullMQ queue per channel type (so each type has its own
 * workers and concurrency) in each delivery shard (see redis-keys.ts: a notification's
 * shard is its order's, so every notification of one rule, flight and channel is in one
 * queue).
 *
 * The notifier enqueues **bundles**: one job carrying up to BUNDLE_SIZE notifications
 * of a queue, so that BullMQ's work (adding, taking, finishing a job) is paid once per
 * bundle, not once per notification. Each notification notes the bundle that carries it
 * (its *carrier*, delivery-order.ts) before the bundle is added: a bundle enqueued again
 * with some of the same notifications — after a crash between enqueue and acknowledging
 * the alerts — or run again after its worker died leaves them to the job that carries
 * them. What a bundle cannot finish at its first attempt (a notification that must wait
 * for its turn, be tried again, or be dead-lettered) it spins off as a job of its own.
 *
 * A notification's own job is named after it (the job id is the notification id), and
 * a deduplication key of the same id outlives an enqueued one: enqueueing the same
 * notification again adds nothing. Failed jobs are the dead letters: they keep their
 * reason and can be sent again under the same id.
 */
import { randomUUID } from "node:crypto";
import { Job, type JobsOptions, Queue } from "bullmq";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { attemptsOf, type RetrySchedule } from "../rules/retry-schedule.js";
import { CHANNEL_TYPES } from "../rules/rule.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { BUNDLE_ID_PREFIX, DeliveryOrder, orderOf } from "./delivery-order.js";
import { type ChannelType, type Notification, notificationId } from "./notification.js";
import type { DeliveryFailureReason } from "./send-outcome.js";

/** How long a notification id is not enqueued again (and its order kept), by default: 3 days. */
export const DEFAULT_DEDUP_MS = 3 * 86_400_000;

/**
 * The BullMQ queue name of a channel type in a delivery shard: `deliver-webhook` in the
 * first, `deliver-webhook-3` in the fourth (names differ, so that the dashboard tells
 * the shards apart).
 */
export const queueName = (type: ChannelType, shard = 0): string =>
  shard === 0 ? `deliver-${type}` : `deliver-${type}-${shard}`;

/** Name of the custom backoff that follows a job's retry schedule (see delivery-worker.ts). */
export const SCHEDULE_BACKOFF = "schedule";

/** A job's data: the notification, how to retry it, and progress kept across attempts. */
export interface DeliveryJob {
  notification: Notification;
  retry: RetrySchedule;
  /** Masked endpoint, recipients or `stdout`, for records. */
  destination: string;
  /** Email: recipients still to deliver to (absent = all of the channel's `to`). */
  recipients?: string[];
  /** Attempts made in the bundle that spun this job off (numbering and the schedule go on). */
  attemptsBefore?: number;
  /** When the notification was first enqueued (epoch ms; default the job's own timestamp). */
  queuedAt?: number;
  /** Spun off dead: the failure, recorded already; the job fails with it at once, unsent. */
  dead?: string;
}

/** A bundle's data: notifications of one queue, each handled as its own job would be. */
export interface DeliveryBundle {
  bundle: DeliveryJob[];
}

/** What a bundle's completion keeps: the notifications it delivered. */
export interface BundleResult {
  delivered: string[];
}

/** What a delivery queue holds: a notification's own job, or a bundle. */
export type QueuedDelivery = DeliveryJob | DeliveryBundle;

/** Whether a job's data is a bundle. */
export const isBundle = (data: QueuedDelivery): data is DeliveryBundle =>
  Array.isArray((data as Partial<DeliveryBundle>).bundle);

/** Notifications a bundle carries at most. */
export const BUNDLE_SIZE = 50;

/** The size of a bundle from its job id; undefined for a notification's own job. */
function bundleSizeOf(jobId: string): number | undefined {
  if (!jobId.startsWith(BUNDLE_ID_PREFIX)) return undefined;
  const size = Number.parseInt(jobId.slice(BUNDLE_ID_PREFIX.length), 10);
  return Number.isFinite(size) && size > 0 ? size : 1;
}

/** BullMQ job name of bundles (a notification's own job is named after its rule). */
export const BUNDLE_NAME = "bundle";

/** Attempts of a bundle (only Redis trouble fails one; see enqueue). */
export const BUNDLE_ATTEMPTS = 1_000;

/** A job a bundle spins off for one of its notifications, due after `delayMs`. */
export interface SpinOff {
  data: DeliveryJob;
  delayMs: number;
}

/** A notification whose delivery gave up, as `deliveries` lists it. */
export interface DeadLetter {
  id: string;
  type: ChannelType;
  ruleId: string;
  channel: string;
  flight: string;
  destination: string;
  /** `bundle_failed`: its bundle failed for good (Redis refused it) without noting it sent. */
  reason: DeliveryFailureReason | "bundle_failed" | "unknown";
  detail: string;
  attempts: number;
  /** Epoch ms. */
  createdAt: number;
  failedAt: number;
}

/** Retention of finished jobs and of the enqueue deduplication. */
export interface DeliveryQueuesOptions {
  /** Completed jobs are kept this long (default 1 day). */
  keepCompletedMs?: number;
  /** Dead letters are kept this long (default 30 days). */
  keepFailedMs?: number;
  /** A notification id cannot be enqueued again for this long (default 3 days). */
  dedupMs?: number;
  /** Hears the queues' connection errors (default: ignored). */
  onError?: (err: Error) => void;
  /**
   * Read and repair only, never create (default false): the queues write no `meta`
   * key, which BullMQ's Queue otherwise writes on connecting. For `flightwatch
   * deliveries`, whose listing must leave Redis as it found it, even under a prefix no
   * daemon uses.
   */
  readOnly?: boolean;
}

/** The queue side of delivery: enqueue, dead letters, re-sending. */
export class DeliveryQueues {
  /** Each channel type's queues, one per delivery shard. */
  readonly #queues = new Map<ChannelType, Queue<QueuedDelivery>[]>();
  readonly #options: Required<DeliveryQueuesOptions>;
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #order: DeliveryOrder;
  /**
   * The notifications of the bundles the last `outstanding` read (a bundle's never
   * change): a look every second reads each waiting bundle once, not at every look.
   */
  #bundled = new Map<string, readonly Notification[]>();

  /** `connection` is shared by the queues (plain commands only). */
  constructor(connection: RedisConnection, keys: RedisKeys, options: DeliveryQueuesOptions = {}) {
    this.#connection = connection;
    this.#keys = keys;
    this.#options = {
      onError: options.onError ?? (() => undefined),
      readOnly: options.readOnly ?? false,
      keepCompletedMs: options.keepCompletedMs ?? 86_400_000,
      keepFailedMs: options.keepFailedMs ?? 30 * 86_400_000,
      dedupMs: options.dedupMs ?? DEFAULT_DEDUP_MS,
    };
    this.#order = new DeliveryOrder(connection, keys, this.#options.dedupMs);
    for (const type of CHANNEL_TYPES) {
      const shards: Queue<QueuedDelivery>[] = [];
      for (let shard = 0; shard < keys.deliveryShards; shard++) {
        const queue = new Queue<QueuedDelivery>(queueName(type, shard), {
          connection,
          prefix: keys.queuePrefixOf(shard),
          ...(this.#options.readOnly ? { skipMetasUpdate: true } : {}),
        });
        // Unheard, BullMQ prints a connection error with console.error (multi-line, not
        // a log line); the failing commands report the trouble to their callers anyway.
        queue.on("error", (err) => options.onError?.(err));
        shards.push(queue);
      }
      this.#queues.set(type, shards);
    }
  }

  /** The queue of a channel type in a delivery shard (the first by default). */
  queue(type: ChannelType, shard = 0): Queue<QueuedDelivery> {
    const queue = this.#queues.get(type)?.[shard];
    if (queue === undefined) throw new RangeError(`no ${type} queue in delivery shard ${shard}`);
    return queue;
  }

  /** The queue a notification goes to: its type's, in its order's shard (redis-keys.ts). */
  queueOf(notification: Notification): Queue<QueuedDelivery> {
    return this.queue(notification.type, this.#keys.shardOf(orderOf(notification)));
  }

  /** The queues of a channel type, one per delivery shard. */
  queuesOf(type: ChannelType): Queue<QueuedDelivery>[] {
    return this.#queues.get(type) ?? [];
  }

  /** Every queue, of every channel type and shard (read-only use: the ops dashboard). */
  all(): Queue<QueuedDelivery>[] {
    return [...this.#queues.values()].flat();
  }

  /**
   * Adds notifications (one already enqueued is left as it is): in bundles
   * (`bundled`: the notifier), or each as a job of its own (replays, re-sends). Each takes its
   * place in the order of its rule, flight and channel first (see delivery-order.ts): a
   * place whose job never came is found out and dropped by the worker of a newer one.
   */
  async enqueue(jobs: readonly DeliveryJob[], options: { bundled?: boolean } = {}): Promise<void> {
    const byQueue = this.#byQueue(jobs, (job) => job.notification);
    if (options.bundled !== true) {
      await this.#order.pending(jobs.map((job) => job.notification));
      await Promise.all(
        [...byQueue].map(([queue, list]) =>
          queue.addBulk(list.map((data) => this.#ownJob(data, 0, true))),
        ),
      );
      return;
    }
    const bundles: { queue: Queue<QueuedDelivery>; id: string; list: DeliveryJob[] }[] = [];
    const carriers = new Map<string, string>();
    for (const [queue, all] of byQueue) {
      // Once each: an alert read twice (a dispatcher run again) is one notification.
      const seen = new Set<string>();
      const list = all.filter(
        (job) => !seen.has(job.notification.id) && seen.add(job.notification.id),
      );
      for (let i = 0; i < list.length; i += BUNDLE_SIZE) {
        const part = list.slice(i, i + BUNDLE_SIZE);
        // Its size in its id: what is outstanding is counted without reading it.
        const id = `${BUNDLE_ID_PREFIX}${part.length}_${randomUUID()}`;
        for (const job of part) carriers.set(job.notification.id, id);
        bundles.push({ queue, id, list: part });
      }
    }
    // Carriers first: a bundle taken at once finds its notifications noted as its own.
    await this.#order.pending(
      bundles.flatMap((b) => b.list.map((job) => job.notification)),
      carriers,
    );
    await Promise.all(
      bundles.map(({ queue, id, list }) =>
        queue.add(
          BUNDLE_NAME,
          { bundle: list },
          {
            jobId: id,
            // A bundle fails only when Redis does: it is run again, and what it finished is
            // not done twice.
            attempts: BUNDLE_ATTEMPTS,
            ...this.#jobDefaults(),
          },
        ),
      ),
    );
  }

  /**
   * Adds the jobs a bundle spun off, each under its notification's id (one already there
   * is left as it is), and hands the notifications to them.
   */
  async spinOff(jobs: readonly SpinOff[]): Promise<void> {
    await this.#addOwn(jobs);
    await this.#order.carry(jobs.map((job) => job.data.notification));
  }

  /** Adds jobs of their own, one addBulk per queue (one already there is left as it is). */
  async #addOwn(jobs: readonly SpinOff[]): Promise<void> {
    const byQueue = this.#byQueue(jobs, (job) => job.data.notification);
    await Promise.all(
      [...byQueue].map(([queue, list]) =>
        queue.addBulk(list.map(({ data, delayMs }) => this.#ownJob(data, delayMs, false))),
      ),
    );
  }

  /** Adds a job of its own that sends a notification again from the start, at once. */
  async #addAfresh(data: DeliveryJob): Promise<void> {
    const own = this.#ownJob(sentAfresh(data), 0, false);
    await this.queueOf(data.notification).add(own.name, own.data, own.opts);
  }

  /**
   * Makes what a bundle that failed for good left to no job (see #stranded) dead letters
   * of their own: listed with the reason `bundle_failed` and kept as long as any dead
   * letter, not only while carriers are. Resolves to how many. The worker calls it when
   * a bundle fails for good.
   */
  async deadLetterStranded(bundle: Job<DeliveryBundle>): Promise<number> {
    const stranded = await this.#stranded(bundle);
    // Handed over first, and only while the bundle still carries each: one that a
    // `retry` meanwhile sent (or another job took) is left as it is. A refused add
    // then leaves it handed to a job that never came, which #stranded still finds.
    const handed = await this.#order.handOver(
      stranded.map((data) => data.notification),
      bundle.id as string,
    );
    const dead = `bundle_failed: ${strandedDetail(bundle)}`;
    const letters = stranded.filter((_, i) => handed[i]);
    await this.#addOwn(letters.map((data) => ({ data: { ...data, dead }, delayMs: 0 })));
    return letters.length;
  }

  /**
   * Runs deadLetterStranded over every bundle that failed for good and is still kept:
   * what the worker could not do when a bundle failed (Redis refusing that too) is done
   * once Redis takes writes again. Resolves to the dead letters made, by bundle id.
   */
  async sweepFailedBundles(): Promise<Map<string, number>> {
    const made = new Map<string, number>();
    for (const bundle of await this.#failedBundles()) {
      const count = await this.deadLetterStranded(bundle);
      if (count > 0) made.set(bundle.id as string, count);
    }
    return made;
  }

  /** Bundles that failed for good and are still kept (their ids, then their jobs). */
  async #failedBundles(): Promise<Job<DeliveryBundle>[]> {
    const found: Job<DeliveryBundle>[] = [];
    for (const queue of this.all()) {
      // Ids only: the failed set also holds every dead letter of its own.
      const ids = (await this.#connection.zrange(queue.toKey("failed"), 0, -1)).filter((id) =>
        id.startsWith(BUNDLE_ID_PREFIX),
      );
      const jobs = await Promise.all(ids.map((id) => Job.fromId<QueuedDelivery>(queue, id)));
      for (const job of jobs) {
        if (job !== undefined && isBundle(job.data)) found.push(job as Job<DeliveryBundle>);
      }
    }
    return found;
  }

  /** A notification's own job: named after it, on its retry schedule. */
  #ownJob(
    data: DeliveryJob,
    delayMs: number,
    deduplicate: boolean,
  ): { name: string; data: DeliveryJob; opts: JobsOptions } {
    const id = data.notification.id;
    return {
      name: data.notification.ruleId,
      data,
      opts: {
        jobId: id,
        ...(deduplicate ? { deduplication: { id, ttl: this.#options.dedupMs } } : {}),
        ...(delayMs > 0 ? { delay: delayMs } : {}),
        attempts: attemptsOf(data.retry),
        ...this.#jobDefaults(),
      },
    };
  }

  /** What every delivery job has: the schedule's backoff, and how long it is kept. */
  #jobDefaults(): JobsOptions {
    const { keepCompletedMs, keepFailedMs } = this.#options;
    return {
      backoff: { type: SCHEDULE_BACKOFF },
      removeOnComplete: { age: Math.ceil(keepCompletedMs / 1000) },
      removeOnFail: { age: Math.ceil(keepFailedMs / 1000) },
      stackTraceLimit: 0,
    };
  }

  /** Items grouped by the queue of their notification. */
  #byQueue<T>(
    items: readonly T[],
    notificationOf: (item: T) => Notification,
  ): Map<Queue<QueuedDelivery>, T[]> {
    const byQueue = new Map<Queue<QueuedDelivery>, T[]>();
    for (const item of items) {
      const queue = this.queueOf(notificationOf(item));
      const list = byQueue.get(queue) ?? [];
      list.push(item);
      byQueue.set(queue, list);
    }
    return byQueue;
  }

  /**
   * Dead letters, newest first, at most `limit` per channel type. A bundle that failed
   * for good (Redis refused its writes through all its attempts) counts its unfinished
   * notifications among them (see #stranded).
   */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    const lists = await Promise.all(
      this.all().map(async (queue) => {
        const letters: DeadLetter[] = [];
        for (const job of await queue.getFailed(0, limit - 1)) {
          if (isOwnJob(job)) letters.push(deadLetterOf(job));
          else {
            const bundle = job as Job<DeliveryBundle>;
            for (const data of await this.#stranded(bundle)) {
              letters.push(strandedLetterOf(bundle, data));
            }
          }
        }
        return letters;
      }),
    );
    // Newest first over every shard, at most `limit` per type (and each once: two
    // bundles of one notification, after a notifier crash, may both have failed).
    const sorted = lists.flat().sort((a, b) => b.failedAt - a.failedAt);
    const perType = new Map<ChannelType, number>();
    const listed = new Set<string>();
    return sorted.filter((letter) => {
      if (listed.has(letter.id)) return false;
      listed.add(letter.id);
      const taken = perType.get(letter.type) ?? 0;
      perType.set(letter.type, taken + 1);
      return taken < limit;
    });
  }

  /**
   * Sends finished notifications again under the same id: each listed id (a dead
   * letter, or a delivered one still kept), or with `all`, every dead letter.
   * Resolves to the ids requeued and those not found.
   */
  async retry(ids: readonly string[] | "all"): Promise<{ requeued: string[]; missing: string[] }> {
    const requeued: string[] = [];
    const missing: string[] = [];
    const jobs: Job<DeliveryJob>[] = [];
    if (ids === "all") {
      for (const queue of this.all()) {
        for (const job of await queue.getFailed()) {
          if (isOwnJob(job)) jobs.push(job);
          else {
            // Added without handing it over first: its CLAIM takes it from the failed
            // bundle, and a refused add leaves it listed for the next retry.
            for (const data of await this.#stranded(job as Job<DeliveryBundle>)) {
              await this.#addAfresh(data);
              if (!requeued.includes(data.notification.id)) requeued.push(data.notification.id);
            }
          }
        }
      }
    } else {
      for (const id of ids) {
        const found = await this.#find(id);
        if (found && isOwnJob(found)) jobs.push(found);
        else if (await this.#requeueBundled(id)) requeued.push(id);
        else if (await this.#requeueHandedOver(id)) requeued.push(id);
        else missing.push(id);
      }
    }
    for (const job of jobs) {
      const state = await job.getState();
      if (state !== "failed" && state !== "completed") {
        missing.push(`${job.id} (${state})`);
        continue;
      }
      // Sent again from the start: the attempts of a bundle and a dead letter's end go.
      if (job.data.dead !== undefined || job.data.attemptsBefore !== undefined) {
        await job.updateData(sentAfresh(job.data));
      }
      // Its own job carries it again (it ended it, or a bundle did).
      await this.#order.carry([job.data.notification]);
      await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
      requeued.push(job.id as string);
    }
    return { requeued, missing };
  }

  /**
   * Sends again a notification a finished bundle carried (and did not spin off), as a
   * job of its own; false when no finished bundle carried it.
   */
  async #requeueBundled(id: string): Promise<boolean> {
    const carrier = await this.#order.carrierOf(id);
    if (carrier === undefined) return false;
    const bundle = await this.#find(carrier.job);
    if (bundle === undefined || !isBundle(bundle.data)) return false;
    const state = await bundle.getState();
    const data = bundle.data.bundle.find((d) => d.notification.id === id);
    if (data === undefined || (state !== "completed" && state !== "failed")) return false;
    // Its own job carries it before it exists: a worker taking it at once sends it. One
    // a failed bundle did not end needs no hand-over (CLAIM takes it from the bundle),
    // and is then left listed if Redis refuses the add.
    if (carrier.ended || state !== "failed") await this.#order.carry([data.notification]);
    await this.#addAfresh(data);
    return true;
  }

  /**
   * Sends again, in a job of its own, a notification a failed bundle handed to a job of
   * its own that never came (its carrier names that job; no such job): the bundle that
   * carried it is looked for among those that failed. False when none has it.
   */
  async #requeueHandedOver(id: string): Promise<boolean> {
    const carrier = await this.#order.carrierOf(id);
    if (carrier === undefined || carrier.ended || carrier.job !== id) return false;
    for (const bundle of await this.#failedBundles()) {
      if (!bundle.data.bundle.some((d) => d.notification.id === id)) continue;
      const data = (await this.#stranded(bundle)).find((d) => d.notification.id === id);
      if (data === undefined) continue;
      await this.#addAfresh(data);
      return true;
    }
    return false;
  }

  /**
   * The notifications a failed bundle left to no job: those it still carries (neither
   * ended nor spun off), or handed to a job of their own that was never added (a
   * `retry` that Redis refused halfway), and that have no job of their own. A bundle
   * fails for good only after BUNDLE_ATTEMPTS runs that Redis refused; what it had not
   * ended would otherwise be forgotten by its order (delivery-worker.ts, #takeTurn)
   * and listed nowhere. One with a job of its own is that job's: sent by it (CLAIM
   * takes it from a failed bundle), or listed as its dead letter. Known while the
   * carriers are kept (`dedupMs`, 3 days).
   */
  async #stranded(bundle: Job<DeliveryBundle>): Promise<DeliveryJob[]> {
    const list = bundle.data.bundle;
    const carriers = await this.#order.carriers(list.map((data) => data.notification));
    const candidates = list.filter((data, i) => {
      const carrier = carriers[i];
      return (
        carrier !== undefined &&
        !carrier.ended &&
        (carrier.job === bundle.id || carrier.job === data.notification.id)
      );
    });
    const own = await Promise.all(
      candidates.map((data) => Job.fromId(this.queueOf(data.notification), data.notification.id)),
    );
    return candidates.filter((_, i) => own[i] === undefined);
  }

  /**
   * What can be sent again: the notifications delivered (completed jobs, but not those
   * superseded or cancelled, which were never sent) or dead-lettered whose job ended
   * between `since` and `until` (epoch ms) and is still kept — of one rule, or about one
   * flight number (operating or codeshare, normal form), when asked — oldest first.
   */
  async replayable(window: ReplayWindow): Promise<DeliveryJob[]> {
    // Only what is kept of each job (its data, when it ended), one page at a time.
    const found: { data: DeliveryJob; at: number }[] = [];
    const originals = new Set<string>();
    for (const queue of this.all()) {
      for (const state of ["completed", "failed"] as const) {
        for (let offset = 0; ; offset += REPLAY_READ_BATCH) {
          // BullMQ scores finished jobs by when they finished.
          const ids = await this.#connection.zrangebyscore(
            queue.toKey(state),
            window.since,
            window.until,
            "LIMIT",
            offset,
            REPLAY_READ_BATCH,
          );
          const jobs = await Promise.all(ids.map((id) => Job.fromId<QueuedDelivery>(queue, id)));
          for (const job of jobs) {
            if (job === undefined) continue;
            const at = job.finishedOn ?? job.timestamp;
            if (!isBundle(job.data)) {
              const returned = job.returnvalue as {
                superseded?: boolean;
                cancelled?: boolean;
              } | null;
              // Completed but never sent: superseded by a newer one, or its subscription ended.
              const sent = state === "failed" || !(returned?.superseded || returned?.cancelled);
              if (sent && replayWanted(job.data, window)) found.push({ data: job.data, at });
              continue;
            }
            // A bundle: the notifications it delivered itself (the others went on in jobs of their own).
            const delivered = new Set((job.returnvalue as BundleResult | null)?.delivered ?? []);
            for (const data of job.data.bundle) {
              if (delivered.has(data.notification.id) && replayWanted(data, window)) {
                found.push({ data, at });
              }
            }
          }
          if (ids.length < REPLAY_READ_BATCH) break;
        }
      }
    }
    found.sort((a, b) => a.at - b.at);
    // Each original once: an earlier replay in the window is the same notification again.
    const out: DeliveryJob[] = [];
    for (const { data } of found) {
      const original = data.notification.replayOf ?? data.notification.id;
      if (originals.has(original)) continue;
      originals.add(original);
      out.push(data);
    }
    return out;
  }

  /**
   * Sends notifications again under new ids, marked as replays of theirs (each run of a
   * replay makes new ids: `run` tells them apart). Resolves to the new notification ids.
   */
  async replay(jobs: readonly DeliveryJob[], run: string): Promise<string[]> {
    const replays = jobs.map((job): DeliveryJob => {
      const original = job.notification;
      const notification = {
        ...original,
        id: notificationId(`${original.id}\nreplay\n${run}`, original.channel),
        replayOf: original.replayOf ?? original.id,
      };
      // Every recipient again (a retry's `recipients` were those still to go then).
      return { notification, retry: job.retry, destination: job.destination };
    });
    for (let i = 0; i < replays.length; i += REPLAY_ENQUEUE_BATCH) {
      await this.enqueue(replays.slice(i, i + REPLAY_ENQUEUE_BATCH));
    }
    return replays.map((job) => job.notification.id);
  }

  /** Jobs (a bundle counts once) waiting, active, delayed, finished (kept) and dead, per channel type. */
  async counts(): Promise<Record<ChannelType, Record<string, number>>> {
    const entries = await Promise.all(
      CHANNEL_TYPES.map(async (type) => {
        const perShard = await Promise.all(
          this.queuesOf(type).map((queue) =>
            queue.getJobCounts("waiting", "active", "delayed", "completed", "failed"),
          ),
        );
        const sum: Record<string, number> = {};
        for (const counts of perShard) {
          for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
        }
        return [type, sum] as const;
      }),
    );
    return Object.fromEntries(entries) as Record<ChannelType, Record<string, number>>;
  }

  /**
   * Notifications not yet delivered nor dead (waiting, retrying, being sent): how many,
   * and the ids of up to `limit` of them. A bundle's are those it still carries (not
   * ended, not spun off), read for as many bundles as fill `limit` ids (each bundle's
   * notifications once while it is outstanding); a bundle beyond that counts as many as
   * it was enqueued with.
   */
  async outstanding(limit = 1_000): Promise<{ count: number; ids: string[] }> {
    const states = ["waiting", "delayed", "active", "prioritized"] as const;
    const seen = new Map<string, readonly Notification[]>();
    let count = 0;
    const ids: string[] = [];
    for (const queue of this.all()) {
      const [counts, jobIds] = await Promise.all([
        queue.getJobCounts(...states),
        queue.getRanges([...states], 0, limit - 1),
      ]);
      count += Object.values(counts).reduce((a, b) => a + b, 0);
      for (const id of jobIds) {
        const size = bundleSizeOf(id);
        if (size === undefined) {
          ids.push(id);
          continue;
        }
        if (ids.length >= limit) {
          count += size - 1;
          continue;
        }
        let notifications = this.#bundled.get(id);
        if (notifications === undefined) {
          const job = await Job.fromId<QueuedDelivery>(queue, id);
          if (job !== undefined && isBundle(job.data)) {
            notifications = job.data.bundle.map((d) => d.notification);
          }
        }
        if (notifications !== undefined) seen.set(id, notifications);
        const carried = notifications ? await this.#carriedBy(id, notifications) : [];
        count += carried.length - 1;
        ids.push(...carried);
      }
    }
    this.#bundled = seen;
    return { count, ids: ids.slice(0, limit) };
  }

  /** The notifications of a bundle that it still carries (not ended there, not spun off). */
  async #carriedBy(bundleId: string, notifications: readonly Notification[]): Promise<string[]> {
    const carriers = await this.#order.carriers(notifications);
    return notifications
      .filter((_, i) => {
        const carrier = carriers[i];
        return carrier === undefined || (carrier.job === bundleId && !carrier.ended);
      })
      .map((n) => n.id);
  }

  /**
   * Moves every notification waiting to retry `byMs` earlier: after the wall clock was
   * stepped back by that much, BullMQ (whose due times are instants of the wall clock)
   * would otherwise hold each one back as long. Resolves to how many were moved.
   */
  async shiftDelayed(byMs: number): Promise<number> {
    let moved = 0;
    for (const queue of this.all()) {
      // BullMQ scores a delayed job by its due instant × 4096 (plus an order within the ms).
      const delayed = queue.keys.delayed ?? queue.toKey("delayed");
      const entries = await this.#connection.zrange(delayed, 0, -1, "WITHSCORES");
      const now = Date.now();
      for (let i = 0; i + 1 < entries.length; i += 2) {
        const job = await queue.getJob(entries[i] as string);
        const due = Math.floor(Number(entries[i + 1]) / 0x1000);
        if (!job || !Number.isFinite(due)) continue;
        // A job promoted or taken meanwhile is not delayed any more: nothing to move.
        const changed = await job.changeDelay(Math.max(0, due - byMs - now)).then(
          () => true,
          () => false,
        );
        if (changed) moved++;
      }
    }
    return moved;
  }

  /** The queues' `meta` keys: one exists for every queue a daemon has opened. */
  metaKeys(): string[] {
    return this.all().map((queue) => queue.toKey("meta"));
  }

  /** Closes the queues (not the shared connection). */
  async close(): Promise<void> {
    await Promise.all(this.all().map((q) => q.close()));
  }

  async #find(id: string): Promise<Job<QueuedDelivery> | undefined> {
    for (const queue of this.all()) {
      const job = await queue.getJob(id);
      if (job) return job;
    }
    return undefined;
  }
}

/** Which finished notifications `replayable` takes. */
export interface ReplayWindow {
  /** Epoch ms, both inclusive. */
  since: number;
  until: number;
  ruleId?: string;
  /** A flight number in normal form (`KL1001`): the operating one or any codeshare. */
  flight?: string;
}

/** Jobs read from Redis at a time while looking for what to replay. */
const REPLAY_READ_BATCH = 500;
/** Replays enqueued at a time (one `addBulk` each). */
const REPLAY_ENQUEUE_BATCH = 1000;

function replayWanted(data: DeliveryJob, window: ReplayWindow): boolean {
  const n = data?.notification;
  if (n === undefined) return false;
  // A reminder is about a moment that has passed or is near: never sent again.
  if (n.alert.reminder !== undefined) return false;
  if (window.ruleId !== undefined && n.ruleId !== window.ruleId) return false;
  if (window.flight !== undefined) {
    const names = [n.alert.flight.mainFlight, ...n.alert.flight.flightNames];
    if (!names.some((name) => normaliseFlightNumber(name) === window.flight)) return false;
  }
  return true;
}

/** A notification's data to send again from the start: no attempts before, no dead end. */
function sentAfresh(data: DeliveryJob): DeliveryJob {
  const { dead: _dead, attemptsBefore: _before, ...fresh } = data;
  return fresh;
}

/** Whether a job is a notification's own (not a bundle). */
function isOwnJob(job: Job<QueuedDelivery>): job is Job<DeliveryJob> {
  return !isBundle(job.data);
}

/** What a dead letter says of its notification. */
function letterOf(data: DeliveryJob): Pick<DeadLetter, LetterFields> {
  const n = data.notification;
  return {
    id: n.id,
    type: n.type,
    ruleId: n.ruleId,
    channel: n.channel,
    flight: n.alert.flight.key,
    destination: data.destination,
  };
}
type LetterFields = "id" | "type" | "ruleId" | "channel" | "flight" | "destination";

/** Why a notification a failed bundle left unfinished is a dead letter. */
function strandedDetail(bundle: Job<DeliveryBundle>): string {
  return `its bundle ${bundle.id} failed for good (${bundle.attemptsMade} runs) without noting it sent: ${bundle.failedReason ?? "no reason given"}`;
}

/** A notification a failed bundle left unfinished, as a dead letter. */
function strandedLetterOf(bundle: Job<DeliveryBundle>, data: DeliveryJob): DeadLetter {
  return {
    ...letterOf(data),
    reason: "bundle_failed",
    detail: strandedDetail(bundle),
    attempts: data.attemptsBefore ?? 0,
    createdAt: data.queuedAt ?? bundle.timestamp,
    failedAt: bundle.finishedOn ?? bundle.timestamp,
  };
}

/** A failed job as a dead letter; the reason is the prefix of its failure message. */
function deadLetterOf(job: Job<DeliveryJob>): DeadLetter {
  const message = job.failedReason ?? "";
  const colon = message.indexOf(": ");
  const reason = /^[a-z_]+$/.test(message.slice(0, colon)) ? message.slice(0, colon) : "unknown";
  return {
    ...letterOf(job.data),
    reason: reason as DeadLetter["reason"],
    detail: reason === "unknown" ? message : message.slice(colon + 2),
    attempts: (job.data.attemptsBefore ?? 0) + job.attemptsMade,
    createdAt: job.data.queuedAt ?? job.timestamp,
    failedAt: job.finishedOn ?? job.timestamp,
  };
}
