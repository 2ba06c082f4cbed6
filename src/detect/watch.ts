/**
 * Detection on its own, as `flightwatch watch` runs it: the poll scheduler and
 * worker, plus a consumer of the outbox that hands each change event to `onEvent`
 * and acknowledges it afterwards. Any number of watchers may share one Redis: the
 * polls are shared (one per tick), and watchers in one consumer group share the
 * events; watchers in different groups each get every event.
 */
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { FlightApiClient } from "../api/flight-api-client.js";
import { crashPoint } from "../crash-point.js";
import type { ChangeEvent } from "../diff/change.js";
import { DetectionStore } from "../store/detection-store.js";
import { connectRedis, deleteByPattern } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import type { RedisSettings } from "./detect-config.js";
import { Detector, type DetectorSettings, type PollReport } from "./detector.js";
import { OutboxConsumer, type OutboxEntry } from "./outbox-consumer.js";
import { PollScheduler } from "./poll-scheduler.js";

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
  /** Receives each change event; the event is acknowledged once this resolves. */
  onEvent: (event: ChangeEvent) => void | Promise<void>;
  onPoll?: (report: PollReport) => void;
  onError?: (err: Error) => void;
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

/** Starts watching. Rejects (with FW_ERR_REDIS_UNAVAILABLE) when Redis is not there. */
export async function startWatch(options: WatchOptions): Promise<Watcher> {
  const keys = redisKeys(options.redis.prefix);
  const connections: Redis[] = [];
  const connect = async (forBullmq = false) => {
    const redis = await connectRedis(options.redis.url, { forBullmq });
    connections.push(redis);
    return redis;
  };
  const client = new FlightApiClient(options.client);
  let scheduler: PollScheduler | undefined;
  const close = async () => {
    for (const redis of connections) redis.disconnect();
    await client.close();
  };
  try {
    const consumerRedis = await connect();
    if (options.fresh) await deleteByPattern(consumerRedis, `${keys.prefix}:*`);
    const consumer = new OutboxConsumer({
      redis: consumerRedis,
      keys,
      group: options.group ?? "watch",
      consumer: options.consumer ?? hostname(),
    });
    // The group exists before the first poll, so no event is committed unseen.
    await consumer.ensureGroup();
    if (!options.noPoll) {
      const detector = new Detector({
        client,
        store: new DetectionStore(await connect(), keys),
        settings: options.settings,
        ...(options.now ? { now: options.now } : {}),
      });
      scheduler = await PollScheduler.start({
        connection: await connect(true),
        prefix: keys.prefix,
        detector,
        intervalMs: options.settings.intervalMs,
        ...(options.onPoll ? { onPoll: options.onPoll } : {}),
        ...(options.onError ? { onError: options.onError } : {}),
      });
    }
    let stopping = false;
    const done = (async () => {
      while (!stopping) {
        let entries: OutboxEntry[];
        try {
          entries = await consumer.read();
        } catch (err) {
          if (stopping) break;
          options.onError?.(err instanceof Error ? err : new Error(String(err)));
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        for (const entry of entries) {
          for (const event of entry.value) await options.onEvent(event);
          crashPoint("watch.after-print");
          await consumer.ack([entry.entryId]);
        }
      }
    })();
    return {
      done,
      async stop() {
        stopping = true;
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
