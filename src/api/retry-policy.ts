/**
 * Whether a failed upstream attempt is retried, and how long to wait first. Pure
 * functions of their inputs (randomness and "now" are passed in) so the policy is
 * tested without a network and without sleeping; the transport only applies it.
 */

/**
 * Why an attempt did not succeed. A closed set: it appears in errors, exchange
 * events and metric labels, so adding a value is a deliberate change.
 */
export type FailureReason =
  /** 429 Too Many Requests. */
  | "rate_limited"
  /** Any 5xx. */
  | "server_error"
  /** 400: the request broke a rule the client did not know about. */
  | "bad_request"
  /** 401 or 403: credentials missing or refused. */
  | "auth"
  /** 404. */
  | "not_found"
  /** Any other status the client cannot use (3xx, other 4xx). */
  | "http_status"
  /** Connect, headers or body timeout, or the attempt's whole deadline passed. */
  | "timeout"
  /** Connection refused, reset or closed mid-exchange. */
  | "connection"
  /** Another transport failure (DNS name unknown, TLS): retrying will not help. */
  | "network"
  /** A success status whose body is not JSON, typically a truncated body. */
  | "unparseable_body"
  /** A body larger than the client's cap (announced, or counted while reading). */
  | "body_too_large";

/** What one attempt produced, as the policy needs to see it. */
export type AttemptOutcome =
  | { kind: "response"; status: number }
  | { kind: "unparseable_body"; status: number }
  /** `errorCode` is the transport's code (`UND_ERR_…` or a Node errno such as `ECONNRESET`). */
  | { kind: "network"; errorCode: string | undefined }
  /** The attempt's total deadline passed before the body was complete. */
  | { kind: "deadline" }
  /** The body is larger than the cap; what was read of it is dropped. */
  | { kind: "body_too_large" };

/** The verdict on one attempt. */
export type AttemptVerdict = { ok: true } | { ok: false; reason: FailureReason; retry: boolean };

const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

// Faults of one connection; a fresh attempt usually gets a healthy one.
const CONNECTION_CODES = new Set([
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
]);

/**
 * Decides once, for every caller, whether an attempt succeeded and whether a failure
 * is worth another attempt: 2xx succeeds; 429, 5xx, timeouts, connection faults and
 * unparseable (truncated) bodies are transient; every other 4xx, and a body over the
 * cap, is permanent.
 */
export function classifyAttempt(outcome: AttemptOutcome): AttemptVerdict {
  switch (outcome.kind) {
    case "unparseable_body":
      return { ok: false, reason: "unparseable_body", retry: true };
    case "deadline":
      return { ok: false, reason: "timeout", retry: true };
    case "body_too_large":
      // Not retried: asking again for the same page brings the same answer and another
      // cap's worth of bytes. A page of flights is tens of KB, so a body past the cap is
      // a broken or hostile upstream (or a cap set too low), not a passing fault; the
      // poll fails at once and its backoff paces the next try.
      return { ok: false, reason: "body_too_large", retry: false };
    case "network": {
      // Stryker disable next-line StringLiteral: an absent code needs a text in neither set, which any text but a code is
      const code = outcome.errorCode ?? "";
      if (TIMEOUT_CODES.has(code)) return { ok: false, reason: "timeout", retry: true };
      if (CONNECTION_CODES.has(code)) return { ok: false, reason: "connection", retry: true };
      return { ok: false, reason: "network", retry: false };
    }
    case "response": {
      const { status } = outcome;
      if (status >= 200 && status < 300) return { ok: true };
      if (status === 429) return { ok: false, reason: "rate_limited", retry: true };
      if (status >= 500 && status < 600) return { ok: false, reason: "server_error", retry: true };
      if (status === 400) return { ok: false, reason: "bad_request", retry: false };
      if (status === 401 || status === 403) return { ok: false, reason: "auth", retry: false };
      if (status === 404) return { ok: false, reason: "not_found", retry: false };
      return { ok: false, reason: "http_status", retry: false };
    }
  }
}

/** Tuning of the backoff. */
export interface BackoffOptions {
  /** Ceiling of the first retry's random delay, in ms; doubles per attempt. */
  baseDelayMs: number;
  /** Largest backoff ceiling, in ms. */
  maxDelayMs: number;
  /** A server's `Retry-After` is honoured up to this many ms. */
  maxRetryAfterMs: number;
}

/**
 * Milliseconds to wait after failed attempt number `attempt` (1-based). A server's
 * `Retry-After` wins, capped at `maxRetryAfterMs`; otherwise "full jitter": uniform
 * in [0, min(maxDelayMs, baseDelayMs·2^(attempt−1))), which spreads out clients that
 * failed together. `random` returns a number in [0, 1).
 */
export function backoffDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number,
  options: BackoffOptions,
): number {
  if (retryAfterMs !== undefined) {
    return Math.max(0, Math.min(retryAfterMs, options.maxRetryAfterMs));
  }
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * ceiling);
}

const DELTA_SECONDS_RE = /^\s*(\d+)\s*$/;
// IMF-fixdate, RFC 850 and asctime all begin with a day name (RFC 9110 §5.6.7).
const HTTP_DATE_RE = /^\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/;

/**
 * Milliseconds a `Retry-After` value asks to wait, from delta-seconds (`120`) or an
 * HTTP-date (`Wed, 21 Oct 2026 07:28:00 GMT`, relative to `nowMs`; a past date
 * means 0). Undefined when absent or unreadable, so the normal backoff applies.
 */
export function parseRetryAfter(
  value: string | readonly string[] | undefined,
  nowMs: number,
): number | undefined {
  const text = typeof value === "string" ? value : value?.[0];
  // Stryker disable next-line ConditionalExpression: the patterns read undefined as the text "undefined", which neither accepts: undefined as well
  if (text === undefined) return undefined;
  const delta = DELTA_SECONDS_RE.exec(text);
  if (delta) return Number(delta[1]) * 1000;
  if (!HTTP_DATE_RE.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
