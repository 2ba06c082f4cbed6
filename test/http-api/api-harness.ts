/**
 * The subscriptions API as the daemon serves it — the real ops server on a loopback
 * port, the real API over the real store, on a Redis prefix of the test's own — with an
 * API key made by the real key store, and a client that speaks to it with undici.
 */
import { Redis } from "ioredis";
import { request } from "undici";
import { ApiKeyStore } from "../../src/http-api/api-key-store.js";
import {
  type SubscriptionsApiOptions,
  subscriptionsApi,
} from "../../src/http-api/subscriptions-api.js";
import { type OpsServer, startOpsServer } from "../../src/ops/ops-server.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { toLocalDate } from "../../src/time/local-time.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

export const ZONE = "Europe/Amsterdam";
export const DAY = 86_400_000;
/** Schedule dates ahead (Redis expires keys by its own clock, so they are real dates). */
export const DATE = toLocalDate(Date.now() + 2 * DAY, ZONE);
export const NEXT_DATE = toLocalDate(Date.now() + 3 * DAY, ZONE);
export const PAST_DATE = toLocalDate(Date.now() - 10 * DAY, ZONE);
/** A Standard Webhooks secret. */
export const SECRET = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;

/** One answer of the API. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body (undefined when empty). */
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field in assertions
  json: any;
}

/** What `call` sends. */
export interface CallOptions {
  /** A JSON body (serialised) or raw text. */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  /** The API key (default the harness's; null for none). */
  key?: string | null;
}

/** A running API. */
export interface ApiHarness {
  t: TestRedis;
  keys: RedisKeys;
  server: OpsServer;
  /** A valid API key. */
  key: string;
  apiKeys: ApiKeyStore;
  store: SubscriptionStore;
  /** The API's own connection (tests may cut it). */
  apiRedis: Redis;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** Every key under the prefix except the API keys' hash: what requests wrote. */
  written(): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts the API on port 0 over a fresh prefix. */
export async function startApi(
  label: string,
  options: Partial<SubscriptionsApiOptions> = {},
): Promise<ApiHarness> {
  const t = await testRedis(label);
  const keys = redisKeys(t.prefix);
  // Auto-pipelined, as the daemon's (src/daemon/daemon.ts).
  const apiRedis = new Redis(TEST_REDIS_URL, {
    maxRetriesPerRequest: 1,
    enableAutoPipelining: true,
  });
  apiRedis.on("error", () => undefined);
  const server = await startOpsServer({
    port: 0,
    readiness: async () => ({ ready: true, checks: {} }),
    api: subscriptionsApi({
      redis: apiRedis,
      keys,
      context: { zone: ZONE, outbound: LOOPBACK_OUTBOUND },
      keepMs: DAY,
      ...options,
    }),
  });
  const apiKeys = new ApiKeyStore(t.redis, keys);
  const { key } = await apiKeys.create("tests");
  const harness: ApiHarness = {
    t,
    keys,
    server,
    key,
    apiKeys,
    store: new SubscriptionStore(t.redis, keys, { zone: ZONE, keepMs: DAY }),
    apiRedis,
    async call(method, path, call = {}) {
      const headers: Record<string, string> = { ...call.headers };
      const key = call.key === undefined ? harness.key : call.key;
      if (key !== null) headers.authorization ??= `Bearer ${key}`;
      let body: string | undefined = call.raw;
      if (call.body !== undefined) {
        body = JSON.stringify(call.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await request(`${server.url}${path}`, {
        method: method as "GET",
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = text === "" ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, headers: res.headers, text, json };
    },
    async written() {
      const all = await t.redis.keys(`{${t.prefix}}:*`);
      return all.filter((k) => k !== keys.apiKeys).sort();
    },
    async close() {
      await server.close();
      apiRedis.disconnect();
      await t.cleanup();
    },
  };
  return harness;
}

/** A valid create body for an email subscription. */
export function emailBody(parts: Record<string, unknown> = {}): Record<string, unknown> {
  return { flight: "KL601", date: DATE, email: "anna@example.com", ...parts };
}
