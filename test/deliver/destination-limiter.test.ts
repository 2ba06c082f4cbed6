import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DestinationLimiter, destinationHash } from "../../src/deliver/destination-limiter.js";
import { ErrorCode } from "../../src/errors.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

const HOOK = "https://hooks.slack.com/services/T000/B000/secretsecret";
const OTHER = "https://hooks.slack.com/services/T000/B001/othersecret";
const T0 = Date.UTC(2026, 10, 21, 9, 0);

describe("DestinationLimiter", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let limiter: DestinationLimiter;
  beforeEach(async () => {
    t = await testRedis("pace");
    keys = redisKeys(t.prefix);
    limiter = new DestinationLimiter(t.redis, keys);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("spaces the slots of one destination one interval apart", async () => {
    const waits = [];
    for (let i = 0; i < 3; i++) waits.push((await limiter.reserve(HOOK, T0)).waitMs);
    expect(waits).toEqual([0, 1000, 2000]);
    // 1.5 s later the next free slot (T0 + 3 s) is 1.5 s away.
    expect(await limiter.reserve(HOOK, T0 + 1500)).toEqual({ reserved: true, waitMs: 1500 });
    // Once the queue of slots has passed, sending is immediate again.
    expect(await limiter.reserve(HOOK, T0 + 10_000)).toEqual({ reserved: true, waitMs: 0 });
    expect(await limiter.reserve(HOOK, T0 + 10_250)).toEqual({ reserved: true, waitMs: 750 });
  });

  it("paces each destination on its own, and honours a per-call interval", async () => {
    expect((await limiter.reserve(HOOK, T0)).waitMs).toBe(0);
    expect((await limiter.reserve(OTHER, T0)).waitMs).toBe(0);
    expect((await limiter.reserve(OTHER, T0, { intervalMs: 250 })).waitMs).toBe(1000);
    expect((await limiter.reserve(OTHER, T0, { intervalMs: 250 })).waitMs).toBe(1250);
  });

  it("gives two processes racing on two connections distinct slots, one interval apart", async () => {
    const second = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const other = new DestinationLimiter(second, keys);
      const both = [limiter, other];
      const slots = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (both[i % 2] as DestinationLimiter).reserve(HOOK, T0)),
      );
      const waits = slots.map((s) => s.waitMs).sort((a, b) => a - b);
      expect(waits).toEqual(Array.from({ length: 40 }, (_, i) => i * 1000));
    } finally {
      second.disconnect();
    }
  });

  it("after a push-back gives no slot before the given time, and never pulls slots earlier", async () => {
    await limiter.reserve(HOOK, T0);
    await limiter.pushBack(HOOK, T0 + 30_000, T0 + 200);
    expect(await limiter.reserve(HOOK, T0 + 500)).toEqual({ reserved: true, waitMs: 29_500 });
    // An earlier push-back (a second worker's older 429) changes nothing.
    await limiter.pushBack(HOOK, T0 + 5_000, T0 + 600);
    expect((await limiter.reserve(HOOK, T0 + 600)).waitMs).toBe(30_400);
    // Other destinations are not held back.
    expect((await limiter.reserve(OTHER, T0 + 600)).waitMs).toBe(0);
  });

  it("with maxWaitMs reserves nothing too far away", async () => {
    await limiter.pushBack(HOOK, T0 + 20_000, T0);
    expect(await limiter.reserve(HOOK, T0, { maxWaitMs: 15_000 })).toEqual({
      reserved: false,
      waitMs: 20_000,
    });
    // The refusal spent no slot.
    expect(await limiter.reserve(HOOK, T0, { maxWaitMs: 20_000 })).toEqual({
      reserved: true,
      waitMs: 20_000,
    });
  });

  it("keys destinations by hash and lets the key expire once its slot has passed", async () => {
    await limiter.reserve(HOOK, T0);
    await limiter.reserve(HOOK, T0);
    const key = keys.deliveryPace(destinationHash(HOOK));
    expect(key).toBe(`{${t.prefix}}:pace:${destinationHash(HOOK)}`);
    expect(key).not.toContain("secret");
    expect(await t.redis.get(key)).toBe(String(T0 + 2000));
    // Expires when the next free slot (2 s from now) has passed. (Real time passes
    // between the write and the read: a second's slack for a loaded machine.)
    const ttl = await t.redis.pttl(key);
    expect(ttl).toBeGreaterThan(1000);
    expect(ttl).toBeLessThanOrEqual(2000);
    await limiter.pushBack(HOOK, T0 + 60_000, T0);
    expect(await t.redis.pttl(key)).toBeGreaterThan(55_000);
  });

  it("waits by Redis's expiries when the caller's clock was stepped back an hour", async () => {
    await limiter.reserve(HOOK, T0);
    await limiter.pushBack(HOOK, T0 + 5_000, T0);
    // The clock went back an hour: by the instants stored, the next slot and the hold
    // would be an hour and 5 s away; they are 5 s away.
    const back = T0 - 3_600_000;
    const held = await limiter.heldFor(HOOK, back);
    expect(held).toBeGreaterThan(4_000);
    expect(held).toBeLessThanOrEqual(5_000);
    const slot = await limiter.reserve(HOOK, back);
    expect(slot.waitMs).toBeGreaterThan(4_000);
    expect(slot.waitMs).toBeLessThanOrEqual(5_000);
    // And the slots after it follow one interval apart, on the new clock.
    expect((await limiter.reserve(HOOK, back)).waitMs - slot.waitMs).toBe(1_000);
  });

  it("refuses an unusable interval, naming it", () => {
    expect(() => new DestinationLimiter(t.redis, keys, { intervalMs: 0 })).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: "intervalMs" }),
    );
  });
});
