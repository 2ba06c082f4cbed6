/**
 * The API keys of the HTTP API, in Redis under the deployment's prefix. A key is
 * `fwk_` and 32 random bytes in base64url, shown once when created (by
 * `flightwatch api-keys create`); only its SHA-256 is kept, with a name and the
 * creation time, so a copy of Redis holds no usable credential. A fast hash suits:
 * the key is 256 random bits, not a password a dictionary could reach.
 *
 * A key's id is the start of its hash: a request's key is found by one lookup, and the
 * whole hash is then compared in constant time, so the answer takes as long whatever
 * the guess.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";

/** How every key starts: recognisable in a leaked file, for people and secret scanners. */
export const API_KEY_PREFIX = "fwk_";

const KEY_RE = /^fwk_[A-Za-z0-9_-]{43}$/;
const ID_RE = /^ak_[0-9a-f]{16}$/;
const MAX_NAME_CHARS = 100;

/** An API key as listed: never the key itself. */
export interface ApiKey {
  /** `ak_` and 16 hex digits. */
  id: string;
  name: string;
  /** Epoch ms. */
  createdAt: number;
}

interface StoredKey extends ApiKey {
  /** SHA-256 of the key, hex. */
  sha256: string;
}

/** The API keys of one deployment. */
export class ApiKeyStore {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;

  constructor(redis: RedisConnection, keys: RedisKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /**
   * Makes a new key named `name` and stores its hash; resolves to the key (the only time
   * it exists outside the client) and its listing.
   */
  async create(name: string, now = Date.now()): Promise<{ key: string; apiKey: ApiKey }> {
    for (;;) {
      const key = `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
      const sha256 = digest(key).toString("hex");
      const apiKey: ApiKey = { id: idOf(sha256), name: name.trim(), createdAt: now };
      const stored: StoredKey = { ...apiKey, sha256 };
      // HSETNX: two keys sharing 64 bits of hash is 2^-64 unlikely, and harmless here.
      if (await this.#redis.hsetnx(this.#keys.apiKeys, apiKey.id, JSON.stringify(stored))) {
        return { key, apiKey };
      }
    }
  }

  /** Every key's listing, oldest first. */
  async list(): Promise<ApiKey[]> {
    const all = await this.#redis.hgetall(this.#keys.apiKeys);
    return Object.values(all)
      .map((text) => listing(JSON.parse(text) as StoredKey))
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /** Revokes a key: requests presenting it are refused from now on. False when there is none. */
  async revoke(id: string): Promise<boolean> {
    if (!ID_RE.test(id)) return false;
    return (await this.#redis.hdel(this.#keys.apiKeys, id)) === 1;
  }

  /** The key a request presents, when it is one of ours and not revoked. */
  async verify(presented: string): Promise<ApiKey | undefined> {
    if (!KEY_RE.test(presented)) return undefined;
    const hash = digest(presented);
    const text = await this.#redis.hget(this.#keys.apiKeys, idOf(hash.toString("hex")));
    if (text === null) return undefined;
    const stored = JSON.parse(text) as StoredKey;
    const expected = Buffer.from(stored.sha256, "hex");
    // Both are 32 bytes: timingSafeEqual neither throws nor leaks a length.
    return expected.length === hash.length && timingSafeEqual(expected, hash)
      ? listing(stored)
      : undefined;
  }
}

/** Whether `name` may name a key; undefined when it may, else why not. */
export function apiKeyNameProblem(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME_CHARS) return `is ${trimmed.length} characters; at most 100`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return "may not hold control characters";
  return undefined;
}

/** Whether `id` looks like a key's id (`ak_` and 16 hex digits). */
export function isApiKeyId(id: string): boolean {
  return ID_RE.test(id);
}

const digest = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest();

const idOf = (sha256Hex: string): string => `ak_${sha256Hex.slice(0, 16)}`;

function listing(stored: StoredKey): ApiKey {
  return { id: stored.id, name: stored.name, createdAt: stored.createdAt };
}
