/**
 * Real Redis for tests: each test gets a connection and a prefix of its own, and
 * every key under that prefix is deleted afterwards, so tests never touch data that
 * is not theirs. Redis must answer on REDIS_URL (default redis://127.0.0.1:6379).
 */
import { randomUUID } from "node:crypto";
import { Cluster, Redis } from "ioredis";
import {
  clusterOf,
  deleteByPattern,
  type RedisConnection,
} from "../../src/store/redis-connection.js";
import { redisKeys } from "../../src/store/redis-keys.js";

/** Redis URL the tests use. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A connection plus a unique prefix; `cleanup()` deletes the prefix's keys and disconnects. */
export interface TestRedis {
  redis: RedisConnection;
  prefix: string;
  cleanup(): Promise<void>;
}

/** Connects to the test Redis (or `url`) with a fresh unique prefix. */
export async function testRedis(label = "test", url = TEST_REDIS_URL): Promise<TestRedis> {
  const cluster = clusterOf(url);
  const redis: RedisConnection =
    cluster === undefined
      ? new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true })
      : new Cluster(cluster.nodes, {
          lazyConnect: true,
          retryDelayOnFailover: 200,
          retryDelayOnTryAgain: 200,
          redisOptions: { ...cluster.options, maxRetriesPerRequest: 1 },
        });
  // A private Redis a test restarts is away now and then: reconnect quietly.
  redis.on("error", () => undefined);
  await redis.connect();
  const prefix = `fwtest-${label}-${randomUUID().slice(0, 8)}`;
  return {
    redis,
    prefix,
    async cleanup() {
      await deleteByPattern(redis, redisKeys(prefix).pattern);
      redis.disconnect();
    },
  };
}

export { deleteByPattern };
