/**
 * flightwatch's connections to a real Redis Cluster (three masters with a replica
 * each, started by the test; bench/support/redis-cluster.ts): a node named without
 * `?cluster` is refused saying so, and a WATCH is ended on the key's own master. The
 * daemon on a cluster — the whole pipeline, a failover, a slot migration — is in the
 * chaos set (test/chaos/cluster-failover.test.ts): its graceful stop on a cluster does
 * not yet always end within the timeline's 15 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, unwatch } from "../../src/store/redis-connection.js";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";

describe("a Redis Cluster", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("names a cluster node given without ?cluster, and ends a WATCH on the key's own master", async () => {
    const plain = cluster.url.replace(/\?cluster=.*$/, "");
    await expect(connectRedis(plain, { timeoutMs: 2_000 })).rejects.toThrow(
      /is a node of a Redis Cluster: add \?cluster to REDIS_URL/,
    );
    const redis = await connectRedis(cluster.url);
    const other = await connectRedis(cluster.url);
    try {
      const key = "{fwtest-unwatch}:k";
      // UNWATCH sent to another master (2 times in 3) would leave the first watch, and
      // the transaction after a write made meanwhile would fail.
      for (let i = 0; i < 10; i++) {
        await redis.watch(key);
        await unwatch(redis, key);
        await other.set(key, `changed meanwhile ${i}`);
        await redis.watch(key);
        expect(await redis.multi().set(key, `mine ${i}`).exec()).not.toBeNull();
      }
      await redis.del(key);
    } finally {
      redis.disconnect();
      other.disconnect();
    }
  });
});
