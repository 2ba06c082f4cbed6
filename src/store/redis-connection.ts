/**
 * Opening Redis connections: one place that turns `REDIS_URL` into ioredis clients
 * and says clearly, naming the variable, when nothing answers there or when Redis
 * refuses the password or ACL user in it. A URL with `?cluster` names a seed node of a
 * Redis Cluster (more seeds after it: `?cluster=host:port,host:port`): the client is
 * then ioredis's `Cluster`, which finds the slots' masters, follows MOVED and ASK, and
 * retries through a failover; every key of a deployment carries one hash tag (see
 * redis-keys.ts), so its transactions and scripts stay within one slot.
 */
import { Cluster, type ClusterNode, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
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
export async function connectRedis(
  url: string,
  options: ConnectOptions = {},
): Promise<RedisConnection> {
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
  const cluster = clusterOf(url);
  const redis: RedisConnection =
    cluster === undefined
      ? new Redis(url, redisOptions)
      : new ClosingCluster(cluster.nodes, {
          lazyConnect: true,
          enableAutoPipelining: Boolean(options.autoPipelining),
          // Slots move (a failover, a migration): retry after a moment, as often as a
          // single Redis's reconnects would.
          retryDelayOnFailover: 200,
          retryDelayOnTryAgain: 200,
          retryDelayOnClusterDown: 500,
          maxRedirections: 32,
          clusterRetryStrategy: (times) => (connected ? Math.min(times * 200, 2000) : null),
          // Over TLS (`rediss://`), nodes are reached by the names the cluster gives, not
          // by addresses looked up beforehand, so that each certificate is checked against
          // its host name (ioredis's advice for managed clusters such as ElastiCache).
          ...(cluster.options.tls
            ? {
                dnsLookup: (address: string, callback: (err: null, address: string) => void) =>
                  callback(null, address),
              }
            : {}),
          redisOptions: {
            ...cluster.options,
            maxRetriesPerRequest: redisOptions.maxRetriesPerRequest ?? null,
            connectTimeout: redisOptions.connectTimeout as number,
          },
        });
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
    // A cluster's node named without `?cluster` would answer every key with MOVED.
    if (cluster === undefined && (await clusterEnabled(redis as Redis))) {
      redis.disconnect();
      throw new FlightwatchError(
        ErrorCode.REDIS_UNAVAILABLE,
        `REDIS_URL: ${maskUrl(url)} is a node of a Redis Cluster: add ?cluster to REDIS_URL (${maskUrl(url)}?cluster; see docs/operations.md, "Redis Cluster")`,
      );
    }
  } catch (err) {
    if (err instanceof FlightwatchError) throw err;
    redis.disconnect();
    const caught = firstError ?? (err instanceof Error ? err : new Error(String(err)));
    // A cluster says why a node refused in the error it wraps.
    const why = (caught as Error & { lastNodeError?: Error }).lastNodeError ?? caught;
    if (/cluster support disabled/i.test(why.message)) {
      throw new FlightwatchError(
        ErrorCode.REDIS_UNAVAILABLE,
        `REDIS_URL: the Redis at ${maskUrl(url)} is not a cluster node (${why.message}): remove ?cluster from REDIS_URL`,
        { cause: why },
      );
    }
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

/** Whether a single connection's server is a cluster node (INFO refused: taken as not). */
async function clusterEnabled(redis: Redis): Promise<boolean> {
  try {
    return /cluster_enabled:1/.test(await redis.info("cluster"));
  } catch {
    return false;
  }
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
export async function deleteByPattern(redis: RedisConnection, pattern: string): Promise<number> {
  // SCAN goes to one server: on a cluster, to each master. The keys found on a master
  // may be in several slots (a deployment's delivery shards), so there each is deleted
  // on its own (the commands of a page go out together); one Redis deletes a page at once.
  const cluster = redis instanceof Cluster ? redis : undefined;
  const servers = cluster ? cluster.nodes("master") : [redis];
  let deleted = 0;
  for (const server of servers) {
    let cursor = "0";
    do {
      const [next, keys] = await server.scan(cursor, "MATCH", pattern, "COUNT", 500);
      cursor = next;
      if (keys.length === 0) continue;
      if (!cluster) {
        deleted += await redis.del(...keys);
        continue;
      }
      const counts = await Promise.all(keys.map((key) => redis.del(key)));
      deleted += counts.reduce((sum, n) => sum + n, 0);
    } while (cursor !== "0");
  }
  return deleted;
}

/** A connection to one Redis, or to a Redis Cluster (`?cluster` in REDIS_URL). */
export type RedisConnection = Redis | Cluster;

/**
 * Ends a WATCH on `key` without a transaction. UNWATCH names no key, so a cluster would
 * send it to any master, leaving the watch on the key's own (and the next transaction
 * there failing for a write made meanwhile): there an empty transaction on the key
 * ends it instead.
 */
export async function unwatch(redis: RedisConnection, key: string): Promise<void> {
  if (redis instanceof Cluster) await redis.multi().exists(key).exec();
  else await redis.unwatch();
}

/**
 * ioredis's Cluster, closed for good when disconnected. A command waiting in the
 * Cluster's failover retry when `disconnect()` is called is otherwise parked in its
 * offline queue, which nothing flushes again — late node events turn the status from
 * `end` back to `close` — so its promise never settles: BullMQ's `Worker.close()` then
 * waits on its blocking read forever, and a graceful stop after a failover ran out its
 * time. Here a disconnected cluster takes no more commands (they fail at once), and
 * one connected again (BullMQ recovers that way) takes them again; its duplicates (what
 * BullMQ blocks on) are the same.
 */
class ClosingCluster extends Cluster {
  readonly #seeds: ClusterNode[];

  constructor(seeds: ClusterNode[], options: ClusterOptions) {
    super(seeds, options);
    this.#seeds = seeds;
  }

  override connect(): Promise<void> {
    this.options.enableOfflineQueue = true;
    return super.connect();
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.options.enableOfflineQueue = false;
    super.disconnect(reconnect);
  }

  override quit(callback?: (err?: Error | null, result?: "OK") => void): Promise<"OK"> {
    this.options.enableOfflineQueue = false;
    return super.quit(callback);
  }

  override duplicate(
    overrideStartupNodes: ClusterNode[] = [],
    overrideOptions: ClusterOptions = {},
  ): Cluster {
    const nodes = overrideStartupNodes.length > 0 ? overrideStartupNodes : this.#seeds.slice();
    return new ClosingCluster(nodes, { ...this.options, ...overrideOptions });
  }
}

/**
 * The seed nodes and connection options of a cluster URL (`?cluster`, or
 * `?cluster=host:port,host:port` with more seeds), or undefined for one Redis's URL.
 * User, password and TLS (`rediss://`) are every node's.
 */
export function clusterOf(
  url: string,
): { nodes: ClusterNode[]; options: RedisOptions } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const seeds = parsed.searchParams.get("cluster");
  if (seeds === null) return undefined;
  const nodes: ClusterNode[] = [{ host: parsed.hostname, port: Number(parsed.port || 6379) }];
  for (const seed of seeds.split(",")) {
    const text = seed.trim();
    if (text === "" || text === "true" || text === "yes") continue;
    const colon = text.lastIndexOf(":");
    nodes.push(
      colon < 0
        ? { host: text, port: 6379 }
        : { host: text.slice(0, colon), port: Number(text.slice(colon + 1)) },
    );
  }
  const options: RedisOptions = {};
  if (parsed.username !== "") options.username = decodeURIComponent(parsed.username);
  if (parsed.password !== "") options.password = decodeURIComponent(parsed.password);
  if (parsed.protocol === "rediss:") options.tls = {};
  return { nodes, options };
}
