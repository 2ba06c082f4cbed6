/**
 * Passenger subscriptions in Redis, under the deployment's prefix, laid out for size
 * (issue 22: at most 300 bytes of Redis per subscription; a JSON string key each, a set
 * per flight and date and a sorted set of every id took ~610):
 *
 * - The subscriptions to one flight number on one date are one hash, id → a compact text
 *   (subscription-record.ts), expiring `keepMs` after the end of the date. A change of a
 *   flight reads the hashes of its numbers on its date — one round trip — and nothing
 *   else, so the daemon holds no subscription in memory and reads none that cannot match.
 * - Where each id is filed (its date and flight number) is kept in one of 4,096 hashes
 *   picked by a hash of the id, small enough to stay listpacks up to about two million
 *   subscriptions: reading, changing or removing one by id takes two round trips. Their
 *   entries cannot expire one by one (Redis 7.0 has no field expiry), so whoever files
 *   into such a hash first drops its entries of dates already expired — once per date:
 *   a marker field holds the first date still kept when it last did — and the hash
 *   itself expires after the last of its subscriptions.
 * - The flight numbers and dates with subscriptions are a sorted set by expiry, for
 *   listing and export.
 */
import type { ChainableCommander } from "ioredis";
import { InvalidParamError } from "../errors.js";
import { LuaScript } from "../store/lua-script.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { toLocalDate } from "../time/local-time.js";
import {
  expiresAt,
  type Subscription,
  type SubscriptionChannel,
  type SubscriptionStatus,
} from "./subscription.js";
import { decodeSubscription, encodeSubscription } from "./subscription-record.js";

/** Default of SUBSCRIPTION_RETENTION: subscriptions are kept 2 days after their flight's date. */
export const DEFAULT_SUBSCRIPTION_KEEP_MS = 2 * 86_400_000;

/** What listing may filter on. */
export interface SubscriptionQuery {
  flight?: string;
  date?: string;
  /** Email address or webhook URL, as given. */
  recipient?: string;
  /** `name=value`: a label the subscription has. */
  label?: { name: string; value: string };
  status?: SubscriptionStatus;
}

/** One page of a listing. */
export interface SubscriptionPage {
  subscriptions: Subscription[];
  /** Pass it back for the next page; absent on the last. */
  cursor?: string;
}

/** Hashes the ids are filed in: a power of two, for the mask. */
const FILING_BUCKETS = 4096;
/** The field of a filing hash that holds the first date it still keeps. */
const SWEPT_FIELD = "~";
/** Flights (number and date) read from the sorted set at a time while listing. */
const FLIGHTS_PAGE = 1000;
/** Flights whose hashes one round trip reads while listing. */
const HASHES_PER_TRIP = 64;

/**
 * Files ids into their filing hashes. KEYS: the hashes. ARGV[1]: the first date still
 * kept; then per hash: its subscriptions' latest expiry (epoch ms), a count n, and n
 * pairs of id and filing. A hash is swept of expired dates once per first date kept;
 * its expiry only ever moves later.
 */
const FILE_IDS = `
local kept = ARGV[1]
local a = 2
for _, key in ipairs(KEYS) do
  local at = tonumber(ARGV[a])
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  if redis.call('HGET', key, '${SWEPT_FIELD}') ~= kept then
    local all = redis.call('HGETALL', key)
    for i = 1, #all, 2 do
      if all[i] ~= '${SWEPT_FIELD}' and string.sub(all[i + 1], 1, 10) < kept then
        redis.call('HDEL', key, all[i])
      end
    end
    redis.call('HSET', key, '${SWEPT_FIELD}', kept)
  end
  for i = a, a + 2 * n - 1, 2 do
    redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  end
  a = a + 2 * n
  if redis.call('PEXPIRETIME', key) < at then
    redis.call('PEXPIREAT', key, at)
  end
end
return 0
`;

/** Replaces a field's value only when the field exists (a hash that expired is not made anew, without expiry). */
const SET_IF_UNCHANGED = new LuaScript(`
local now = redis.call('HGET', KEYS[1], ARGV[1])
if not now then return -1 end
if now ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`);

/** Tries of a status change that found the subscription changed meanwhile. */
const STATUS_TRIES = 5;

/** Where in the listing order a page ended: the flight's expiry and filing, the last id. */
interface Position {
  score: number;
  filing: string;
  id: string;
}

/** A flight's subscriptions as listing reads them: ids in order, with their texts. */
interface FiledFlight {
  score: number;
  filing: string;
  flight: string;
  date: string;
  entries: { id: string; text: string }[];
}

/** The store of one deployment's subscriptions. */
export class SubscriptionStore {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #zone: string;
  readonly #keepMs: number;

  constructor(redis: RedisConnection, keys: RedisKeys, options: { zone: string; keepMs?: number }) {
    this.#redis = redis;
    this.#keys = keys;
    this.#zone = options.zone;
    this.#keepMs = options.keepMs ?? DEFAULT_SUBSCRIPTION_KEEP_MS;
  }

  /** When a subscription's keys expire (epoch ms). */
  expiresAt(subscription: Pick<Subscription, "date">): number {
    return expiresAt(subscription, this.#zone, this.#keepMs);
  }

  /**
   * Stores subscriptions (one transaction each batch: all or none); one stored already
   * is replaced, and leaves the hash of its old flight or date when it moved. One whose
   * flight's date is long past (already expired) is not stored; resolves to the ids
   * stored. Batches of about a thousand keep each transaction short.
   */
  async add(subscriptions: readonly Subscription[], now = Date.now()): Promise<string[]> {
    // The last of an id wins, as it would one transaction after another.
    const latest = new Map<string, { s: Subscription; at: number }>();
    for (const s of subscriptions) {
      const at = this.expiresAt(s);
      latest.delete(s.id);
      if (at > now) latest.set(s.id, { s, at });
    }
    const live = [...latest.values()];
    const before = await this.#filings(live.map(({ s }) => s.id));
    const multi = this.#redis.multi();
    const flights = new Map<string, { at: number; filing: string; fields: string[] }>();
    const buckets = new Map<string, { at: number; fields: string[] }>();
    live.forEach(({ s, at }, i) => {
      const filing = filingOf(s.flight, s.date);
      const old = before[i];
      if (old !== undefined && old !== filing) multi.hdel(this.#flightKey(old), s.id);
      const key = this.#keys.subscriptionsOf(s.flight, s.date);
      const flight = flights.get(key) ?? { at, filing, fields: [] };
      flights.set(key, flight);
      flight.fields.push(s.id, encodeSubscription(s));
      const bucketKey = this.#keys.subscriptionFiling(bucketOf(s.id));
      const bucket = buckets.get(bucketKey) ?? { at, fields: [] };
      buckets.set(bucketKey, bucket);
      bucket.at = Math.max(bucket.at, at);
      bucket.fields.push(s.id, filing);
    });
    for (const [key, { at, filing, fields }] of flights) {
      multi
        .hset(key, ...fields)
        .pexpireat(key, at)
        .zadd(this.#keys.subscriptionFlights, at, filing);
    }
    if (buckets.size > 0) {
      const args: (string | number)[] = [this.#firstDateKept(now)];
      for (const { at, fields } of buckets.values()) args.push(at, fields.length / 2, ...fields);
      multi.eval(FILE_IDS, buckets.size, ...buckets.keys(), ...args);
    }
    // Reminders of active subscriptions are scheduled by the dispatcher's next look.
    const wakes = live.filter(({ s }) => s.status === "active" && s.remind !== undefined);
    if (wakes.length > 0) {
      multi.sadd(this.#keys.reminderWakes, ...wakes.map(({ s }) => `${s.date} ${s.id}`));
    }
    // Flights expired meanwhile are forgotten here, not while listing (which would move
    // the pages under a cursor).
    multi.zremrangebyscore(this.#keys.subscriptionFlights, "-inf", now);
    await execAll(multi);
    return live.map(({ s }) => s.id);
  }

  /** The subscription with this id, if it exists (and has not expired). */
  async get(id: string): Promise<Subscription | undefined> {
    return (await this.getMany([id]))[0];
  }

  /** Subscriptions by id, in order (undefined where none): where each is filed, then it. */
  async getMany(ids: readonly string[]): Promise<(Subscription | undefined)[]> {
    if (ids.length === 0) return [];
    const filings = await this.#filings(ids);
    const pipeline = this.#redis.pipeline();
    ids.forEach((id, i) => {
      const filing = filings[i];
      if (filing !== undefined) pipeline.hget(this.#flightKey(filing), id);
    });
    const texts = await execAll(pipeline);
    let next = 0;
    return ids.map((id, i) => {
      const filing = filings[i];
      if (filing === undefined) return undefined;
      const text = texts[next++];
      return typeof text === "string" ? this.#decode(id, filing, text) : undefined;
    });
  }

  /**
   * Changes a subscription's status; resolves to it as it is now, undefined when there is
   * none. `from`: only from these statuses. `createdAt`: only the subscription made then
   * (a link's), not another made later under the same id (then: undefined).
   */
  async setStatus(
    id: string,
    status: SubscriptionStatus,
    options: { from?: readonly SubscriptionStatus[]; createdAt?: number } = {},
  ): Promise<Subscription | undefined> {
    for (let tries = 0; tries < STATUS_TRIES; tries++) {
      const [filing] = await this.#filings([id]);
      if (filing === undefined) return undefined;
      const key = this.#flightKey(filing);
      const text = await this.#redis.hget(key, id);
      const current = text === null ? undefined : this.#decode(id, filing, text);
      if (current === undefined || text === null) return undefined;
      if (options.createdAt !== undefined && current.createdAt !== options.createdAt) {
        return undefined;
      }
      // Only from these statuses (a confirmation must not undo an unsubscription made
      // meanwhile): otherwise it stays as it is, and is answered as it is.
      if (options.from !== undefined && !options.from.includes(current.status)) return current;
      const next = { ...current, status };
      // Compare and set: written only over the text just read, so a change made between
      // the read and the write (another status, a removal) is never overwritten. The
      // hash's expiry stays the flight's; one that expired meanwhile stays gone.
      const set = await SET_IF_UNCHANGED.run(
        this.#redis,
        1,
        key,
        id,
        encodeSubscription(next),
        text,
      );
      if (set === 1) {
        if (status === "active" && next.remind !== undefined) {
          await this.#redis.sadd(this.#keys.reminderWakes, `${next.date} ${next.id}`);
        }
        return next;
      }
      if (set === -1) return undefined;
    }
    throw new Error(`subscription ${id}: its status kept changing under ${STATUS_TRIES} tries`);
  }

  /**
   * Up to `limit` subscriptions whose reminders wait to be scheduled (see
   * `RedisKeys.reminderWakes`): their dates and ids, and the members to hand to
   * `remindersWoken` once scheduled (a crash before leaves them for the next look).
   */
  async reminderWakes(limit: number): Promise<{ date: string; id: string; member: string }[]> {
    const members = await this.#redis.srandmember(this.#keys.reminderWakes, limit);
    return members.map((member) => {
      const space = member.indexOf(" ");
      return { date: member.slice(0, space), id: member.slice(space + 1), member };
    });
  }

  /** Takes scheduled wakes off the set. */
  async remindersWoken(members: readonly string[]): Promise<void> {
    if (members.length > 0) await this.#redis.srem(this.#keys.reminderWakes, ...members);
  }

  /** Deletes a subscription; resolves to what it was, undefined when there was none. */
  async remove(id: string): Promise<Subscription | undefined> {
    const [filing] = await this.#filings([id]);
    const bucketKey = this.#keys.subscriptionFiling(bucketOf(id));
    if (filing === undefined) return undefined;
    const key = this.#flightKey(filing);
    const [text] = await execAll(
      this.#redis.multi().hget(key, id).hdel(key, id).hdel(bucketKey, id),
    );
    return typeof text === "string" ? this.#decode(id, filing, text) : undefined;
  }

  /**
   * The active subscriptions to any of these flight numbers (normal form) on these
   * dates. One ZMSCORE on the list of filed flights says which pairs have a hash (a
   * hash and its filing are written in one transaction and expire together), and only
   * those are read: most flights that change have no subscriber, and cost one command
   * a batch rather than one a flight number.
   */
  async active(pairs: readonly { flight: string; date: string }[]): Promise<Subscription[]> {
    if (pairs.length === 0) return [];
    const unique = new Map<string, { flight: string; date: string }>();
    for (const p of pairs) unique.set(filingOf(p.flight, p.date), p);
    const scores = await this.#redis.zmscore(this.#keys.subscriptionFlights, ...unique.keys());
    const filed = [...unique.values()].filter((_, i) => scores[i] !== null);
    if (filed.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const p of filed) pipeline.call("HGETALL", this.#keys.subscriptionsOf(p.flight, p.date));
    const replies = await execAll(pipeline);
    const found: Subscription[] = [];
    filed.forEach(({ flight, date }, i) => {
      const fields = replies[i] as string[];
      for (let f = 0; f < fields.length; f += 2) {
        const s = decodeSubscription(fields[f] as string, flight, date, fields[f + 1] as string);
        if (s?.status === "active") found.push(s);
      }
    });
    return found;
  }

  /**
   * A page of subscriptions matching `query`, in order of expiry (that is, of date),
   * then flight number, then id: `limit` at most, from `cursor` on. The cursor names
   * the last subscription of the page, so subscriptions added or removed meanwhile move
   * no page; a cursor is given only when at least one more subscription matches.
   */
  async list(
    query: SubscriptionQuery = {},
    options: { limit?: number; cursor?: string } = {},
  ): Promise<SubscriptionPage> {
    const limit = options.limit ?? 100;
    const after = options.cursor === undefined ? undefined : positionOf(options.cursor);
    const out: Subscription[] = [];
    let last: Position | undefined;
    for await (const flight of this.#filed(query, after)) {
      for (const { id, text } of flight.entries) {
        const s = decodeSubscription(id, flight.flight, flight.date, text);
        if (s === undefined || !matches(s, query)) continue;
        if (out.length === limit && last !== undefined) {
          return { subscriptions: out, cursor: cursorOf(last) };
        }
        out.push(s);
        last = { score: flight.score, filing: flight.filing, id };
      }
    }
    return { subscriptions: out };
  }

  /**
   * The flights with subscriptions from `after` on, in listing order, with their
   * subscriptions (ids after `after`'s only, in its flight); flights `query` cannot
   * match are skipped unread.
   */
  async *#filed(
    query: SubscriptionQuery,
    after: Position | undefined,
  ): AsyncGenerator<FiledFlight> {
    let min = after?.score ?? Number.NEGATIVE_INFINITY;
    let skip = 0;
    for (;;) {
      const reply = await this.#redis.zrangebyscore(
        this.#keys.subscriptionFlights,
        min === Number.NEGATIVE_INFINITY ? "-inf" : min,
        "+inf",
        "WITHSCORES",
        "LIMIT",
        skip,
        FLIGHTS_PAGE,
      );
      const wanted: { score: number; filing: string }[] = [];
      let lastScore = min;
      let sameAtEnd = 0;
      for (let i = 0; i < reply.length; i += 2) {
        const filing = reply[i] as string;
        const score = Number(reply[i + 1]);
        sameAtEnd = score === lastScore ? sameAtEnd + 1 : 1;
        lastScore = score;
        if (after && (score < after.score || (score === after.score && filing < after.filing))) {
          continue;
        }
        if (filingWanted(filing, query)) wanted.push({ score, filing });
      }
      for (let i = 0; i < wanted.length; i += HASHES_PER_TRIP) {
        yield* await this.#read(wanted.slice(i, i + HASHES_PER_TRIP), after);
      }
      if (reply.length < 2 * FLIGHTS_PAGE) return;
      // The next page starts after the last one read: among equal scores, by count.
      if (lastScore === min) skip += FLIGHTS_PAGE;
      else {
        min = lastScore;
        skip = sameAtEnd;
      }
    }
  }

  /** The subscriptions of some flights, one round trip. */
  async #read(
    flights: readonly { score: number; filing: string }[],
    after: Position | undefined,
  ): Promise<FiledFlight[]> {
    const pipeline = this.#redis.pipeline();
    for (const { filing } of flights) pipeline.call("HGETALL", this.#flightKey(filing));
    const replies = await execAll(pipeline);
    return flights.map(({ score, filing }, i) => {
      const fields = replies[i] as string[];
      let entries: { id: string; text: string }[] = [];
      for (let f = 0; f < fields.length; f += 2) {
        entries.push({ id: fields[f] as string, text: fields[f + 1] as string });
      }
      entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (after && after.score === score && after.filing === filing) {
        entries = entries.filter((e) => e.id > after.id);
      }
      return { score, filing, flight: filing.slice(10), date: filing.slice(0, 10), entries };
    });
  }

  /** Where each id is filed now (undefined where nowhere). */
  async #filings(ids: readonly string[]): Promise<(string | undefined)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hget(this.#keys.subscriptionFiling(bucketOf(id)), id);
    const replies = await execAll(pipeline);
    return replies.map((r) => (typeof r === "string" ? r : undefined));
  }

  /** The first schedule date whose subscriptions have not expired at `now`. */
  #firstDateKept(now: number): string {
    // A date's subscriptions expire keepMs after its end: those of the date that
    // `now - keepMs` falls on are the oldest still kept.
    return toLocalDate(now - this.#keepMs, this.#zone);
  }

  #flightKey(filing: string): string {
    return this.#keys.subscriptionsOf(filing.slice(10), filing.slice(0, 10));
  }

  #decode(id: string, filing: string, text: string): Subscription | undefined {
    return decodeSubscription(id, filing.slice(10), filing.slice(0, 10), text);
  }
}

/** How a subscription is filed: its date (10 characters), then its flight number. */
function filingOf(flight: string, date: string): string {
  return `${date}${flight}`;
}

/**
 * The filing hash of an id: FNV-1a of its characters (ids are ASCII), masked to the
 * number of hashes, as three hex digits.
 */
export function bucketOf(id: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return ((hash >>> 0) & (FILING_BUCKETS - 1)).toString(16).padStart(3, "0");
}

/** Whether a flight's subscriptions may match `query` (by its number and date alone). */
function filingWanted(filing: string, q: SubscriptionQuery): boolean {
  if (q.date !== undefined && filing.slice(0, 10) !== q.date) return false;
  if (q.flight !== undefined && filing.slice(10) !== q.flight) return false;
  return true;
}

function matches(s: Subscription, q: SubscriptionQuery): boolean {
  if (q.status !== undefined && s.status !== q.status) return false;
  if (q.recipient !== undefined && recipientOf(s.channel) !== q.recipient) return false;
  if (q.label !== undefined && s.labels[q.label.name] !== q.label.value) return false;
  return true;
}

/** A cursor: `<expiry>.<filing>.<id>` (none of the three holds a dot). */
function cursorOf(p: Position): string {
  return `${p.score}.${p.filing}.${p.id}`;
}

function positionOf(cursor: string): Position {
  const m = /^(\d+)\.(\d{4}-\d{2}-\d{2}[A-Z0-9]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
  if (!m) {
    throw new InvalidParamError(
      "cursor",
      `"${cursor}" is not a cursor of this listing: pass back the one a page gave`,
    );
  }
  return { score: Number(m[1]), filing: m[2] as string, id: m[3] as string };
}

/** Runs a transaction or pipeline; resolves to its replies, or throws its first error. */
async function execAll(commands: ChainableCommander): Promise<unknown[]> {
  const results = (await commands.exec()) ?? [];
  return results.map(([err, reply]) => {
    if (err) throw err;
    return reply;
  });
}

/** Where a subscription's notifications go: the address or the URL. */
export function recipientOf(channel: SubscriptionChannel): string {
  return channel.type === "email" ? channel.to : channel.url;
}
