/**
 * flightwatch on a real Redis Cluster (three masters with a replica each, started by
 * the test): a daemon pointed at it with `?cluster` in REDIS_URL detects and delivers
 * as on one Redis, and when the master serving its prefix's slot is SIGKILLed mid-run
 * its replica takes over and every gate change still arrives, exactly once; so it does
 * when the slot is migrated to another master under the running daemon (ASK, TRYAGAIN,
 * then MOVED).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { departure } from "../acceptance/cast.js";
import { webhook } from "../acceptance/deliveries.js";
import { timeline } from "../acceptance/timeline.js";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";

describe("chaos: a Redis Cluster failing over and resharding under the daemon", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("runs the pipeline, and loses nothing when the prefix's master fails over", async () => {
    const failovers: { killed: number; promoted: number }[] = [];
    const tl = timeline({
      name: "cluster",
      redisUrl: cluster.url,
      cast: [
        departure("KL1901", { gate: "D1", in: "3h" }),
        departure("KL1902", { gate: "D2", in: "3h" }),
        departure("KL1903", { gate: "D3", in: "3h" }),
      ],
      rules: `
rules:
  - id: gates
    changes: [gate]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`,
    });
    tl.at("0s")
      .gate("KL1901", "D11")
      .expect(webhook("gates").about("KL1901").change({ field: "gate", old: "D1", new: "D11" }), {
        within: "10s",
      });
    tl.at("6s").do("SIGKILL the master of the prefix's slot", async (w) => {
      failovers.push(await cluster.killMasterOf(w.keys.prefix));
    });
    // Changed while the slot has no master, or just after: late, never lost.
    tl.at("7s")
      .gate("KL1902", "D12")
      .expect(webhook("gates").about("KL1902").change({ field: "gate", old: "D2", new: "D12" }), {
        within: "45s",
      });
    tl.at("25s")
      .gate("KL1903", "D13")
      .expect(webhook("gates").about("KL1903").change({ field: "gate", old: "D3", new: "D13" }), {
        within: "20s",
      });
    const result = await tl.run();
    expect(failovers).toHaveLength(1);
    expect(failovers[0]?.promoted).not.toBe(failovers[0]?.killed);
    expect(result.deliveries.map((d) => d.flight).sort()).toEqual(["KL1901", "KL1902", "KL1903"]);
  }, 240_000);

  it("loses nothing while the prefix's slot is migrated to another master", async () => {
    const migrations: { from: number; to: number; keys: number }[] = [];
    const tl = timeline({
      name: "cluster-reshard",
      redisUrl: cluster.url,
      cast: [
        departure("KL1911", { gate: "E1", in: "3h" }),
        departure("KL1912", { gate: "E2", in: "3h" }),
        departure("KL1913", { gate: "E3", in: "3h" }),
      ],
      rules: `
rules:
  - id: gates
    changes: [gate]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`,
    });
    tl.at("0s")
      .gate("KL1911", "E11")
      .expect(webhook("gates").about("KL1911").change({ field: "gate", old: "E1", new: "E11" }), {
        within: "10s",
      });
    tl.at("5s").do("migrate the prefix's slot, key by key", async (w) => {
      migrations.push(await cluster.migrateSlotOf(w.keys.prefix, { batch: 5, pauseMs: 100 }));
    });
    tl.at("5s")
      .gate("KL1912", "E12")
      .expect(webhook("gates").about("KL1912").change({ field: "gate", old: "E2", new: "E12" }), {
        within: "30s",
      });
    tl.at("20s")
      .gate("KL1913", "E13")
      .expect(webhook("gates").about("KL1913").change({ field: "gate", old: "E3", new: "E13" }), {
        within: "15s",
      });
    const result = await tl.run();
    expect(migrations).toHaveLength(1);
    expect(migrations[0]?.keys).toBeGreaterThan(10);
    expect(result.deliveries.map((d) => d.flight).sort()).toEqual(["KL1911", "KL1912", "KL1913"]);
  }, 240_000);
});
