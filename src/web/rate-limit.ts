/**
 * Rate limits of the subscribe form, in Redis so that every process of a deployment
 * counts together: a counter per client address and per email address, each in a fixed
 * window that starts with its first use and ends with the key's expiry (Redis's own
 * clock). Addresses are keyed by a hash, so Redis holds no list of who tried.
 */
import { createHash } from "node:crypto";
import type { RedisConnection } from "../store/redis-connection.js";
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
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #limits: Readonly<Record<LimitKind, Limit>>;

  constructor(
    redis: RedisConnection,
    keys: RedisKeys,
    limits: Partial<Record<LimitKind, Limit>> = {},
  ) {
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

/** Mail services that ignore dots in the local part (`a.nna@gmail.com` is `anna@gmail.com`). */
const DOTLESS_DOMAINS = new Map([
  ["gmail.com", "gmail.com"],
  ["googlemail.com", "gmail.com"],
]);

/**
 * The mailbox an email address delivers to, as far as the form can tell: case folded,
 * without a `+tag` (`anna+1@example.com` reaches `anna@example.com`), and without dots
 * where the service ignores them. The per-address limit counts by it, so that spellings
 * of one mailbox cannot each get their own confirmation emails.
 */
export function mailboxOf(address: string): string {
  const text = address.trim().toLowerCase();
  const at = text.lastIndexOf("@");
  if (at < 0) return text;
  let local = text.slice(0, at);
  let domain = text.slice(at + 1);
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS.get(domain);
  if (dotless !== undefined) {
    local = local.replaceAll(".", "");
    domain = dotless;
  }
  return `${local}@${domain}`;
}

/**
 * The network a client address is counted by: an IPv4 address as it is, an IPv6 one by
 * its /64 — one host is given a whole /64, and would otherwise be as many clients as it
 * likes. An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`) is the IPv4 one.
 */
export function clientNetwork(address: string): string {
  const text = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (mapped) return mapped[1] as string;
  if (!text.includes(":")) return text;
  const [head = "", tail = ""] = text.split("%")[0]?.split("::") ?? [];
  const front = head === "" ? [] : head.split(":");
  const back = tail === "" ? [] : tail.split(":");
  const groups = text.includes("::")
    ? [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back]
    : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
