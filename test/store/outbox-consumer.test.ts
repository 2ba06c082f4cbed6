import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/diff/change.js";
import { OutboxConsumer } from "../../src/store/outbox-consumer.js";
import {
  decodeOutboxEntry,
  encodeOutboxEntries,
  OUTBOX_FIELD,
} from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const event = (id: string, flight = "D:2026-11-21:KL1234", version = 1): ChangeEvent => ({
  id,
  kind: "gate",
  field: "gate",
  action: "changed",
  new: id,
  flight: { key: flight, id: "1", mainFlight: "KL1234", flightNames: ["KL1234"] },
  version,
});

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
    t.redis.xadd(keys.outbox, "*", OUTBOX_FIELD, encodeOutboxEntries([event(id)])[0] as string);
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
    expect((await consumer("a").read()).flatMap((e) => e.value.map((x) => x.id))).toEqual(["new"]);
    const all = new OutboxConsumer({
      redis: t.redis,
      keys,
      group: "all",
      consumer: "x",
      blockMs: 50,
    });
    await all.ensureGroup(true);
    expect((await all.read()).flatMap((e) => e.value.map((x) => x.id))).toEqual(["old", "new"]);
  });

  it("gives a restarted consumer its unacknowledged events first, and acked ones never again", async () => {
    const first = consumer("a");
    await first.ensureGroup();
    await add("1");
    await add("2");
    const read = await first.read();
    expect(read.flatMap((e) => e.value.map((x) => x.id))).toEqual(["1", "2"]);
    await first.ack([read[0]?.entryId as string]);
    // "Crash": a new instance under the same name.
    const again = consumer("a");
    expect((await again.read()).flatMap((e) => e.value.map((x) => x.id))).toEqual(["2"]);
    await again.ack([read[1]?.entryId as string]);
    expect(await again.read()).toEqual([]);
    expect(await again.read()).toEqual([]);
  });

  it("after a rewind, gives the entries left over from a failed batch before newer ones", async () => {
    const c = consumer("a");
    await c.ensureGroup();
    await add("1");
    await add("2");
    const batch = await c.read();
    await c.ack([batch[0]?.entryId as string]);
    // Handling "2" failed; a newer entry arrives meanwhile.
    await add("3");
    c.rewind();
    expect((await c.read()).flatMap((e) => e.value.map((x) => x.id))).toEqual(["2"]);
    await c.ack([batch[1]?.entryId as string]);
    expect((await c.read()).flatMap((e) => e.value.map((x) => x.id))).toEqual(["3"]);
  });

  it("claims events another consumer left pending too long", async () => {
    const gone = consumer("gone");
    await gone.ensureGroup();
    await add("1");
    expect(await gone.read()).toHaveLength(1);
    const other = consumer("b", 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await other.read()).flatMap((e) => e.value.map((x) => x.id))).toEqual(["1"]);
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

describe("outbox entries", () => {
  it("hold the changes of one flight and version each, and give the events back in order", () => {
    const events = [
      event("a"),
      event("b"),
      event("c", "A:2026-11-21:KL1001"),
      event("d", "A:2026-11-21:KL1001", 2),
      event("e"),
    ];
    const entries = encodeOutboxEntries(events);
    expect(entries).toHaveLength(4);
    expect(entries.flatMap((text) => decodeOutboxEntry(text))).toEqual(events);
    // The identity is written once per entry (its key, mainFlight and one flight name).
    expect(entries[0]?.match(/KL1234/g)).toHaveLength(3);
  });
});
