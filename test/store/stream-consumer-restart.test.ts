/**
 * A stream consumer across a restart of Redis (a private redis-server with AOF): an
 * entry Redis handed to a blocked read just before it shut down — its reply never
 * written — is pending under the consumer's name; after the reconnect the consumer
 * reads it at once, not when it is claimed as abandoned a minute later.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis } from "../../src/store/redis-connection.js";
import { fieldOf, StreamConsumer, type StreamEntry } from "../../src/store/stream-consumer.js";
import { sleep, waitFor } from "../support/crash-run.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";

describe("StreamConsumer across a Redis restart", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    await server?.close();
  });

  it("reads an entry whose read reply Redis never wrote, right after the reconnect", async () => {
    const connections: Redis[] = [];
    const connect = async () => {
      const redis = await connectRedis(server.url);
      connections.push(redis);
      return redis;
    };
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
      await server.restart({ downMs: 300 });
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
      for (const redis of connections) redis.disconnect();
    }
  }, 30_000);
});
