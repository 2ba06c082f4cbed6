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
import { LuaScript } from "../store/lua-script.js";
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
  | { kind: "older"; ids: string[] }
  /**
   * Another job carries it — has it waiting or under way, or ended it: an enqueue
   * repeated after a crash, or a bundle run again after its worker died. Nothing to do.
   */
  | ({ kind: "carried"; by: string } & Omit<Carrier, "job">);

/** The job a claim is made from: its id, and the key prefix of its queue's jobs. */
export interface ClaimingJob {
  id: string;
  /** `<prefix>:<queue>:`, the key of a job of the queue without its id. */
  keyPrefix: string;
}

/** A claim to make: see DeliveryOrder.claim. */
interface Claim {
  notification: Notification;
  lockMs: number;
  job?: ClaimingJob;
}

/** An end to note: see DeliveryOrder.done. */
interface Done {
  notification: Notification;
  delivered: boolean;
  job: string;
}

/** How a bundle's job id starts (delivery-queues.ts; its size and a random part follow). */
export const BUNDLE_ID_PREFIX = "bundle_";

/** What a carrier holds once its job ended the notification unsent (then the job's id). */
const ENDED = "~done:";
/** What a carrier holds once its job delivered the notification (then the job's id). */
const SENT = "~sent:";

/** Member of an order's set that holds the highest sequence delivered. */
const DELIVERED = "~delivered";

/**
 * KEYS: each claim's order set, lock and carrier, in threes. ARGV: the retention ms, then
 * each claim's notification id, sequence, lock ms, job id ('' to ask no carrier) and
 * the key prefix of its queue's jobs. A replay claims with 0 and has no place:
 * nothing is older than it, it is never stale, and it takes the order's turn to send
 * like any other. Claims are taken in order, as one EVAL each would be.
 * Returns one reply per claim: {'go'}, {'busy'}, {'stale', delivered}, {'older', id…}
 * or {'carried', job} when another job carries it (has it waiting or under way, or
 * ended it).
 */
const CLAIM = new LuaScript(`
local function carriedElsewhere(carrier, job, jobPrefix, retention)
  local holder = redis.call('GET', carrier)
  if holder == job then return nil end
  if holder then
    if string.sub(holder, 1, 1) == '~' then return holder end
    -- Waiting, under way, or finished (a dead letter of its own): that job's. But a
    -- bundle that failed for good (in the queue's failed set) carries nothing any more:
    -- what it did not end is the job's that claims it (one it spun off before it
    -- failed, or one \`deliveries retry\` added).
    if redis.call('EXISTS', jobPrefix .. holder) == 1 and not (
      string.sub(holder, 1, ${BUNDLE_ID_PREFIX.length}) == '${BUNDLE_ID_PREFIX}' and
      redis.call('ZSCORE', jobPrefix .. 'failed', holder)) then
      return holder
    end
  end
  -- Never added (a notifier stopped between noting and enqueueing), or long gone: this
  -- job carries it now.
  redis.call('SET', carrier, job, 'PX', retention)
  return nil
end
local function claim(set, lock, carrier, id, seqText, lockMs, job, jobPrefix, retention)
  if job ~= '' then
    local other = carriedElsewhere(carrier, job, jobPrefix, retention)
    if other then return {'carried', other} end
  end
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
for i = 1, #KEYS / 3 do
  local a = 5 * i - 3
  replies[i] = claim(KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i],
    ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[1])
end
return replies`);

/**
 * KEYS: each notification's order set, lock and carrier, in threes. ARGV: retention ms,
 * then each notification's id, delivered sequence (or ''), job id and whether it was
 * delivered ('1' or '0'). Takes each notification out of its order, releases its lock
 * and notes that its job ended it (when that job carries it: `~sent:` or `~done:` and
 * the job's id); a delivery raises the highest sequence delivered.
 * Returns, for each, the id next in line or '' when none.
 */
const DONE = new LuaScript(`
local function done(set, lock, carrier, id, deliveredSeq, job, delivered, retention)
  redis.call('ZREM', set, id)
  if deliveredSeq ~= '' then
    redis.call('ZADD', set, 'GT', deliveredSeq, '${DELIVERED}')
    redis.call('PEXPIRE', set, retention)
  end
  if redis.call('GET', lock) == id then redis.call('DEL', lock) end
  if redis.call('GET', carrier) == job then
    redis.call('SET', carrier, (delivered == '1' and '${SENT}' or '${ENDED}') .. job, 'KEEPTTL')
  end
  for _, next in ipairs(redis.call('ZRANGE', set, 0, 1)) do
    if next ~= '${DELIVERED}' then return next end
  end
  return ''
end
local replies = {}
for i = 1, #KEYS / 3 do
  local a = 4 * i - 2
  replies[i] = done(KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i],
    ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[1])
end
return replies`);

/** KEYS: the order's lock. ARGV: notification id. Releases the lock if it is this notification's. */
const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/**
 * KEYS: each notification's order set and carrier, in pairs. ARGV: retention ms, then
 * each notification's sequence ('' when it takes no place), id and carrying job ('' for
 * none). NX: a notification enqueued again keeps its place and its first carrier.
 */
const PENDING = new LuaScript(`
for i = 1, #KEYS / 2 do
  local seq, id, job = ARGV[3 * i - 1], ARGV[3 * i], ARGV[3 * i + 1]
  if seq ~= '' then
    redis.call('ZADD', KEYS[2 * i - 1], 'NX', seq, id)
    redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[1])
  end
  if job ~= '' then redis.call('SET', KEYS[2 * i], job, 'NX', 'PX', ARGV[1]) end
end
return #KEYS / 2`);

/** KEYS: carriers. ARGV: each one's job id. Hands notifications to jobs of their own (after a bundle spun them off). */
const CARRY = new LuaScript(`
for i, key in ipairs(KEYS) do redis.call('SET', key, ARGV[i], 'XX', 'KEEPTTL') end
return #KEYS`);

/**
 * KEYS: carriers. ARGV: the job handing over, then each carrier's notification id. Hands
 * each notification to its own job only while the carrier still names `from` or that
 * job (never one ended, nor another job's): returns 1 where it did, 0 where not.
 */
const HAND_OVER = new LuaScript(`
local out = {}
for i, key in ipairs(KEYS) do
  local id = ARGV[i + 1]
  local holder = redis.call('GET', key)
  if holder == ARGV[1] or holder == id then
    redis.call('SET', key, id, 'KEEPTTL')
    out[i] = 1
  else
    out[i] = 0
  end
end
return out`);

/** Orders worked out, by notification: a worker asks for one's several times. */
const orders = new WeakMap<Notification, string>();

/** The order a notification belongs to: a hash of its rule, flight and channel. */
export function orderOf(notification: Notification): string {
  let order = orders.get(notification);
  if (order === undefined) {
    order = createHash("sha256")
      .update(`${notification.ruleId}\n${notification.alert.flight.key}\n${notification.channel}`)
      .digest("hex")
      .slice(0, 32);
    orders.set(notification, order);
  }
  return order;
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

/** What a carrier says: the job, whether it ended the notification, and delivered it. */
export interface Carrier {
  job: string;
  ended: boolean;
  delivered: boolean;
}

/** A carrier's value as a Carrier. */
function carrierFrom(held: string): Carrier {
  if (held.startsWith(SENT)) return { job: held.slice(SENT.length), ended: true, delivered: true };
  if (held.startsWith(ENDED)) {
    return { job: held.slice(ENDED.length), ended: true, delivered: false };
  }
  return { job: held, ended: false, delivered: false };
}

/** Outputs of a call on every shard, or the first shard's error when one failed. */
function throwFailed<O>(results: readonly (O | CallFailed)[]): O[] {
  const failed = results.find((r) => r instanceof CallFailed);
  if (failed instanceof CallFailed) throw failed.error;
  return results as O[];
}

/** A claim's reply as an OrderTurn. */
function turnOf([kind, ...rest]: string[]): OrderTurn {
  if (kind === "go") return { kind: "go" };
  if (kind === "busy") return { kind: "busy" };
  if (kind === "stale") return { kind: "stale", delivered: Number(rest[0]) };
  if (kind === "carried") {
    const { job, ended, delivered } = carrierFrom(String(rest[0]));
    return { kind: "carried", by: job, ended, delivered };
  }
  return { kind: "older", ids: rest };
}

/** The orders of every (rule, flight, channel), in Redis. */
export class DeliveryOrder {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #retentionMs: number;
  readonly #claims: CallBatch<Claim, OrderTurn>;
  readonly #dones: CallBatch<Done, string | undefined>;

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
   * per shard for all), each with the bundle that will carry it, if any (its first
   * carrier stays). Replays and reminders take no place (`takesNoPlace`): they wait for
   * no older one and hold no newer one back.
   */
  async pending(
    notifications: readonly Notification[],
    carriers?: ReadonlyMap<string, string>,
  ): Promise<void> {
    const noted = notifications.filter((n) => !takesNoPlace(n) || carriers?.has(n.id));
    const results = await this.#perShard(
      noted,
      (n) => n,
      async (group) => {
        const keys: string[] = [];
        const args: string[] = [String(this.#retentionMs)];
        for (const { item: n, order } of group) {
          keys.push(this.#keys.deliveryOrder(order), this.#carrierKey(n, order));
          args.push(takesNoPlace(n) ? "" : String(sequenceOf(n)), n.id, carriers?.get(n.id) ?? "");
        }
        await PENDING.run(this.#redis, keys.length, ...keys, ...args);
        return [];
      },
    );
    throwFailed(results);
  }

  /**
   * Hands notifications a bundle spun off to jobs of their own (named after them): a
   * bundle run again after its worker died leaves them to those jobs.
   */
  async carry(notifications: readonly Notification[]): Promise<void> {
    if (notifications.length === 0) return;
    const results = await this.#perShard(
      notifications,
      (n) => n,
      async (group) => {
        const keys = group.map(({ item, order }) => this.#carrierKey(item, order));
        await CARRY.run(this.#redis, keys.length, ...keys, ...group.map(({ item }) => item.id));
        return [];
      },
    );
    throwFailed(results);
  }

  /**
   * Hands notifications carried by job `from` to jobs of their own (job id = notification
   * id), each only while its carrier still names `from` (or its own job already): a
   * compare-and-set, so one another job took over, or ended, stays as it is. Resolves to
   * whether each was handed over.
   */
  async handOver(notifications: readonly Notification[], from: string): Promise<boolean[]> {
    if (notifications.length === 0) return [];
    const results = await this.#perShard(
      notifications,
      (n) => n,
      async (group) => {
        const keys = group.map(({ item, order }) => this.#carrierKey(item, order));
        const ids = group.map(({ item }) => item.id);
        const replies = (await HAND_OVER.run(
          this.#redis,
          keys.length,
          ...keys,
          from,
          ...ids,
        )) as number[];
        return replies.map((r) => r === 1);
      },
    );
    return throwFailed(results);
  }

  /**
   * The job that carries a notification (a bundle's id, or its own) and whether it ended
   * there; undefined when no carrier is kept (a job of its own from the start).
   */
  async carrierOf(notificationId: string): Promise<Carrier | undefined> {
    for (let shard = 0; shard < this.#keys.deliveryShards; shard++) {
      const held = await this.#redis.get(this.#keys.deliveryCarrier(shard, notificationId));
      if (held !== null) return carrierFrom(held);
    }
    return undefined;
  }

  /** The carriers of notifications (undefined where none is kept), one read per shard. */
  async carriers(notifications: readonly Notification[]): Promise<(Carrier | undefined)[]> {
    if (notifications.length === 0) return [];
    const results = await this.#perShard(
      notifications,
      (n) => n,
      async (group) => {
        const held = await this.#redis.mget(
          ...group.map(({ item, order }) => this.#carrierKey(item, order)),
        );
        return held.map((h) => (h === null ? undefined : carrierFrom(h)));
      },
    );
    return throwFailed(results);
  }

  /** The carrier of notification `id` of `notification`'s order (see carrierOf). */
  async carrierIn(notification: Notification, id: string): Promise<Carrier | undefined> {
    const held = await this.#redis.get(
      this.#keys.deliveryCarrier(this.#keys.shardOf(orderOf(notification)), id),
    );
    return held === null ? undefined : carrierFrom(held);
  }

  #carrierKey(notification: Notification, order: string): string {
    return this.#keys.deliveryCarrier(this.#keys.shardOf(order), notification.id);
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

  /**
   * Tries to take the turn to send from `job` (a bundle, or the notification's own); see
   * OrderTurn. Without `job` (tests of the order alone), no carrier is asked.
   */
  claim(notification: Notification, lockMs: number, job?: ClaimingJob): Promise<OrderTurn> {
    return this.#claims.call(job ? { notification, lockMs, job } : { notification, lockMs });
  }

  #claim(claims: readonly Claim[]): Promise<(OrderTurn | CallFailed)[]> {
    return this.#perShard(
      claims,
      (c) => c.notification,
      async (group) => {
        const keys: string[] = [];
        const args: string[] = [String(this.#retentionMs)];
        for (const { item, order } of group) {
          keys.push(
            this.#keys.deliveryOrder(order),
            this.#keys.deliverySending(order),
            this.#carrierKey(item.notification, order),
          );
          args.push(
            item.notification.id,
            String(sequenceOf(item.notification)),
            String(Math.max(1, Math.round(item.lockMs))),
            item.job?.id ?? "",
            item.job?.keyPrefix ?? "",
          );
        }
        const replies = (await CLAIM.run(this.#redis, keys.length, ...keys, ...args)) as string[][];
        return replies.map(turnOf);
      },
    );
  }

  /** Releases the turn, keeping the notification in the order (it will be retried). */
  async release(notification: Notification): Promise<void> {
    await RELEASE.run(
      this.#redis,
      1,
      this.#keys.deliverySending(orderOf(notification)),
      notification.id,
    );
  }

  /**
   * The notification is done — delivered (which raises the order's mark), dead or
   * superseded — by the job `job` (its own, or a bundle's). Resolves to the id of the
   * notification next in line, if any (waiting for its turn: the caller may hand it on
   * at once).
   */
  done(
    notification: Notification,
    delivered: boolean,
    job = notification.id,
  ): Promise<string | undefined> {
    return this.#dones.call({ notification, delivered, job });
  }

  #done(dones: readonly Done[]): Promise<(string | undefined | CallFailed)[]> {
    return this.#perShard(
      dones,
      (d) => d.notification,
      async (group) => {
        const keys: string[] = [];
        const args: string[] = [String(this.#retentionMs)];
        for (const { item, order } of group) {
          keys.push(
            this.#keys.deliveryOrder(order),
            this.#keys.deliverySending(order),
            this.#carrierKey(item.notification, order),
          );
          // Alerts from before there were sequences (0) order nothing.
          const seq = sequenceOf(item.notification);
          args.push(
            item.notification.id,
            item.delivered && seq > 0 ? String(seq) : "",
            item.job,
            item.delivered ? "1" : "0",
          );
        }
        const replies = (await DONE.run(this.#redis, keys.length, ...keys, ...args)) as string[];
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
