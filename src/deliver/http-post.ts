/**
 * One JSON POST for the HTTP channels (webhooks, Slack), and the verdict on it.
 * Redirects are not followed (a 3xx is a failure, per Standard Webhooks); the whole
 * exchange is bounded by one timeout (15 s by default). Network faults of any kind
 * are retried: for a delivery, "try later" is always better than "drop". A connection
 * the outbound policy refused (src/outbound) is its own result: nothing was sent.
 */
import { EventEmitter } from "node:events";
import { type Dispatcher, getGlobalDispatcher } from "undici";
import { classifyAttempt, parseRetryAfter } from "../api/retry-policy.js";
import { DestinationRefusedError } from "../errors.js";
import { cleanText } from "../log/clean-text.js";
import type { SendOutcome } from "./send-outcome.js";

/** Default bound on one delivery attempt (Standard Webhooks suggests 15 s). */
export const DELIVERY_TIMEOUT_MS = 15_000;

/** Most of a response body kept for the record (error texts are short). */
const MAX_BODY_CHARS = 1024;

/** How to POST. */
export interface HttpPostOptions {
  /** Connection pool (an undici Agent shared by a sender); the global one by default. */
  dispatcher?: Dispatcher;
  /** Bound on the whole exchange, ms. */
  timeoutMs?: number;
}

/** What came back: a response, or a transport failure. */
export type HttpPostResult =
  | {
      kind: "response";
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: string;
    }
  | { kind: "network"; errorCode: string | undefined; message: string }
  /** The outbound policy refused the address before connecting; `permanent` for a literal one. */
  | { kind: "refused"; message: string; permanent: boolean };

/** A URL's origin and path as the dispatcher takes them. */
interface Target {
  origin: string;
  path: string;
}

/** Most URLs whose origin and path are kept parsed (one per endpoint; cleared when full). */
const TARGETS_KEPT = 10_000;

/**
 * URLs parsed once, not at every POST: undici's `request(url)` parses its URL each
 * time, and an endpoint takes thousands of POSTs a second.
 */
const targets = new Map<string, Target>();

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: a cache's bound, parsing again gives the same target
    if (targets.size >= TARGETS_KEPT) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/** POSTs `body` (already JSON) to `url`; never rejects for a network fault. */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: HttpPostOptions = {},
): Promise<HttpPostResult> {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // The whole exchange's bound. undici takes an EventEmitter as its signal: an
  // AbortSignal.timeout a POST (its timer, weak reference and finalizer) was 2 % of a
  // worker's CPU at thousands of POSTs a second. Aborted, undici rejects with its
  // RequestAbortedError, an AbortError.
  const abort = new EventEmitter();
  const timer = setTimeout(() => abort.emit("abort"), timeoutMs);
  timer.unref();
  try {
    const res = await (options.dispatcher ?? getGlobalDispatcher()).request({
      ...targetOf(url),
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers },
      signal: abort,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    return {
      kind: "response",
      status: res.statusCode,
      headers: res.headers,
      body: text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) : text,
    };
  } catch (err) {
    if (err instanceof DestinationRefusedError) {
      return { kind: "refused", message: err.message, permanent: err.permanent };
    }
    const e = err as { code?: string; name?: string; message?: string };
    const timedOut = e.name === "AbortError";
    return {
      kind: "network",
      errorCode: timedOut ? "UND_ERR_HEADERS_TIMEOUT" : e.code,
      message: timedOut ? `no answer within ${timeoutMs} ms` : (e.message ?? String(err)),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The generic verdict on a POST: 2xx delivered; 429, 5xx and every network fault
 * retried (honouring `Retry-After`); 3xx and other 4xx failed for good. Channels
 * refine it (a webhook's 410, Slack's error texts). A refused destination is retried
 * on the normal schedule when it came from DNS (the answer may change, or the operator
 * may allow the address meanwhile), and failed for good when the URL holds the address.
 */
export function httpOutcome(result: HttpPostResult, nowMs: number): SendOutcome {
  if (result.kind === "refused") {
    return {
      status: result.permanent ? "failed" : "retry",
      reason: "destination_refused",
      detail: result.message,
    };
  }
  if (result.kind === "network") {
    const verdict = classifyAttempt({ kind: "network", errorCode: result.errorCode });
    const reason = verdict.ok ? "network" : verdict.reason;
    return { status: "retry", reason, detail: result.message };
  }
  const verdict = classifyAttempt({ kind: "response", status: result.status });
  if (verdict.ok) return { status: "delivered", code: result.status };
  const detail = `HTTP ${result.status}${result.body ? `: ${oneLine(result.body)}` : ""}`;
  if (!verdict.retry) {
    return { status: "failed", reason: verdict.reason, detail, code: result.status };
  }
  const retryAfterMs = parseRetryAfter(result.headers["retry-after"], nowMs);
  return {
    status: "retry",
    reason: verdict.reason,
    detail,
    code: result.status,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/** A body as one short line for a record. */
export function oneLine(text: string): string {
  // Control characters too (an ANSI escape in a receiver's answer), not only line breaks.
  const line = cleanText(text.replace(/\s+/g, " ")).trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
