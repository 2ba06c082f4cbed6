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
import type { Redis } from "ioredis";
import type { ChangeEvent } from "../diff/change.js";
import type { FlightSnapshot } from "../diff/flight-snapshot.js";
import type { RedisKeys } from "./redis-keys.js";

/** Detection state, as kept in the `detection` hash. */
export interface DetectionState {
  /** Newest `lastUpdatedAt` read by a complete poll, epoch ms; absent before the baseline. */
  watermark?: number;
  /** When the last full reconciliation committed, epoch ms. */
  reconciledAt?: number;
  /** Last schedule date of the horizon at the last commit. */
  horizonTo?: string;
  /** Commit counter. */
  seq: number;
}

/** Poll status, as kept in the `poll` hash (for health checks, metrics and `watch`). */
export interface PollStatus {
  lastAttemptAt?: number;
  /** Start of the last successful poll: changes visible upstream before it are known. */
  lastSuccessAt?: number;
  lastMode?: string;
  lastDurationMs?: number;
  lastRequests?: number;
  lastEvents?: number;
  /** Consecutive failed polls. */
  failures: number;
  lastError?: string;
  /** No poll before this instant (backoff after failures). */
  nextAttemptAt?: number;
}

/** Everything one poll commits. */
export interface DetectionCommit {
  /** Snapshots to write (new or changed). */
  snapshots: readonly FlightSnapshot[];
  /** Flight keys whose snapshots go (flights removed upstream). */
  removed: readonly string[];
  events: readonly ChangeEvent[];
  state: Omit<DetectionState, "seq">;
  /** Snapshots expire this long after the flight's scheduled time. */
  snapshotTtlMs: number;
  /** Outbox entries older than this are trimmed. */
  outboxRetentionMs: number;
  /** Now, epoch ms (expiry of snapshots without a scheduled time, index pruning). */
  now: number;
}

/** Field of an outbox entry that holds the event as JSON. */
export const OUTBOX_EVENT_FIELD = "event";

const MGET_CHUNK = 500;

/**
 * Detection's view of Redis. Give it a connection of its own: WATCH is per
 * connection, and a poll must not share its transaction with other commands.
 */
export class DetectionStore {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;

  constructor(redis: Redis, keys: RedisKeys) {
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
    await this.#redis.unwatch();
  }

  async readState(): Promise<DetectionState> {
    const hash = await this.#redis.hgetall(this.#keys.detection);
    const state: DetectionState = { seq: Number(hash.seq ?? 0) };
    if (hash.watermark !== undefined) state.watermark = Number(hash.watermark);
    if (hash.reconciledAt !== undefined) state.reconciledAt = Number(hash.reconciledAt);
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
    ] as const) {
      const value = num(name);
      if (value !== undefined) status[name] = value;
    }
    if (hash.lastMode !== undefined) status.lastMode = hash.lastMode;
    if (hash.lastError !== undefined) status.lastError = hash.lastError;
    return status;
  }

  /** Records a poll's outcome; fields set to undefined are removed. */
  async writeStatus(status: Partial<PollStatus>): Promise<void> {
    const set: Record<string, string> = {};
    const del: string[] = [];
    for (const [name, value] of Object.entries(status)) {
      if (value === undefined) del.push(name);
      else set[name] = String(value);
    }
    const tx = this.#redis.multi();
    if (Object.keys(set).length > 0) tx.hset(this.#keys.pollStatus, set);
    if (del.length > 0) tx.hdel(this.#keys.pollStatus, ...del);
    await tx.exec();
  }

  /** The stored snapshots of these flight keys (missing ones are absent from the map). */
  async loadSnapshots(flightKeys: readonly string[]): Promise<Map<string, FlightSnapshot>> {
    const found = new Map<string, FlightSnapshot>();
    for (let i = 0; i < flightKeys.length; i += MGET_CHUNK) {
      const chunk = flightKeys.slice(i, i + MGET_CHUNK);
      const values = await this.#redis.mget(chunk.map((key) => this.#keys.snapshot(key)));
      values.forEach((value, j) => {
        const key = chunk[j];
        if (value !== null && key !== undefined) found.set(key, decodeSnapshot(value));
      });
    }
    return found;
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
    for (const snapshot of commit.snapshots) {
      const expireAt = (snapshot.scheduled ?? commit.now) + commit.snapshotTtlMs;
      tx.set(
        keys.snapshot(snapshot.key),
        encodeSnapshot(snapshot),
        "PXAT",
        Math.max(expireAt, commit.now + 1000),
      );
      tx.zadd(keys.snapshotIndex, snapshot.scheduled ?? commit.now, snapshot.key);
    }
    for (const key of commit.removed) {
      tx.del(keys.snapshot(key));
      tx.zrem(keys.snapshotIndex, key);
    }
    tx.zremrangebyscore(keys.snapshotIndex, "-inf", commit.now - commit.snapshotTtlMs);
    const minId = Math.max(0, commit.now - commit.outboxRetentionMs);
    for (const event of commit.events) {
      tx.xadd(
        keys.outbox,
        "MINID",
        "~",
        String(minId),
        "*",
        OUTBOX_EVENT_FIELD,
        JSON.stringify(event),
      );
    }
    const state: Record<string, string> = {};
    if (commit.state.watermark !== undefined) state.watermark = String(commit.state.watermark);
    if (commit.state.reconciledAt !== undefined)
      state.reconciledAt = String(commit.state.reconciledAt);
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
