/**
 * Configuration of the Flight API client: the options type, its defaults and their
 * checks (src/config/client-settings.ts reads them from the environment). Every check
 * throws a ConfigError naming the variable or option to fix; secret values never
 * appear in those messages.
 */
import { setTimeout as delay } from "node:timers/promises";
import { ConfigError } from "../errors.js";
import { maskSecrets } from "../log/mask-secrets.js";
import { airportZone, DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import { formatByteSize } from "./byte-size.js";
import { API_BASE_PATH, PAGE_MAX } from "./contract.js";
import type { ExchangeEvent } from "./exchange-event.js";
import type { MalformedRecord } from "./response-body.js";

/** A record skipped while reading a page, with the page it came from. */
export interface MalformedReport extends MalformedRecord {
  /** URL of the page (no credentials). */
  url: string;
}

/** Waits `ms` milliseconds; rejects when `signal` aborts. Injected so tests need not sleep. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options of a FlightApiClient. Only `baseUrl` is required. */
export interface FlightApiClientOptions {
  /** E.g. `https://api.schiphol.nl/public/public-flights/v4` (no trailing slash needed). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. Not together with appId/appKey. */
  token?: string;
  /** Sent as the `app_id` header, with `appKey`. */
  appId?: string;
  /** Sent as the `app_key` header, with `appId`. */
  appKey?: string;
  /** IANA zone the API's local date-times are in (default Europe/Amsterdam). */
  airportTimezone?: string;
  /** Connect timeout (default 10 s). */
  connectTimeoutMs?: number;
  /** Longest wait for response headers (default 30 s). */
  headersTimeoutMs?: number;
  /** Longest silence while reading the body (default 30 s). */
  bodyTimeoutMs?: number;
  /**
   * Longest time one attempt may take as a whole, from sending the request to the last
   * byte of the body (default 60 s). The two above measure silence, which a body
   * trickling in a byte at a time never breaks.
   */
  requestTimeoutMs?: number;
  /** Largest body read, success or error, in bytes (default 32 MB); a larger one fails. */
  maxBodyBytes?: number;
  /** Attempts per request, retries included (default 4; 1 disables retries). */
  maxAttempts?: number;
  /** Backoff ceiling of the first retry (default 500 ms); doubles per attempt. */
  baseDelayMs?: number;
  /** Largest backoff ceiling (default 30 s). */
  maxDelayMs?: number;
  /** Longest `Retry-After` honoured (default 60 s); longer ones are cut to this. */
  maxRetryAfterMs?: number;
  /** Most pages one walk reads (default and maximum 500, the contract's page cap). */
  maxPages?: number;
  /** `User-Agent` header (default `flightwatch`). */
  userAgent?: string;
  /** Called after every attempt, for metrics and logs. Exceptions it throws are ignored. */
  onExchange?: (event: ExchangeEvent) => void;
  /**
   * Called for each record any read skipped or refused for breaking the contract
   * (every page, every single record), for metrics and logs. Exceptions it throws
   * are ignored.
   */
  onMalformed?: (report: MalformedReport) => void;
  /** Injected sleep (default: a real timer). */
  sleep?: Sleep;
  /** Injected randomness in [0, 1) for backoff jitter (default Math.random). */
  random?: () => number;
  /** Injected wall clock, epoch ms, for `Retry-After` dates (default Date.now). */
  now?: () => number;
}

/** Options with every default applied and every value checked. */
export interface ResolvedClientOptions
  extends Required<
    Omit<FlightApiClientOptions, "token" | "appId" | "appKey" | "onExchange" | "onMalformed">
  > {
  onExchange: ((event: ExchangeEvent) => void) | undefined;
  onMalformed: ((report: MalformedReport) => void) | undefined;
}

/** Checks a base URL (http or https, no credentials, query or fragment); returns it without trailing slashes. */
export function checkBaseUrl(value: string, setting: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      setting,
      `"${maskSecrets(value)}" is not a URL (expected e.g. http://127.0.0.1:4010/public/public-flights/v4)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(setting, `must be an http:// or https:// URL, got ${url.protocol}//`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(
      setting,
      "must not contain credentials; use FLIGHT_API_TOKEN or FLIGHT_API_APP_ID/FLIGHT_API_APP_KEY",
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigError(setting, "must not contain a query or fragment");
  }
  return url.href.replace(/\/+$/, "");
}

/** The contract's version segment, the last of its base path (`/v4`). */
export const VERSION_PATH = API_BASE_PATH.slice(API_BASE_PATH.lastIndexOf("/"));

/**
 * Whether a base URL's path ends in the contract's version segment (`…/v4`). A path
 * without it is nearly always a base URL given without its path; one with it but
 * otherwise different (a proxy's `/flights-api/v4`) is given the benefit of the doubt,
 * so that a flight gone upstream is still just "not found".
 */
export function hasVersionPath(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, "").endsWith(VERSION_PATH);
  } catch {
    return false;
  }
}

/** The base URL the contract expects on this base URL's origin, for messages. */
export function contractBaseUrl(baseUrl: string): string {
  try {
    return `${new URL(baseUrl).origin}${API_BASE_PATH}`;
  } catch {
    return `https://<host>${API_BASE_PATH}`;
  }
}

const positiveInt = (
  value: number | undefined,
  fallback: number,
  setting: string,
  max = Number.MAX_SAFE_INTEGER,
): number => {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new ConfigError(setting, `expected an integer from 1 to ${max}, got ${String(value)}`);
  }
  return value;
};

/** Default of `requestTimeoutMs`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default of `maxBodyBytes`: a page of the live service is ~30 KB, 1,000 records ~1.5 MB. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 ** 2;
/** Smallest `maxBodyBytes`: below it not even one page of records fits. */
/** The smallest body cap accepted (FLIGHT_API_MAX_BODY). */
export const MIN_MAX_BODY_BYTES = 1024;

const defaultSleep: Sleep = (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined);

/** Applies defaults and checks every option; the credentials are handled by the transport. */
export function resolveClientOptions(options: FlightApiClientOptions): ResolvedClientOptions {
  const airportTimezone = options.airportTimezone ?? DEFAULT_AIRPORT_TIMEZONE;
  airportZone(airportTimezone);
  checkCredentials(options, { token: "token", appId: "appId", appKey: "appKey" });
  return {
    baseUrl: checkBaseUrl(options.baseUrl, "baseUrl"),
    airportTimezone,
    connectTimeoutMs: positiveInt(options.connectTimeoutMs, 10_000, "connectTimeoutMs"),
    headersTimeoutMs: positiveInt(options.headersTimeoutMs, 30_000, "headersTimeoutMs"),
    bodyTimeoutMs: positiveInt(options.bodyTimeoutMs, 30_000, "bodyTimeoutMs"),
    requestTimeoutMs: positiveInt(
      options.requestTimeoutMs,
      DEFAULT_REQUEST_TIMEOUT_MS,
      "requestTimeoutMs",
    ),
    maxBodyBytes: atLeast(
      positiveInt(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, "maxBodyBytes"),
      MIN_MAX_BODY_BYTES,
      "maxBodyBytes",
    ),
    maxAttempts: positiveInt(options.maxAttempts, 4, "maxAttempts", 100),
    baseDelayMs: positiveInt(options.baseDelayMs, 500, "baseDelayMs"),
    maxDelayMs: positiveInt(options.maxDelayMs, 30_000, "maxDelayMs"),
    maxRetryAfterMs: positiveInt(options.maxRetryAfterMs, 60_000, "maxRetryAfterMs"),
    maxPages: positiveInt(options.maxPages, PAGE_MAX + 1, "maxPages", PAGE_MAX + 1),
    userAgent: options.userAgent ?? "flightwatch",
    onExchange: options.onExchange,
    onMalformed: options.onMalformed,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  };
}

export function atLeast(bytes: number, min: number, setting: string): number {
  if (bytes < min) {
    throw new ConfigError(setting, `must be at least ${formatByteSize(min)}, got ${bytes} bytes`);
  }
  return bytes;
}

/** Checks that at most one credential scheme is configured, and completely. */
export function checkCredentials(
  values: { token?: string | undefined; appId?: string | undefined; appKey?: string | undefined },
  names: { token: string; appId: string; appKey: string },
): void {
  const has = (v: string | undefined): boolean => v !== undefined && v !== "";
  if (has(values.appId) !== has(values.appKey)) {
    const missing = has(values.appId) ? names.appKey : names.appId;
    const present = has(values.appId) ? names.appId : names.appKey;
    throw new ConfigError(
      missing,
      `is required when ${present} is set (app_id and app_key go together)`,
    );
  }
  if (has(values.token) && has(values.appId)) {
    throw new ConfigError(
      names.token,
      `set either ${names.token} (Bearer token) or ${names.appId}/${names.appKey}, not both`,
    );
  }
}
