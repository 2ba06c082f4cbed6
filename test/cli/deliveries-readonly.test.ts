/**
 * `flightwatch deliveries` reads without writing: under a prefix nothing ran under, a
 * listing (and a retry or enable that finds nothing) creates no key — BullMQ's Queue
 * writes a `meta` key on connecting unless told not to — and it says which prefix it
 * read, so "none" is not mistaken for "nothing failed". Real child processes against
 * the real Redis, comparing the prefix's key set before and after.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeliveryLog } from "../../src/deliver/delivery-log.js";
import { DeliveryQueues } from "../../src/deliver/delivery-queues.js";
import { agreeDeliveryShards } from "../../src/store/delivery-shards.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { alert } from "../deliver/email-fixtures.js";
import { spawnCli, testRedisEnv } from "../support/cli-process.js";
import { type TestRedis, testRedis } from "../support/redis.js";

let t: TestRedis;
beforeEach(async () => {
  t = await testRedis("deliveries-ro");
});
afterEach(async () => {
  await t.cleanup();
});

async function run(args: string[]) {
  const proc = spawnCli(args, testRedisEnv(t.prefix));
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 30_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** Every key under the test's prefix, sorted, with its type. */
async function keySet(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await t.redis.scan(
      cursor,
      "MATCH",
      redisKeys(t.prefix).pattern,
      "COUNT",
      500,
    );
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  const typed = await Promise.all(keys.map(async (k) => `${k} ${await t.redis.type(k)}`));
  return typed.sort();
}

describe("flightwatch deliveries", () => {
  it("under a prefix nothing ran under: names the prefix, says so, and creates no key", async () => {
    expect(await keySet()).toEqual([]);
    const [text, json, retry, enable] = await Promise.all([
      run(["deliveries"]),
      run(["deliveries", "--json"]),
      run(["deliveries", "retry", "--all"]),
      run(["deliveries", "enable", "ep_0123456789ab"]),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split("\n")[0]).toContain(`prefix ${t.prefix} (FLIGHTWATCH_PREFIX)`);
    expect(text.stdout).toContain("Nothing has run under this prefix");
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ prefix: t.prefix, found: false });
    expect(retry.code, retry.stderr).toBe(0);
    expect(enable.code).toBe(1);
    expect(await keySet()).toEqual([]);
  }, 60_000);

  it("under a daemon's prefix: lists what is there and changes nothing", async () => {
    // What a daemon leaves: its queues (with their meta keys) and a delivery record.
    const keys = redisKeys(t.prefix);
    const queues = new DeliveryQueues(t.redis, keys);
    await Promise.all(queues.all().map((q) => q.waitUntilReady()));
    await queues.close();
    await new DeliveryLog(t.redis, keys).record({
      at: Date.UTC(2026, 10, 21, 8, 0),
      id: "msg_readonly0000000000000000000",
      ruleId: "gates",
      channel: "hook",
      type: "webhook",
      flight: "D:2026-11-21:KL1001",
      destination: "https://example.com/ho…",
      attempt: 1,
      result: "delivered",
      code: 204,
    });
    const before = await keySet();
    expect(before.filter((k) => k.includes(":meta "))).toHaveLength(4);
    const [text, json] = await Promise.all([run(["deliveries"]), run(["deliveries", "--json"])]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`prefix ${t.prefix}`);
    expect(text.stdout).not.toContain("Nothing has run");
    expect(text.stdout).toContain("msg_readonly0000000000000000000");
    expect(JSON.parse(json.stdout)).toMatchObject({ prefix: t.prefix, found: true });
    expect(await keySet()).toEqual(before);
  }, 60_000);

  it("follows the number of delivery shards the deployment wrote, whatever its own environment says", async () => {
    // A deployment delivering over 3 shards, with 6 notifications waiting in them.
    const keys = redisKeys(t.prefix, 3);
    await agreeDeliveryShards(t.redis, keys, { write: true });
    const queues = new DeliveryQueues(t.redis, keys);
    const jobs = Array.from({ length: 6 }, (_, i) => ({
      notification: {
        id: `msg_shard${i}`,
        ruleId: `rule-${i}`,
        channel: "hook",
        type: "webhook" as const,
        alert: alert(`a${i}`),
      },
      retry: { delaysMs: [1000], forMs: 60_000 },
      destination: "https://example.com/ho…",
    }));
    await queues.enqueue(jobs);
    const shardsUsed = new Set(jobs.map((j) => queues.queueOf(j.notification)));
    await queues.close();
    expect(shardsUsed.size).toBeGreaterThan(1);
    const before = await keySet();
    // DELIVERY_SHARDS unset here (1): the listing still counts every shard's jobs.
    const json = await run(["deliveries", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).counts.webhook.waiting).toBe(6);
    expect(await keySet()).toEqual(before);
  }, 60_000);
});
