import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import type { Subscription } from "../../src/subscriptions/subscription.js";
import { SubscriptionRules } from "../../src/subscriptions/subscription-rules.js";
import { bucketOf, SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { fromLocalDateTime, toLocalDate } from "../../src/time/local-time.js";
import { changeEvent } from "../rules/event-builder.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";
const DAY = 86_400_000;
// Redis expires keys by its own clock: the dates are days from now.
const NOW = Date.now();
const DATE = toLocalDate(NOW + 2 * DAY, ZONE);
const NEXT_DATE = toLocalDate(NOW + 3 * DAY, ZONE);

const sub = (id: string, parts: Partial<Subscription> = {}): Subscription => ({
  id,
  flight: "KL601",
  date: DATE,
  preset: "essentials",
  channel: { type: "email", to: `${id}@example.com` },
  labels: {},
  status: "active",
  createdAt: NOW,
  ...parts,
});

describe("the subscription store", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let store: SubscriptionStore;

  beforeEach(async () => {
    t = await testRedis("subs");
    keys = redisKeys(t.prefix);
    store = new SubscriptionStore(t.redis, keys, { zone: ZONE, keepMs: DAY });
  });

  afterEach(async () => {
    await t.cleanup();
  });

  it("keeps a subscription, filed under its number and date, until a while after its flight's date", async () => {
    expect(await store.add([sub("a")], NOW)).toEqual(["a"]);
    expect(await store.get("a")).toEqual(sub("a"));
    const expiry = (fromLocalDateTime(`${NEXT_DATE}T00:00`, ZONE) as number) + DAY;
    // Every key it wrote expires then, but the set of flights, which scores it then.
    const written = await t.redis.keys(`{${t.prefix}}*`);
    expect(written.sort()).toEqual(
      [
        keys.subscriptionsOf("KL601", DATE),
        keys.subscriptionFiling(bucketOf("a")),
        keys.subscriptionFlights,
      ].sort(),
    );
    for (const key of written.filter((k) => k !== keys.subscriptionFlights)) {
      expect(await t.redis.pexpiretime(key)).toBe(expiry);
    }
    expect(await t.redis.zscore(keys.subscriptionFlights, `${DATE}KL601`)).toBe(String(expiry));
    // One whose flight's date is long past is not stored at all.
    expect(await store.add([sub("old", { date: toLocalDate(NOW - 3 * DAY, ZONE) })], NOW)).toEqual(
      [],
    );
    expect(await store.get("old")).toBeUndefined();
  });

  it("finds the active subscriptions of a flight's numbers on its date, and nothing else", async () => {
    await store.add(
      [
        sub("kl"),
        sub("dl", { flight: "DL9341" }),
        sub("other-day", { date: NEXT_DATE }),
        sub("other-flight", { flight: "KL602" }),
        sub("gone", { status: "unsubscribed" }),
      ],
      NOW,
    );
    const found = await store.active([
      { flight: "KL601", date: DATE },
      { flight: "DL9341", date: DATE },
    ]);
    expect(found.map((s) => s.id).sort()).toEqual(["dl", "kl"]);
    // As the dispatcher asks: by the flight names of a change (spelled as the upstream does).
    const rules = new SubscriptionRules(store, { zone: ZONE });
    const set = await rules.forObservations([[changeEvent({ flight: { scheduleDate: DATE } })]]);
    expect(set?.rules.map((r) => r.id).sort()).toEqual(["sub:dl", "sub:kl"]);
    expect(
      await rules.forObservations([
        [changeEvent({ flight: { scheduleDate: DATE, flightNames: ["KL0999"] } })],
      ]),
    ).toBeUndefined();
    // The notifier's and the workers' lookup: active ones only; rule files' ids ignored.
    const byId = await rules.get(["sub:kl", "sub:gone", "ops-gates", "sub:missing"]);
    expect([...byId.keys()]).toEqual(["sub:kl"]);
    // Rules made alike share what they write alike: one preset's changes, held once.
    const [dl, kl] = [...(set?.rules ?? [])].sort((a, b) => a.id.localeCompare(b.id));
    expect(kl?.changes).toBeDefined();
    expect(dl?.changes).toBe(kl?.changes);
  });

  it("reads the hashes of filed flights only: a batch of flights without subscribers costs one command", async () => {
    await store.add([sub("kl"), sub("gone", { flight: "DL9341", status: "unsubscribed" })], NOW);
    const pipeline = vi.spyOn(t.redis, "pipeline");
    const unfiled = Array.from({ length: 50 }, (_, i) => ({ flight: `XQ${i}`, date: DATE }));
    // Another date of a filed number is another filing.
    unfiled.push({ flight: "KL601", date: NEXT_DATE });
    expect(await store.active(unfiled)).toEqual([]);
    expect(pipeline).not.toHaveBeenCalled();
    const found = await store.active([
      ...unfiled,
      { flight: "KL601", date: DATE },
      { flight: "DL9341", date: DATE },
    ]);
    expect(found.map((s) => s.id)).toEqual(["kl"]);
    // One read, of the two filed hashes.
    expect(pipeline).toHaveBeenCalledTimes(1);
    expect(pipeline.mock.results[0]?.value.length).toBe(2);
  });

  it("gives the sweep of flights taken in silently the subscriptions with reminders only", async () => {
    await store.add(
      [
        sub("plain"),
        sub("reminded", { remind: ["30m before boarding"] }),
        sub("other", { flight: "DL9341" }),
      ],
      NOW,
    );
    const rules = new SubscriptionRules(store, { zone: ZONE });
    const flight = [[changeEvent({ flight: { scheduleDate: DATE } })]];
    expect((await rules.forObservations(flight))?.rules.map((r) => r.id).sort()).toEqual([
      "sub:other",
      "sub:plain",
      "sub:reminded",
    ]);
    const reminding = await rules.forObservations(flight, { reminding: true });
    expect(reminding?.rules.map((r) => r.id)).toEqual(["sub:reminded"]);
    expect(reminding?.rules[0]?.reminders).toEqual([{ before: "boarding", byMs: 30 * 60_000 }]);
    // None with reminders: no set at all.
    await store.remove("reminded");
    expect(await rules.forObservations(flight, { reminding: true })).toBeUndefined();
  });

  it("changes a status without touching the expiry, and removes a subscription with its filing", async () => {
    await store.add([sub("a"), sub("b")], NOW);
    const before = await t.redis.pexpiretime(keys.subscriptionsOf("KL601", DATE));
    expect((await store.setStatus("a", "unsubscribed"))?.status).toBe("unsubscribed");
    expect(await t.redis.pexpiretime(keys.subscriptionsOf("KL601", DATE))).toBe(before);
    expect(await store.setStatus("nobody", "active")).toBeUndefined();
    expect((await store.remove("b"))?.id).toBe("b");
    expect(await store.remove("b")).toBeUndefined();
    expect(await t.redis.hkeys(keys.subscriptionsOf("KL601", DATE))).toEqual(["a"]);
    expect(await t.redis.hget(keys.subscriptionFiling(bucketOf("b")), "b")).toBeNull();
    expect(await t.redis.hget(keys.subscriptionFiling(bucketOf("a")), "a")).toBe(`${DATE}KL601`);
  });

  it("changes a status only over what it read, and only from the statuses asked", async () => {
    await store.add([sub("a", { status: "pending" })], NOW);
    // A confirmation is only from pending: an unsubscription made first stands.
    expect((await store.setStatus("a", "unsubscribed"))?.status).toBe("unsubscribed");
    expect((await store.setStatus("a", "active", { from: ["pending"] }))?.status).toBe(
      "unsubscribed",
    );
    expect((await store.get("a"))?.status).toBe("unsubscribed");
    // Only the subscription made at that moment, when asked: not one made later under its id.
    const created = (await store.get("a"))?.createdAt as number;
    expect(await store.setStatus("a", "active", { createdAt: created + 1 })).toBeUndefined();
    expect((await store.get("a"))?.status).toBe("unsubscribed");
    expect((await store.setStatus("a", "active", { createdAt: created }))?.status).toBe("active");
    await store.setStatus("a", "unsubscribed");
    // An unsubscription between a confirmation's read and its write is never overwritten:
    // the write is tried again over what is there now, which it then leaves alone.
    await store.add([sub("b", { status: "pending" })], NOW);
    const hget = t.redis.hget.bind(t.redis);
    let raced = false;
    t.redis.hget = (async (...args: Parameters<typeof hget>) => {
      const text = await hget(...args);
      if (!raced) {
        raced = true;
        await store.setStatus("b", "unsubscribed");
      }
      return text;
    }) as typeof t.redis.hget;
    try {
      expect((await store.setStatus("b", "active", { from: ["pending"] }))?.status).toBe(
        "unsubscribed",
      );
    } finally {
      t.redis.hget = hget;
    }
    expect(raced).toBe(true);
    expect((await store.get("b"))?.status).toBe("unsubscribed");
    // And a removal meanwhile stays a removal.
    expect(await store.remove("b")).toBeDefined();
    expect(await store.setStatus("b", "active")).toBeUndefined();
    expect(await store.get("b")).toBeUndefined();
  });

  it("lists by flight, date, recipient, label and status, a page at a time", async () => {
    await store.add(
      [
        sub("a", { labels: { booking: "X7Q2LM" } }),
        sub("b", { date: NEXT_DATE }),
        sub("c", { flight: "DL9341", channel: { type: "webhook", url: "https://app.example/h" } }),
        sub("d", { status: "pending" }),
      ],
      NOW,
    );
    const ids = async (q: Parameters<SubscriptionStore["list"]>[0]) =>
      (await store.list(q)).subscriptions.map((s) => s.id).sort();
    expect(await ids({})).toEqual(["a", "b", "c", "d"]);
    expect(await ids({ flight: "KL601", date: DATE })).toEqual(["a", "d"]);
    expect(await ids({ recipient: "https://app.example/h" })).toEqual(["c"]);
    expect(await ids({ label: { name: "booking", value: "X7Q2LM" } })).toEqual(["a"]);
    expect(await ids({ status: "pending" })).toEqual(["d"]);
    const first = await store.list({}, { limit: 3 });
    expect(first.subscriptions).toHaveLength(3);
    const rest = await store.list({}, { limit: 3, cursor: first.cursor as string });
    expect(rest.cursor).toBeUndefined();
    expect([...first.subscriptions, ...rest.subscriptions].map((s) => s.id).sort()).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
  });
});
