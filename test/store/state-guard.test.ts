import { afterEach, describe, expect, it } from "vitest";
import { deleteByPattern } from "../../src/store/redis-connection.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { type Outstanding, StateGuard, type StateLoss } from "../../src/store/state-guard.js";
import { type TestRedis, testRedis } from "../support/redis.js";

describe("StateGuard on a real Redis", () => {
  let t: TestRedis;
  afterEach(async () => {
    await t?.cleanup();
  });

  /** What is outstanding when only these notifications wait. */
  const waiting = (...ids: string[]): Outstanding => ({
    notifications: ids.length,
    notificationIds: ids,
    alerts: 0,
    groups: 0,
  });

  /** A guard over the test prefix that looks with `observe` and hears its losses in `heard`. */
  const hearingGuard = (observe: () => Promise<Outstanding>, monotonic: () => number) => {
    const keys = redisKeys(t.prefix);
    const heard: StateLoss[] = [];
    const guard = new StateGuard({
      redis: t.redis,
      keys,
      observe,
      onLoss: (loss) => heard.push(loss),
      monotonic,
    });
    return { guard, heard, keys };
  };

  it("names what the looks of the last 10 s saw, however many looks a slow deletion took", async () => {
    t = await testRedis("guard-window");
    let monotonic = 0;
    let outstanding: Outstanding = waiting("msg_old");
    const { guard, heard, keys } = hearingGuard(
      async () => outstanding,
      () => monotonic,
    );
    await guard.start();
    await guard.check(); // at 0: msg_old, 12 s before the loss: out of the window
    monotonic = 3_000;
    outstanding = waiting("msg_a", "msg_b");
    await guard.check(); // at 3 s: what was there
    // The keys go one by one, slower than the looks: three of them see the queues gone.
    outstanding = waiting();
    for (const at of [6_000, 9_000, 12_000]) {
      monotonic = at;
      expect(await guard.check()).toBeUndefined();
    }
    await deleteByPattern(t.redis, keys.pattern);
    monotonic = 12_500;
    await guard.check();
    expect(heard).toEqual([
      {
        recreated: true,
        outstanding: {
          notifications: 2,
          notificationIds: ["msg_a", "msg_b"],
          alerts: 0,
          groups: 0,
        },
        observedAgoMs: 9_500,
      },
    ]);
  });

  it("notices the data gone, once, reports it to the process that noticed first with the last look", async () => {
    t = await testRedis("guard");
    const keys = redisKeys(t.prefix);
    let monotonic = 0;
    let outstanding: Outstanding = {
      notifications: 2,
      notificationIds: ["msg_a", "msg_b"],
      alerts: 1,
      groups: 3,
    };
    const heard: StateLoss[][] = [[], []];
    const guards = [0, 1].map(
      (i) =>
        new StateGuard({
          redis: t.redis,
          keys,
          observe: async () => outstanding,
          onLoss: (loss) => heard[i]?.push(loss),
          monotonic: () => monotonic,
        }),
    );
    for (const guard of guards) await guard.start();
    // One generation for the deployment, however many processes start.
    const generation = await t.redis.get(keys.generation);
    expect(generation).not.toBeNull();
    for (const guard of guards) expect(await guard.check()).toBeUndefined();

    monotonic = 4_000;
    // Keys deleted one by one: a look catches the queues gone and the generation not yet.
    outstanding = waiting("msg_b");
    for (const guard of guards) expect(await guard.check()).toBeUndefined();
    await deleteByPattern(t.redis, keys.pattern);
    // After the loss the queues look empty: that look must not replace the one before.
    outstanding = waiting();
    const [first, second] = await Promise.all([guards[0]?.check(), guards[0]?.check()]);
    expect(first).toBe(second);
    expect(heard[0]).toEqual([
      {
        recreated: true,
        outstanding: {
          notifications: 2,
          notificationIds: ["msg_a", "msg_b"],
          alerts: 1,
          groups: 3,
        },
        // Both looks together, as of the earlier one.
        observedAgoMs: 4_000,
      },
    ]);
    const renewed = await t.redis.get(keys.generation);
    expect(renewed).not.toBe(generation);
    // The other process hears of it too, as not the first.
    await guards[1]?.check();
    expect(heard[1]?.map((l) => l.recreated)).toEqual([false]);
    // And nothing more: the looks before the loss are not named twice.
    outstanding = waiting("msg_c");
    for (const guard of guards) expect(await guard.check()).toBeUndefined();
    expect(heard.map((h) => h.length)).toEqual([1, 1]);
    // A second loss names what the looks since the first one saw.
    monotonic = 9_000;
    await deleteByPattern(t.redis, keys.pattern);
    await guards[0]?.check();
    expect(heard[0]?.[1]).toMatchObject({
      recreated: true,
      outstanding: { notifications: 1, notificationIds: ["msg_c"] },
      observedAgoMs: 5_000,
    });
  });

  it("takes a look that fails (keys vanishing under it) as no look, and still notices the loss", async () => {
    t = await testRedis("guard");
    let failing = false;
    const outstanding: Outstanding = waiting("msg_x");
    const { guard, heard, keys } = hearingGuard(
      async () => {
        if (failing) throw new Error("ERR no such key");
        return outstanding;
      },
      () => 1_000,
    );
    await guard.start();
    await guard.check();
    failing = true;
    expect(await guard.check()).toBeUndefined();
    await deleteByPattern(t.redis, keys.pattern);
    const loss = await guard.check();
    expect(loss).toMatchObject({ recreated: true, outstanding: { notificationIds: ["msg_x"] } });
    expect(heard).toHaveLength(1);
  });
});
