/**
 * flightwatch on a real Redis Cluster (three masters with a replica each, started by
 * the test): the whole pipeline, each gate change delivered once; when the master serving the prefix's slot is SIGKILLed mid-run
 * its replica takes over and every gate change still arrives, exactly once; so it does
 * when the slot is migrated to another master under the running daemon (ASK,
 * TRYAGAIN, then MOVED).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateTimeline } from "../cluster/gate-moves.js";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";

describe("chaos: a Redis Cluster failing over and resharding under the daemon", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("runs the whole pipeline: each gate change delivered once", async () => {
    const { tl, move } = gateTimeline("cluster-run", cluster.url, { KL1921: "F1", KL1922: "F2" });
    move("0s", "KL1921", "F11", "10s");
    move("3s", "KL1922", "F12", "10s");
    move("3s", "KL1921", "F21", "10s");
    const result = await tl.run();
    expect(result.deliveries).toHaveLength(3);
  }, 180_000);

  it("loses nothing when the prefix's master fails over", async () => {
    const failovers: { killed: number; promoted: number }[] = [];
    const { tl, move } = gateTimeline("cluster", cluster.url, {
      KL1901: "D1",
      KL1902: "D2",
      KL1903: "D3",
    });
    move("0s", "KL1901", "D11", "10s");
    tl.at("6s").do("SIGKILL the master of the prefix's slot", async (w) => {
      failovers.push(await cluster.killMasterOf(w.keys.prefix));
    });
    // Changed while the slot has no master, or just after: late, never lost.
    move("7s", "KL1902", "D12", "45s");
    move("25s", "KL1903", "D13", "20s");
    const result = await tl.run();
    expect(failovers).toHaveLength(1);
    expect(failovers[0]?.promoted).not.toBe(failovers[0]?.killed);
    expect(result.deliveries.map((d) => d.flight).sort()).toEqual(["KL1901", "KL1902", "KL1903"]);
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
    move("20s", "KL1913", "E13", "15s");
    const result = await tl.run();
    expect(migrations).toHaveLength(1);
    expect(migrations[0]?.keys).toBeGreaterThan(10);
    expect(result.deliveries.map((d) => d.flight).sort()).toEqual(["KL1911", "KL1912", "KL1913"]);
  }, 240_000);
});
