import { describe, expect, it } from "vitest";
import { fieldOf, StreamConsumer, type StreamEntry } from "../../src/store/stream-consumer.js";
import { sleep, waitFor } from "../support/crash-run.js";
import { connectionsTo, redisServerForSuite } from "../support/redis-server.js";

describe("StreamConsumer across a Redis restart", () => {
  const server = redisServerForSuite();

  it("reads an entry whose read reply Redis never wrote, right after the reconnect", async () => {
    const { connect, closeAll } = connectionsTo(server().url);
    try {
      const consumer = new StreamConsumer<string>({
        redis: await connect(),
        stream: "{restart}:s",
        decode: (fields) => fieldOf(fields, "v"),
        group: "g",
        consumer: "c",
        blockMs: 1_000,
        claimIdleMs: 60_000,
      });
      await consumer.ensureGroup();
      expect(await consumer.read()).toEqual([]);
      // A read blocks; one write adds an entry — Redis serves the read at once — and
      // shuts Redis down in the same breath, before the read's reply is written.
      const blocked = consumer.read().catch(() => []);
      await sleep(200);
      const producer = await connect();
      await producer
        .pipeline()
        .xadd("{restart}:s", "*", "v", "a")
        .call("SHUTDOWN")
        .exec()
        .catch(() => undefined);
      await server().restart({ downMs: 300 });
      const seen: Array<StreamEntry<string>> = [...(await blocked)];
      await waitFor(async () => {
        seen.push(...(await consumer.read().catch(() => [])));
        return seen.length > 0;
      }, 5_000).catch(() => undefined);
      expect(seen.map((e) => e.value)).toEqual(["a"]);
      // Handed out once before the shutdown (the AOF kept that), and again after it.
      const raw = await connect();
      const [[, , , deliveries]] = (await raw.xpending("{restart}:s", "g", "-", "+", 10)) as [
        [string, string, number, number],
      ];
      expect(deliveries).toBe(2);
    } finally {
      closeAll();
    }
  }, 30_000);

  it("after a brief disconnect, hands out the entry whose reply was lost before a newer one", async () => {
    const { connect, closeAll } = connectionsTo(server().url);
    try {
      const consumerRedis = await connect();
      const consumer = new StreamConsumer<string>({
        redis: consumerRedis,
        stream: "{order}:s",
        decode: (fields) => fieldOf(fields, "v"),
        group: "g",
        consumer: "c",
        blockMs: 3_000,
        claimIdleMs: 60_000,
      });
      await consumer.ensureGroup();
      expect(await consumer.read()).toEqual([]);
      const blocked = consumer.read().catch(() => [] as StreamEntry<string>[]);
      await sleep(200);
      const producer = await connect();
      const list = String(await producer.client("LIST"));
      const id = /id=(\d+) [^\n]*cmd=xreadgroup/.exec(list)?.[1];
      expect(id).toBeDefined();
      // Redis serves the blocked read with "a" and drops the connection before replying;
      // ioredis reconnects and sends the read again, which "b" answers.
      await producer
        .pipeline()
        .xadd("{order}:s", "*", "v", "a")
        .call("CLIENT", "KILL", "ID", id as string)
        .exec()
        .catch(() => undefined);
      await waitFor(async () => consumerRedis.status === "ready", 5_000);
      await sleep(50);
      await producer.xadd("{order}:s", "*", "v", "b");
      const order: string[] = [];
      const handle = async (batch: StreamEntry<string>[]) => {
        for (const entry of batch) {
          order.push(entry.value);
          await consumer.ack([entry.entryId]);
        }
      };
      await handle(await blocked);
      await waitFor(async () => {
        await handle(await consumer.read().catch(() => []));
        return order.length >= 2;
      }, 8_000).catch(() => undefined);
      expect(order).toEqual(["a", "b"]);
    } finally {
      closeAll();
    }
  }, 30_000);
});
