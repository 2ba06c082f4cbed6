import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LuaScript } from "../../src/store/lua-script.js";
import { type TestRedis, testRedis } from "../support/redis.js";

describe("LuaScript on a real Redis", () => {
  let t: TestRedis;
  afterEach(async () => {
    vi.restoreAllMocks();
    await t?.cleanup();
  });

  /** A script no server has cached yet (its text, and so its SHA1, is new). */
  const freshScript = (body: string) => new LuaScript(`-- ${randomUUID()}\n${body}`);

  it("sends a script whole once, then by its SHA1 alone", async () => {
    t = await testRedis("lua-script");
    const script = freshScript("return redis.call('INCRBY', KEYS[1], ARGV[1])");
    const key = `{${t.prefix}}:counter`; // under the prefix: cleanup() deletes it
    expect(await t.redis.script("EXISTS", script.sha)).toEqual([0]);
    const evalSpy = vi.spyOn(t.redis, "eval");
    const evalshaSpy = vi.spyOn(t.redis, "evalsha");

    // Not cached: EVALSHA is refused, EVAL runs it — once, not twice.
    expect(await script.run(t.redis, 1, key, 5)).toBe(5);
    expect(evalshaSpy).toHaveBeenCalledTimes(1);
    expect(evalSpy).toHaveBeenCalledTimes(1);
    expect(evalSpy.mock.calls[0]?.[0]).toBe(script.source);
    expect(await t.redis.script("EXISTS", script.sha)).toEqual([1]);

    // Cached now: the text is not sent again.
    expect(await script.run(t.redis, 1, key, "2")).toBe(7);
    expect(evalshaSpy).toHaveBeenCalledTimes(2);
    expect(evalshaSpy.mock.calls[1]).toEqual([script.sha, 1, key, "2"]);
    expect(evalSpy).toHaveBeenCalledTimes(1);
    expect(await t.redis.get(key)).toBe("7");
  });

  it("passes on the script's own errors without running it again", async () => {
    t = await testRedis("lua-script");
    const script = freshScript(
      "redis.call('INCR', KEYS[1]) return redis.error_reply('ERR refused by the script')",
    );
    const key = `{${t.prefix}}:tries`;
    const evalSpy = vi.spyOn(t.redis, "eval");
    await expect(script.run(t.redis, 1, key)).rejects.toThrow("refused by the script");
    expect(evalSpy).toHaveBeenCalledTimes(1); // loading it: NOSCRIPT
    await expect(script.run(t.redis, 1, key)).rejects.toThrow("refused by the script");
    expect(evalSpy).toHaveBeenCalledTimes(1); // cached: its error is not a reason to send it whole
    expect(await t.redis.get(key)).toBe("2");
  });

  it("names the script by the SHA1 Redis gives it", async () => {
    t = await testRedis("lua-script");
    const script = freshScript("return 1");
    expect(await t.redis.script("LOAD", script.source)).toBe(script.sha);
  });
});
