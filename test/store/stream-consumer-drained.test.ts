import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fieldOf, StreamConsumer } from "../../src/store/stream-consumer.js";
import { type TestRedis, testRedis } from "../support/redis.js";

describe("StreamConsumer.drained", () => {
  let t: TestRedis;
  let stream: string;
  const consumer = (name: string) =>
    new StreamConsumer<string>({
      redis: t.redis.duplicate(),
      stream,
      decode: (fields) => fieldOf(fields, "v"),
      group: "g",
      consumer: name,
      blockMs: 10,
    });

  beforeEach(async () => {
    t = await testRedis("drained");
    stream = `{${t.prefix}}:s`;
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("is true only when no consumer of the group holds an entry and none is left to read", async () => {
    const one = consumer("one");
    const two = consumer("two");
    await one.ensureGroup(true);
    expect(await one.drained()).toBe(true); // empty stream
    await t.redis.xadd(stream, "*", "v", "a");
    expect(await one.drained()).toBe(false); // not delivered yet
    const [entry] = await two.read();
    expect(entry?.value).toBe("a");
    expect(await one.drained()).toBe(false); // pending with the other consumer
    await two.ack([entry?.entryId as string]);
    expect(await one.drained()).toBe(true);
    // Another group's progress does not count.
    const other = new StreamConsumer<string>({
      redis: t.redis.duplicate(),
      stream,
      decode: (fields) => fieldOf(fields, "v"),
      group: "other",
      consumer: "x",
    });
    await other.ensureGroup(true);
    expect(await other.drained()).toBe(false);
  });
});
