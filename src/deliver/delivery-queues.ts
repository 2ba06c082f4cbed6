/**
 * The delivery queues: one BullMQ queue per channel type (so each type has its own
 * workers and concurrency) in each delivery shard (see redis-keys.ts: a notification's
 * shard is its order's, so every notification of one rule, flight and channel is in one
 * queue), one job per notification. The job id is the notification
 * id, and a deduplication key of the same id outlives the job: enqueueing the same
 * notification again — after a crash between enqueue and acknowledging the alert —
 * adds nothing. Failed jobs are the dead letters: they keep their reason and can be
 * sent again under the same id.
 */
import { Job, Queue } from "bullmq";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { attemptsOf, type RetrySchedule } from "../rules/retry-schedule.js";
import { CHANNEL_TYPES } from "../rules/rule.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { DeliveryOrder, orderOf } from "./delivery-order.js";
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
}

/** A notification whose delivery gave up, as `deliveries` lists it. */
export interface DeadLetter {
  id: string;
  type: ChannelType;
  ruleId: string;
  channel: string;
  flight: string;
  destination: string;
  reason: DeliveryFailureReason | "unknown";
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
  readonly #queues = new Map<ChannelType, Queue<DeliveryJob>[]>();
  readonly #options: Required<DeliveryQueuesOptions>;
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #order: DeliveryOrder;

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
      const shards: Queue<DeliveryJob>[] = [];
      for (let shard = 0; shard < keys.deliveryShards; shard++) {
        const queue = new Queue<DeliveryJob>(queueName(type, shard), {
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
  queue(type: ChannelType, shard = 0): Queue<DeliveryJob> {
    const queue = this.#queues.get(type)?.[shard];
    if (queue === undefined) throw new RangeError(`no ${type} queue in delivery shard ${shard}`);
    return queue;
  }

  /** The queue a notification goes to: its type's, in its order's shard (redis-keys.ts). */
  queueOf(notification: Notification): Queue<DeliveryJob> {
    return this.queue(notification.type, this.#keys.shardOf(orderOf(notification)));
  }

  /** The queues of a channel type, one per delivery shard. */
  queuesOf(type: ChannelType): Queue<DeliveryJob>[] {
    return this.#queues.get(type) ?? [];
  }

  /** Every queue, of every channel type and shard (read-only use: the ops dashboard). */
  all(): Queue<DeliveryJob>[] {
    return [...this.#queues.values()].flat();
  }

  /**
   * Adds jobs (a notification already enqueued is left as it is). Each takes its place
   * in the order of its rule, flight and channel first (see delivery-order.ts): a place
   * whose job never came is found out and dropped by the worker of a newer one.
   */
  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    await this.#order.pending(jobs.map((job) => job.notification));
    const byQueue = new Map<Queue<DeliveryJob>, DeliveryJob[]>();
    for (const job of jobs) {
      const queue = this.queueOf(job.notification);
      const list = byQueue.get(queue) ?? [];
      list.push(job);
      byQueue.set(queue, list);
    }
    const { keepCompletedMs, keepFailedMs, dedupMs } = this.#options;
    await Promise.all(
      [...byQueue].map(([queue, list]) =>
        queue.addBulk(
          list.map((data) => ({
            name: data.notification.ruleId,
            data,
            opts: {
              jobId: data.notification.id,
              deduplication: { id: data.notification.id, ttl: dedupMs },
              attempts: attemptsOf(data.retry),
              backoff: { type: SCHEDULE_BACKOFF },
              removeOnComplete: { age: Math.ceil(keepCompletedMs / 1000) },
              removeOnFail: { age: Math.ceil(keepFailedMs / 1000) },
              stackTraceLimit: 0,
            },
          })),
        ),
      ),
    );
  }

  /** Dead letters, newest first, at most `limit` per channel type. */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    const lists = await Promise.all(
      this.all().map(async (queue) => (await queue.getFailed(0, limit - 1)).map(deadLetterOf)),
    );
    // Newest first over every shard, at most `limit` per type.
    const sorted = lists.flat().sort((a, b) => b.failedAt - a.failedAt);
    const perType = new Map<ChannelType, number>();
    return sorted.filter((letter) => {
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
      for (const queue of this.all()) jobs.push(...(await queue.getFailed()));
    } else {
      for (const id of ids) {
        const found = await this.#find(id);
        if (found) jobs.push(found);
        else missing.push(id);
      }
    }
    for (const job of jobs) {
      const state = await job.getState();
      if (state !== "failed" && state !== "completed") {
        missing.push(`${job.id} (${state})`);
        continue;
      }
      await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
      requeued.push(job.id as string);
    }
    return { requeued, missing };
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
          const jobs = await Promise.all(ids.map((id) => Job.fromId<DeliveryJob>(queue, id)));
          for (const job of jobs) {
            if (job === undefined || !replayWanted(job, state, window)) continue;
            found.push({ data: job.data, at: job.finishedOn ?? job.timestamp });
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

  /** Jobs waiting, active, delayed, delivered (kept) and dead, per channel type. */
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
   * and the ids of up to `limit` of them.
   */
  async outstanding(limit = 1_000): Promise<{ count: number; ids: string[] }> {
    const states = ["waiting", "delayed", "active", "prioritized"] as const;
    const per = await Promise.all(
      this.all().map(async (queue) => {
        const [counts, ids] = await Promise.all([
          queue.getJobCounts(...states),
          queue.getRanges([...states], 0, limit - 1),
        ]);
        return { count: Object.values(counts).reduce((a, b) => a + b, 0), ids };
      }),
    );
    return {
      count: per.reduce((sum, p) => sum + p.count, 0),
      ids: per.flatMap((p) => p.ids).slice(0, limit),
    };
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

  async #find(id: string): Promise<Job<DeliveryJob> | undefined> {
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

function replayWanted(
  job: Job<DeliveryJob>,
  state: "completed" | "failed",
  window: ReplayWindow,
): boolean {
  const n = job.data?.notification;
  if (n === undefined) return false;
  // A reminder is about a moment that has passed or is near: never sent again.
  if (n.alert.reminder !== undefined) return false;
  // Completed but never sent: superseded by a newer one, or its subscription ended.
  const returned = job.returnvalue as { superseded?: boolean; cancelled?: boolean } | null;
  if (state === "completed" && (returned?.superseded || returned?.cancelled)) return false;
  if (window.ruleId !== undefined && n.ruleId !== window.ruleId) return false;
  if (window.flight !== undefined) {
    const names = [n.alert.flight.mainFlight, ...n.alert.flight.flightNames];
    if (!names.some((name) => normaliseFlightNumber(name) === window.flight)) return false;
  }
  return true;
}

/** A failed job as a dead letter; the reason is the prefix of its failure message. */
function deadLetterOf(job: Job<DeliveryJob>): DeadLetter {
  const n = job.data.notification;
  const message = job.failedReason ?? "";
  const colon = message.indexOf(": ");
  const reason = /^[a-z_]+$/.test(message.slice(0, colon)) ? message.slice(0, colon) : "unknown";
  return {
    id: n.id,
    type: n.type,
    ruleId: n.ruleId,
    channel: n.channel,
    flight: n.alert.flight.key,
    destination: job.data.destination,
    reason: reason as DeadLetter["reason"],
    detail: reason === "unknown" ? message : message.slice(colon + 2),
    attempts: job.attemptsMade,
    createdAt: job.timestamp,
    failedAt: job.finishedOn ?? job.timestamp,
  };
}
