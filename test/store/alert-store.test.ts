import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Alert } from "../../src/dispatch/alert.js";
import { type AlertDecisions, AlertStore } from "../../src/store/alert-store.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

interface Counter {
  n: number;
}

const alert = (id: string, ruleId = "r"): Alert => ({
  id,
  ruleId,
  labels: {},
  flight: { key: "D:2026-11-21:KL1001", id: "1", mainFlight: "KL1001", flightNames: ["KL1001"] },
  changes: [{ kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9", eventIds: [] }],
  openedAt: 1,
  decidedAt: 2,
});

const target = { ruleId: "r", flightKey: "D:2026-11-21:KL1001" };

describe("AlertStore on a real Redis", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let store: AlertStore<Counter>;
  beforeEach(async () => {
    t = await testRedis("alert-store");
    keys = redisKeys(t.prefix);
    store = new AlertStore<Counter>(t.redis, keys, { stateTtlMs: 60_000 });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("commits state, due time, alerts and the stream acknowledgement together", async () => {
    await t.redis.xgroup("CREATE", keys.outbox, "dispatch", "0", "MKSTREAM");
    const entryId = await t.redis.xadd(keys.outbox, "*", "changes", "{}");
    await t.redis.xreadgroup("GROUP", "dispatch", "c", "STREAMS", keys.outbox, ">");
    const alerts = await store.transact(
      [target],
      ([state]) => ({
        updates: [{ state: { n: (state?.n ?? 0) + 1 }, dueAt: 5000 }],
        alerts: [alert("a1")],
      }),
      { ack: { stream: keys.outbox, group: "dispatch", entryIds: [entryId as string] } },
    );
    expect(alerts.map((a) => a.id)).toEqual(["a1"]);
    expect(
      JSON.parse((await t.redis.get(keys.alertState("r", target.flightKey))) as string),
    ).toEqual({ n: 1 });
    expect(await t.redis.pttl(keys.alertState("r", target.flightKey))).toBeGreaterThan(50_000);
    expect(await store.due(4999)).toEqual([]);
    expect(await store.due(5000)).toEqual([target]);
    expect(await store.nextDueAt()).toBe(5000);
    expect((await store.readAlerts()).map((a) => a.id)).toEqual(["a1"]);
    const pending = (await t.redis.xpending(keys.outbox, "dispatch")) as [number];
    expect(pending[0]).toBe(0);
  });

  it("deletes the state and takes the target off the due set when told", async () => {
    await store.transact([target], () => ({
      updates: [{ state: { n: 1 }, dueAt: 10 }],
      alerts: [],
    }));
    await store.transact([target], () => ({ updates: [{ state: undefined }], alerts: [] }));
    expect(await t.redis.exists(keys.alertState("r", target.flightKey))).toBe(0);
    expect(await store.due(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(await store.nextDueAt()).toBeUndefined();
  });

  it("takes a target off the due set only when its state read was due (dueOf)", async () => {
    interface Timed {
      due?: number;
    }
    const timed = new AlertStore<Timed>(t.redis, keys, { dueOf: (s) => s.due });
    const other = { ruleId: "r2", flightKey: target.flightKey };
    await timed.transact([target, other], () => ({
      updates: [
        { state: { due: 10 }, dueAt: 10 },
        { state: {}, dueAt: undefined },
      ],
      alerts: [],
    }));
    expect(await timed.due(100)).toEqual([target]);
    // A member its state does not know of (say, a state that expired) is left for the
    // flush: no ZREM is sent for a target whose state read was not due…
    await t.redis.zadd(keys.alertsDue, 20, "r2 D:2026-11-21:KL1001");
    const third = { ruleId: "r3", flightKey: target.flightKey };
    await t.redis.zadd(keys.alertsDue, 30, "r3 D:2026-11-21:KL1001");
    await timed.transact([target, other, third], () => ({
      updates: [{ state: {} }, { state: {} }, { state: {} }],
      alerts: [],
    }));
    expect(await timed.due(100)).toEqual([other, third]);
    // … which reads its targets from the due set and takes off each one not due.
    await timed.transact(
      [other, third],
      () => ({ updates: [{ state: {} }, { state: undefined }], alerts: [] }),
      { fromDueSet: true },
    );
    expect(await timed.due(100)).toEqual([]);
    await t.redis.zadd(keys.alertsDue, 20, "r2 D:2026-11-21:KL1001");
    await t.redis.zadd(keys.alertsDue, 30, "r3 D:2026-11-21:KL1001");
    // Without dueOf, every target not due is taken off, in case.
    await store.transact([other, third], () => ({
      updates: [{ state: { n: 1 } }, { state: { n: 1 } }],
      alerts: [],
    }));
    expect(await store.due(100)).toEqual([]);
  });

  it("re-decides when another client changed the state meanwhile: no update is lost", async () => {
    // Two stores on two connections increment one counter 20 times each, interleaved;
    // without WATCH, increments read the same old value and overwrite each other.
    const other = new Redis(TEST_REDIS_URL);
    try {
      const second = new AlertStore<Counter>(other, keys);
      const bump = (s: AlertStore<Counter>) =>
        s.transact(
          [target],
          ([state]): AlertDecisions<Counter> => ({
            updates: [{ state: { n: (state?.n ?? 0) + 1 } }],
            alerts: [],
          }),
        );
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          await Promise.all([bump(store), bump(second)]);
        }),
      );
      const final = JSON.parse(
        (await t.redis.get(keys.alertState("r", target.flightKey))) as string,
      );
      expect(final).toEqual({ n: 40 });
    } finally {
      other.disconnect();
    }
  });

  it("writes nothing when the decision throws", async () => {
    await expect(
      store.transact([target], () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await t.redis.exists(keys.alertState("r", target.flightKey))).toBe(0);
    // The connection is usable afterwards (no WATCH left behind to fail the next commit).
    await store.transact([target], () => ({
      updates: [{ state: { n: 1 } }],
      alerts: [alert("a2")],
    }));
    expect((await store.readAlerts()).map((a) => a.id)).toEqual(["a2"]);
  });
});
