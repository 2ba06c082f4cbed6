/**
 * What creates with an `Idempotency-Key` header did, so that a retried create (a
 * timeout, a dropped connection) returns the subscription the first one made instead
 * of making another. A record is claimed *before* the subscription is stored and
 * holds everything that makes it (the body's fingerprint, the id and creation time),
 * then is marked done: a retry that finds it still pending — the first request is in
 * flight, or died between the two writes — stores the very same subscription again,
 * which is harmless, so no retry ever makes a second one and no crash leaves a key
 * that can never succeed. Records are kept per API key, for a day.
 */
import { createHash } from "node:crypto";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";

/** How long a key is remembered: retries come within minutes; a day is the usual promise. */
export const IDEMPOTENCY_KEEP_MS = 86_400_000;

/** What one create under an idempotency key did (or is doing). */
export interface IdempotencyRecord {
  /** SHA-256 of the request's body, canonically written (hex). */
  fingerprint: string;
  /** The subscription's id and creation time (epoch ms). */
  id: string;
  createdAt: number;
  /** Whether the subscription was stored. */
  done: boolean;
}

/** The idempotency records of one deployment. */
export class IdempotencyRecords {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;

  constructor(redis: RedisConnection, keys: RedisKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /**
   * Claims `idempotencyKey` for this create: resolves to undefined when the claim is
   * ours (go on and store), or to the record of the create that claimed it first.
   */
  async claim(
    apiKeyId: string,
    idempotencyKey: string,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    const key = this.#key(apiKeyId, idempotencyKey);
    const earlier = await this.#redis.set(
      key,
      JSON.stringify(record),
      "PX",
      IDEMPOTENCY_KEEP_MS,
      "NX",
      "GET",
    );
    return earlier === null ? undefined : (JSON.parse(earlier) as IdempotencyRecord);
  }

  /** Marks a claimed create done (its subscription is stored). */
  async done(apiKeyId: string, idempotencyKey: string, record: IdempotencyRecord): Promise<void> {
    const key = this.#key(apiKeyId, idempotencyKey);
    await this.#redis.set(key, JSON.stringify({ ...record, done: true }), "KEEPTTL", "XX");
  }

  /** Gives a claim up: its create stored nothing, and a retry may try afresh. */
  async release(apiKeyId: string, idempotencyKey: string): Promise<void> {
    await this.#redis.del(this.#key(apiKeyId, idempotencyKey));
  }

  #key(apiKeyId: string, idempotencyKey: string): string {
    // Hashed: the key is the client's text, of any characters, up to 255 of them.
    const hash = createHash("sha256").update(idempotencyKey, "utf8").digest("base64url");
    return this.#keys.apiIdempotency(apiKeyId, hash);
  }
}

/** The fingerprint of a request body: the same for the same JSON, whatever its key order or spacing. */
export function fingerprintOf(body: unknown): string {
  return createHash("sha256").update(canonicalJson(body), "utf8").digest("hex");
}

/** JSON with the keys of every object sorted. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
