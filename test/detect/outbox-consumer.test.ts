import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutboxConsumer } from "../../src/detect/outbox-consumer.js";
import type { ChangeEvent } from "../../src/diff/change.js";
import { OUTBOX_EVENT_FIELD } from "../../src/store/detection-store.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const event = (id: string) =>
  ({ id, kind: "gate", field: "gate", new: id }) as unknown as ChangeEvent;

describe("OutboxConsumer on a real Redis", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  beforeEach(async () => {
    t = await testRedis("outbox");
    keys = redisKeys(t.prefix);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const add = (id: string) =>
    t.redis.xadd(keys.outbox, "*", OUTBOX_EVENT_FIELD, JSON.stringify(event(id)));
  const consumer = (name: string, claimIdleMs = 60_000) =>
    new OutboxConsumer({
      redis: t.redis,
      keys,
      group: "g",
      consumer: name,
      blockMs: 50,
      claimIdleMs,
    });

  it("starts a new group after the events already there, unless asked for all", async () => {
    await add("old");
    await consumer("a").ensureGroup();
    await add("new");
    expect((await consumer("a").read()).map((e) => e.event.id)).toEqual(["new"]);
    const all = new OutboxConsumer({
      redis: t.redis,
      keys,
      group: "all",
      consumer: "x",
      blockMs: 50,
    });
    await all.ensureGroup(true);
    expect((await all.read()).map((e) => e.event.id)).toEqual(["old", "new"]);
  });

  it("gives a restarted consumer its unacknowledged events first, and acked ones never again", async () => {
    const first = consumer("a");
    await first.ensureGroup();
    await add("1");
    await add("2");
    const read = await first.read();
    expect(read.map((e) => e.event.id)).toEqual(["1", "2"]);
    await first.ack([read[0]?.entryId as string]);
    // "Crash": a new instance under the same name.
    const again = consumer("a");
    expect((await again.read()).map((e) => e.event.id)).toEqual(["2"]);
    await again.ack([read[1]?.entryId as string]);
    expect(await again.read()).toEqual([]);
    expect(await again.read()).toEqual([]);
  });

  it("claims events another consumer left pending too long", async () => {
    const gone = consumer("gone");
    await gone.ensureGroup();
    await add("1");
    expect(await gone.read()).toHaveLength(1);
    const other = consumer("b", 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await other.read()).map((e) => e.event.id)).toEqual(["1"]);
  });

  it("acknowledges and skips pending entries that were trimmed away", async () => {
    const c = consumer("a");
    await c.ensureGroup();
    const id = await add("1");
    expect(await c.read()).toHaveLength(1);
    await t.redis.xdel(keys.outbox, id as string);
    const restarted = consumer("a");
    expect(await restarted.read()).toEqual([]);
    const pending = (await t.redis.xpending(keys.outbox, "g")) as [number];
    expect(pending[0]).toBe(0);
  });
});
