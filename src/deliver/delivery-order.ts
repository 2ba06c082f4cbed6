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
import { CallBatch, CallFailed } from "../store/call-batch.js";
import type { RedisConnection } from "../store/redis-connection.js";
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
 * KEYS: each claim's order set and lock, in pairs. ARGV: each claim's notification id,
 * sequence and lock ms. A replay claims with 0 and has no place: nothing is older than it,
 * it is never stale, and it takes the order's turn to send like any other. Claims are taken in order, as one EVAL each would be.
 * Returns one reply per claim: {'go'}, {'busy'}, {'stale', delivered} or {'older', id…}.
 */
const CLAIM = `
local function claim(set, lock, id, seqText, lockMs)
  local holder = redis.call('GET', lock)
  if holder and holder ~= id then return {'busy'} end
  local seq = tonumber(seqText)
  -- One read of the (small) set: the mark delivered and the older ones, oldest first.
  local all = redis.call('ZRANGE', set, 0, -1, 'WITHSCORES')
  local delivered = -1
  local out = {'older'}
  for i = 1, #all, 2 do
    local member, score = all[i], tonumber(all[i + 1])
    if member == '${DELIVERED}' then delivered = score
    elseif member ~= id and score < seq then table.insert(out, member) end
  end
  if seq > 0 and delivered >= seq then return {'stale', tostring(delivered)} end
  if #out > 1 then return out end
  redis.call('SET', lock, id, 'PX', lockMs)
  return {'go'}
end
local replies = {}
for i = 1, #KEYS / 2 do
  replies[i] = claim(KEYS[2 * i - 1], KEYS[2 * i], ARGV[3 * i - 2], ARGV[3 * i - 1], ARGV[3 * i])
end
return replies`;

/**
 * KEYS: each notification's order set and lock, in pairs. ARGV: retention ms, then each
 * notification's id and delivered sequence (or ''). Takes each notification out of its
 * order and releases its lock; a delivery raises the highest sequence delivered.
 * Returns, for each, the id next in line or '' when none.
 */
const DONE = `
local function done(set, lock, id, deliveredSeq, retention)
  redis.call('ZREM', set, id)
  if deliveredSeq ~= '' then
    redis.call('ZADD', set, 'GT', deliveredSeq, '${DELIVERED}')
    redis.call('PEXPIRE', set, retention)
  end
  if redis.call('GET', lock) == id then redis.call('DEL', lock) end
  for _, next in ipairs(redis.call('ZRANGE', set, 0, 1)) do
    if next ~= '${DELIVERED}' then return next end
  end
  return ''
end
local replies = {}
for i = 1, #KEYS / 2 do
  replies[i] = done(KEYS[2 * i - 1], KEYS[2 * i], ARGV[2 * i], ARGV[2 * i + 1], ARGV[1])
end
return replies`;

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

/**
 * Whether a notification stands outside its order: a replay, sent again on purpose, and
 * a reminder, about a moment rather than a change — neither is stale after a newer
 * alert, folded into one, or holds one back.
 */
export const takesNoPlace = (notification: Notification): boolean =>
  notification.replayOf !== undefined || notification.alert.reminder !== undefined;

/**
 * The sequence a notification is ordered by: 0 for alerts decided before there was one,
 * and for those that take no place in it (`takesNoPlace`), which are never stale.
 */
export const sequenceOf = (notification: Notification): number =>
  takesNoPlace(notification) ? 0 : (notification.alert.sequence ?? 0);

/** A claim's reply as an OrderTurn. */
function turnOf([kind, ...rest]: string[]): OrderTurn {
  if (kind === "go") return { kind: "go" };
  if (kind === "busy") return { kind: "busy" };
  if (kind === "stale") return { kind: "stale", delivered: Number(rest[0]) };
  return { kind: "older", ids: rest };
}

/** The orders of every (rule, flight, channel), in Redis. */
export class DeliveryOrder {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #retentionMs: number;
  readonly #claims: CallBatch<{ notification: Notification; lockMs: number }, OrderTurn>;
  readonly #dones: CallBatch<
    { notification: Notification; delivered: boolean },
    string | undefined
  >;

  /**
   * `retentionMs`: how long an order outlives its last change (as long as notification
   * ids are deduplicated). Claims and ends made in one turn of the event loop (many
   * workers at once) go to Redis as one command each.
   */
  constructor(redis: RedisConnection, keys: RedisKeys, retentionMs: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#retentionMs = retentionMs;
    this.#claims = new CallBatch((claims) => this.#claim(claims));
    this.#dones = new CallBatch((dones) => this.#done(dones));
  }

  /**
   * Notes notifications as waiting for delivery, before they are enqueued (one command
   * for all). Replays and reminders take no place (`takesNoPlace`): they wait for no
   * older one and hold no newer one back.
   */
  async pending(notifications: readonly Notification[]): Promise<void> {
    const placed = notifications.filter((n) => !takesNoPlace(n));
    const results = await this.#perShard(
      placed,
      (n) => n,
      async (group) => {
        const keys: string[] = [];
        const args: string[] = [String(this.#retentionMs)];
        for (const { item: n, order } of group) {
          keys.push(this.#keys.deliveryOrder(order));
          args.push(String(sequenceOf(n)), n.id);
        }
        await this.#redis.eval(PENDING, keys.length, ...keys, ...args);
        return [];
      },
    );
    const failed = results.find((r) => r instanceof CallFailed);
    if (failed) throw failed.error;
  }

  /**
   * Runs `run` once per delivery shard (a script's keys must share a hash tag) over the
   * items whose order is in it, each with its order; resolves to one output per item, in
   * place. A shard whose script failed (its master away) answers each of its items with
   * that error, the others with their own replies: a script that ran on one master is
   * never reported as failed because another's did.
   */
  async #perShard<T, O>(
    items: readonly T[],
    notificationOf: (item: T) => Notification,
    run: (group: { item: T; order: string }[]) => Promise<readonly O[]>,
  ): Promise<(O | CallFailed)[]> {
    const groups = new Map<number, { item: T; order: string; index: number }[]>();
    items.forEach((item, index) => {
      const order = orderOf(notificationOf(item));
      const shard = this.#keys.shardOf(order);
      const group = groups.get(shard) ?? [];
      group.push({ item, order, index });
      groups.set(shard, group);
    });
    const outputs: (O | CallFailed)[] = new Array(items.length);
    await Promise.all(
      [...groups.values()].map(async (group) => {
        try {
          const replies = await run(group);
          group.forEach(({ index }, i) => {
            outputs[index] = replies[i] as O;
          });
        } catch (err) {
          for (const { index } of group) outputs[index] = new CallFailed(err);
        }
      }),
    );
    return outputs;
  }

  /** Tries to take the turn to send; see OrderTurn. */
  claim(notification: Notification, lockMs: number): Promise<OrderTurn> {
    return this.#claims.call({ notification, lockMs });
  }

  #claim(
    claims: readonly { notification: Notification; lockMs: number }[],
  ): Promise<(OrderTurn | CallFailed)[]> {
    return this.#perShard(
      claims,
      (c) => c.notification,
      async (group) => {
        const keys: string[] = [];
        const args: string[] = [];
        for (const { item, order } of group) {
          keys.push(this.#keys.deliveryOrder(order), this.#keys.deliverySending(order));
          args.push(
            item.notification.id,
            String(sequenceOf(item.notification)),
            String(Math.max(1, Math.round(item.lockMs))),
          );
        }
        const replies = (await this.#redis.eval(
          CLAIM,
          keys.length,
          ...keys,
          ...args,
        )) as string[][];
        return replies.map(turnOf);
      },
    );
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
  done(notification: Notification, delivered: boolean): Promise<string | undefined> {
    return this.#dones.call({ notification, delivered });
  }

  #done(
    dones: readonly { notification: Notification; delivered: boolean }[],
  ): Promise<(string | undefined | CallFailed)[]> {
    return this.#perShard(
      dones,
      (d) => d.notification,
      async (group) => {
        const keys: string[] = [];
        const args: string[] = [String(this.#retentionMs)];
        for (const { item, order } of group) {
          keys.push(this.#keys.deliveryOrder(order), this.#keys.deliverySending(order));
          // Alerts from before there were sequences (0) order nothing.
          const seq = sequenceOf(item.notification);
          args.push(item.notification.id, item.delivered && seq > 0 ? String(seq) : "");
        }
        const replies = (await this.#redis.eval(DONE, keys.length, ...keys, ...args)) as string[];
        return replies.map((next) => (next === "" ? undefined : next));
      },
    );
  }

  /** Takes ids out of a notification's order (done elsewhere, or gone). */
  async forget(notification: Notification, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) {
      await this.#redis.zrem(this.#keys.deliveryOrder(orderOf(notification)), ...ids);
    }
  }
}
