/**
 * The upstream client's settings from environment variables: FLIGHT_API_BASE_URL
 * (required), the credentials, AIRPORT_TIMEZONE, the timeouts, the body cap and the
 * retry limits. Every bad value is reported (a ConfigProblemsError naming each variable).
 */

import { parseByteSize } from "../api/byte-size.js";
import {
  atLeast,
  checkBaseUrl,
  checkCredentials,
  type FlightApiClientOptions,
  MIN_MAX_BODY_BYTES,
} from "../api/client-options.js";
import { ConfigError, ConfigProblems } from "../errors.js";
import { parseDuration } from "../time/duration.js";
import { airportZone } from "../time/local-time.js";

/** Environment variables the client reads. */
export type ClientEnv = Readonly<Record<string, string | undefined>>;

/**
 * Client options from environment variables: FLIGHT_API_BASE_URL (required),
 * FLIGHT_API_TOKEN or FLIGHT_API_APP_ID + FLIGHT_API_APP_KEY, AIRPORT_TIMEZONE,
 * FLIGHT_API_CONNECT_TIMEOUT, FLIGHT_API_TIMEOUT, FLIGHT_API_REQUEST_TIMEOUT,
 * FLIGHT_API_MAX_BODY, FLIGHT_API_MAX_ATTEMPTS and FLIGHT_API_MAX_RETRY_AFTER. Empty
 * values count as unset.
 */
export function clientOptionsFromEnv(env: ClientEnv): FlightApiClientOptions {
  const problems = new ConfigProblems();
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value;
  };
  const rawBase = get("FLIGHT_API_BASE_URL");
  if (rawBase === undefined) {
    problems.add(
      "FLIGHT_API_BASE_URL",
      "is not set; point it at the API, e.g. https://api.schiphol.nl/public/public-flights/v4, " +
        "or use the built-in simulator (`flightwatch run --simulator`, or `flightwatch simulate` and the URL it prints)",
    );
  }
  const baseUrl =
    rawBase === undefined
      ? undefined
      : problems.take(() => checkBaseUrl(rawBase, "FLIGHT_API_BASE_URL"));
  const token = get("FLIGHT_API_TOKEN");
  const appId = get("FLIGHT_API_APP_ID");
  const appKey = get("FLIGHT_API_APP_KEY");
  problems.take(() =>
    checkCredentials(
      { token, appId, appKey },
      { token: "FLIGHT_API_TOKEN", appId: "FLIGHT_API_APP_ID", appKey: "FLIGHT_API_APP_KEY" },
    ),
  );
  const options: FlightApiClientOptions = { baseUrl: baseUrl ?? "" };
  if (token !== undefined) options.token = token;
  if (appId !== undefined && appKey !== undefined) {
    options.appId = appId;
    options.appKey = appKey;
  }
  const zone = get("AIRPORT_TIMEZONE");
  if (zone !== undefined && problems.take(() => airportZone(zone)) !== undefined) {
    options.airportTimezone = zone;
  }
  const duration = (name: string): number | undefined =>
    problems.take(() => {
      const value = get(name);
      if (value === undefined) return undefined;
      const ms = parseDuration(value, name);
      if (ms < 1) throw new ConfigError(name, "must be at least 1ms");
      return ms;
    });
  const connect = duration("FLIGHT_API_CONNECT_TIMEOUT");
  if (connect !== undefined) options.connectTimeoutMs = connect;
  const timeout = duration("FLIGHT_API_TIMEOUT");
  if (timeout !== undefined) {
    options.headersTimeoutMs = timeout;
    options.bodyTimeoutMs = timeout;
  }
  const requestTimeout = problems.take(() => {
    const value = get("FLIGHT_API_REQUEST_TIMEOUT");
    if (value === undefined) return undefined;
    const ms = parseDuration(value, "FLIGHT_API_REQUEST_TIMEOUT");
    if (ms < 100) throw new ConfigError("FLIGHT_API_REQUEST_TIMEOUT", "must be at least 100ms");
    return ms;
  });
  if (requestTimeout !== undefined) options.requestTimeoutMs = requestTimeout;
  const maxBody = problems.take(() => {
    const value = get("FLIGHT_API_MAX_BODY");
    if (value === undefined) return undefined;
    return atLeast(
      parseByteSize(value, "FLIGHT_API_MAX_BODY"),
      MIN_MAX_BODY_BYTES,
      "FLIGHT_API_MAX_BODY",
    );
  });
  if (maxBody !== undefined) options.maxBodyBytes = maxBody;
  const retryAfter = duration("FLIGHT_API_MAX_RETRY_AFTER");
  if (retryAfter !== undefined) options.maxRetryAfterMs = retryAfter;
  const attempts = get("FLIGHT_API_MAX_ATTEMPTS");
  if (attempts !== undefined) {
    if (!/^\d+$/.test(attempts.trim()) || Number(attempts) < 1 || Number(attempts) > 100) {
      problems.add(
        "FLIGHT_API_MAX_ATTEMPTS",
        `expected an integer from 1 to 100, got "${attempts}"`,
      );
    } else {
      options.maxAttempts = Number(attempts);
    }
  }
  problems.throwIfAny();
  return options;
}
