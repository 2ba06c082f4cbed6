import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChangeEvent } from "../../src/diff/change.js";
import type { Alert } from "../../src/dispatch/alert.js";
import type { AlertState } from "../../src/dispatch/alert-decision.js";
import { nextDue } from "../../src/dispatch/alert-state.js";
import { DISPATCH_GROUP, Dispatcher } from "../../src/dispatch/dispatcher.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { Rule } from "../../src/rules/rule.js";
import { AlertStore } from "../../src/store/alert-store.js";
import type { PollStatus } from "../../src/store/detection-store.js";
import { OutboxConsumer } from "../../src/store/outbox-consumer.js";
import { encodeOutboxEntries, OUTBOX_FIELD } from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { changeEvent } from "../rules/event-builder.js";
import { rule } from "../rules/rule-builder.js";
import { type TestRedis, testRedis } from "../support/redis.js";

describe("Dispatcher on a real Redis", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let now: number;
  let rules: RuleSet;
  let consumer: OutboxConsumer;
  let store: AlertStore<AlertState>;
  let dispatcher: Dispatcher;

  const build = (list: Rule[]) => {
    rules = new RuleSet(list);
  };
  const commit = async (events: ChangeEvent[]) => {
    for (const text of encodeOutboxEntries(events)) {
      await t.redis.xadd(keys.outbox, "*", OUTBOX_FIELD, text);
    }
  };
  const gate = (old: string, to: string, version: number) => {
    const event = changeEvent({
      id: `gate-${to}-${version}`,
      old,
      new: to,
      current: { gate: to, pier: "D" },
    });
    event.version = version;
    return event;
  };

  beforeEach(async () => {
    t = await testRedis("dispatcher");
    keys = redisKeys(t.prefix);
    now = Date.parse("2026-11-21T08:00:00Z");
    build([rule("gates", { changes: ["gate"] })]);
    consumer = new OutboxConsumer({
      redis: t.redis.duplicate(),
      keys,
      group: DISPATCH_GROUP,
      consumer: "c1",
      blockMs: 10,
    });
    await consumer.ensureGroup(true);
    store = new AlertStore<AlertState>(t.redis.duplicate(), keys, { dueOf: nextDue });
    dispatcher = new Dispatcher({ consumer, store, rules: () => rules, now: () => now });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("turns matched changes into alerts and acknowledges the outbox entry", async () => {
    await commit([gate("D5", "D7", 1)]);
    const alerts = await dispatcher.step();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.ruleId).toBe("gates");
    expect(alerts[0]?.changes.map((c) => [c.old, c.new])).toEqual([["D5", "D7"]]);
    expect((await store.readAlerts()).map((a) => a.id)).toEqual([alerts[0]?.id]);
    const pending = (await t.redis.xpending(keys.outbox, DISPATCH_GROUP)) as [number];
    expect(pending[0]).toBe(0);
  });

  it("takes off the due set a member whose state is gone, and still hears of its flight", async () => {
    // A group waiting while the dispatcher was down for longer than its state is kept
    // (or a state Redis evicted): the member outlives the state.
    build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 60_000 }]);
    await commit([gate("D5", "D7", 1)]);
    expect(await dispatcher.step()).toEqual([]);
    const [member] = await t.redis.zrange(keys.alertsDue, 0, -1);
    expect(member).toBeDefined();
    const [ruleId, flightKey] = (member as string).split(" ") as [string, string];
    await t.redis.del(keys.alertState(ruleId, flightKey));
    // A change of the flight meanwhile writes its state again (not due: no group_wait now).
    build([rule("grouped", { changes: ["gate"] })]);
    await commit([gate("D7", "D9", 2)]);
    expect(await dispatcher.step()).toHaveLength(1);
    now += 60_000;
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.zcard(keys.alertsDue)).toBe(0);
  });

  it("acknowledges entries that no rule matches, and writes nothing for them", async () => {
    await commit([changeEvent({ kind: "belt", field: "baggageClaim", new: ["4"] })]);
    expect(await dispatcher.step()).toEqual([]);
    expect(await store.readAlerts()).toEqual([]);
    const pending = (await t.redis.xpending(keys.outbox, DISPATCH_GROUP)) as [number];
    expect(pending[0]).toBe(0);
  });

  it("holds a group for group_wait and flushes it when due, as one alert", async () => {
    build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 60_000 }]);
    await commit([gate("D5", "D7", 1)]);
    expect(await dispatcher.step()).toEqual([]);
    now += 30_000;
    await commit([gate("D7", "D9", 2)]);
    expect(await dispatcher.step()).toEqual([]);
    now += 30_000;
    const alerts = await dispatcher.step();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.changes.map((c) => [c.old, c.new])).toEqual([["D5", "D9"]]);
    // Flushed once: later steps find nothing due.
    now += 60_000;
    expect(await dispatcher.step()).toEqual([]);
    expect(await store.readAlerts()).toHaveLength(1);
  });

  it("decides an entry delivered again (acknowledgement lost in a crash) without a second alert", async () => {
    await commit([gate("D5", "D7", 1)]);
    const [entry] = await consumer.read();
    if (!entry) throw new Error("no entry");
    const first = await dispatcher.admit([entry]);
    // The same entry again, as a restarted dispatcher would read it had the ack not landed.
    const again = await dispatcher.admit([entry]);
    expect(first).toHaveLength(1);
    expect(again).toEqual([]);
    expect(await store.readAlerts()).toHaveLength(1);
  });

  it("decides a batch of entries in one transaction, exactly as one entry at a time would", async () => {
    // Every kind of memory a decision keeps: plain, group_wait, cool-down, both flap actions.
    build([
      rule("plain", { changes: ["gate"] }),
      { ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 60_000 },
      { ...rule("cool", { changes: ["gate"] }), coolDownMs: 60_000 },
      {
        ...rule("suppress", { changes: ["gate"] }),
        flapping: { windowMs: 60_000, action: "suppress" },
      },
      {
        ...rule("correct", { changes: ["gate"] }),
        flapping: { windowMs: 60_000, action: "correct" },
      },
    ]);
    const moves: Array<[flight: string, from: string, to: string]> = [
      ["KL1", "D1", "D2"],
      ["KL2", "D5", "D6"],
      ["KL1", "D2", "D1"],
      ["KL3", "D7", "D8"],
      ["KL1", "D1", "D3"],
      ["KL3", "D8", "D9"],
      ["KL1", "D3", "D1"],
      ["KL2", "D6", "D5"],
    ];
    const events = moves.map(([flight, from, to], i) => {
      const event = changeEvent({
        id: `m${i}`,
        old: from,
        new: to,
        current: { gate: to, pier: "D" },
        flight: {
          key: `D:2026-11-21:${flight}`,
          id: flight,
          mainFlight: flight,
          flightNames: [flight],
        },
      });
      event.version = i + 1;
      return event;
    });
    // Each move its own outbox entry, as successive polls would write them.
    for (const event of events) await commit([event]);

    // One at a time, on a prefix of its own: a reader of one entry per read.
    const single = await testRedis("dispatcher-single");
    try {
      const singleKeys = redisKeys(single.prefix);
      for (const event of events) {
        for (const text of encodeOutboxEntries([event])) {
          await single.redis.xadd(singleKeys.outbox, "*", OUTBOX_FIELD, text);
        }
      }
      const oneConsumer = new OutboxConsumer({
        redis: single.redis.duplicate(),
        keys: singleKeys,
        group: DISPATCH_GROUP,
        consumer: "c1",
        blockMs: 10,
        count: 1,
      });
      await oneConsumer.ensureGroup(true);
      const oneStore = new AlertStore<AlertState>(single.redis.duplicate(), singleKeys);
      const oneAtATime = new Dispatcher({
        consumer: oneConsumer,
        store: oneStore,
        rules: () => rules,
        now: () => now,
      });
      const summary = (alerts: readonly Alert[]) =>
        alerts.map((a) => [
          a.ruleId,
          a.flight.mainFlight,
          a.sequence,
          a.changes.map((c) => `${String(c.old)}→${String(c.new)}`).join(" "),
        ]);
      const expected: Alert[] = [];
      for (let i = 0; i < events.length; i++) expected.push(...(await oneAtATime.step()));

      const transact = vi.spyOn(store, "transact");
      const batch = await dispatcher.step();
      // One read, one transaction for the whole batch (nothing was due yet).
      expect(transact).toHaveBeenCalledTimes(1);
      expect(summary(batch)).toEqual(summary(expected));
      expect(batch.length).toBeGreaterThan(8);
      const pending = (await t.redis.xpending(keys.outbox, DISPATCH_GROUP)) as [number];
      expect(pending[0]).toBe(0);

      // What they remember is the same too: the flushes a minute later agree.
      now += 61_000;
      const flushedOne = await oneAtATime.step();
      transact.mockClear();
      const flushedBatch = await dispatcher.step();
      expect(transact).toHaveBeenCalledTimes(1);
      expect(summary(flushedBatch)).toEqual(summary(flushedOne));
      expect(flushedBatch.length).toBeGreaterThan(1);
      expect(await single.redis.zcard(singleKeys.alertsDue)).toBe(0);
      expect(await t.redis.zcard(keys.alertsDue)).toBe(0);
    } finally {
      await single.cleanup();
    }
  });

  it("cuts a batch that concerns too many (rule, flight)s into several transactions, never an entry", async () => {
    build([rule("one", { changes: ["gate"] }), rule("two", { changes: ["gate"] })]);
    // Each entry concerns two targets (two rules); at most three per transaction.
    const small = new Dispatcher({
      consumer,
      store,
      rules: () => rules,
      now: () => now,
      maxTargets: 3,
    });
    const flights = ["KL1", "KL2", "KL3"];
    for (const [i, flight] of flights.entries()) {
      const event = changeEvent({
        id: `c${i}`,
        old: "D1",
        new: `D${i + 2}`,
        current: { gate: `D${i + 2}`, pier: "D" },
        flight: {
          key: `D:2026-11-21:${flight}`,
          id: flight,
          mainFlight: flight,
          flightNames: [flight],
        },
      });
      await commit([event]);
    }
    const transact = vi.spyOn(store, "transact");
    const alerts = await small.step();
    // 2 + 2 > 3: each entry in a transaction of its own.
    expect(transact).toHaveBeenCalledTimes(3);
    for (const call of transact.mock.calls) expect(call[0]).toHaveLength(2);
    expect(alerts.map((a) => `${a.ruleId} ${a.flight.mainFlight}`)).toEqual([
      "one KL1",
      "two KL1",
      "one KL2",
      "two KL2",
      "one KL3",
      "two KL3",
    ]);
    const pending = (await t.redis.xpending(keys.outbox, DISPATCH_GROUP)) as [number];
    expect(pending[0]).toBe(0);
  });

  it("uses the rule set in force at each entry: a reload applies at once", async () => {
    await commit([gate("D5", "D7", 1)]);
    build([rule("other", { changes: ["belt"] })]);
    expect(await dispatcher.step()).toEqual([]);
    build([rule("gates", { changes: ["gate"] }), rule("gates-too", { changes: ["gate"] })]);
    await commit([gate("D7", "D9", 2)]);
    expect((await dispatcher.step()).map((a) => a.ruleId)).toEqual(["gates", "gates-too"]);
  });

  it("drops the waiting group of a rule removed by a reload", async () => {
    build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 60_000 }]);
    await commit([gate("D5", "D7", 1)]);
    await dispatcher.step();
    expect(await store.nextDueAt()).toBe(now + 60_000);
    build([]);
    now += 60_000;
    expect(await dispatcher.step()).toEqual([]);
    expect(await store.nextDueAt()).toBeUndefined();
    expect(await t.redis.exists(keys.alertState("grouped", "D:2026-11-21:KL601"))).toBe(0);
  });

  it("lets two dispatchers share the outbox: each change decided once, the alerts chain to the last gate", async () => {
    const reader = (name: string) =>
      new OutboxConsumer({
        redis: t.redis.duplicate(),
        keys,
        group: DISPATCH_GROUP,
        consumer: name,
        blockMs: 10,
        count: 3,
      });
    const one = new Dispatcher({
      consumer: reader("c1"),
      store,
      rules: () => rules,
      now: () => now,
    });
    const two = new Dispatcher({
      consumer: reader("c2"),
      store: new AlertStore<AlertState>(t.redis.duplicate(), keys),
      rules: () => rules,
      now: () => now,
    });
    // One outbox entry per version, so the two share them and decide out of order.
    const versions = Array.from({ length: 30 }, (_, i) => i + 1);
    await commit(versions.map((v) => gate(`G${v - 1}`, `G${v}`, v)));
    for (let round = 0; round < 12; round++) await Promise.all([one.step(), two.step()]);
    const pending = (await t.redis.xpending(keys.outbox, DISPATCH_GROUP)) as [number];
    expect(pending[0]).toBe(0);
    const alerts = await store.readAlerts();
    const eventIds = alerts.flatMap((a) => a.changes.flatMap((c) => c.eventIds));
    expect(new Set(eventIds).size).toBe(eventIds.length);
    // The first alert starts wherever the first change decided started (a change that
    // arrives later but is older is superseded); from there on the alerts chain.
    let last = String(alerts[0]?.changes[0]?.old);
    for (const alert of alerts) {
      const change = alert.changes[0];
      expect(change?.old, "each alert starts where the one before ended").toBe(last);
      last = String(change?.new);
    }
    expect(last).toBe("G30");
  });

  describe("catching up after downtime (a dispatcher that polls)", () => {
    /** The poll status a restarted daemon finds, as the poller keeps it in Redis. */
    let status: PollStatus;
    /** A poll attempt the poller records (the status's attempt counter moves on). */
    const polled = (fields: Omit<PollStatus, "attempts">) => {
      status = { ...fields, attempts: (status?.attempts ?? 0) + 1 };
    };
    const restarted = () =>
      new Dispatcher({
        consumer,
        store,
        rules: () => rules,
        now: () => now,
        detection: { readStatus: async () => status },
      });

    it("keeps a group that fell due while down open for the changes found meanwhile: D1 → D3, never D2", async () => {
      build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 8_000 }]);
      polled({ lastAttemptAt: now - 500, lastSuccessAt: now - 500, failures: 0 });
      await commit([gate("D1", "D2", 1)]);
      expect(await dispatcher.step()).toEqual([]);
      // Stopped for ten minutes; the gate moved on to D3 meanwhile.
      now += 10 * 60_000;
      const back = restarted();
      const alerts = [...(await back.step())];
      // The first poll since the start finds D3.
      await commit([gate("D2", "D3", 2)]);
      polled({ lastAttemptAt: now + 300, lastSuccessAt: now + 300, failures: 0 });
      now += 500;
      alerts.push(...(await back.step()), ...(await back.step()));
      expect(alerts.map((a) => a.changes.map((c) => [c.old, c.new]))).toEqual([[["D1", "D3"]]]);
      // Caught up: groups close on time again.
      await commit([gate("D3", "D4", 3)]);
      expect(await back.step()).toEqual([]);
      now += 8_000;
      const next = await back.step();
      expect(next.map((a) => a.changes.map((c) => [c.old, c.new]))).toEqual([[["D3", "D4"]]]);
    });

    it("sends each change of a rule without group_wait on its own, even while catching up", async () => {
      polled({ lastAttemptAt: now - 500, lastSuccessAt: now - 500, failures: 0 });
      // Committed before a kill, never decided: the restarted dispatcher finds it pending.
      await commit([gate("D1", "D2", 1)]);
      now += 60_000;
      const back = restarted();
      const alerts = [...(await back.step())];
      await commit([gate("D2", "D3", 2)]);
      polled({ lastAttemptAt: now + 300, lastSuccessAt: now + 300, failures: 0 });
      alerts.push(...(await back.step()), ...(await back.step()));
      expect(alerts.map((a) => a.changes.map((c) => [c.old, c.new]))).toEqual([
        [["D1", "D2"]],
        [["D2", "D3"]],
      ]);
    });

    it("sends what it knows once a poll since the start has failed (the upstream is down)", async () => {
      build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 8_000 }]);
      polled({ lastAttemptAt: now - 500, lastSuccessAt: now - 500, failures: 0 });
      await commit([gate("D1", "D2", 1)]);
      expect(await dispatcher.step()).toEqual([]);
      now += 10 * 60_000;
      const back = restarted();
      expect(await back.step()).toEqual([]);
      polled({ ...status, lastAttemptAt: now + 100, failures: 1 });
      now += 500;
      const alerts = await back.step();
      expect(alerts.map((a) => a.changes.map((c) => [c.old, c.new]))).toEqual([[["D1", "D2"]]]);
    });

    /** A dispatcher of a process (re)started now, with its own connections. */
    const daemon = (name = "c1") => {
      const own = new OutboxConsumer({
        redis: t.redis.duplicate(),
        keys,
        group: DISPATCH_GROUP,
        consumer: name,
        blockMs: 10,
      });
      const dispatch = new Dispatcher({
        consumer: own,
        store: new AlertStore<AlertState>(t.redis.duplicate(), keys),
        rules: () => rules,
        now: () => now,
        detection: { readStatus: async () => status },
      });
      return { consumer: own, dispatcher: dispatch };
    };
    const moves = (alerts: Alert[]) => alerts.map((a) => a.changes.map((c) => `${c.old}→${c.new}`));

    it("a restart during the catch-up catches up from the same point (killed after the first poll back)", async () => {
      build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 8_000 }]);
      polled({ lastAttemptAt: now - 500, lastSuccessAt: now - 500, failures: 0 });
      await commit([gate("D1", "D2", 1)]);
      expect(await dispatcher.step()).toEqual([]);
      now += 10 * 60_000;
      const first = daemon();
      const alerts = [...(await first.dispatcher.step())];
      // The first poll back commits D3; the process is killed before dispatching it.
      await commit([gate("D2", "D3", 2)]);
      polled({ lastAttemptAt: now + 300, lastSuccessAt: now + 300, failures: 0 });
      now += 5_000;
      const again = daemon();
      alerts.push(...(await again.dispatcher.step()), ...(await again.dispatcher.step()));
      expect(alerts).toEqual([]);
      polled({ lastAttemptAt: now + 100, lastSuccessAt: now + 100, failures: 0 });
      now += 10_000;
      alerts.push(...(await again.dispatcher.step()), ...(await again.dispatcher.step()));
      expect(moves(alerts)).toEqual([["D1→D3"]]);
      // Ended: the next start catches up from its own last poll.
      expect(await t.redis.exists(keys.dispatchCatchUp)).toBe(0);
    });

    it("ends only when the whole dispatch group has taken the poll's entries (two dispatchers)", async () => {
      build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 8_000 }]);
      polled({ lastAttemptAt: now - 500, lastSuccessAt: now - 500, failures: 0 });
      await commit([gate("D1", "D2", 1)]);
      expect(await dispatcher.step()).toEqual([]);
      now += 10 * 60_000;
      const one = daemon("c1");
      const two = daemon("c2");
      const alerts = [...(await one.dispatcher.step()), ...(await two.dispatcher.step())];
      await commit([gate("D2", "D3", 2)]);
      polled({ lastAttemptAt: now + 300, lastSuccessAt: now + 300, failures: 0 });
      now += 1_000;
      // The second has read the poll's entry and is still deciding it.
      const taken = await two.consumer.read();
      expect(taken).toHaveLength(1);
      alerts.push(...(await one.dispatcher.step()));
      expect(alerts).toEqual([]);
      alerts.push(...(await two.dispatcher.admit(taken)));
      now += 10_000;
      alerts.push(...(await one.dispatcher.step()), ...(await two.dispatcher.step()));
      expect(moves(alerts)).toEqual([["D1→D3"]]);
    });

    it("ends after two polls since the start when the clock was stepped back meanwhile", async () => {
      build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 8_000 }]);
      polled({ lastAttemptAt: now - 500, lastSuccessAt: now - 500, failures: 0 });
      await commit([gate("D1", "D2", 1)]);
      expect(await dispatcher.step()).toEqual([]);
      now += 10 * 60_000;
      const back = restarted();
      const alerts = [...(await back.step())];
      await commit([gate("D2", "D3", 2)]);
      // The clock went back an hour: the poll's start reads as older than the restart.
      polled({ lastAttemptAt: now - 3_600_000, lastSuccessAt: now - 3_600_000, failures: 0 });
      alerts.push(...(await back.step()), ...(await back.step()));
      expect(alerts).toEqual([]);
      // A second poll cannot have started before the restart: caught up.
      polled({ lastAttemptAt: now - 3_599_000, lastSuccessAt: now - 3_599_000, failures: 0 });
      alerts.push(...(await back.step()), ...(await back.step()));
      expect(moves(alerts)).toEqual([["D1→D3"]]);
    });

    it("flushes on time a group already due before the last poll before the downtime", async () => {
      build([{ ...rule("grouped", { changes: ["gate"] }), groupWaitMs: 8_000 }]);
      await commit([gate("D1", "D2", 1)]);
      expect(await dispatcher.step()).toEqual([]);
      // Detection ran past the group's due time, then the dispatcher alone was down.
      polled({ lastAttemptAt: now + 9_000, lastSuccessAt: now + 9_000, failures: 0 });
      now += 10 * 60_000;
      const alerts = await restarted().step();
      expect(alerts.map((a) => a.changes.map((c) => [c.old, c.new]))).toEqual([[["D1", "D2"]]]);
    });
  });
});
