/**
 * The one place that talks HTTP to the upstream: sends GETs with the contract's
 * headers and the credentials, enforces timeouts, parses JSON, applies the retry
 * policy and turns the final failure into a typed error. Credentials live only in
 * private fields and in the request headers; messages pass through `redact`.
 */
import { inspect } from "node:util";
import { Agent, request } from "undici";
import { ErrorCode, NotFoundError, UpstreamError } from "../errors.js";
import type { ResolvedClientOptions } from "./client-options.js";
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
  cause?: unknown;
}

const SNIPPET_CHARS = 200;

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
      const status = result.outcome.kind === "network" ? undefined : result.outcome.status;
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

  async #attempt(req: TransportRequest): Promise<AttemptResult> {
    try {
      const res = await request(req.url, {
        dispatcher: this.#agent,
        method: "GET",
        headers: this.#headers,
        signal: req.signal,
      });
      const status = res.statusCode;
      const headers = res.headers as ResponseHeaders;
      if (status === 204 || status === 205) {
        await res.body.dump();
        return { outcome: { kind: "response", status }, headers, body: undefined };
      }
      if (status < 200 || status >= 300) {
        // The status decides; an unreadable error body must not mask it.
        const snippet = await res.body.text().then(
          (t) => t.slice(0, SNIPPET_CHARS),
          () => "",
        );
        return { outcome: { kind: "response", status }, headers, snippet };
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
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason ?? err;
      return { outcome: { kind: "network", errorCode: errorCodeOf(err) }, cause: err };
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
      case "not_found":
        if (req.notFoundIsAnswer)
          return new NotFoundError(msg(`not found (404) at GET ${url}`), details);
        return new UpstreamError(
          ErrorCode.UPSTREAM_HTTP,
          msg(`upstream answered 404 for GET ${url}`),
          details,
        );
      case "http_status":
      case "rate_limited":
      case "server_error":
        return new UpstreamError(
          ErrorCode.UPSTREAM_HTTP,
          msg(`upstream answered ${status} for GET ${url} (gave up after ${tries})${snippet}`),
          details,
        );
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
