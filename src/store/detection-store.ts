/**
 * What detection keeps in Redis: one snapshot per physical flight, an index of them,
 * the detection state (watermark, last reconciliation, horizon), the poll status and
 * the transactional outbox of change events.
 *
 * A poll WATCHes the detection state, reads, diffs, and commits snapshots, events
 * and the new state in one MULTI/EXEC (`commit`). Every commit bumps `seq`, so a
 * poll that overlapped another (a stalled job re-run, say) fails to commit instead
 * of writing a second copy of the same events. Events leave the outbox only through
 * a consumer that acknowledges them (see outbox-consumer.ts).
 */

import type { ChangeEvent } from "../diff/change.js";
import type { FlightSnapshot } from "../diff/flight-snapshot.js";
import { encodeOutboxEntries, OUTBOX_FIELD } from "./outbox-entry.js";
import { type RedisConnection, unwatch } from "./redis-connection.js";
import type { RedisKeys } from "./redis-keys.js";

/** Detection state, as kept in the `detection` hash. */
export interface DetectionState {
  /** Newest `lastUpdatedAt` read by a complete poll, epoch ms; absent before the baseline. */
  watermark?: number;
  /** When the last full reconciliation committed, epoch ms. */
  reconciledAt?: number;
  /** Last schedule date of the horizon at the last commit. */
  horizonTo?: string;
  /**
   * Upstream clock when the last committed poll's read was first answered, epoch ms:
   * every record visible then has been read. The next incremental read starts here,
   * minus the overlap.
   */
  coveredUntil?: number;
  /** The largest stamp lag observed (see detect/window.ts), ms, and when, epoch ms. */
  lagMs?: number;
  lagAt?: number;
  /** New versions seen so far, up to what makes the lag count as measured (detect/window.ts). */
  lagEvidence?: number;
  /** Commits so far (read only: every commit bumps it). */
  seq?: number;
}

/** The numeric fields of the detection state, as kept in its hash. */
const NUMERIC_STATE = [
  "seq",
  "watermark",
  "reconciledAt",
  "coveredUntil",
  "lagMs",
  "lagAt",
  "lagEvidence",
] as const;

/** Poll status, as kept in the `poll` hash (for health checks, metrics and `watch`). */
export interface PollStatus {
  lastAttemptAt?: number;
  /** Which process made the last attempt (`host:pid`). */
  lastPoller?: string;
  /** Start of the last successful poll: changes visible upstream before it are known. */
  lastSuccessAt?: number;
  lastMode?: string;
  lastDurationMs?: number;
  lastRequests?: number;
  lastEvents?: number;
  /** Consecutive failed polls. */
  failures: number;
  lastError?: string;
  /** The last failure's error code (`FW_ERR_UPSTREAM_AUTH`, …), when it had one. */
  lastErrorCode?: string;
  /**
   * Polls attempted so far (committed, conflicting or failed; not skipped ones): a
   * counter, so that "a poll was attempted since" needs no clock.
   */
  attempts?: number;
  /** No poll before this instant (backoff after failures). */
  nextAttemptAt?: number;
  /** How long the backoff was when it was set, ms (bounds it when the clock steps back). */
  backoffMs?: number;
  /** How far behind detection is: time since the last successful poll at the last attempt, ms. */
  behindMs?: number;
}

/** Everything one poll commits. */
export interface DetectionCommit {
  /** Snapshots to write (new or changed). */
  snapshots: readonly FlightSnapshot[];
  /** Flight keys whose snapshots go (flights removed upstream). */
  removed: readonly string[];
  /**
   * Flights first seen silently (a baseline, new horizon dates): no event tells of them,
   * so they are noted for the reminders (RedisKeys.silentFlights). Default none.
   */
  silent?: readonly string[];
  events: readonly ChangeEvent[];
  state: DetectionState;
  /** Snapshots expire this long after the flight's scheduled time. */
  snapshotTtlMs: number;
  /** Outbox entries older than this are trimmed. */
  outboxRetentionMs: number;
  /** Now, epoch ms (expiry of snapshots without a scheduled time, index pruning). */
  now: number;
}

const MGET_CHUNK = 500;
/** How long flights first seen silently wait for a dispatcher (real time: Redis's). */
const SILENT_FLIGHTS_TTL_MS = 86_400_000;
/** Snapshots or events per script call of a commit (bounds its arguments and run time). */
const COMMIT_CHUNK = 1000;

/**
 * KEYS: the snapshot index, then one snapshot key per snapshot. ARGV, four per
 * snapshot: stored JSON, time to live (ms), index score, flight key.
 */
const WRITE_SNAPSHOTS = `
for i = 2, #KEYS do
  local a = (i - 2) * 4
  redis.call('SET', KEYS[i], ARGV[a + 1], 'PX', ARGV[a + 2])
  redis.call('ZADD', KEYS[1], ARGV[a + 3], ARGV[a + 4])
end
return #KEYS - 1`;

/**
 * KEYS: the outbox. ARGV: the entry's field name, the trim MINID, and the events'
 * JSON joined by newlines (JSON text has none of its own): one argument instead of
 * one per event halves the client's cost of sending them.
 */
const APPEND_EVENTS = `
local text, from, n = ARGV[3], 1, 0
while from <= #text do
  local nl = string.find(text, '\\n', from, true) or (#text + 1)
  redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[2], '*', ARGV[1], string.sub(text, from, nl - 1))
  from, n = nl + 1, n + 1
end
return n`;

/**
 * Detection's view of Redis. Give it a connection of its own: WATCH is per
 * connection, and a poll must not share its transaction with other commands.
 */
export class DetectionStore {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;

  constructor(redis: RedisConnection, keys: RedisKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  get keys(): RedisKeys {
    return this.#keys;
  }

  /** Starts watching the detection state: a commit after another poll's fails. */
  async watch(): Promise<void> {
    await this.#redis.watch(this.#keys.detection);
  }

  /** Stops watching (after a poll that commits nothing). */
  async unwatch(): Promise<void> {
    await unwatch(this.#redis, this.#keys.detection);
  }

  async readState(): Promise<DetectionState> {
    const hash = await this.#redis.hgetall(this.#keys.detection);
    const state: DetectionState = {};
    for (const field of NUMERIC_STATE) {
      const value = hash[field];
      if (value !== undefined && Number.isFinite(Number(value))) state[field] = Number(value);
    }
    if (hash.horizonTo !== undefined) state.horizonTo = hash.horizonTo;
    return state;
  }

  async readStatus(): Promise<PollStatus> {
    const hash = await this.#redis.hgetall(this.#keys.pollStatus);
    const num = (name: string): number | undefined =>
      hash[name] === undefined ? undefined : Number(hash[name]);
    const status: PollStatus = { failures: num("failures") ?? 0 };
    for (const name of [
      "lastAttemptAt",
      "lastSuccessAt",
      "lastDurationMs",
      "lastRequests",
      "lastEvents",
      "nextAttemptAt",
      "behindMs",
      "backoffMs",
      "attempts",
    ] as const) {
      const value = num(name);
      if (value !== undefined) status[name] = value;
    }
    if (hash.lastMode !== undefined) status.lastMode = hash.lastMode;
    if (hash.lastError !== undefined) status.lastError = hash.lastError;
    if (hash.lastErrorCode !== undefined) status.lastErrorCode = hash.lastErrorCode;
    if (hash.lastPoller !== undefined) status.lastPoller = hash.lastPoller;
    return status;
  }

  /** The detection state's commit counter, bumped by every commit (absent before the first). */
  async readSeq(): Promise<string | undefined> {
    return (await this.#redis.hget(this.#keys.detection, "seq")) ?? undefined;
  }

  /**
   * Records a poll's outcome; fields set to undefined are removed. `attempted` counts
   * one more attempt (the `attempts` counter).
   */
  async writeStatus(
    status: Partial<Omit<PollStatus, "attempts">>,
    attempted = false,
  ): Promise<void> {
    const set: Record<string, string> = {};
    const del: string[] = [];
    for (const [name, value] of Object.entries(status)) {
      if (value === undefined) del.push(name);
      else set[name] = String(value);
    }
    const tx = this.#redis.multi();
    if (Object.keys(set).length > 0) tx.hset(this.#keys.pollStatus, set);
    if (del.length > 0) tx.hdel(this.#keys.pollStatus, ...del);
    if (attempted) tx.hincrby(this.#keys.pollStatus, "attempts", 1);
    const result = await tx.exec();
    const failed = result?.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
  }

  /** The stored snapshots of these flight keys (missing ones are absent from the map). */
  async loadSnapshots(flightKeys: readonly string[]): Promise<Map<string, FlightSnapshot>> {
    const chunks: string[][] = [];
    for (let i = 0; i < flightKeys.length; i += MGET_CHUNK) {
      chunks.push(flightKeys.slice(i, i + MGET_CHUNK));
    }
    // All chunks in flight at once: one round trip's wait, not one per chunk.
    const replies = await Promise.all(
      chunks.map((chunk) => this.#redis.mget(chunk.map((key) => this.#keys.snapshot(key)))),
    );
    const found = new Map<string, FlightSnapshot>();
    replies.forEach((values, c) => {
      const chunk = chunks[c] ?? [];
      values.forEach((value, j) => {
        const key = chunk[j];
        if (value !== null && key !== undefined) found.set(key, decodeSnapshot(value));
      });
    });
    return found;
  }

  /** Up to `limit` flights first seen silently and not yet taken (`forgetSilent`). */
  silentFlights(limit: number): Promise<string[]> {
    return this.#redis.srandmember(this.#keys.silentFlights, limit);
  }

  /** Takes flights first seen silently off their set, once their reminders are scheduled. */
  async forgetSilent(flightKeys: readonly string[]): Promise<void> {
    if (flightKeys.length > 0) await this.#redis.srem(this.#keys.silentFlights, ...flightKeys);
  }

  /** Flight keys in the snapshot index whose schedule date is in [from, to]. */
  async indexedKeys(fromDate: string, toDate: string): Promise<string[]> {
    const all = await this.#redis.zrange(this.#keys.snapshotIndex, 0, -1);
    return all.filter((key) => {
      const date = scheduleDateOfKey(key);
      return date !== undefined && date >= fromDate && date <= toDate;
    });
  }

  /**
   * Commits a poll in one transaction. Resolves false, writing nothing, when the
   * detection state changed since `watch()` (another poll committed meanwhile).
   */
  async commit(commit: DetectionCommit): Promise<boolean> {
    const keys = this.#keys;
    const tx = this.#redis.multi();
    // Snapshots and events go in a few scripts of up to COMMIT_CHUNK items rather
    // than one command each: the client's cost per queued command, not Redis, bounds
    // a large commit. Inside MULTI the scripts are as atomic as the commands were.
    for (let i = 0; i < commit.snapshots.length; i += COMMIT_CHUNK) {
      const chunk = commit.snapshots.slice(i, i + COMMIT_CHUNK);
      const args: Array<string | number> = [];
      for (const snapshot of chunk) {
        // Relative: `now` is the airport's clock (simulated in demos and tests),
        // which need not be Redis's.
        const expireAt = (snapshot.scheduled ?? commit.now) + commit.snapshotTtlMs;
        args.push(
          encodeSnapshot(snapshot),
          Math.max(expireAt - commit.now, 1000),
          snapshot.scheduled ?? commit.now,
          snapshot.key,
        );
      }
      const snapshotKeys = chunk.map((snapshot) => keys.snapshot(snapshot.key));
      tx.eval(WRITE_SNAPSHOTS, 1 + chunk.length, keys.snapshotIndex, ...snapshotKeys, ...args);
    }
    for (const key of commit.removed) {
      tx.del(keys.snapshot(key));
      tx.zrem(keys.snapshotIndex, key);
    }
    tx.zremrangebyscore(keys.snapshotIndex, "-inf", commit.now - commit.snapshotTtlMs);
    const silent = commit.silent ?? [];
    for (let i = 0; i < silent.length; i += COMMIT_CHUNK) {
      tx.sadd(keys.silentFlights, ...silent.slice(i, i + COMMIT_CHUNK));
    }
    // Bounded without a dispatcher to take them (`watch`): a day's new flights at most.
    if (silent.length > 0) tx.pexpire(keys.silentFlights, SILENT_FLIGHTS_TTL_MS);
    // Stream entry ids are Redis's real time, not the airport's clock.
    const minId = Math.max(0, Date.now() - commit.outboxRetentionMs);
    const entries = encodeOutboxEntries(commit.events);
    for (let i = 0; i < entries.length; i += COMMIT_CHUNK) {
      const chunk = entries.slice(i, i + COMMIT_CHUNK);
      tx.eval(APPEND_EVENTS, 1, keys.outbox, OUTBOX_FIELD, String(minId), chunk.join("\n"));
    }
    const state: Record<string, string> = {};
    for (const field of NUMERIC_STATE) {
      const value = commit.state[field];
      // The commit count is bumped below, never written.
      if (value !== undefined && field !== "seq") state[field] = String(value);
    }
    if (commit.state.horizonTo !== undefined) state.horizonTo = commit.state.horizonTo;
    if (Object.keys(state).length > 0) tx.hset(keys.detection, state);
    tx.hincrby(keys.detection, "seq", 1);
    const result = await tx.exec();
    if (result === null) return false;
    const failed = result.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
    return true;
  }
}

/** Schedule date (`yyyy-MM-dd`) inside a flight key `D:2026-11-21:KL1234`. */
export function scheduleDateOfKey(flightKey: string): string | undefined {
  const date = flightKey.split(":")[1];
  return date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : undefined;
}

/** Stored form of a snapshot: compact JSON (no empty members). */
export function encodeSnapshot(snapshot: FlightSnapshot): string {
  return JSON.stringify(snapshot);
}

export function decodeSnapshot(text: string): FlightSnapshot {
  return JSON.parse(text) as FlightSnapshot;
}
