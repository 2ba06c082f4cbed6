/**
 * The order of one rule's notifications about one flight through one channel
 * (src/deliver/delivery-order.ts), against a real Redis: who may send, what must wait,
 * what is stale, and what comes next.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeliveryOrder, orderOf, sequenceOf } from "../../src/deliver/delivery-order.js";
import type { Notification } from "../../src/deliver/notification.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { alert, flight } from "./email-fixtures.js";

const LOCK_MS = 30_000;
const RETENTION_MS = 3_600_000;

/** A notification of rule r1 about KL1001 through channel "ops", at `sequence`. */
function note(
  id: string,
  sequence: number | undefined,
  over: Partial<Notification> = {},
): Notification {
  const a = alert(`a-${id}`);
  if (sequence === undefined) delete a.sequence;
  else a.sequence = sequence;
  return { id, ruleId: "r1", channel: "ops", type: "webhook", alert: a, ...over };
}

describe("the delivery order of a (rule, flight, channel)", () => {
  let t: TestRedis;
  let order: DeliveryOrder;
  let keys: ReturnType<typeof redisKeys>;

  beforeEach(async () => {
    t = await testRedis("order");
    keys = redisKeys(t.prefix);
    order = new DeliveryOrder(t.redis, keys, RETENTION_MS);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("is one per rule, flight and channel", () => {
    const base = note("n1", 1);
    expect(orderOf(note("n2", 2))).toBe(orderOf(base));
    expect(orderOf(note("n3", 1, { ruleId: "r2" }))).not.toBe(orderOf(base));
    expect(orderOf(note("n4", 1, { channel: "mail" }))).not.toBe(orderOf(base));
    const other = note("n5", 1);
    other.alert = alert("a-n5", undefined, flight({ key: "other-flight" }));
    expect(orderOf(other)).not.toBe(orderOf(base));
    expect(orderOf(base)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("orders by the alert's sequence, 0 for alerts from before sequences", () => {
    expect(sequenceOf(note("n1", 7))).toBe(7);
    expect(sequenceOf(note("n2", undefined))).toBe(0);
  });

  it("lets the oldest pending go first; a newer one is told which are older", async () => {
    const [n1, n2, n3] = [note("n1", 10), note("n2", 20), note("n3", 30)];
    await order.pending([n1, n2, n3]);
    expect(await order.claim(n3, LOCK_MS)).toEqual({ kind: "older", ids: ["n1", "n2"] });
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "older", ids: ["n1"] });
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
  });

  it("sends one at a time: while one holds the turn, another is busy; the holder may claim again", async () => {
    const [n1, n2] = [note("n1", 10), note("n2", 20)];
    await order.pending([n1, n2]);
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "busy" });
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
    expect(await t.redis.pttl(keys.deliverySending(orderOf(n1)))).toBeGreaterThan(LOCK_MS - 10_000);
  });

  it("hands the next in line on when one is delivered, and marks what was delivered", async () => {
    const [n1, n2, n3] = [note("n1", 10), note("n2", 20), note("n3", 30)];
    await order.pending([n1, n2, n3]);
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
    expect(await order.done(n1, true)).toBe("n2");
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "go" });
    expect(await order.done(n2, true)).toBe("n3");
    expect(await order.claim(n3, LOCK_MS)).toEqual({ kind: "go" });
    expect(await order.done(n3, true)).toBeUndefined();
    const set = keys.deliveryOrder(orderOf(n1));
    expect(await t.redis.zrange(set, 0, -1, "WITHSCORES")).toEqual(["~delivered", "30"]);
    expect(await t.redis.pttl(set)).toBeGreaterThan(RETENTION_MS - 60_000);
    expect(await t.redis.exists(keys.deliverySending(orderOf(n1)))).toBe(0);
  });

  it("calls a notification older than, or as old as, one delivered stale", async () => {
    const [n1, n2] = [note("n1", 10), note("n2", 20)];
    await order.pending([n2]);
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "go" });
    await order.done(n2, true);
    // n1 was enqueued late, by another notifier.
    await order.pending([n1]);
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "stale", delivered: 20 });
    const again = note("n2-again", 20);
    await order.pending([again]);
    expect(await order.claim(again, LOCK_MS)).toEqual({ kind: "stale", delivered: 20 });
    // The worker supersedes stale ones: done, not delivered.
    const newer = note("n3", 21);
    await order.pending([newer]);
    expect(await order.claim(newer, LOCK_MS)).toEqual({ kind: "older", ids: ["n1", "n2-again"] });
    await order.done(n1, false);
    await order.done(again, false);
    expect(await order.claim(newer, LOCK_MS)).toEqual({ kind: "go" });
  });

  it("reads real sequences (epoch ms) whole: stale names the mark as delivered, older ones stop below it", async () => {
    const at = 1_795_798_641_309;
    const [old, sent, newer] = [note("old", at - 1), note("sent", at), note("newer", at + 1)];
    await order.pending([sent]);
    expect(await order.claim(sent, LOCK_MS)).toEqual({ kind: "go" });
    await order.done(sent, true);
    await order.pending([old, newer]);
    expect(await order.claim(old, LOCK_MS)).toEqual({ kind: "stale", delivered: at });
    expect(await order.claim(newer, LOCK_MS)).toEqual({ kind: "older", ids: ["old"] });
  });

  it("gives a replay no place: never stale, never older than a real one; it only takes turns", async () => {
    const [n1, n2] = [note("n1", 10), note("n2", 20)];
    await order.pending([n1, n2]);
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
    await order.done(n1, true);
    // The replay of n1: as old as what was delivered, and n2 waits — yet it goes.
    const replay = note("r1", 10, { replayOf: "n1" });
    await order.pending([replay]);
    const set = keys.deliveryOrder(orderOf(n1));
    expect(await t.redis.zscore(set, "r1")).toBeNull();
    expect(sequenceOf(replay)).toBe(0);
    expect(await order.claim(replay, LOCK_MS)).toEqual({ kind: "go" });
    // While it sends, the real one is busy (one send at a time), not told of an older one.
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "busy" });
    expect(await order.done(replay, true)).toBe("n2");
    // The replay raised no mark.
    expect(await t.redis.zscore(set, "~delivered")).toBe("10");
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "go" });
  });

  it("never lowers the mark, and a dead or superseded one marks nothing", async () => {
    const [n1, n2, n3] = [note("n1", 10), note("n2", 20), note("n3", 30)];
    await order.pending([n3]);
    await order.claim(n3, LOCK_MS);
    await order.done(n3, true);
    await order.pending([n2]);
    await order.done(n2, true); // delivered by an operator's retry, say: older than the mark
    const set = keys.deliveryOrder(orderOf(n1));
    expect(await t.redis.zscore(set, "~delivered")).toBe("30");
    await order.pending([n1]);
    await order.done(n1, false);
    expect(await t.redis.zscore(set, "~delivered")).toBe("30");
    expect(await t.redis.zscore(set, "n1")).toBeNull();
  });

  it("lets alerts from before sequences (0) go in any order, and mark nothing", async () => {
    const [a, b] = [note("a", undefined), note("b", undefined)];
    await order.pending([a, b]);
    expect(await order.claim(b, LOCK_MS)).toEqual({ kind: "go" });
    expect(await order.done(b, true)).toBe("a");
    const set = keys.deliveryOrder(orderOf(a));
    expect(await t.redis.zscore(set, "~delivered")).toBeNull();
    expect(await order.claim(a, LOCK_MS)).toEqual({ kind: "go" });
  });

  it("keeps a notification's place when it is enqueued again", async () => {
    const n1 = note("n1", 10);
    await order.pending([n1]);
    await order.pending([{ ...n1, alert: { ...n1.alert, sequence: 5 } }]);
    expect(await t.redis.zscore(keys.deliveryOrder(orderOf(n1)), "n1")).toBe("10");
    expect(await t.redis.pttl(keys.deliveryOrder(orderOf(n1)))).toBeGreaterThan(
      RETENTION_MS - 60_000,
    );
    await order.pending([]);
  });

  it("releases the turn only for its holder, keeping the notification in line", async () => {
    const [n1, n2] = [note("n1", 10), note("n2", 20)];
    await order.pending([n1, n2]);
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
    await order.release(n2); // not the holder: nothing happens
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "busy" });
    await order.release(n1);
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "older", ids: ["n1"] });
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
  });

  it("done by another than the holder leaves the holder's turn alone", async () => {
    const [n1, n2] = [note("n1", 10), note("n2", 20)];
    await order.pending([n1, n2]);
    expect(await order.claim(n1, LOCK_MS)).toEqual({ kind: "go" });
    expect(await order.done(n2, false)).toBe("n1");
    expect(await order.claim(note("n3", 30), LOCK_MS)).toEqual({ kind: "busy" });
  });

  describe("carriers: which job carries a notification", () => {
    /** A job of a queue under the test's prefix, as BullMQ keeps one (a hash). */
    const jobPrefix = () => `{${t.prefix}}:q:deliver-webhook:`;
    const job = (id: string) => ({ id, keyPrefix: jobPrefix() });
    const carrier = (n: Notification) => t.redis.get(keys.deliveryCarrier(0, n.id));

    it("leaves a notification to the bundle noted first while that job is waiting or under way", async () => {
      const n1 = note("n1", 10);
      await order.pending([n1], new Map([["n1", "bundle_a"]]));
      // Enqueued again (a crash before the alerts were acknowledged): the first carrier stays.
      await order.pending([n1], new Map([["n1", "bundle_b"]]));
      expect(await carrier(n1)).toBe("bundle_a");
      expect(await t.redis.pttl(keys.deliveryCarrier(0, "n1"))).toBeGreaterThan(
        RETENTION_MS - 60_000,
      );
      await t.redis.hset(`${jobPrefix()}bundle_a`, "data", "{}");
      expect(await order.claim(n1, LOCK_MS, job("bundle_b"))).toEqual({
        kind: "carried",
        by: "bundle_a",
        ended: false,
        delivered: false,
      });
      expect(await order.claim(n1, LOCK_MS, job("bundle_a"))).toEqual({ kind: "go" });
      // Finished and kept (a dead letter of its own, say): still its job's.
      await t.redis.hset(`${jobPrefix()}bundle_a`, "finishedOn", "1");
      expect(await order.claim(n1, LOCK_MS, job("bundle_b"))).toMatchObject({
        kind: "carried",
        by: "bundle_a",
      });
    });

    it("takes a notification over from a bundle that never came, or is gone", async () => {
      const n1 = note("n1", 10);
      await order.pending([n1], new Map([["n1", "bundle_gone"]]));
      expect(await order.claim(n1, LOCK_MS, job("bundle_b"))).toEqual({ kind: "go" });
      expect(await carrier(n1)).toBe("bundle_b");
      // From then on it is that job's.
      await t.redis.hset(`${jobPrefix()}bundle_b`, "data", "{}");
      expect(await order.claim(n1, LOCK_MS, job("bundle_c"))).toMatchObject({
        kind: "carried",
        by: "bundle_b",
      });
    });

    it("takes a notification over from a bundle that failed for good, and only such a bundle", async () => {
      const n1 = note("n1", 10);
      await order.pending([n1], new Map([["n1", "bundle_1_x"]]));
      await t.redis.hset(`${jobPrefix()}bundle_1_x`, "data", "{}");
      // Failed, but to run again (delayed): still its.
      await t.redis.zadd(`${jobPrefix()}delayed`, 1, "bundle_1_x");
      expect(await order.claim(n1, LOCK_MS, job("n1"))).toMatchObject({ kind: "carried" });
      // A job of its own that failed for good stays its carrier (a dead letter of its own).
      const n2 = note("n2", 11);
      await order.pending([n2], new Map([["n2", "other"]]));
      await t.redis.hset(`${jobPrefix()}other`, "data", "{}");
      await t.redis.zadd(`${jobPrefix()}failed`, 1, "other");
      expect(await order.claim(n2, LOCK_MS, job("n2"))).toMatchObject({ kind: "carried" });
      // Failed for good: the claiming job takes it.
      await t.redis.zadd(`${jobPrefix()}failed`, 1, "bundle_1_x");
      expect(await order.claim(n1, LOCK_MS, job("n1"))).toEqual({ kind: "go" });
      expect(await carrier(n1)).toBe("n1");
    });

    it("hands a bundle's notification to its own job only while the bundle still carries it", async () => {
      const [n1, n2, n3, n4] = ["n1", "n2", "n3", "n4"].map((id, i) => note(id, 10 + i)) as [
        Notification,
        Notification,
        Notification,
        Notification,
      ];
      await order.pending(
        [n1, n2, n3, n4],
        new Map([
          ["n1", "b"],
          ["n2", "b"],
          ["n3", "b"],
          ["n4", "b"],
        ]),
      );
      // Sent meanwhile by a job of its own, another job took it, handed over already.
      await t.redis.set(keys.deliveryCarrier(0, "n2"), "~sent:n2", "KEEPTTL");
      await t.redis.set(keys.deliveryCarrier(0, "n3"), "other", "KEEPTTL");
      await t.redis.set(keys.deliveryCarrier(0, "n4"), "n4", "KEEPTTL");
      const ttl = await t.redis.pttl(keys.deliveryCarrier(0, "n1"));
      expect(await order.handOver([n1, n2, n3, n4], "b")).toEqual([true, false, false, true]);
      expect(await Promise.all([n1, n2, n3, n4].map(carrier))).toEqual([
        "n1",
        "~sent:n2",
        "other",
        "n4",
      ]);
      expect(await t.redis.pttl(keys.deliveryCarrier(0, "n1"))).toBeLessThanOrEqual(ttl);
      expect(await t.redis.pttl(keys.deliveryCarrier(0, "n1"))).toBeGreaterThan(ttl - 60_000);
      expect(await order.handOver([], "b")).toEqual([]);
    });

    it("notes the end by the job that carries it, and whether it was delivered, so that no job runs it again", async () => {
      const [n1, n2] = [
        note("n1", 10),
        note("n2", 20, { alert: alert("b", undefined, flight({ key: "F2" })) }),
      ];
      await order.pending(
        [n1, n2],
        new Map([
          ["n1", "bundle_a"],
          ["n2", "bundle_a"],
        ]),
      );
      expect(await order.claim(n1, LOCK_MS, job("bundle_a"))).toEqual({ kind: "go" });
      // An end by another job (not its carrier) changes nothing.
      await order.done(n1, true, "bundle_x");
      expect(await carrier(n1)).toBe("bundle_a");
      await order.done(n1, true, "bundle_a");
      await order.done(n2, false, "bundle_a");
      expect(await carrier(n1)).toBe("~sent:bundle_a");
      expect(await carrier(n2)).toBe("~done:bundle_a");
      expect(await order.carrierOf("n1")).toEqual({
        job: "bundle_a",
        ended: true,
        delivered: true,
      });
      expect(await order.carrierOf("n2")).toEqual({
        job: "bundle_a",
        ended: true,
        delivered: false,
      });
      // The same bundle run again, and a job of its own enqueued late: carried, not sent.
      const ended = { kind: "carried", by: "bundle_a", ended: true };
      expect(await order.claim(n1, LOCK_MS, job("bundle_a"))).toEqual({
        ...ended,
        delivered: true,
      });
      expect(await order.claim(n1, LOCK_MS, job("n1"))).toEqual({ ...ended, delivered: true });
      expect(await order.claim(n2, LOCK_MS, job("bundle_a"))).toEqual({
        ...ended,
        delivered: false,
      });
    });

    it("hands a spun-off notification to its own job, and only one a carrier is kept for", async () => {
      const [n1, n2] = [
        note("n1", 10),
        note("n2", 20, { alert: alert("b", undefined, flight({ key: "F2" })) }),
      ];
      await order.pending([n1], new Map([["n1", "bundle_a"]]));
      await order.carry([n1, n2]);
      const own = { job: "n1", ended: false, delivered: false };
      expect(await order.carrierOf("n1")).toEqual(own);
      expect(await order.carrierOf("n2")).toBeUndefined();
      expect(await order.carrierIn(n1, "n1")).toEqual(own);
      // The bundle run again leaves it to that job.
      await t.redis.hset(`${jobPrefix()}n1`, "data", "{}");
      expect(await order.claim(n1, LOCK_MS, job("bundle_a"))).toEqual({
        kind: "carried",
        by: "n1",
        ended: false,
        delivered: false,
      });
      expect(await order.claim(n1, LOCK_MS, job("n1"))).toEqual({ kind: "go" });
    });
  });

  it("fails when Redis refuses to note one of them, naming Redis's error", async () => {
    const [n1, n2] = [note("n1", 10), note("n2", 20, { channel: "mail" })];
    // The second order's key holds something else: Redis refuses its ZADD.
    await t.redis.set(keys.deliveryOrder(orderOf(n2)), "not a sorted set");
    await expect(order.pending([n1, n2])).rejects.toThrow(/WRONGTYPE/);
  });

  it("forgets ids done elsewhere, so they hold nothing up", async () => {
    const [n1, n2, n3] = [note("n1", 10), note("n2", 20), note("n3", 30)];
    await order.pending([n1, n2, n3]);
    await order.forget(n3, []);
    expect(await order.claim(n3, LOCK_MS)).toEqual({ kind: "older", ids: ["n1", "n2"] });
    await order.forget(n3, ["n1", "n2"]);
    expect(await order.claim(n3, LOCK_MS)).toEqual({ kind: "go" });
  });

  it("answers claims and ends made together with one command each, as one at a time would", async () => {
    // Two orders: r1's n1 < n2 < n3, and r2's m1.
    const [n1, n2, n3] = [note("n1", 10), note("n2", 20), note("n3", 30)];
    const m1 = note("m1", 5, { ruleId: "r2" });
    await order.pending([n1, n2, n3, m1]);
    const evals = vi.spyOn(t.redis, "evalsha");
    // In one turn: n2 is told n1 is older, n1 goes, a second claim of n1 still goes
    // (its own lock), n3 finds the turn taken, m1 goes in its own order.
    const turns = await Promise.all([
      order.claim(n2, LOCK_MS),
      order.claim(n1, LOCK_MS),
      order.claim(n1, LOCK_MS),
      order.claim(n3, LOCK_MS),
      order.claim(m1, LOCK_MS),
    ]);
    expect(evals).toHaveBeenCalledTimes(1);
    expect(turns).toEqual([
      { kind: "older", ids: ["n1"] },
      { kind: "go" },
      { kind: "go" },
      { kind: "busy" },
      { kind: "go" },
    ]);
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "busy" });
    evals.mockClear();
    const next = await Promise.all([order.done(n1, true), order.done(m1, false)]);
    expect(evals).toHaveBeenCalledTimes(1);
    expect(next).toEqual(["n2", undefined]);
    // n1's delivery raised r1's mark: an older one arriving late is stale.
    expect(await order.claim(note("n0", 9), LOCK_MS)).toEqual({ kind: "stale", delivered: 10 });
    expect(await order.claim(n2, LOCK_MS)).toEqual({ kind: "go" });
  });

  it("over delivery shards, sends one command per shard and answers each claim and end in its place", async () => {
    const sharded = new DeliveryOrder(t.redis, redisKeys(t.prefix, 4), RETENTION_MS);
    const shardKeys = redisKeys(t.prefix, 4);
    // Eight rules' orders, two notifications each (sequence 1 and 2).
    const olds = Array.from({ length: 8 }, (_, i) => note(`o${i}`, 1, { ruleId: `r${i}` }));
    const news = Array.from({ length: 8 }, (_, i) => note(`n${i}`, 2, { ruleId: `r${i}` }));
    const shards = new Set(olds.map((n) => shardKeys.shardOf(orderOf(n))));
    expect(shards.size).toBeGreaterThan(1);
    const evals = vi.spyOn(t.redis, "evalsha");
    await sharded.pending([...news, ...olds]);
    expect(evals).toHaveBeenCalledTimes(shards.size);
    evals.mockClear();
    // Interleaved: each new one is told of its own order's old one, each old one goes.
    const turns = await Promise.all(
      olds.flatMap((o, i) => [
        sharded.claim(news[i] as Notification, LOCK_MS),
        sharded.claim(o, LOCK_MS),
      ]),
    );
    expect(evals).toHaveBeenCalledTimes(shards.size);
    expect(turns).toEqual(olds.flatMap((o) => [{ kind: "older", ids: [o.id] }, { kind: "go" }]));
    evals.mockClear();
    const next = await Promise.all(olds.map((o) => sharded.done(o, true)));
    expect(evals).toHaveBeenCalledTimes(shards.size);
    expect(next).toEqual(news.map((n) => n.id));
    // Each order's keys are in its shard's tag.
    for (const o of olds) {
      const key = shardKeys.deliveryOrder(orderOf(o));
      expect(await t.redis.zscore(key, "~delivered")).toBe("1");
      const shard = shardKeys.shardOf(orderOf(o));
      expect(key.startsWith(shard === 0 ? `{${t.prefix}}:` : `{${t.prefix}~d${shard}}:`)).toBe(
        true,
      );
    }
  });

  it("over delivery shards, a shard whose master fails fails only its own callers", async () => {
    const shardKeys = redisKeys(t.prefix, 4);
    const sharded = new DeliveryOrder(t.redis, shardKeys, RETENTION_MS);
    const notes = Array.from({ length: 8 }, (_, i) => note(`s${i}`, 1, { ruleId: `q${i}` }));
    const shardOfNote = (n: Notification) => shardKeys.shardOf(orderOf(n));
    const failing = shardOfNote(notes[0] as Notification);
    expect(notes.some((n) => shardOfNote(n) !== failing)).toBe(true);
    await sharded.pending(notes);
    // The failing shard's master refuses every script.
    const tag = failing === 0 ? `{${t.prefix}}` : `{${t.prefix}~d${failing}}`;
    const real = t.redis.evalsha.bind(t.redis);
    vi.spyOn(t.redis, "evalsha").mockImplementation(((...args: unknown[]) =>
      String(args[2]).startsWith(tag)
        ? Promise.reject(new Error("CLUSTERDOWN The cluster is down"))
        : (real as (...a: unknown[]) => Promise<unknown>)(...args)) as typeof t.redis.evalsha);
    const claims = await Promise.allSettled(notes.map((n) => sharded.claim(n, LOCK_MS)));
    const dones = await Promise.allSettled(notes.map((n) => sharded.done(n, true)));
    notes.forEach((n, i) => {
      if (shardOfNote(n) === failing) {
        expect(claims[i]).toMatchObject({ status: "rejected", reason: { message: /CLUSTERDOWN/ } });
        expect(dones[i]?.status).toBe("rejected");
      } else {
        expect(claims[i]).toEqual({ status: "fulfilled", value: { kind: "go" } });
        expect(dones[i]).toEqual({ status: "fulfilled", value: undefined });
      }
    });
  });
});
