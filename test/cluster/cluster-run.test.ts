/**
 * flightwatch on a real Redis Cluster (three masters with a replica each, started by
 * the test; test/support/redis-cluster.ts): a daemon pointed at it with `?cluster` in
 * REDIS_URL takes its baseline, detects each gate change and delivers it once, as on
 * one Redis. Failover and slot migration under a running daemon are in the chaos set
 * (test/chaos/cluster-failover.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { departure } from "../acceptance/cast.js";
import { webhook } from "../acceptance/deliveries.js";
import { timeline } from "../acceptance/timeline.js";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";

describe("a Redis Cluster", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("runs the whole pipeline: each gate change delivered once", async () => {
    const tl = timeline({
      name: "cluster-run",
      redisUrl: cluster.url,
      cast: [
        departure("KL1921", { gate: "F1", in: "3h" }),
        departure("KL1922", { gate: "F2", in: "3h" }),
      ],
      rules: `
rules:
  - id: gates
    changes: [gate]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`,
    });
    tl.at("0s")
      .gate("KL1921", "F11")
      .expect(webhook("gates").about("KL1921").change({ field: "gate", old: "F1", new: "F11" }), {
        within: "10s",
      });
    tl.at("3s")
      .gate("KL1922", "F12")
      .gate("KL1921", "F21")
      .expect(webhook("gates").about("KL1922").change({ field: "gate", old: "F2", new: "F12" }), {
        within: "10s",
      })
      .expect(webhook("gates").about("KL1921").change({ field: "gate", old: "F11", new: "F21" }), {
        within: "10s",
      });
    const result = await tl.run();
    expect(result.deliveries).toHaveLength(3);
    // The deployment's keys are all on the master serving its tag's slot.
    expect(cluster.ports).toContain(await cluster.masterOf("{fwtest}"));
  }, 180_000);
});
