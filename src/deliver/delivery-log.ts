/**
 * The record of deliveries, kept in Redis for `flightwatch deliveries`: every
 * attempt's outcome in a capped stream, and the endpoints disabled after a 410 Gone.
 * (Dead letters themselves are the failed jobs of the delivery queues.)
 */
import type { Redis } from "ioredis";
import type { RedisKeys } from "../store/redis-keys.js";
import { fieldOf } from "../store/stream-consumer.js";
import type { Endpoint } from "./endpoint.js";
import type { ChannelType } from "./notification.js";
import type { DeliveryFailureReason, RefusedRecipient } from "./send-outcome.js";

/**
 * What became of one attempt. `superseded`: never sent, because a newer notification
 * of the same rule about the same flight through the same channel took its place (its
 * changes folded into that one), or was delivered already.
 */
export type AttemptResult = "delivered" | "retrying" | "dead" | "superseded";

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

/** Options of the delivery log. */
export interface DeliveryLogOptions {
  /** Records kept (approximately; default 10,000). */
  maxRecords?: number;
}

/** Delivery records and disabled endpoints in Redis. */
export class DeliveryLog {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #maxRecords: number;

  constructor(redis: Redis, keys: RedisKeys, options: DeliveryLogOptions = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxRecords = options.maxRecords ?? 10_000;
  }

  /** Appends a record (the oldest beyond the cap are trimmed). */
  async record(record: DeliveryRecord): Promise<void> {
    await this.#redis.xadd(
      this.#keys.deliveries,
      "MAXLEN",
      "~",
      String(this.#maxRecords),
      "*",
      RECORD_FIELD,
      JSON.stringify(record),
    );
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
    await this.#redis.hsetnx(this.#keys.disabledEndpoints, endpoint.id, JSON.stringify(endpoint));
  }

  /** Whether an endpoint is disabled, and why. */
  async disabled(endpointId: string): Promise<DisabledEndpoint | undefined> {
    const text = await this.#redis.hget(this.#keys.disabledEndpoints, endpointId);
    return text === null ? undefined : (JSON.parse(text) as DisabledEndpoint);
  }

  /** Every disabled endpoint. */
  async disabledEndpoints(): Promise<DisabledEndpoint[]> {
    const all = await this.#redis.hgetall(this.#keys.disabledEndpoints);
    return Object.values(all).map((text) => JSON.parse(text) as DisabledEndpoint);
  }

  /** Re-enables an endpoint; resolves to whether it was disabled. */
  async enable(endpointId: string): Promise<boolean> {
    return (await this.#redis.hdel(this.#keys.disabledEndpoints, endpointId)) > 0;
  }
}

/** One line about a delivery attempt, for people (stderr, logs). */
export function describeRecord(record: DeliveryRecord): string {
  const what = `${record.ruleId}/${record.channel} → ${record.destination} (${record.id}, attempt ${record.attempt})`;
  if (record.result === "delivered") return `delivered ${what}`;
  if (record.result === "superseded") return `superseded ${what}: ${record.detail}`;
  return `${record.result === "dead" ? "dead letter" : "retrying"} ${what}: ${record.reason}: ${record.detail}`;
}
