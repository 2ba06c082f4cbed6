/**
 * The subscribe form's rate limits in a real Redis: each address has its own counter,
 * email addresses count case-folded, a use past the limit is refused with when to come
 * back, and the window ends on Redis's own clock.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { DEFAULT_LIMITS, RateLimiter } from "../../src/web/rate-limit.js";
import { waitFor } from "../support/crash-run.js";
import { type TestRedis, testRedis } from "../support/redis.js";

describe("the subscribe form's rate limits", () => {
  let t: TestRedis;
  let keys: RedisKeys;

  beforeEach(async () => {
    t = await testRedis("web-limit");
    keys = redisKeys(t.prefix);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("allow `count` uses per address in a window, then refuse with when to come back", async () => {
    const limiter = new RateLimiter(t.redis, keys, { client: { count: 3, windowMs: 60_000 } });
    const verdicts = [];
    for (let i = 0; i < 5; i++) verdicts.push(await limiter.take("client", "192.0.2.7"));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    expect(verdicts.map((v) => v.used)).toEqual([1, 2, 3, 4, 5]);
    const refused = verdicts[3];
    expect(refused?.retryAfterMs).toBeGreaterThan(50_000);
    expect(refused?.retryAfterMs).toBeLessThanOrEqual(60_000);
    // Another client has a counter of its own.
    expect((await limiter.take("client", "192.0.2.8")).allowed).toBe(true);
  });

  it("count an email address whatever its case and spacing, apart from client addresses", async () => {
    const limiter = new RateLimiter(t.redis, keys, { email: { count: 2, windowMs: 60_000 } });
    expect((await limiter.take("email", "Anna@Example.com")).allowed).toBe(true);
    expect((await limiter.take("email", " anna@example.com")).allowed).toBe(true);
    expect((await limiter.take("email", "anna@EXAMPLE.com")).allowed).toBe(false);
    expect((await limiter.take("client", "anna@example.com")).allowed).toBe(true);
  });

  it("keep no address in Redis, and forget a window once it ends", async () => {
    const limiter = new RateLimiter(t.redis, keys, { email: { count: 1, windowMs: 1_000 } });
    expect((await limiter.take("email", "anna@example.com")).allowed).toBe(true);
    expect((await limiter.take("email", "anna@example.com")).allowed).toBe(false);
    const stored = await t.redis.keys(`{${t.prefix}}:*`);
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain("anna");
    expect(await t.redis.pttl(stored[0] as string)).toBeGreaterThan(0);
    await waitFor(async () => (await t.redis.exists(stored[0] as string)) === 0, 10_000);
    expect((await limiter.take("email", "anna@example.com")).allowed).toBe(true);
  });

  it("default to 10 attempts an hour per client and 3 emails a day per address", () => {
    expect(DEFAULT_LIMITS.client).toEqual({ count: 10, windowMs: 3_600_000 });
    expect(DEFAULT_LIMITS.email).toEqual({ count: 3, windowMs: 86_400_000 });
  });
});
