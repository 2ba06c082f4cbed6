import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { agreeDeliveryShards, storedDeliveryShards } from "../../src/store/delivery-shards.js";
import { deleteByPattern } from "../../src/store/redis-connection.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { type TestRedis, testRedis } from "../support/redis.js";

describe("redisKeys", () => {
  it("puts every key under one hash tag", () => {
    const keys = redisKeys("fw");
    const all = [
      keys.snapshot("D:2026-11-21:KL1234"),
      keys.snapshotIndex,
      keys.detection,
      keys.pollStatus,
      keys.outbox,
      keys.alertState("pier-d", "D:2026-11-21:KL1234"),
      keys.alertsDue,
      keys.dispatchCatchUp,
      keys.alerts,
    ];
    for (const key of all) expect(key.startsWith("{fw}:")).toBe(true);
    expect(new Set(all).size).toBe(all.length);
  });

  it("keeps a prefix that is already a hash tag", () => {
    expect(redisKeys("{ops}").detection).toBe("{ops}:detection");
  });

  it("splits delivery over shards: one order's keys, one destination's keys, one queue's keys share a tag", () => {
    const keys = redisKeys("fw", 4);
    const tagOf = (key: string) => key.slice(0, key.indexOf("}") + 1);
    const hashes = Array.from({ length: 64 }, (_, i) =>
      createHash("sha256").update(String(i)).digest("hex").slice(0, 32),
    );
    const tags = new Set<string>();
    for (const hash of hashes) {
      const tag = tagOf(keys.deliveryOrder(hash));
      expect(tagOf(keys.deliverySending(hash))).toBe(tag);
      expect(tagOf(keys.deliveryPace(hash))).toBe(tag);
      expect(tagOf(keys.deliveryHold(hash))).toBe(tag);
      const shard = keys.shardOf(hash);
      expect(shard).toBe(Number.parseInt(hash.slice(0, 8), 16) % 4);
      expect(`${tag}:q`).toBe(keys.queuePrefixOf(shard));
      tags.add(tag);
    }
    // Shard 0 is the prefix's own tag; the others have tags of their own.
    expect([...tags].sort()).toEqual(["{fw}", "{fw~d1}", "{fw~d2}", "{fw~d3}"]);
    expect(keys.queuePrefixOf(0)).toBe(keys.queuePrefix);
    expect(() => keys.queuePrefixOf(4)).toThrow(RangeError);
    // One shard: the layout of a single tag, as before shards.
    const one = redisKeys("fw");
    expect(one.deliveryShards).toBe(1);
    for (const hash of hashes) expect(one.deliveryOrder(hash)).toBe(`{fw}:order:${hash}`);
    expect(redisKeys("{ops}", 2).queuePrefixOf(1)).toBe("{ops~d1}:q");
  });

  it("refuses a number of delivery shards outside 1–256, naming DELIVERY_SHARDS", () => {
    for (const bad of [0, 257, 1.5, Number.NaN]) {
      expect(() => redisKeys("fw", bad)).toThrowError(
        expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: "DELIVERY_SHARDS" }),
      );
    }
    expect(redisKeys("fw", 256).deliveryShards).toBe(256);
  });

  it("rejects an unusable prefix naming FLIGHTWATCH_PREFIX", () => {
    expect(() => redisKeys("has space")).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: "FLIGHTWATCH_PREFIX" }),
    );
  });
});

describe("redisKeys on a real Redis", () => {
  let t: TestRedis;
  beforeEach(async () => {
    t = await testRedis("keys");
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("lets snapshot, outbox and watermark change in one transaction", async () => {
    const keys = redisKeys(t.prefix);
    const result = await t.redis
      .multi()
      .set(keys.snapshot("D:2026-11-21:KL1234"), "{}")
      .xadd(keys.outbox, "*", "event", "{}")
      .set(keys.detection, "1")
      .exec();
    expect(result?.every(([err]) => err === null)).toBe(true);
    const found = await t.redis.keys(keys.pattern);
    expect(found.sort()).toEqual(
      [keys.outbox, keys.snapshot("D:2026-11-21:KL1234"), keys.detection].sort(),
    );
  });

  it("finds every shard's keys by its pattern, and no other prefix's", async () => {
    const keys = redisKeys(t.prefix, 3);
    const other = redisKeys(`${t.prefix}x`, 3);
    const hashes = ["00000000", "00000001", "00000002"].map((h) => h.padEnd(32, "0"));
    const mine = hashes.flatMap((h) => [keys.deliveryOrder(h), keys.deliveryPace(h)]);
    for (const key of [
      ...mine,
      keys.detection,
      other.detection,
      other.deliveryOrder(hashes[1] as string),
    ]) {
      await t.redis.set(key, "1");
    }
    expect((await t.redis.keys(keys.pattern)).sort()).toEqual([...mine, keys.detection].sort());
    expect(await deleteByPattern(t.redis, keys.pattern)).toBe(mine.length + 1);
    expect(await deleteByPattern(t.redis, other.pattern)).toBe(2);
  });

  it("keeps a deployment's number of delivery shards: the first process writes it, a different one is refused", async () => {
    const eight = redisKeys(t.prefix, 8);
    expect(await storedDeliveryShards(t.redis, eight)).toBeUndefined();
    // A read-only look writes nothing.
    await agreeDeliveryShards(t.redis, eight, { write: false });
    expect(await t.redis.exists(eight.deliveryShardCount)).toBe(0);
    await agreeDeliveryShards(t.redis, eight, { write: true });
    await agreeDeliveryShards(t.redis, eight, { write: true });
    expect(await storedDeliveryShards(t.redis, eight)).toBe(8);
    for (const write of [true, false]) {
      await expect(
        agreeDeliveryShards(t.redis, redisKeys(t.prefix, 1), { write }),
      ).rejects.toThrowError(
        expect.objectContaining({
          setting: "DELIVERY_SHARDS",
          message: expect.stringContaining("DELIVERY_SHARDS=8"),
        }),
      );
    }
    expect(await t.redis.get(eight.deliveryShardCount)).toBe("8");
    await t.redis.set(eight.deliveryShardCount, "many");
    expect(await storedDeliveryShards(t.redis, eight)).toBeUndefined();
  });
});
