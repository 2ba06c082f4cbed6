/**
 * The delivery log on a real Redis: records made together are written with one
 * command, in order, each caller told when its own is in; the disabled endpoints are
 * read at most once a freshness interval, this process's own changes seen at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeliveryLog, type DeliveryRecord } from "../../src/deliver/delivery-log.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const record = (id: string, attempt = 1): DeliveryRecord => ({
  at: 1_700_000_000_000,
  id,
  ruleId: "r1",
  channel: "hook",
  type: "webhook",
  flight: "D:2026-11-21:KL1001 KL1001",
  destination: "https://hooks.example.com/…",
  attempt,
  result: "delivered",
});

const gone = (id: string) => ({
  id,
  label: `https://hooks.example.com/${id}`,
  at: 1_700_000_000_000,
  detail: "410 Gone",
  ruleId: "r1",
  channel: "hook",
});

describe("DeliveryLog on a real Redis", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  beforeEach(async () => {
    t = await testRedis("delivery-log");
    keys = redisKeys(t.prefix);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("writes records made together with one command, in order, and settles each once written", async () => {
    const log = new DeliveryLog(t.redis, keys);
    const evals = vi.spyOn(t.redis, "evalsha");
    const ids = Array.from({ length: 20 }, (_, i) => `n${i}`);
    await Promise.all(ids.map((id) => log.record(record(id))));
    expect(evals).toHaveBeenCalledTimes(1);
    expect((await log.recent(100)).map((r) => r.id)).toEqual([...ids].reverse());
    // A record made later is a write of its own.
    await log.record(record("late"));
    expect(evals).toHaveBeenCalledTimes(2);
    expect((await log.recent(1))[0]?.id).toBe("late");
  });

  it("rejects every record of a batch that could not be written", async () => {
    const log = new DeliveryLog(t.redis, keys);
    // A key of the wrong type makes the XADD fail inside the script.
    await t.redis.set(keys.deliveries, "not a stream");
    const results = await Promise.allSettled([log.record(record("a")), log.record(record("b"))]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });

  it("keeps the cap: the oldest records beyond it are trimmed", async () => {
    const log = new DeliveryLog(t.redis, keys, { maxRecords: 10 });
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => log.record(record(`r${round}-${i}`))),
      );
    }
    // MAXLEN ~ trims whole nodes: around the cap, far below the 500 written.
    expect(await t.redis.xlen(keys.deliveries)).toBeLessThan(250);
  });

  it("reads the disabled endpoints once a freshness interval; its own changes at once", async () => {
    let clock = 0;
    const mine = new DeliveryLog(t.redis, keys, { monotonic: () => clock });
    const otherRedis = t.redis.duplicate();
    const other = new DeliveryLog(otherRedis, keys, { monotonic: () => clock });
    const hgetall = vi.spyOn(t.redis, "hgetall");
    expect(await mine.disabled("e1")).toBeUndefined();
    expect(await mine.disabled("e2")).toBeUndefined();
    expect(hgetall).toHaveBeenCalledTimes(1);

    // Disabled here: seen here at once.
    await mine.disable(gone("e1"));
    expect((await mine.disabled("e1"))?.detail).toBe("410 Gone");

    // Disabled by another process: seen once the freshness interval has passed.
    await other.disable(gone("e2"));
    clock += 999;
    expect(await mine.disabled("e2")).toBeUndefined();
    clock += 1;
    expect((await mine.disabled("e2"))?.id).toBe("e2");

    // Re-enabled elsewhere (`deliveries enable`): the same; re-enabled here: at once.
    await other.enable("e2");
    expect((await mine.disabled("e2"))?.id).toBe("e2");
    clock += 1_000;
    expect(await mine.disabled("e2")).toBeUndefined();
    await mine.enable("e1");
    expect(await mine.disabled("e1")).toBeUndefined();
    otherRedis.disconnect();
  });
});
