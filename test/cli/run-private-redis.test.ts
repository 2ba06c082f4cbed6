/**
 * The demo's private Redis (src/daemon/private-redis.ts): when nothing answers at the
 * default address, `npm start` / `flightwatch demo` run a `redis-server` of their own
 * on a free loopback port and stop it on exit. The default address has a Redis on the
 * test machines, so the pieces are tested directly: the binary is found on PATH, a
 * started server answers on its own port, and stop() ends it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import {
  findRedisServer,
  type PrivateRedis,
  startPrivateRedis,
} from "../../src/daemon/private-redis.js";
import { waitFor } from "../support/crash-run.js";

const binary = findRedisServer();

/** Whether a Redis answers PING at `url` within a second. */
async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

describe("private Redis for the demo", () => {
  let started: PrivateRedis | undefined;
  let empty: string | undefined;
  afterAll(async () => {
    started?.stop();
    if (empty) await rm(empty, { recursive: true, force: true });
  });

  it("finds redis-server on PATH, and nothing where there is none", async () => {
    empty = await mkdtemp(join(tmpdir(), "fw-no-redis-"));
    expect(findRedisServer(empty)).toBeUndefined();
    expect(findRedisServer("")).toBeUndefined();
    if (binary === undefined) return; // no redis-server on this machine: nothing more to find
    expect(binary).toMatch(/redis-server$/);
    const dir = binary.slice(0, -"/redis-server".length);
    expect(findRedisServer(`${empty}:${dir}`)).toBe(binary);
  });

  it.skipIf(binary === undefined)(
    "starts redis-server on a free loopback port, and stop() ends it",
    async () => {
      started = await startPrivateRedis(binary as string);
      const url = new URL(started.url);
      expect(url.protocol).toBe("redis:");
      expect(url.hostname).toBe("127.0.0.1");
      expect(url.port).not.toBe("6379");
      const redis = new Redis(started.url, { maxRetriesPerRequest: 1 });
      try {
        await redis.set("fw-private", "yes");
        expect(await redis.get("fw-private")).toBe("yes");
        // Kept in memory only: nothing is saved to disk.
        expect(await redis.config("GET", "save")).toEqual(["save", ""]);
      } finally {
        redis.disconnect();
      }
      started.stop();
      await waitFor(async () => !(await answers(started?.url as string)), 5_000);
      started = undefined;
    },
  );
});
