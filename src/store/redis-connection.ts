/**
 * Opening Redis connections: one place that turns `REDIS_URL` into ioredis clients
 * and says clearly, naming the variable, when nothing answers there or when Redis
 * refuses the password or ACL user in it.
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
  /**
   * Send the commands issued in one turn of the event loop as one write (ioredis's auto
   * pipelining): for a connection that many concurrent requests share (the HTTP API),
   * one system call instead of one per command.
   */
  autoPipelining?: boolean;
}

/**
 * Connects and checks with PING; throws FW_ERR_REDIS_AUTH when Redis refuses the
 * credentials, FW_ERR_REDIS_UNAVAILABLE when nothing answers, both naming REDIS_URL.
 */
export async function connectRedis(url: string, options: ConnectOptions = {}): Promise<Redis> {
  const redisOptions: RedisOptions = {
    lazyConnect: true,
    maxRetriesPerRequest: options.forBullmq ? null : 3,
    connectTimeout: options.timeoutMs ?? 3000,
    enableAutoPipelining: Boolean(options.autoPipelining),
    // First connection: fail fast; once connected, reconnect with a capped backoff.
    retryStrategy: (times) => (connected ? Math.min(times * 200, 2000) : null),
  };
  let connected = false;
  // Before the first connection the commands only say "Connection is closed."; the
  // error event says why (ECONNREFUSED, WRONGPASS, NOAUTH).
  let firstError: Error | undefined;
  const redis = new Redis(url, redisOptions);
  redis.once("ready", () => {
    connected = true;
  });
  redis.on("error", (err: Error) => {
    // Otherwise reported through failed commands.
    if (!connected) firstError ??= err;
  });
  try {
    await withTimeout(redis.connect(), options.timeoutMs ?? 3000);
    await withTimeout(redis.ping(), options.timeoutMs ?? 3000);
  } catch (err) {
    redis.disconnect();
    const why = firstError ?? (err instanceof Error ? err : new Error(String(err)));
    const refused = credentialsRefused(why, url);
    if (refused !== undefined) {
      throw new FlightwatchError(
        ErrorCode.REDIS_AUTH,
        `REDIS_URL: the Redis at ${maskUrl(url)} ${refused}`,
        { cause: why },
      );
    }
    throw new FlightwatchError(
      ErrorCode.REDIS_UNAVAILABLE,
      `REDIS_URL: no Redis answers at ${maskUrl(url)} (${why.message}). Start one (e.g. \`redis-server --daemonize yes\`) or set REDIS_URL to yours.`,
      { cause: why },
    );
  }
  return redis;
}

/**
 * What Redis said about the credentials, for a message, or undefined when the failure
 * is something else. Redis's replies quote no secret.
 */
function credentialsRefused(err: Error, url: string): string | undefined {
  const reply = err.message;
  let user = "";
  try {
    user = decodeURIComponent(new URL(url).username);
  } catch {
    // checked before: REDIS_URL is a URL
  }
  if (/^NOAUTH\b/.test(reply)) {
    return `requires a password, and REDIS_URL has none (${reply}): put it in the URL, redis://:password@host:6379 (or redis://user:password@host:6379 for an ACL user)`;
  }
  if (/^WRONGPASS\b|^ERR invalid (?:password|username-password)/.test(reply)) {
    return user === "" || user === "default"
      ? `refused the password in REDIS_URL (${reply}): check it (redis://:password@host:6379)`
      : `refused the ACL user "${user}" or its password in REDIS_URL (${reply}): check both (redis://user:password@host:6379)`;
  }
  if (/^NOPERM\b/.test(reply)) {
    return `accepted the ACL user "${user || "default"}" but does not let it run flightwatch's commands (${reply}): grant it access to the prefix's keys and commands`;
  }
  return undefined;
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
