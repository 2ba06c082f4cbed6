import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
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
    const found = await t.redis.keys(keys.pattern.replace("{", "\\{").replace("}", "\\}"));
    expect(found.sort()).toEqual(
      [keys.outbox, keys.snapshot("D:2026-11-21:KL1234"), keys.detection].sort(),
    );
  });
});
