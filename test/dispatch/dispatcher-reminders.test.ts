/**
 * Reminders through the Dispatcher on a real Redis: scheduled by any observation of a
 * flight the rule selects (whatever changed), by the snapshots of flights that do not
 * change again (at the start and after a reload: the sweep), and for a subscription made
 * since the last look; sent once when due.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/diff/change.js";
import type { FlightSnapshot } from "../../src/diff/flight-snapshot.js";
import type { AlertState } from "../../src/dispatch/alert-decision.js";
import { nextDue } from "../../src/dispatch/alert-state.js";
import { DISPATCH_GROUP, Dispatcher } from "../../src/dispatch/dispatcher.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { Rule } from "../../src/rules/rule.js";
import { AlertStore } from "../../src/store/alert-store.js";
import { DetectionStore, encodeSnapshot } from "../../src/store/detection-store.js";
import { OutboxConsumer } from "../../src/store/outbox-consumer.js";
import { encodeOutboxEntries, OUTBOX_FIELD } from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import type { Subscription } from "../../src/subscriptions/subscription.js";
import { SubscriptionRules } from "../../src/subscriptions/subscription-rules.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { fromLocalDateTime, toLocalDate } from "../../src/time/local-time.js";
import { changeEvent } from "../rules/event-builder.js";
import { rule } from "../rules/rule-builder.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";
const MINUTE = 60_000;
const DAY = 86_400_000;
// Subscriptions expire by Redis's clock: the flight is two days from now.
const DATE = toLocalDate(Date.now() + 2 * DAY, ZONE);
const SCHEDULED = fromLocalDateTime(`${DATE}T12:00`, ZONE) as number;
const BOARDING = SCHEDULED - 40 * MINUTE;
const KEY = `D:${DATE}:KL601`;

const remindKL601 = (id = "trip"): Rule => ({
  ...rule(id, { flights: { flights: ["KL601"] } }),
  changes: [],
  reminders: [{ before: "boarding", byMs: 30 * MINUTE }],
});

/** An observation of KL601 with boarding at `boarding`: a belt change no rule selects. */
const observed = (boarding: number, version: number): ChangeEvent =>
  changeEvent({
    kind: "belt",
    field: "baggageClaim",
    action: "assigned",
    old: undefined,
    new: ["4"],
    version,
    flight: { key: KEY, scheduleDate: DATE, scheduled: SCHEDULED },
    current: { gate: "D7", states: ["SCH"], times: { expectedTimeBoarding: boarding } },
  });

const passenger = (createdAt: number): Subscription => ({
  id: "pax",
  flight: "KL601",
  date: DATE,
  preset: "none",
  remind: ["30m before boarding"],
  channel: { type: "email", to: "pax@example.com" },
  labels: {},
  status: "active",
  createdAt,
});

describe("reminders through the Dispatcher", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let now: number;
  let rules: RuleSet;
  let store: AlertStore<AlertState>;
  let subscriptions: SubscriptionStore;
  let dispatcher: Dispatcher;

  const commit = async (events: ChangeEvent[]) => {
    for (const text of encodeOutboxEntries(events)) {
      await t.redis.xadd(keys.outbox, "*", OUTBOX_FIELD, text);
    }
  };
  const storeSnapshot = async (boarding: number) => {
    const event = observed(boarding, 1);
    const snapshot: FlightSnapshot = { ...event.flight, version: 1, fields: event.current ?? {} };
    await t.redis.set(keys.snapshot(KEY), encodeSnapshot(snapshot));
    await t.redis.zadd(keys.snapshotIndex, SCHEDULED + DAY, KEY);
  };
  const reminders = async () => (await store.readAlerts()).filter((a) => a.reminder);

  beforeEach(async () => {
    t = await testRedis("dispatch-remind");
    keys = redisKeys(t.prefix);
    now = BOARDING - 5 * 60 * MINUTE;
    rules = new RuleSet([remindKL601()], { zone: ZONE });
    const consumer = new OutboxConsumer({
      redis: t.redis.duplicate(),
      keys,
      group: DISPATCH_GROUP,
      consumer: "c1",
      blockMs: 10,
    });
    await consumer.ensureGroup(true);
    store = new AlertStore<AlertState>(t.redis.duplicate(), keys, { dueOf: nextDue });
    subscriptions = new SubscriptionStore(t.redis, keys, { zone: ZONE });
    dispatcher = new Dispatcher({
      consumer,
      store,
      rules: () => rules,
      subscriptions: new SubscriptionRules(subscriptions, { zone: ZONE }),
      snapshots: new DetectionStore(t.redis, keys),
      zone: ZONE,
      now: () => now,
    });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("schedules from any observation of the flight, moves with it, and sends once when due", async () => {
    await commit([observed(BOARDING, 1)]);
    expect(await dispatcher.step()).toEqual([]);
    // Boarding 40 minutes later: so is its reminder.
    now += MINUTE;
    await commit([observed(BOARDING + 40 * MINUTE, 2)]);
    expect(await dispatcher.step()).toEqual([]);
    now = BOARDING - 30 * MINUTE;
    expect(await dispatcher.step()).toEqual([]);
    // The flight as detection stored it (an older version than the last observation).
    await storeSnapshot(BOARDING);
    now = BOARDING + 10 * MINUTE;
    const [sent, ...more] = await dispatcher.step();
    expect(more).toEqual([]);
    expect(sent?.reminder).toMatchObject({
      before: "boarding",
      at: BOARDING + 40 * MINUTE,
      inMinutes: 30,
    });
    now += 5 * MINUTE;
    expect(await dispatcher.step()).toEqual([]);
    expect(await reminders()).toHaveLength(1);
  });

  it("sends nothing for a flight removed meanwhile, or one a reloaded rule no longer selects", async () => {
    await storeSnapshot(BOARDING);
    rules = new RuleSet([remindKL601(), remindKL601("second")], { zone: ZONE });
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.zcard(keys.alertsDue)).toBe(2);
    // "second" now follows another flight; "trip" keeps KL601, which is then removed.
    rules = new RuleSet(
      [remindKL601(), { ...remindKL601("second"), flights: { flights: ["KL999"] } }],
      { zone: ZONE },
    );
    now = BOARDING - 30 * MINUTE;
    const [sent] = await dispatcher.step();
    expect(sent?.ruleId).toBe("trip");
    expect(await t.redis.zcard(keys.alertsDue)).toBe(0);
    const other = remindKL601("third");
    rules = new RuleSet([other], { zone: ZONE });
    now = BOARDING - 60 * MINUTE;
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.zscore(keys.alertsDue, `third ${KEY}`)).not.toBeNull();
    await t.redis.del(keys.snapshot(KEY));
    now = BOARDING - 30 * MINUTE;
    expect(await dispatcher.step()).toEqual([]);
    expect(await reminders()).toHaveLength(1);
  });

  it("schedules from the snapshot a flight that does not change, at the start and after a reload", async () => {
    await storeSnapshot(BOARDING);
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.zscore(keys.alertsDue, `trip ${KEY}`)).toBe(
      String(BOARDING - 30 * MINUTE),
    );
    // A reload with a second rule sweeps again; the first rule's memory is not rewritten.
    const written = await t.redis.get(keys.alertState("trip", KEY));
    rules = new RuleSet([remindKL601(), remindKL601("second")], { zone: ZONE });
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.zscore(keys.alertsDue, `second ${KEY}`)).not.toBeNull();
    expect(await t.redis.get(keys.alertState("trip", KEY))).toBe(written);
    now = BOARDING - 30 * MINUTE;
    const sent = await dispatcher.step();
    expect(sent.map((a) => a.ruleId).sort()).toEqual(["second", "trip"]);
  });

  it("schedules from the snapshot a flight detection took in silently, for rules and subscriptions", async () => {
    expect(await dispatcher.step()).toEqual([]);
    await subscriptions.add([passenger(now - MINUTE)], Date.now());
    // The subscription came before its flight: nothing to schedule from yet.
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.zcard(keys.alertsDue)).toBe(0);
    await storeSnapshot(BOARDING);
    await t.redis.sadd(keys.silentFlights, KEY);
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.smembers(keys.silentFlights)).toEqual([]);
    expect(await t.redis.zrange(keys.alertsDue, 0, -1)).toEqual([`sub:pax ${KEY}`, `trip ${KEY}`]);
  });

  it("schedules a subscription's reminders from the snapshot when it is made", async () => {
    rules = new RuleSet([], { zone: ZONE });
    await storeSnapshot(BOARDING);
    expect(await dispatcher.step()).toEqual([]);
    const made = now + MINUTE;
    await subscriptions.add([passenger(made)], Date.now());
    expect(await t.redis.smembers(keys.reminderWakes)).toEqual([`${DATE} pax`]);
    now = made + MINUTE;
    expect(await dispatcher.step()).toEqual([]);
    expect(await t.redis.smembers(keys.reminderWakes)).toEqual([]);
    expect(await t.redis.zscore(keys.alertsDue, `sub:pax ${KEY}`)).toBe(
      String(BOARDING - 30 * MINUTE),
    );
    now = BOARDING - 30 * MINUTE;
    const [sent] = await dispatcher.step();
    expect(sent).toMatchObject({ ruleId: "sub:pax", reminder: { name: "boarding-30m" } });
  });
});
