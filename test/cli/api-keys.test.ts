/**
 * `flightwatch api-keys` as an operator runs it (the real CLI, a real Redis): a key is
 * printed once and only its SHA-256 is kept; `list` never shows a key; a revoked key
 * is refused by the store the API checks requests with.
 */
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../../src/http-api/api-key-store.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { spawnCli, testRedisEnv } from "../support/cli-process.js";
import { type TestRedis, testRedis } from "../support/redis.js";

describe("flightwatch api-keys", () => {
  let t: TestRedis;
  beforeEach(async () => {
    t = await testRedis("api-keys");
  });
  afterEach(async () => {
    await t.cleanup();
  });

  async function cli(
    ...args: string[]
  ): Promise<{ code: number | string; out: string; err: string }> {
    const proc = spawnCli(["api-keys", ...args], testRedisEnv(t.prefix));
    const code = await proc.exited;
    return { code, out: proc.stdout(), err: proc.stderr() };
  }

  it("creates a key shown once, keeps only its hash, lists and revokes it", async () => {
    const created = await cli("create", "--name", "booking-app");
    expect(created.code, created.err).toBe(0);
    expect(created.out).toMatch(/^fwk_[A-Za-z0-9_-]{43}\n$/);
    const key = created.out.trim();
    const id = /created (ak_[0-9a-f]{16}) \(booking-app\)/.exec(created.err)?.[1] as string;
    expect(id).toEqual(expect.any(String));
    expect(created.err).toContain("shown this once");

    // Redis holds the hash, never the key.
    const keys = redisKeys(t.prefix);
    const stored = JSON.stringify(await t.redis.hgetall(keys.apiKeys));
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(4));
    expect(stored).toContain(createHash("sha256").update(key).digest("hex"));
    const all = await t.redis.keys(`{${t.prefix}}:*`);
    expect(all).toEqual([keys.apiKeys]);

    const store = new ApiKeyStore(t.redis, keys);
    expect(await store.verify(key)).toMatchObject({ id, name: "booking-app" });

    const json = await cli("create", "--json");
    expect(json.code, json.err).toBe(0);
    const second = JSON.parse(json.out) as {
      id: string;
      name: string;
      key: string;
      createdAt: string;
    };
    expect(second).toEqual({
      id: expect.stringMatching(/^ak_[0-9a-f]{16}$/),
      name: "",
      createdAt: expect.stringMatching(/Z$/),
      key: expect.stringMatching(/^fwk_/),
    });

    const listed = await cli("list");
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toContain(`${id}  `);
    expect(listed.out).toContain("booking-app");
    expect(listed.out).toContain(second.id);
    expect(listed.out).toContain("(no name)");
    expect(listed.out).not.toContain("fwk_");

    const revoked = await cli("revoke", id);
    expect(revoked.code, revoked.err).toBe(0);
    expect(revoked.out).toBe(`revoked ${id}\n`);
    expect(await store.verify(key)).toBeUndefined();
    expect(await store.verify(second.key)).toMatchObject({ id: second.id });

    const again = await cli("revoke", id);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`${id}: no API key with this id`);
  }, 60_000);

  it("refuses a name with control characters, naming --name", async () => {
    const refused = await cli("create", "--name", "evil\u001b[2Jname");
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("--name");
    expect(await t.redis.keys(`{${t.prefix}}:*`)).toEqual([]);
  });
});
