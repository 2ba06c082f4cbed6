/**
 * The store's compact layout (a hash per flight number and date, ids filed in 4,096
 * hashes) keeps the store's behaviour: a subscription moved to another flight leaves the
 * old one, filings of expired dates go, listing pages are stable under a cursor, and
 * typical data stays in Redis's compact encoding.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import type { Subscription } from "../../src/subscriptions/subscription.js";
import { bucketOf, SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { fromLocalDateTime, toLocalDate } from "../../src/time/local-time.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";
const DAY = 86_400_000;
const NOW = Date.now();
const dateIn = (days: number) => toLocalDate(NOW + days * DAY, ZONE);

const sub = (id: string, parts: Partial<Subscription> = {}): Subscription => ({
  id,
  flight: "KL601",
  date: dateIn(2),
  preset: "essentials",
  channel: { type: "email", to: `${id}@example.com` },
  labels: { booking: `B-${id}` },
  status: "active",
  createdAt: NOW,
  ...parts,
});

/** Ids other than `id` filed in the same hash as it. */
function sameBucketAs(id: string, count: number): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++) {
    if (bucketOf(`x${i}`) === bucketOf(id)) found.push(`x${i}`);
  }
  return found;
}

describe("the subscription store's layout", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let store: SubscriptionStore;

  beforeEach(async () => {
    t = await testRedis("sub-layout");
    keys = redisKeys(t.prefix);
    store = new SubscriptionStore(t.redis, keys, { zone: ZONE, keepMs: DAY });
  });

  afterEach(async () => {
    await t.cleanup();
  });

  it("moves a subscription stored again under another flight or date: the old one no longer has it", async () => {
    await store.add([sub("a")], NOW);
    await store.add([sub("a", { flight: "DL9341", date: dateIn(3) })], NOW);
    expect(await store.active([{ flight: "KL601", date: dateIn(2) }])).toEqual([]);
    expect((await store.active([{ flight: "DL9341", date: dateIn(3) }])).map((s) => s.id)).toEqual([
      "a",
    ]);
    expect((await store.get("a"))?.flight).toBe("DL9341");
    // In one batch, the last of an id wins.
    await store.add([sub("b"), sub("b", { flight: "KL602" })], NOW);
    expect(await t.redis.hkeys(keys.subscriptionsOf("KL601", dateIn(2)))).toEqual([]);
    expect((await store.get("b"))?.flight).toBe("KL602");
  });

  it("drops the filings of expired dates when their hash is next written, and keeps the rest", async () => {
    const [old, kept, later] = sameBucketAs("a", 3) as [string, string, string];
    await store.add([sub(old, { date: dateIn(1) }), sub(kept, { date: dateIn(5) })], NOW);
    const filing = keys.subscriptionFiling(bucketOf("a"));
    expect(await t.redis.hlen(filing)).toBe(3); // two ids and the marker
    // Three days on, the first date has expired (a day after its end): the next write sweeps it.
    const then = NOW + 3 * DAY;
    await store.add([sub(later, { date: dateIn(6) })], then);
    expect(await t.redis.hget(filing, old)).toBeNull();
    expect(await t.redis.hget(filing, kept)).toBe(`${dateIn(5)}KL601`);
    expect(await t.redis.hget(filing, later)).toBe(`${dateIn(6)}KL601`);
    // The hash lives as long as its last subscription.
    const last = (fromLocalDateTime(`${dateIn(7)}T00:00`, ZONE) as number) + DAY;
    expect(await t.redis.pexpiretime(filing)).toBe(last);
  });

  it("lists every subscription once, in order of date, flight and id, a page at a time, and pages do not move when others come and go", async () => {
    const all: Subscription[] = [];
    for (let i = 0; i < 250; i++) {
      all.push(
        sub(`s${String(i).padStart(3, "0")}`, {
          flight: `KL${600 + (i % 7)}`,
          date: dateIn(1 + (i % 3)),
        }),
      );
    }
    await store.add(all, NOW);
    const order = (s: Subscription) => `${s.date} ${s.flight} ${s.id}`;
    const expected = all.map(order).sort();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list({}, { limit: 40, ...(cursor ? { cursor } : {}) });
      seen.push(...page.subscriptions.map(order));
      cursor = page.cursor;
      if (pages++ === 2) {
        // One listed already goes, one not yet listed goes, one comes before the cursor.
        await store.remove(all[0]?.id as string);
        const gone = expected[200]?.split(" ")[2] as string;
        await store.remove(gone);
        expected.splice(200, 1);
        await store.add([sub("a-new", { flight: "KL600", date: dateIn(1) })], NOW);
      }
    } while (cursor !== undefined);
    expect(pages).toBe(7);
    expect(seen).toEqual(expected);
    // Filters: a flight's own hash, and a label over every flight.
    const one = await store.list({ flight: "KL603", date: dateIn(2) }, { limit: 1000 });
    expect(one.subscriptions.map(order)).toEqual(
      expected.filter((o) => o.startsWith(`${dateIn(2)} KL603 `)),
    );
    const labelled = await store.list(
      { label: { name: "booking", value: "B-s123" } },
      { limit: 1 },
    );
    expect(labelled.subscriptions.map((s) => s.id)).toEqual(["s123"]);
    expect(labelled.cursor).toBeUndefined();
    await expect(store.list({}, { cursor: "12" })).rejects.toMatchObject({
      code: "FW_ERR_INVALID_PARAM",
    });
  });

  it("keeps a flight's subscriptions and the filings as listpacks, Redis's compact encoding", async () => {
    const many = Array.from({ length: 300 }, (_, i) => sub(`p${i}`));
    await store.add(many, NOW);
    expect(await t.redis.object("ENCODING", keys.subscriptionsOf("KL601", dateIn(2)))).toBe(
      "listpack",
    );
    expect(await t.redis.object("ENCODING", keys.subscriptionFiling(bucketOf("p0")))).toBe(
      "listpack",
    );
    expect((await store.getMany(["p7", "nobody", "p299"])).map((s) => s?.id)).toEqual([
      "p7",
      undefined,
      "p299",
    ]);
  });
});
