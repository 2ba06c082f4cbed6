/**
 * The subscriptions HTTP API under /api/v1, served by the daemon's HTTP server
 * (src/ops/ops-server.ts mounts it): create (with an idempotency key), read, list and
 * delete passenger subscriptions, each request authenticated by an API key, every
 * refusal a problem details document (RFC 9457). It checks subscriptions exactly as the
 * CLI does (`checkSubscription`) and stores them through `SubscriptionStore`'s public
 * API; a refused request has written nothing.
 *
 * A request goes: route (404), method (405), API key (401), then the operation, which
 * throws refusals (`refuse`) that one place turns into answers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ReplyError } from "ioredis";
import { ApiRequestError, type FieldProblem, InvalidParamError } from "../errors.js";
import { sendBody } from "../ops/send-body.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import {
  checkSubscription,
  expiresAt,
  newSubscriptionId,
  SUBSCRIPTION_ID_RE,
  type Subscription,
  type SubscriptionContext,
  type SubscriptionInput,
} from "../subscriptions/subscription.js";
import {
  DEFAULT_SUBSCRIPTION_KEEP_MS,
  SubscriptionStore,
} from "../subscriptions/subscription-store.js";
import { type ApiKey, ApiKeyStore } from "./api-key-store.js";
import { fingerprintOf, IdempotencyRecords } from "./idempotency-records.js";
import { nextCursor, readListRequest } from "./list-query.js";
import { API_BASE_PATH, openApiDocument } from "./openapi-document.js";
import { PROBLEM_MEDIA_TYPE, problemDocument, refuse } from "./problem-details.js";
import { DEFAULT_MAX_BODY_BYTES, readJsonObject } from "./request-body.js";
import { inputOf, type SubscriptionView, viewOf } from "./subscription-resource.js";

/** What the API is built from. */
export interface SubscriptionsApiOptions {
  /** A connection of the API's own: its traffic never delays the daemon's probes. */
  redis: RedisConnection;
  keys: RedisKeys;
  /** The airport's zone and where webhooks may go (OUTBOUND_ALLOW): what the checks need. */
  context: SubscriptionContext;
  /** SUBSCRIPTION_RETENTION. */
  keepMs?: number;
  /** The airport clock (default Date.now): creation times, and which dates are past. */
  now?: () => number;
  /** Largest request body (default 64 KB). */
  maxBodyBytes?: number;
  /** Hears a request that failed on the daemon's side (answered 500), for the log. */
  onError?: (err: unknown, method: string, path: string) => void;
}

/** The API, as the ops server mounts it. */
export interface SubscriptionsApi {
  /** `/api/v1`: the server hands it every request under this path. */
  readonly basePath: string;
  /** Answers one request; never rejects (a failure is answered 500). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** The routes, each with the methods it takes (`Allow` of a 405). */
const METHODS = {
  document: ["GET"],
  collection: ["GET", "POST"],
  item: ["GET", "DELETE"],
} as const;

type Route = { name: "document" } | { name: "collection" } | { name: "item"; id: string };

const COLLECTION = `${API_BASE_PATH}/subscriptions`;
const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** Builds the API over one Redis connection. */
export function subscriptionsApi(options: SubscriptionsApiOptions): SubscriptionsApi {
  const keepMs = options.keepMs ?? DEFAULT_SUBSCRIPTION_KEEP_MS;
  const zone = options.context.zone;
  const store = new SubscriptionStore(options.redis, options.keys, { zone, keepMs });
  const apiKeys = new ApiKeyStore(options.redis, options.keys);
  const idempotency = new IdempotencyRecords(options.redis, options.keys);
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Written once: the document only changes with the code.
  const documentText = `${JSON.stringify(openApiDocument())}\n`;
  const view = (s: Subscription): SubscriptionView => viewOf(s, expiresAt(s, zone, keepMs));

  /**
   * The subscription of `input`, or a refusal naming each field at fault: those of the
   * body's shape (`found`), then those the checks find in the others.
   */
  function checked(
    input: SubscriptionInput,
    id: string,
    createdAt: number,
    found: readonly FieldProblem[] = [],
  ): Subscription {
    const result = checkSubscription(input, options.context, id, createdAt);
    if ("subscription" in result && found.length === 0) return result.subscription;
    const named = new Set(found.map((p) => p.field));
    const more = "problems" in result ? result.problems.filter((p) => !named.has(p.field)) : [];
    const problems = [...found, ...more];
    throw refuse("invalid-fields", describeFields(problems), { errors: problems });
  }

  /** Stores it, or refuses it when its flight's date is so long past that it would have expired. */
  async function stored(subscription: Subscription): Promise<void> {
    if ((await store.add([subscription], now())).length > 0) return;
    const problem = {
      field: "date",
      message: `${subscription.date} is past: a subscription to it would have expired already (SUBSCRIPTION_RETENTION)`,
    };
    throw refuse("invalid-fields", `date: ${problem.message}`, { errors: [problem] });
  }

  async function create(req: IncomingMessage, res: ServerResponse, key: ApiKey): Promise<void> {
    const idempotencyKey = idempotencyKeyOf(req);
    const body = await readJsonObject(req, maxBodyBytes);
    const shaped = inputOf(body);
    const subscription = checked(shaped.input, newSubscriptionId(), now(), shaped.problems);
    if (idempotencyKey === undefined) {
      await stored(subscription);
      return sendCreated(res, 201, view(subscription));
    }
    const record = {
      fingerprint: fingerprintOf(body),
      id: subscription.id,
      createdAt: subscription.createdAt,
      done: false,
    };
    const earlier = await idempotency.claim(key.id, idempotencyKey, record);
    if (earlier === undefined) {
      await storedOrReleased(subscription, key, idempotencyKey);
      await idempotency.done(key.id, idempotencyKey, record);
      return sendCreated(res, 201, view(subscription));
    }
    if (earlier.fingerprint !== record.fingerprint) {
      throw refuse(
        "idempotency-key-reused",
        "this Idempotency-Key was used with another body: send a new key for a new subscription, or the same body to retry",
        { errors: [{ field: "Idempotency-Key", message: "was used with another body" }] },
      );
    }
    if (earlier.done) {
      const existing = await store.get(earlier.id);
      if (existing === undefined) {
        throw refuse(
          "idempotency-key-spent",
          `the subscription ${earlier.id} made under this Idempotency-Key was deleted or has expired; to subscribe again, send a new key`,
        );
      }
      return sendCreated(res, 200, view(existing));
    }
    // The first create is in flight, or died between its claim and its write (or after
    // the write, before the record said so): what is stored stands — it may have been
    // unsubscribed since, and a retry must not turn it back on. Only when nothing is
    // stored is the very same subscription made (same id, same time).
    const existing = await store.get(earlier.id);
    const same = existing ?? checked(shaped.input, earlier.id, earlier.createdAt);
    if (existing === undefined) await storedOrReleased(same, key, idempotencyKey);
    await idempotency.done(key.id, idempotencyKey, earlier);
    return sendCreated(res, 200, view(same));
  }

  /** Stores a claimed create; a refusal gives the claim up (nothing was made under it). */
  async function storedOrReleased(
    subscription: Subscription,
    key: ApiKey,
    idempotencyKey: string,
  ): Promise<void> {
    try {
      await stored(subscription);
    } catch (err) {
      // Only a refusal: after a Redis failure the write may have happened, and the
      // pending claim lets a retry finish it under the same id.
      if (err instanceof ApiRequestError) await idempotency.release(key.id, idempotencyKey);
      throw err;
    }
  }

  async function list(url: URL, res: ServerResponse): Promise<void> {
    const request = readListRequest(url.searchParams);
    let page: Awaited<ReturnType<SubscriptionStore["list"]>>;
    try {
      page = await store.list(request.query, {
        limit: request.limit,
        ...(request.position !== undefined ? { cursor: request.position } : {}),
      });
    } catch (err) {
      // The store refusing the position of a cursor made by hand, not by this API (a
      // lost connection is the daemon's failure, and stays one).
      const refused = err instanceof ReplyError || err instanceof InvalidParamError;
      if (request.position === undefined || !refused) throw err;
      throw refuse("invalid-parameters", "cursor: is not a cursor this API gave", {
        errors: [{ field: "cursor", message: "is not a cursor this API gave" }],
      });
    }
    const next = page.cursor === undefined ? undefined : nextCursor(page.cursor, request.filters);
    const headers: Record<string, string> = {};
    if (next !== undefined) {
      const params = new URLSearchParams(url.searchParams);
      params.set("cursor", next);
      headers.link = `<${COLLECTION}?${params}>; rel="next"`;
    }
    sendJson(
      res,
      200,
      { subscriptions: page.subscriptions.map(view), ...(next !== undefined ? { next } : {}) },
      headers,
    );
  }

  async function read(id: string, res: ServerResponse): Promise<void> {
    const subscription = await store.get(id);
    if (subscription === undefined) throw notFound(id);
    sendJson(res, 200, view(subscription));
  }

  async function remove(id: string, res: ServerResponse): Promise<void> {
    if ((await store.remove(id)) === undefined) throw notFound(id);
    res.writeHead(204, { "cache-control": "no-store" });
    res.end();
  }

  async function authenticate(req: IncomingMessage): Promise<ApiKey> {
    const presented = bearerOf(req.headers.authorization);
    if (presented === undefined) {
      throw refuse(
        "unauthorized",
        'send an API key as "Authorization: Bearer <key>"; keys are made with `flightwatch api-keys create`',
        {
          errors: [{ field: "Authorization", message: "is missing or not a Bearer key" }],
          headers: { "www-authenticate": 'Bearer realm="flightwatch"' },
        },
      );
    }
    const key = await apiKeys.verify(presented);
    if (key !== undefined) return key;
    throw refuse("unauthorized", "the API key is not valid: it is unknown or was revoked", {
      errors: [{ field: "Authorization", message: "is not a valid API key" }],
      headers: { "www-authenticate": 'Bearer realm="flightwatch", error="invalid_token"' },
    });
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = routeOf(url.pathname);
    const methods: readonly string[] = METHODS[route.name];
    const method = req.method ?? "GET";
    if (!methods.includes(method)) {
      throw refuse(
        "method-not-allowed",
        `${method} is not allowed on ${url.pathname}; use ${methods.join(" or ")}`,
        { headers: { allow: methods.join(", ") } },
      );
    }
    if (route.name === "document") {
      sendBody(res, 200, "application/json", documentText);
      return;
    }
    const key = await authenticate(req);
    if (route.name === "collection") {
      return method === "POST" ? create(req, res, key) : list(url, res);
    }
    return method === "DELETE" ? remove(route.id, res) : read(route.id, res);
  }

  return {
    basePath: API_BASE_PATH,
    async handle(req, res) {
      const url = new URL(req.url ?? "/", "http://api.invalid");
      try {
        await dispatch(req, res, url);
      } catch (err) {
        if (!(err instanceof ApiRequestError)) {
          options.onError?.(err, req.method ?? "?", url.pathname);
        }
        sendProblem(req, res, err, url.pathname);
      }
    },
  };
}

/** The route of a path under /api/v1; throws a 404 refusal for any other. */
function routeOf(path: string): Route {
  if (path === `${API_BASE_PATH}/openapi.json`) return { name: "document" };
  if (path === COLLECTION || path === `${COLLECTION}/`) return { name: "collection" };
  if (path.startsWith(`${COLLECTION}/`)) {
    const id = decoded(path.slice(COLLECTION.length + 1));
    // An id that no subscription can have is simply not found.
    if (id !== undefined && SUBSCRIPTION_ID_RE.test(id)) return { name: "item", id };
    if (id !== undefined && !id.includes("/")) throw notFound(id);
  }
  throw refuse(
    "not-found",
    `no route ${path}; the API is described at ${API_BASE_PATH}/openapi.json`,
  );
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const notFound = (id: string) =>
  refuse("not-found", `no subscription ${JSON.stringify(id)} (deleted, expired, or never made)`);

/** The bearer token of an Authorization header. */
function bearerOf(header: string | undefined): string | undefined {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * The request's Idempotency-Key: 1–255 visible ASCII characters, plain (as most
 * clients send it) or a quoted string (as the IETF draft writes it); absent is none.
 */
function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const header = req.headers["idempotency-key"];
  if (header === undefined) return undefined;
  const text = (Array.isArray(header) ? header.join(",") : header).trim();
  const key = /^"[^"]*"$/.test(text) ? text.slice(1, -1) : text;
  if (key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_CHARS && /^[\x21-\x7e]+$/.test(key)) {
    return key;
  }
  const message = `must be 1–${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters, such as a UUID`;
  throw refuse("invalid-parameters", `Idempotency-Key: ${message}`, {
    errors: [{ field: "Idempotency-Key", message }],
  });
}

function describeFields(problems: readonly { field: string; message: string }[]): string {
  return problems.map((p) => `${p.field}: ${p.message}`).join("; ");
}

function sendCreated(res: ServerResponse, status: 200 | 201, body: SubscriptionView): void {
  sendJson(res, status, body, { location: `${COLLECTION}/${encodeURIComponent(body.id)}` });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendBody(res, status, "application/json", `${JSON.stringify(body)}\n`, headers);
}

/** A refusal as problem details; anything else as a 500 that says no more than that. */
function sendProblem(req: IncomingMessage, res: ServerResponse, err: unknown, path: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const refusal =
    err instanceof ApiRequestError
      ? err
      : refuse(
          "server-error",
          "the request failed on the daemon's side (is Redis reachable?); a create may or may not have been stored: retry it with the same Idempotency-Key",
        );
  const document = problemDocument(refusal, path);
  sendBody(res, refusal.status, PROBLEM_MEDIA_TYPE, `${JSON.stringify(document)}\n`, {
    // A body not yet read (refused before it was) is not drained: the connection ends.
    ...(req.complete ? {} : { connection: "close" }),
    ...refusal.headers,
  });
}
