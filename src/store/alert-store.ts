/**
 * What the dispatcher keeps in Redis: its memory of each rule about each flight
 * (JSON, expiring days after its last change), the set of groups waiting for their
 * time, and the stream of decided alerts that delivery reads.
 *
 * Decisions are made in optimistic transactions: WATCH the states involved, read them
 * (one MGET), decide (pure functions, see src/dispatch/alert-decision.ts), then write
 * the new states, the due times, the alerts and — when the decisions consumed outbox
 * entries — those entries' acknowledgement in one MULTI/EXEC. One transaction takes a
 * whole batch of entries (or of due groups): three round trips for a hundred entries,
 * not for each. A crash before EXEC leaves the entries pending and nothing written, so
 * they are decided again; a crash after leaves them acknowledged with their alerts
 * written once. Two dispatchers deciding about the same
 * rule and flight at once cannot both commit: the loser re-reads and decides again.
 */

import type { Alert } from "../dispatch/alert.js";
import { type RedisConnection, unwatch } from "./redis-connection.js";
import type { RedisKeys } from "./redis-keys.js";
import { fieldOf } from "./stream-consumer.js";

/** Field of an alerts stream entry that holds the alert's JSON. */
export const ALERT_FIELD = "alert";

/** One rule about one flight: whose state a decision reads and writes. */
export interface AlertTarget {
  ruleId: string;
  flightKey: string;
}

/** What deciding leaves of one target. */
export interface TargetUpdate<S> {
  /** State to keep; undefined deletes it. */
  state: S | undefined;
  /** When the target next needs a flush; undefined takes it off the due set. */
  dueAt?: number | undefined;
}

/** The outcome of one transaction's decisions. */
export interface AlertDecisions<S> {
  /** One per target, in the targets' order; undefined leaves the target as it is. */
  updates: (TargetUpdate<S> | undefined)[];
  /** Alerts to append to the stream, in the order they were decided. */
  alerts: readonly Alert[];
}

/** Stream entries to acknowledge in the same transaction as the decisions they led to. */
export interface StreamAck {
  stream: string;
  group: string;
  entryIds: readonly string[];
}

/** Expiry of the dispatcher's memory and retention of the alerts stream. */
export interface AlertStoreOptions<S = unknown> {
  /** State expires this long after its last change (default 3 days). */
  stateTtlMs?: number;
  /** Alerts stream entries older than this are trimmed (default 7 days). */
  alertRetentionMs?: number;
  /**
   * The clock of due times (the airport's; default the wall clock): a state waiting for
   * a time further off than its expiry (a reminder days ahead) is kept until then.
   */
  now?: () => number;
  /**
   * The due time a kept state was written with (the dispatcher's `nextDue`): a target
   * whose state read had none is not in the due set, and needs no ZREM when it stays
   * not due — most targets, most of the time. Without it every target not due is
   * taken off the due set, in case. Targets taken from the due set (`fromDueSet`) are
   * always taken off it when not due any more: a member can outlive its state (kept
   * days past its due time, or evicted by Redis), and only the flush finds it.
   */
  dueOf?: (state: S) => number | undefined;
}

/** What a transaction also does, besides its decisions. */
export interface TransactOptions {
  /** Stream entries acknowledged in the same transaction as the decisions they led to. */
  ack?: StreamAck;
  /** The targets were read from the due set (see `AlertStoreOptions.dueOf`). */
  fromDueSet?: boolean;
}

/** Transactions retried on conflict before giving up (each conflict means progress elsewhere). */
const MAX_ATTEMPTS = 50;

/** Decided alerts of a stream entry's field list, or undefined when it has none (trimmed). */
export function alertOfFields(fields: readonly string[] | null): Alert | undefined {
  const text = fieldOf(fields, ALERT_FIELD);
  return text === undefined ? undefined : (JSON.parse(text) as Alert);
}

/**
 * A target as one string — its member of the due set, and its identity wherever
 * targets are told apart: rule ids and flight keys contain no spaces.
 */
export const targetKey = (t: AlertTarget): string => `${t.ruleId} ${t.flightKey}`;

/** The dispatcher's Redis side. Needs a connection of its own (it uses WATCH). */
export class AlertStore<S> {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #stateTtlMs: number;
  readonly #alertRetentionMs: number;
  readonly #now: () => number;
  readonly #dueOf: ((state: S) => number | undefined) | undefined;
  /** Transactions on one connection must not interleave (WATCH is per connection). */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(redis: RedisConnection, keys: RedisKeys, options: AlertStoreOptions<S> = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#stateTtlMs = options.stateTtlMs ?? 3 * 86_400_000;
    this.#alertRetentionMs = options.alertRetentionMs ?? 7 * 86_400_000;
    this.#now = options.now ?? Date.now;
    this.#dueOf = options.dueOf;
  }

  /**
   * Reads the targets' states under WATCH, lets `decide` compute one update per
   * target (same order) and the alerts, and commits them — with `ack`, when given — in
   * one transaction, retrying from the read when another client changed a state
   * meanwhile. Resolves to the alerts committed.
   */
  transact(
    targets: readonly AlertTarget[],
    decide: (states: Array<S | undefined>) => AlertDecisions<S>,
    options: TransactOptions = {},
  ): Promise<readonly Alert[]> {
    const run = this.#tail.then(() => this.#transact(targets, decide, options));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #transact(
    targets: readonly AlertTarget[],
    decide: (states: Array<S | undefined>) => AlertDecisions<S>,
    { ack, fromDueSet = false }: TransactOptions,
  ): Promise<readonly Alert[]> {
    const keys = targets.map((t) => this.#keys.alertState(t.ruleId, t.flightKey));
    for (let attempt = 1; ; attempt++) {
      // Arrays, not spread arguments: a transaction may take thousands of keys.
      if (keys.length > 0) await this.#redis.watch(keys);
      const raw = keys.length > 0 ? await this.#redis.mget(keys) : [];
      let decided: AlertDecisions<S>;
      // Whether each target may be in the due set (its state read had a due time).
      let wasDue: boolean[] | undefined;
      try {
        const states = raw.map((text) => (text === null ? undefined : (JSON.parse(text) as S)));
        const dueOf = this.#dueOf;
        if (dueOf && !fromDueSet) {
          wasDue = states.map((s) => s !== undefined && dueOf(s) !== undefined);
        }
        decided = decide(states);
      } catch (err) {
        if (keys[0] !== undefined) await unwatch(this.#redis, keys[0]);
        throw err;
      }
      const tx = this.#redis.multi();
      const minId = String(Math.max(0, Date.now() - this.#alertRetentionMs));
      const now = this.#now();
      targets.forEach((target, i) => {
        const update = decided.updates[i];
        if (!update) return;
        const key = keys[i] as string;
        if (update.state === undefined) tx.del(key);
        else {
          // Kept at least until it is due, and as long after as any state.
          const wait = update.dueAt === undefined ? 0 : Math.max(0, update.dueAt - now);
          tx.set(key, JSON.stringify(update.state), "PX", Math.ceil(wait) + this.#stateTtlMs);
        }
        if (update.dueAt === undefined) {
          if (wasDue?.[i] !== false) tx.zrem(this.#keys.alertsDue, targetKey(target));
        } else tx.zadd(this.#keys.alertsDue, update.dueAt, targetKey(target));
      });
      for (const alert of decided.alerts) {
        tx.xadd(this.#keys.alerts, "MINID", "~", minId, "*", ALERT_FIELD, JSON.stringify(alert));
      }
      if (ack && ack.entryIds.length > 0) tx.xack(ack.stream, ack.group, ...ack.entryIds);
      const result = await tx.exec();
      if (result !== null) {
        const failed = result.find(([err]) => err);
        if (failed?.[0]) throw failed[0];
        return decided.alerts;
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new Error(`alert state kept changing under ${attempt} attempts to commit a decision`);
      }
    }
  }

  /** Targets whose due time is at or before `now`, earliest first. */
  async due(now: number, limit = 100): Promise<AlertTarget[]> {
    const members = await this.#redis.zrangebyscore(
      this.#keys.alertsDue,
      "-inf",
      now,
      "LIMIT",
      0,
      limit,
    );
    return members.map((member) => {
      const space = member.indexOf(" ");
      return { ruleId: member.slice(0, space), flightKey: member.slice(space + 1) };
    });
  }

  /** The earliest due time, or undefined when nothing waits. */
  async nextDueAt(): Promise<number | undefined> {
    const first = await this.#redis.zrange(this.#keys.alertsDue, 0, 0, "WITHSCORES");
    return first.length === 2 ? Number(first[1]) : undefined;
  }

  /**
   * Where detection had looked up to before the downtime being caught up from: the
   * value kept since a catch-up began that has not ended (a restart during a catch-up),
   * else `seenUntil`, which is kept from now on.
   */
  catchUpSeenUntil(seenUntil: number): Promise<number> {
    return this.#queued(async () => {
      const key = this.#keys.dispatchCatchUp;
      await this.#redis.set(key, String(seenUntil), "NX");
      const kept = await this.#redis.get(key);
      const value = kept === null ? Number.NaN : Number(kept);
      return Number.isNaN(value) ? seenUntil : value;
    });
  }

  /** Ends the kept catch-up (see catchUpSeenUntil): the next start begins its own. */
  endCatchUp(): Promise<void> {
    return this.#queued(async () => {
      await this.#redis.del(this.#keys.dispatchCatchUp);
    });
  }

  /** Runs `work` after the transactions under way on this connection (WATCH is per connection). */
  #queued<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(work);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Every alert in the stream, oldest first (for tools and tests; reads the whole stream). */
  async readAlerts(): Promise<Alert[]> {
    const entries = await this.#redis.xrange(this.#keys.alerts, "-", "+");
    return entries.flatMap(([, fields]) => alertOfFields(fields) ?? []);
  }
}
