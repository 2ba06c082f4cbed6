/**
 * flightwatch on a real Redis Cluster (three masters with a replica each, started by
 * the test; bench/support/redis-cluster.ts), through the real CLI: the whole pipeline,
 * each gate change delivered once and in order, with delivery split over its 8 shards
 * and those spread over the masters; when the master serving the prefix's slot is
 * SIGKILLed mid-run its replica takes over and every gate change still arrives, exactly once; so
 * it does when the slot is migrated to another master under the running daemon (ASK,
 * TRYAGAIN, then MOVED). The acceptance timeline's ledger fails a test on any webhook
 * missing, late or repeated. Beside them, the connections: a node named without
 * `?cluster` is refused saying so, and a WATCH is ended on the key's own master.
 */
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTER_DELIVERY_SHARDS } from "../../src/config/detect-settings.js";
import { connectRedis, unwatch } from "../../src/store/redis-connection.js";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";
import { gateTimeline } from "./gate-moves.js";

describe("flightwatch on a Redis Cluster failing over and resharding under the daemon", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 240_000);
  afterAll(async () => {
    await cluster?.close();
  });

  // First: the tests after it kill a master, perhaps the node the URL names first.
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

  it("loses nothing when the prefix's master fails over", async () => {
    const failovers: { killed: number; promoted: number }[] = [];
    const { tl, move } = gateTimeline("cluster", cluster.url, {
      KL1901: "D1",
      KL1902: "D2",
      KL1903: "D3",
    });
    // The whole pipeline first: two changes of one flight (one order), in order.
    move("0s", "KL1901", "D11", "10s");
    move("3s", "KL1901", "D21", "10s");
    // Which hash tags of the prefix each master holds.
    const tagsByMaster: string[][] = [];
    tl.at("5s").do("look where the prefix's keys are", async (w) => {
      const redis = w.redis.redis as Cluster;
      for (const master of redis.nodes("master")) {
        const tags = new Set<string>();
        let cursor = "0";
        do {
          const [next, found] = await master.scan(cursor, "MATCH", w.keys.pattern, "COUNT", 1000);
          cursor = next;
          for (const key of found) tags.add(key.slice(0, key.indexOf("}") + 1));
        } while (cursor !== "0");
        tagsByMaster.push([...tags]);
      }
      expect(await redis.get(w.keys.deliveryShardCount)).toBe(String(CLUSTER_DELIVERY_SHARDS));
    });
    tl.at("6s").do("SIGKILL the master of the prefix's slot", async (w) => {
      failovers.push(await cluster.killMasterOf(w.keys.prefix));
    });
    // Changed while the slot has no master, or just after: late, never lost.
    move("7s", "KL1902", "D12", "45s");
    // And once the replica has taken over: on time again.
    move("16s", "KL1903", "D13", "15s");
    const result = await tl.run();
    // Every shard's queues exist (8 tags, the prefix's own among them), not all on one master.
    expect(new Set(tagsByMaster.flat()).size).toBe(CLUSTER_DELIVERY_SHARDS);
    expect(tagsByMaster.filter((tags) => tags.length > 0).length).toBeGreaterThan(1);
    expect(failovers).toHaveLength(1);
    expect(failovers[0]?.promoted).not.toBe(failovers[0]?.killed);
    expect(result.deliveries.map((d) => d.flight)).toEqual([
      "KL1901",
      "KL1901",
      "KL1902",
      "KL1903",
    ]);
  }, 240_000);

  it("loses nothing while the prefix's slot is migrated to another master", async () => {
    const migrations: { from: number; to: number; keys: number }[] = [];
    const { tl, move } = gateTimeline("cluster-reshard", cluster.url, {
      KL1911: "E1",
      KL1912: "E2",
      KL1913: "E3",
    });
    move("0s", "KL1911", "E11", "10s");
    tl.at("5s").do("migrate the prefix's slot, key by key", async (w) => {
      migrations.push(await cluster.migrateSlotOf(w.keys.prefix, { batch: 5, pauseMs: 100 }));
    });
    move("5s", "KL1912", "E12", "30s");
    move("12s", "KL1913", "E13", "15s");
    const result = await tl.run();
    expect(migrations).toHaveLength(1);
    expect(migrations[0]?.keys).toBeGreaterThan(10);
    expect(result.deliveries.map((d) => d.flight).sort()).toEqual(["KL1911", "KL1912", "KL1913"]);
  }, 240_000);
});
