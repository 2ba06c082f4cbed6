/**
 * Passenger subscriptions in Redis, under the deployment's prefix: each one a JSON
 * string, filed under its flight number and date (a set of ids per number and date),
 * and listed by expiry in one sorted set. Everything a subscription writes expires on
 * its own `keepMs` after the end of its flight's schedule date; a change of a flight
 * reads only the sets of that flight's numbers on that date, so the daemon holds no
 * subscription in memory and reads none that cannot match.
 */
import type { Redis } from "ioredis";
import type { RedisKeys } from "../store/redis-keys.js";
import {
  expiresAt,
  type Subscription,
  type SubscriptionChannel,
  type SubscriptionStatus,
} from "./subscription.js";

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

/** The store of one deployment's subscriptions. */
export class SubscriptionStore {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #zone: string;
  readonly #keepMs: number;

  constructor(redis: Redis, keys: RedisKeys, options: { zone: string; keepMs?: number }) {
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
   * Stores subscriptions (one transaction each batch: all or none). One whose flight's
   * date is long past (already expired) is not stored; resolves to the ids stored.
   */
  async add(subscriptions: readonly Subscription[], now = Date.now()): Promise<string[]> {
    const multi = this.#redis.multi();
    const stored: string[] = [];
    for (const s of subscriptions) {
      const at = this.expiresAt(s);
      if (at <= now) continue;
      const index = this.#keys.subscriptionsOf(s.flight, s.date);
      multi
        .set(this.#keys.subscription(s.id), JSON.stringify(s), "PXAT", at)
        .sadd(index, s.id)
        .pexpireat(index, at)
        .zadd(this.#keys.subscriptionIds, at, s.id);
      stored.push(s.id);
    }
    // The ids of those expired meanwhile are forgotten here, not while listing (which
    // would move the pages under a cursor).
    multi.zremrangebyscore(this.#keys.subscriptionIds, "-inf", now);
    await multi.exec();
    return stored;
  }

  /** The subscription with this id, if it exists (and has not expired). */
  async get(id: string): Promise<Subscription | undefined> {
    return (await this.getMany([id]))[0];
  }

  /** Subscriptions by id, in order (undefined where none). */
  async getMany(ids: readonly string[]): Promise<(Subscription | undefined)[]> {
    if (ids.length === 0) return [];
    const texts = await this.#redis.mget(ids.map((id) => this.#keys.subscription(id)));
    return texts.map((text) => (text === null ? undefined : (JSON.parse(text) as Subscription)));
  }

  /** Changes a subscription's status; resolves to it as it is now, undefined when there is none. */
  async setStatus(id: string, status: SubscriptionStatus): Promise<Subscription | undefined> {
    const key = this.#keys.subscription(id);
    const current = await this.get(id);
    if (current === undefined) return undefined;
    const next = { ...current, status };
    // KEEPTTL: the expiry stays the flight's.
    await this.#redis.set(key, JSON.stringify(next), "KEEPTTL", "XX");
    return next;
  }

  /** Deletes a subscription; resolves to what it was, undefined when there was none. */
  async remove(id: string): Promise<Subscription | undefined> {
    const current = await this.get(id);
    if (current === undefined) {
      await this.#redis.zrem(this.#keys.subscriptionIds, id);
      return undefined;
    }
    await this.#redis
      .multi()
      .del(this.#keys.subscription(id))
      .srem(this.#keys.subscriptionsOf(current.flight, current.date), id)
      .zrem(this.#keys.subscriptionIds, id)
      .exec();
    return current;
  }

  /**
   * The active subscriptions to any of these flight numbers (normal form) on these
   * dates: the sets of the pairs, then the subscriptions themselves, one round trip each.
   */
  async active(pairs: readonly { flight: string; date: string }[]): Promise<Subscription[]> {
    if (pairs.length === 0) return [];
    const keys = [...new Set(pairs.map((p) => this.#keys.subscriptionsOf(p.flight, p.date)))];
    const ids = await this.#redis.sunion(keys);
    const found = await this.getMany(ids);
    return found.filter((s): s is Subscription => s?.status === "active");
  }

  /**
   * A page of subscriptions matching `query`, in order of expiry (then id): `limit` at
   * most, from `cursor` on.
   */
  async list(
    query: SubscriptionQuery = {},
    options: { limit?: number; cursor?: string } = {},
  ): Promise<SubscriptionPage> {
    const limit = options.limit ?? 100;
    let offset = options.cursor === undefined ? 0 : Number(options.cursor);
    const out: Subscription[] = [];
    const scan = Math.max(limit, 500);
    for (;;) {
      const ids = await this.#redis.zrange(this.#keys.subscriptionIds, offset, offset + scan - 1);
      if (ids.length === 0) return { subscriptions: out };
      const found = await this.getMany(ids);
      for (let i = 0; i < ids.length; i++) {
        offset++;
        const s = found[i];
        if (s !== undefined && matches(s, query)) out.push(s);
        if (out.length === limit) {
          return offset < (await this.#redis.zcard(this.#keys.subscriptionIds))
            ? { subscriptions: out, cursor: String(offset) }
            : { subscriptions: out };
        }
      }
    }
  }
}

function matches(s: Subscription, q: SubscriptionQuery): boolean {
  if (q.flight !== undefined && s.flight !== q.flight) return false;
  if (q.date !== undefined && s.date !== q.date) return false;
  if (q.status !== undefined && s.status !== q.status) return false;
  if (q.recipient !== undefined && recipientOf(s.channel) !== q.recipient) return false;
  if (q.label !== undefined && s.labels[q.label.name] !== q.label.value) return false;
  return true;
}

/** Where a subscription's notifications go: the address or the URL. */
export function recipientOf(channel: SubscriptionChannel): string {
  return channel.type === "email" ? channel.to : channel.url;
}
