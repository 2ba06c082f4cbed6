/**
 * Drives polls with a BullMQ Job Scheduler: every process upserts the same
 * scheduler (`upsertJobScheduler`, one job per `POLL_INTERVAL` tick) and runs a
 * worker for it. The queue's global concurrency is 1, so across any number of
 * processes exactly one poll runs at a time and a poll never overlaps the one
 * before; a tick that comes while a poll runs waits for it. A process killed in the
 * middle of a poll leaves its job stalled: BullMQ hands it to another worker after
 * the lock expires, and the re-run is harmless because a poll commits atomically and
 * refuses to commit over another's work (see DetectionStore.commit).
 */
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Detector, PollReport } from "./detector.js";

/** Name of the poll queue (and of its job scheduler). */
export const POLL_QUEUE = "poll";

export interface PollSchedulerOptions {
  /** A connection for BullMQ (`maxRetriesPerRequest: null`); the caller closes it. */
  connection: Redis;
  /** The hash-tagged key prefix (RedisKeys.prefix). */
  prefix: string;
  /** What runs a poll (a Detector). */
  detector: Pick<Detector, "poll">;
  intervalMs: number;
  /** Hears every poll's report. */
  onPoll?: (report: PollReport) => void;
  /** Hears errors of the worker itself (Redis trouble). */
  onError?: (err: Error) => void;
}

/** A running poll scheduler and worker. */
export class PollScheduler {
  readonly #queue: Queue;
  readonly #worker: Worker;

  private constructor(queue: Queue, worker: Worker) {
    this.#queue = queue;
    this.#worker = worker;
  }

  /** Upserts the scheduler and starts this process's worker. */
  static async start(options: PollSchedulerOptions): Promise<PollScheduler> {
    const { connection, prefix, detector, intervalMs } = options;
    const queue = new Queue(POLL_QUEUE, { connection, prefix });
    // Heard, or BullMQ prints connection errors with console.error.
    queue.on("error", (err) => options.onError?.(err));
    await queue.setGlobalConcurrency(1);
    await queue.upsertJobScheduler(
      POLL_QUEUE,
      { every: intervalMs },
      { name: POLL_QUEUE, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
    // A lock a few intervals long: a killed poller's job is handed on quickly,
    // while a live one renews its lock every half lock.
    const lockDuration = Math.min(Math.max(4 * intervalMs, 2_000), 30_000);
    const worker = new Worker(
      POLL_QUEUE,
      async () => {
        const report = await detector.poll();
        options.onPoll?.(report);
        return {
          outcome: report.outcome,
          mode: report.mode,
          events: report.events.length,
          requests: report.requests,
        };
      },
      {
        connection,
        prefix,
        concurrency: 1,
        lockDuration,
        stalledInterval: lockDuration,
        maxStalledCount: 1,
      },
    );
    worker.on("error", (err) => options.onError?.(err));
    await worker.waitUntilReady();
    return new PollScheduler(queue, worker);
  }

  /** Stops taking ticks, lets a running poll finish, and closes the queue. */
  async close(): Promise<void> {
    await this.#worker.close();
    await this.#queue.close();
  }

  /** Removes the job scheduler (no process polls until one starts again). */
  async removeScheduler(): Promise<void> {
    await this.#queue.removeJobScheduler(POLL_QUEUE);
  }
}
