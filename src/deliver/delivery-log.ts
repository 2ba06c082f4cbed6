/**
 * The record of deliveries, kept in Redis for `flightwatch deliveries`: every
 * attempt's outcome in a capped stream, and the endpoints disabled after a 410 Gone.
 * (Dead letters themselves are the failed jobs of the delivery queues.)
 */

import { CallBatch } from "../store/call-batch.js";
import { LuaScript } from "../store/lua-script.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { fieldOf } from "../store/stream-consumer.js";
import type { Endpoint } from "./endpoint.js";
import type { ChannelType } from "./notification.js";
import type { DeliveryFailureReason, RefusedRecipient } from "./send-outcome.js";

/**
 * What became of one attempt. `superseded`: never sent, because a newer notification
 * of the same rule about the same flight through the same channel took its place (its
 * changes folded into that one), or was delivered already. `cancelled`: never sent,
 * because the passenger subscription it was for ended (unsubscribed, removed or
 * expired) before its turn came — what the passenger asked for, not a failure.
 */
export type AttemptResult = "delivered" | "retrying" | "dead" | "superseded" | "cancelled";

/** Whether an attempt settled its notification as it should be (nothing left to do, nothing wrong). */
export function settled(result: AttemptResult): boolean {
  return result === "delivered" || result === "superseded" || result === "cancelled";
}

/** One attempt at one notification. */
export interface DeliveryRecord {
  /** Epoch ms the attempt ended. */
  at: number;
  /** Notification id. */
  id: string;
  ruleId: string;
  channel: string;
  type: ChannelType;
  /** The flight's key and number, for people. */
  flight: string;
  /** Masked endpoint, recipients or `stdout`. */
  destination: string;
  /** 1 for the first attempt. */
  attempt: number;
  result: AttemptResult;
  reason?: DeliveryFailureReason;
  detail?: string;
  code?: number | string;
  /** When the next attempt is due (retrying only), epoch ms. */
  nextAt?: number;
  /** The notification that took this one's place (superseded only, when it was folded in). */
  supersededBy?: string;
  /** The notification this one sends again (a replay only: `flightwatch deliveries replay`). */
  replayOf?: string;
  refused?: RefusedRecipient[];
}

/** Why and when an endpoint was disabled. */
export interface DisabledEndpoint extends Endpoint {
  at: number;
  detail: string;
  ruleId: string;
  channel: string;
}

const RECORD_FIELD = "record";

/** KEYS: the records stream. ARGV: the cap, then the records' JSON. Appends them in order. */
const APPEND = new LuaScript(`
for i = 2, #ARGV do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', '${RECORD_FIELD}', ARGV[i])
end
return #ARGV - 1`);

/** Options of the delivery log. */
export interface DeliveryLogOptions {
  /** Records kept (approximately; default 10,000). */
  maxRecords?: number;
  /**
   * How long the set of disabled endpoints read from Redis is believed (default 1 s):
   * an endpoint another process disables or `deliveries enable` re-enables is seen
   * this much later at most; this process's own changes at once.
   */
  disabledFreshMs?: number;
  /** Monotonic clock, ms (default performance.now). */
  monotonic?: () => number;
}

/**
 * Delivery records and disabled endpoints in Redis. Records made at about the same
 * time (the workers finishing sends in one turn of the event loop) are written with
 * one command; each caller's promise settles when its record is in Redis.
 */
export class DeliveryLog {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #maxRecords: number;
  readonly #disabledFreshMs: number;
  readonly #monotonic: () => number;
  readonly #append: CallBatch<string, void>;
  /** The disabled endpoints as last read, and when (monotonic ms); shared by concurrent reads. */
  #disabled: { at: number; read: Promise<Map<string, DisabledEndpoint>> } | undefined;

  constructor(redis: RedisConnection, keys: RedisKeys, options: DeliveryLogOptions = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxRecords = options.maxRecords ?? 10_000;
    this.#disabledFreshMs = options.disabledFreshMs ?? 1_000;
    this.#monotonic = options.monotonic ?? (() => performance.now());
    this.#append = new CallBatch<string, void>(async (texts) => {
      await APPEND.run(this.#redis, 1, this.#keys.deliveries, String(this.#maxRecords), ...texts);
      return [];
    });
  }

  /** Appends a record (the oldest beyond the cap are trimmed); resolves once it is written. */
  async record(record: DeliveryRecord): Promise<void> {
    await this.#append.call(JSON.stringify(record));
  }

  /** The newest records, newest first. */
  async recent(limit: number): Promise<DeliveryRecord[]> {
    const entries = await this.#redis.xrevrange(this.#keys.deliveries, "+", "-", "COUNT", limit);
    return entries.flatMap(([, fields]) => {
      const text = fieldOf(fields, RECORD_FIELD);
      return text === undefined ? [] : [JSON.parse(text) as DeliveryRecord];
    });
  }

  /** Disables an endpoint (a 410 Gone); the first reason is kept. */
  async disable(endpoint: DisabledEndpoint): Promise<void> {
    // Forgotten before and after: a read made while the write is under way is not kept.
    this.#disabled = undefined;
    await this.#redis.hsetnx(this.#keys.disabledEndpoints, endpoint.id, JSON.stringify(endpoint));
    this.#disabled = undefined;
  }

  /** Whether an endpoint is disabled, and why (as read at most `disabledFreshMs` ago). */
  async disabled(endpointId: string): Promise<DisabledEndpoint | undefined> {
    const now = this.#monotonic();
    let cached = this.#disabled;
    if (!cached || now - cached.at >= this.#disabledFreshMs || now < cached.at) {
      const read = this.disabledEndpoints().then((all) => new Map(all.map((e) => [e.id, e])));
      cached = { at: now, read };
      this.#disabled = cached;
      // A failed read is not kept: the next call asks again.
      read.catch(() => {
        if (this.#disabled === cached) this.#disabled = undefined;
      });
    }
    return (await cached.read).get(endpointId);
  }

  /** Every disabled endpoint. */
  async disabledEndpoints(): Promise<DisabledEndpoint[]> {
    const all = await this.#redis.hgetall(this.#keys.disabledEndpoints);
    return Object.values(all).map((text) => JSON.parse(text) as DisabledEndpoint);
  }

  /** Re-enables an endpoint; resolves to whether it was disabled. */
  async enable(endpointId: string): Promise<boolean> {
    this.#disabled = undefined;
    const removed = (await this.#redis.hdel(this.#keys.disabledEndpoints, endpointId)) > 0;
    this.#disabled = undefined;
    return removed;
  }
}

/** One line about a delivery attempt, for people (stderr, logs). */
export function describeRecord(record: DeliveryRecord): string {
  const replay = record.replayOf === undefined ? "" : `, replay of ${record.replayOf}`;
  const what = `${record.ruleId}/${record.channel} → ${record.destination} (${record.id}, attempt ${record.attempt}${replay})`;
  if (record.result === "delivered") {
    return record.detail === undefined
      ? `delivered ${what}`
      : `delivered ${what}: ${record.detail}`;
  }
  if (record.result === "superseded" || record.result === "cancelled") {
    return `${record.result} ${what}: ${record.detail}`;
  }
  return `${record.result === "dead" ? "dead letter" : "retrying"} ${what}: ${record.reason}: ${record.detail}`;
}
