/**
 * flightwatch on a real Redis Cluster (three masters with a replica each, started by
 * the test; bench/support/redis-cluster.ts): a daemon pointed at it with `?cluster` in
 * REDIS_URL takes its baseline, detects each gate change and delivers it once, as on
 * one Redis. Failover and slot migration under a running daemon are in the chaos set
 * (test/chaos/cluster-failover.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";
import { gateTimeline } from "./gate-moves.js";

describe("a Redis Cluster", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 90_000);
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
});
