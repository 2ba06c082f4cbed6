/**
 * The one place that talks HTTP to the upstream: sends GETs with the contract's
 * headers and the credentials, enforces timeouts and the body cap, parses JSON,
 * applies the retry policy and turns the final failure into a typed error.
 * Credentials live only in private fields and in the request headers; messages pass
 * through `redact`.
 *
 * Bounds against a stuck or hostile upstream, each from undici where it has one:
 * - time: undici's `headersTimeout`/`bodyTimeout` end a silence, and an AbortSignal
 *   (our timer, linked to the caller's signal) ends the whole attempt at
 *   `requestTimeoutMs`, however slowly the bytes keep coming;
 * - memory: undici's `maxResponseSize` destroys the connection once a body passes
 *   the cap, a `Content-Length` above it is refused before reading, and an error
 *   body is read only as far as its message needs (`SNIPPET_BYTES`).
 */
import type { Readable } from "node:stream";
import { inspect } from "node:util";
import { Agent, request } from "undici";
import { ErrorCode, NotFoundError, UpstreamError } from "../errors.js";
import { formatByteSize } from "./byte-size.js";
import {
  contractBaseUrl,
  hasVersionPath,
  type ResolvedClientOptions,
  VERSION_PATH,
} from "./client-options.js";
import { API_BASE_PATH } from "./contract.js";
import type { ExchangeEvent } from "./exchange-event.js";
import type { OperationId } from "./operation-id.js";
import {
  type AttemptOutcome,
  backoffDelay,
  classifyAttempt,
  type FailureReason,
  parseRetryAfter,
} from "./retry-policy.js";

/** Credentials: a Bearer token, or an app id and key. */
export interface TransportCredentials {
  token?: string | undefined;
  appId?: string | undefined;
  appKey?: string | undefined;
}

/** One GET to perform. */
export interface TransportRequest {
  operation: OperationId;
  url: string;
  /** True on single-record operations, where 404 is the answer "no such record". */
  notFoundIsAnswer: boolean;
  signal?: AbortSignal | undefined;
}

/** Response headers as undici gives them (lower-case names). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** A successful exchange. */
export interface TransportResponse {
  url: string;
  status: number;
  headers: ResponseHeaders;
  /** Parsed JSON body; undefined for 204/205 (no content). */
  body: unknown;
  /** Attempts it took, retries included. */
  attempts: number;
}

/** What one attempt left behind, beyond its outcome. */
interface AttemptResult {
  outcome: AttemptOutcome;
  headers?: ResponseHeaders;
  body?: unknown;
  /** Start of an error body, for messages (redacted before use). */
  snippet?: string;
  /** `Content-Length` of a body refused for it. */
  announcedBytes?: number;
  cause?: unknown;
}

const SNIPPET_CHARS = 200;
/** Bytes of an error body read for its snippet (200 characters of UTF-8 fit); the rest is never read. */
const SNIPPET_BYTES = 1024;

/** Shortest credential `redact` masks (see there). */
const MIN_REDACTED_LENGTH = 8;

/** Sends GET requests to the upstream with retries; see the module comment. */
export class HttpTransport {
  readonly #options: ResolvedClientOptions;
  readonly #agent: Agent;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  readonly #auth: "bearer" | "app-key" | "none";

  constructor(options: ResolvedClientOptions, credentials: TransportCredentials) {
    this.#options = options;
    this.#agent = new Agent({
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      // Counted by undici as bytes arrive, before they are buffered anywhere.
      maxResponseSize: options.maxBodyBytes,
    });
    this.#headers = {
      Accept: "application/json",
      ResourceVersion: "v4",
      "User-Agent": options.userAgent,
    };
    this.#secrets = [];
    if (credentials.token) {
      this.#headers.Authorization = `Bearer ${credentials.token}`;
      this.#secrets.push(credentials.token);
      this.#auth = "bearer";
    } else if (credentials.appId && credentials.appKey) {
      this.#headers.app_id = credentials.appId;
      this.#headers.app_key = credentials.appKey;
      this.#secrets.push(credentials.appKey, credentials.appId);
      this.#auth = "app-key";
    } else {
      this.#auth = "none";
    }
  }

  /** Which credential scheme is configured (never the credential itself). */
  get auth(): "bearer" | "app-key" | "none" {
    return this.#auth;
  }

  /** Performs the GET, retrying transient failures; throws an UpstreamError otherwise. */
  async get(req: TransportRequest): Promise<TransportResponse> {
    const { maxAttempts } = this.#options;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const result = await this.#attempt(req);
      const durationMs = Math.round(performance.now() - started);
      const verdict = classifyAttempt(result.outcome);
      // No status when the answer was not received whole (as for a body timeout), so
      // metrics and logs show the reason instead of a 200 that delivered nothing.
      const status = "status" in result.outcome ? result.outcome.status : undefined;
      const exchange = { operation: req.operation, url: req.url, attempt, durationMs, status };
      if (verdict.ok) {
        this.#emit({ ...exchange, outcome: "ok", willRetry: false });
        return {
          url: req.url,
          status: status ?? 0,
          headers: result.headers ?? {},
          body: result.body,
          attempts: attempt,
        };
      }
      const willRetry = verdict.retry && attempt < maxAttempts;
      const retryAfterMs = parseRetryAfter(result.headers?.["retry-after"], this.#options.now());
      const retryDelayMs = willRetry
        ? backoffDelay(attempt, retryAfterMs, this.#options.random, this.#options)
        : undefined;
      this.#emit({ ...exchange, outcome: verdict.reason, willRetry, retryDelayMs });
      if (retryDelayMs === undefined) {
        const error = this.#finalError(req, verdict.reason, attempt, status, result);
        // Given up on, not waited out: the caller's next try must wait for it instead.
        if (verdict.retry && retryAfterMs !== undefined) {
          error.details.retryAfterMs = Math.min(retryAfterMs, this.#options.maxRetryAfterMs);
        }
        throw error;
      }
      await this.#options.sleep(retryDelayMs, req.signal);
    }
  }

  /**
   * Text with every configured credential of at least `MIN_REDACTED_LENGTH` characters
   * replaced by `[redacted]`. Messages are never built from anything that holds a
   * credential (URLs carry none), so this is defence in depth, and a shorter secret is
   * left alone: masking a token "t" would garble every message (`fligh[redacted]ById`)
   * while hiding nothing a reader could use.
   */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (secret.length >= MIN_REDACTED_LENGTH) out = out.split(secret).join("[redacted]");
    }
    return out;
  }

  /** Closes pooled connections. */
  close(): Promise<void> {
    return this.#agent.close();
  }

  [inspect.custom](): string {
    return `HttpTransport { auth: '${this.#auth}' }`;
  }

  toJSON(): { auth: string } {
    return { auth: this.#auth };
  }

  /**
   * One attempt, bounded as a whole by `requestTimeoutMs`: undici's own timeouts
   * measure silence, which a body trickling in a byte at a time never breaks.
   */
  async #attempt(req: TransportRequest): Promise<AttemptResult> {
    req.signal?.throwIfAborted();
    const { requestTimeoutMs } = this.#options;
    const deadline = new AbortController();
    // A timer, not wall-clock arithmetic: timers run on the monotonic clock.
    const timer = setTimeout(
      () =>
        deadline.abort(
          new Error(
            `no complete answer within ${requestTimeoutMs} ms (FLIGHT_API_REQUEST_TIMEOUT)`,
          ),
        ),
      requestTimeoutMs,
    );
    // Linked by hand rather than AbortSignal.any: the caller's signal lives as long as
    // a poll, and the listener must go with the attempt.
    const forward = (): void => deadline.abort(req.signal?.reason);
    req.signal?.addEventListener("abort", forward, { once: true });
    try {
      return await this.#exchange(req, deadline.signal);
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason ?? err;
      if (deadline.signal.aborted) {
        return { outcome: { kind: "deadline" }, cause: deadline.signal.reason };
      }
      if (errorCodeOf(err) === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
        return { outcome: { kind: "body_too_large" }, cause: err };
      }
      return { outcome: { kind: "network", errorCode: errorCodeOf(err) }, cause: err };
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", forward);
    }
  }

  async #exchange(req: TransportRequest, signal: AbortSignal): Promise<AttemptResult> {
    const res = await request(req.url, {
      dispatcher: this.#agent,
      method: "GET",
      headers: this.#headers,
      signal,
    });
    const status = res.statusCode;
    const headers = res.headers as ResponseHeaders;
    if (status === 204 || status === 205) {
      await res.body.dump();
      return { outcome: { kind: "response", status }, headers, body: undefined };
    }
    if (status < 200 || status >= 300) {
      // The status decides; the body only colours the message, so only its start is
      // read (an endless or huge error body costs a kilobyte, on every retry).
      const snippet = await readSnippet(res.body, SNIPPET_BYTES);
      req.signal?.throwIfAborted();
      return { outcome: { kind: "response", status }, headers, snippet };
    }
    const announced = contentLength(headers);
    if (announced !== undefined && announced > this.#options.maxBodyBytes) {
      res.body.destroy();
      return { outcome: { kind: "body_too_large" }, headers, announcedBytes: announced };
    }
    const text = await res.body.text();
    try {
      return {
        outcome: { kind: "response", status },
        headers,
        body: JSON.parse(text) as unknown,
      };
    } catch (cause) {
      return { outcome: { kind: "unparseable_body", status }, headers, cause };
    }
  }

  #emit(event: ExchangeEvent): void {
    const hook = this.#options.onExchange;
    if (!hook) return;
    if (event.status === undefined) delete event.status;
    if (event.retryDelayMs === undefined) delete event.retryDelayMs;
    try {
      hook(event);
    } catch {
      // An observer must never change the outcome of a request.
    }
  }

  #finalError(
    req: TransportRequest,
    reason: FailureReason,
    attempts: number,
    status: number | undefined,
    result: AttemptResult,
  ): UpstreamError {
    const { operation, url } = req;
    const details =
      status === undefined ? { operation, url, attempts } : { operation, url, status, attempts };
    const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
    const snippet = result.snippet
      ? ` (body: ${JSON.stringify(result.snippet.replace(/\s+/g, " ").trim())})`
      : "";
    const msg = (text: string): string => this.redact(`${operation}: ${text}`);
    switch (reason) {
      case "bad_request":
        return new UpstreamError(
          ErrorCode.UPSTREAM_BAD_REQUEST,
          msg(`upstream answered 400 Bad Request for GET ${url}${snippet}`),
          details,
        );
      case "auth":
        return new UpstreamError(
          ErrorCode.UPSTREAM_AUTH,
          msg(
            `upstream answered ${status} for GET ${url}: ${
              this.#auth === "none"
                ? "no credentials are configured; set FLIGHT_API_TOKEN or FLIGHT_API_APP_ID and FLIGHT_API_APP_KEY"
                : "the configured credentials were refused; check FLIGHT_API_TOKEN or FLIGHT_API_APP_ID/FLIGHT_API_APP_KEY"
            }`,
          ),
          details,
        );
      case "not_found": {
        // The contract answers 404 only for a record that does not exist, with an
        // empty body. A 404 for a collection, another server's 404 page, or a base URL
        // without the contract's version path says the base URL is wrong, not the record.
        const baseUrl = this.#options.baseUrl;
        const apiAnswer = isApiNotFoundBody(result.snippet, result.headers);
        if (req.notFoundIsAnswer && apiAnswer && hasVersionPath(baseUrl)) {
          return new NotFoundError(msg(`not found (404) at GET ${url}`), details);
        }
        const why = !hasVersionPath(baseUrl)
          ? `it does not end in the version path ${VERSION_PATH}`
          : !req.notFoundIsAnswer
            ? "the contract serves this collection under every base URL"
            : `the 404 is not the API's own (body: ${JSON.stringify(snippetOf(result.snippet))})`;
        return new UpstreamError(
          ErrorCode.UPSTREAM_BASE_URL,
          msg(
            `upstream answered 404 for GET ${url}: the base URL's path looks wrong (${why}). ` +
              `Set FLIGHT_API_BASE_URL (or --base-url) to the form https://<host>${API_BASE_PATH}, ` +
              `here probably ${contractBaseUrl(baseUrl)}`,
          ),
          details,
        );
      }
      case "http_status":
      case "rate_limited":
      case "server_error":
        return new UpstreamError(
          ErrorCode.UPSTREAM_HTTP,
          msg(`upstream answered ${status} for GET ${url} (gave up after ${tries})${snippet}`),
          details,
        );
      case "body_too_large": {
        const cap = this.#options.maxBodyBytes;
        const announced =
          result.announcedBytes === undefined
            ? ""
            : ` (it announced ${formatByteSize(result.announcedBytes)})`;
        return new UpstreamError(
          ErrorCode.UPSTREAM_TOO_LARGE,
          msg(
            `the body of GET ${url} is larger than ${formatByteSize(cap)}, the cap set by FLIGHT_API_MAX_BODY${announced}; ` +
              "it was not read further. A page of flights is far smaller: check the upstream, or raise FLIGHT_API_MAX_BODY",
          ),
          { ...details, maxBodyBytes: cap },
          { cause: result.cause },
        );
      }
      case "unparseable_body":
        return new UpstreamError(
          ErrorCode.UPSTREAM_MALFORMED,
          msg(`the body of GET ${url} is not valid JSON (truncated?) (gave up after ${tries})`),
          details,
          { cause: result.cause },
        );
      case "timeout":
      case "connection":
      case "network":
        return new UpstreamError(
          ErrorCode.UPSTREAM_NETWORK,
          msg(`GET ${url} failed: ${describeNetworkError(result.cause)} (gave up after ${tries})`),
          details,
          { cause: result.cause },
        );
    }
  }
}

/**
 * The first `maxBytes` of a body as text, then the body is destroyed unread: the
 * connection goes, but nothing more of it is received. An unreadable body gives
 * what was read ("" at worst): the status is the answer, not the body.
 */
async function readSnippet(body: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      chunks.push(buffer);
      size += buffer.length;
      if (size >= maxBytes) break;
    }
  } catch {
    // Keep what arrived.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8").slice(0, SNIPPET_CHARS);
}

/** `Content-Length` as a number, when present and readable. */
function contentLength(headers: ResponseHeaders): number | undefined {
  const value = headers["content-length"];
  const text = Array.isArray(value) ? value[0] : value;
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * Whether a 404's body could be the API's own: the contract shows empty error bodies
 * (their shape is not given), so nothing, or JSON, is taken for the API's answer; an
 * HTML or text page is some other server's (a web server, a proxy, a framework).
 */
function isApiNotFoundBody(snippet: string | undefined, headers?: ResponseHeaders): boolean {
  const text = (snippet ?? "").trim();
  if (text === "") return true;
  const type = String(headers?.["content-type"] ?? "").toLowerCase();
  if (type.includes("html") || type.startsWith("text/")) return false;
  return text.startsWith("{") || text.startsWith("[") || type.includes("json");
}

function snippetOf(snippet: string | undefined): string {
  const text = (snippet ?? "").replace(/\s+/g, " ").trim();
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function errorCodeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 3; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "UND_ERR") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeNetworkError(err: unknown): string {
  const code = errorCodeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${message} [${code}]` : message;
}
