/**
 * Rate limits of the subscribe form, in Redis so that every process of a deployment
 * counts together: a counter per client address and per email address, each in a fixed
 * window that starts with its first use and ends with the key's expiry (Redis's own
 * clock). Addresses are keyed by a hash, so Redis holds no list of who tried.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { RedisKeys } from "../store/redis-keys.js";

/** How many uses a window allows. */
export interface Limit {
  count: number;
  windowMs: number;
}

/** What one address is counted by. */
export type LimitKind = "client" | "email";

/** A use counted, and whether it is within the limit. */
export interface LimitVerdict {
  allowed: boolean;
  /** Uses in this window, this one included. */
  used: number;
  /** When the window ends (ms from now; at least 1 s), for `Retry-After`. */
  retryAfterMs: number;
}

/** The defaults: 10 subscribe attempts an hour from one client, 3 confirmation emails a day to one address. */
export const DEFAULT_LIMITS: Readonly<Record<LimitKind, Limit>> = {
  client: { count: 10, windowMs: 3_600_000 },
  email: { count: 3, windowMs: 86_400_000 },
};

/** Counters of uses per address, shared through Redis. */
export class RateLimiter {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #limits: Readonly<Record<LimitKind, Limit>>;

  constructor(redis: Redis, keys: RedisKeys, limits: Partial<Record<LimitKind, Limit>> = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** The limit of a kind. */
  limit(kind: LimitKind): Limit {
    return this.#limits[kind];
  }

  /** Counts one use by `address` and says whether it is allowed. */
  async take(kind: LimitKind, address: string): Promise<LimitVerdict> {
    const { count, windowMs } = this.#limits[kind];
    const key = this.#keys.webLimit(kind, addressHash(address));
    // The window starts with the first use: the key's expiry is set then, never moved.
    const result = await this.#redis
      .multi()
      .set(key, 0, "PX", windowMs, "NX")
      .incr(key)
      .pttl(key)
      .exec();
    const failed = result?.find(([err]) => err !== null);
    if (result === null || failed?.[0]) throw failed?.[0] ?? new Error("rate limit not counted");
    const used = Number(result[1]?.[1]);
    const ttl = Number(result[2]?.[1]);
    return {
      allowed: used <= count,
      used,
      retryAfterMs: Math.max(1000, ttl > 0 ? ttl : windowMs),
    };
  }
}

/** An address as a key part: case folded and trimmed, then hashed. */
function addressHash(address: string): string {
  return createHash("sha256").update(address.trim().toLowerCase()).digest("base64url").slice(0, 22);
}
