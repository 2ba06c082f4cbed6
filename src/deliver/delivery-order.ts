/**
 * The order of one rule's notifications about one flight through one channel (one
 * destination): they must reach the receiver in the order their changes happened, and
 * never an older one after a newer one. Every notification waiting for delivery is kept
 * in a sorted set of its (rule, flight, channel), scored by its alert's sequence; a
 * worker takes the **turn** to send one only when no older one is waiting (or being
 * sent: one send at a time per order, under a lock named after the notification, so
 * the worker that takes a stalled job over takes its turn back). What to do about an
 * older one that is waiting is the worker's decision (delivery-worker.ts): let it go
 * first, or — when it failed and waits to be retried — supersede it. The highest
 * sequence delivered is kept too: a notification older than one already delivered
 * (enqueued late by another notifier) is superseded, never sent after it.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { RedisKeys } from "../store/redis-keys.js";
import type { Notification } from "./notification.js";

/** What a claim found. */
export type OrderTurn =
  /** Yours: send now (the order's lock is yours until `release` or `done`). */
  | { kind: "go" }
  /** Another notification of the order is being sent: wait. */
  | { kind: "busy" }
  /** A newer one was delivered already: this one must not be sent after it. */
  | { kind: "stale"; delivered: number }
  /** These older ones are still pending: they go first, or are superseded. */
  | { kind: "older"; ids: string[] };

/** Member of an order's set that holds the highest sequence delivered. */
const DELIVERED = "~delivered";

/**
 * KEYS: the order's set, its lock. ARGV: notification id, sequence, lock ms.
 * Returns {'go'}, {'busy'}, {'stale', delivered} or {'older', id…}.
 */
const CLAIM = `
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return {'busy'} end
local seq = tonumber(ARGV[2])
local delivered = tonumber(redis.call('ZSCORE', KEYS[1], '${DELIVERED}') or '-1')
if seq > 0 and delivered >= seq then return {'stale', tostring(delivered)} end
local older = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
local out = {'older'}
for _, id in ipairs(older) do
  if id ~= ARGV[1] and id ~= '${DELIVERED}' then table.insert(out, id) end
end
if #out > 1 then return out end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
return {'go'}`;

/**
 * KEYS: the order's set, its lock. ARGV: notification id, delivered sequence (or ''),
 * retention ms. Takes the notification out of the order and releases its lock; a
 * delivery raises the highest sequence delivered. Returns the id next in line, if any.
 */
const DONE = `
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[1], 'GT', ARGV[2], '${DELIVERED}')
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, 1)) do
  if id ~= '${DELIVERED}' then return id end
end
return false`;

/** KEYS: the order's lock. ARGV: notification id. Releases the lock if it is this notification's. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * KEYS: the orders' sets, one per notification. ARGV: retention ms, then each
 * notification's sequence and id. NX: a notification enqueued again keeps its place.
 */
const PENDING = `
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'NX', ARGV[2 * i], ARGV[2 * i + 1])
  redis.call('PEXPIRE', key, ARGV[1])
end
return #KEYS`;

/** The order a notification belongs to: a hash of its rule, flight and channel. */
export function orderOf(notification: Notification): string {
  return createHash("sha256")
    .update(`${notification.ruleId}\n${notification.alert.flight.key}\n${notification.channel}`)
    .digest("hex")
    .slice(0, 32);
}

/** The sequence a notification is ordered by (0 for alerts decided before there was one). */
export const sequenceOf = (notification: Notification): number => notification.alert.sequence ?? 0;

/** The orders of every (rule, flight, channel), in Redis. */
export class DeliveryOrder {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #retentionMs: number;

  /** `retentionMs`: how long an order outlives its last change (as long as notification ids are deduplicated). */
  constructor(redis: Redis, keys: RedisKeys, retentionMs: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#retentionMs = retentionMs;
  }

  /** Notes notifications as waiting for delivery, before they are enqueued (one command for all). */
  async pending(notifications: readonly Notification[]): Promise<void> {
    // Stryker disable next-line ConditionalExpression: "false": a shortcut; a script over no keys does nothing either ("true" is killed)
    if (notifications.length === 0) return;
    const keys: string[] = [];
    const args: string[] = [String(this.#retentionMs)];
    for (const n of notifications) {
      keys.push(this.#keys.deliveryOrder(orderOf(n)));
      args.push(String(sequenceOf(n)), n.id);
    }
    await this.#redis.eval(PENDING, keys.length, ...keys, ...args);
  }

  /** Tries to take the turn to send; see OrderTurn. */
  async claim(notification: Notification, lockMs: number): Promise<OrderTurn> {
    const order = orderOf(notification);
    const reply = (await this.#redis.eval(
      CLAIM,
      2,
      this.#keys.deliveryOrder(order),
      this.#keys.deliverySending(order),
      notification.id,
      String(sequenceOf(notification)),
      String(Math.max(1, Math.round(lockMs))),
    )) as string[];
    const [kind, ...rest] = reply;
    if (kind === "go") return { kind: "go" };
    if (kind === "busy") return { kind: "busy" };
    if (kind === "stale") return { kind: "stale", delivered: Number(rest[0]) };
    return { kind: "older", ids: rest };
  }

  /** Releases the turn, keeping the notification in the order (it will be retried). */
  async release(notification: Notification): Promise<void> {
    await this.#redis.eval(
      RELEASE,
      1,
      this.#keys.deliverySending(orderOf(notification)),
      notification.id,
    );
  }

  /**
   * The notification is done — delivered (which raises the order's mark), dead or
   * superseded. Resolves to the id of the notification next in line, if any (waiting
   * for its turn: the caller may hand it on at once).
   */
  async done(notification: Notification, delivered: boolean): Promise<string | undefined> {
    const order = orderOf(notification);
    const next = await this.#redis.eval(
      DONE,
      2,
      this.#keys.deliveryOrder(order),
      this.#keys.deliverySending(order),
      notification.id,
      // Alerts from before there were sequences (0) order nothing.
      delivered && sequenceOf(notification) > 0 ? String(sequenceOf(notification)) : "",
      String(this.#retentionMs),
    );
    return typeof next === "string" ? next : undefined;
  }

  /** Takes ids out of a notification's order (done elsewhere, or gone). */
  async forget(notification: Notification, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) {
      await this.#redis.zrem(this.#keys.deliveryOrder(orderOf(notification)), ...ids);
    }
  }
}
