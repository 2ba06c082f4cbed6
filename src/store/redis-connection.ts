/**
 * Opening Redis connections: one place that turns `REDIS_URL` into ioredis clients
 * and says clearly, naming the variable, when nothing answers there.
 */
import { Redis, type RedisOptions } from "ioredis";
import { ErrorCode, FlightwatchError } from "../errors.js";
import { maskUrl } from "../log/mask-url.js";

/** Options of a connection for a purpose. */
export interface ConnectOptions {
  /** BullMQ workers need `null` (retry forever); plain commands fail after 3 tries. */
  forBullmq?: boolean;
  /** Longest wait for the first connection (default 3 s). */
  timeoutMs?: number;
}

/** Connects and checks with PING; throws FW_ERR_REDIS_UNAVAILABLE naming REDIS_URL. */
export async function connectRedis(url: string, options: ConnectOptions = {}): Promise<Redis> {
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    maxRetriesPerRequest: options.forBullmq ? null : 3,
    connectTimeout: options.timeoutMs ?? 3000,
    // First connection: fail fast; once connected, reconnect with a capped backoff.
    retryStrategy: (times) => (connected ? Math.min(times * 200, 2000) : null),
  };
  let connected = false;
  const redis = new Redis(url, redisOptions);
  redis.once("ready", () => {
    connected = true;
  });
  redis.on("error", () => undefined); // reported through failed commands instead
  try {
    await withTimeout(redis.connect(), options.timeoutMs ?? 3000);
    await withTimeout(redis.ping(), options.timeoutMs ?? 3000);
  } catch (err) {
    redis.disconnect();
    const reason = err instanceof Error ? err.message : String(err);
    throw new FlightwatchError(
      ErrorCode.REDIS_UNAVAILABLE,
      `REDIS_URL: no Redis answers at ${maskUrl(url)} (${reason}). Start one (e.g. \`redis-server --daemonize yes\`) or set REDIS_URL to yours.`,
      { cause: err },
    );
  }
  return redis;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Deletes every key matching the pattern (SCAN, never KEYS); resolves to how many. */
export async function deleteByPattern(redis: Redis, pattern: string): Promise<number> {
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== "0");
  return deleted;
}
