/**
 * Every environment variable flightwatch reads, in one table: what `flightwatch config`
 * prints, what a config file may set, and what docs/operations.md lists. Secrets are
 * marked so that nothing prints them.
 */

/** How a value is shown: as is, hidden, or a URL whose password is hidden. */
export type Exposure = "plain" | "secret" | "url";

/** One variable: its name, default (as text), meaning and exposure. */
export interface ConfigVariable {
  name: string;
  /** Default as a person would write it; absent when unset means "off" or "none". */
  default?: string;
  meaning: string;
  exposure: Exposure;
}

const v = (
  name: string,
  meaning: string,
  defaultValue?: string,
  exposure: Exposure = "plain",
): ConfigVariable => ({
  name,
  meaning,
  exposure,
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
});

/** The variables, grouped as the docs present them. */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  v(
    "FLIGHT_API_BASE_URL",
    "the Flight API v4 base URL (required unless --simulator or --role worker)",
    undefined,
    "url",
  ),
  v("FLIGHT_API_TOKEN", "Bearer token for the API", undefined, "secret"),
  v("FLIGHT_API_APP_ID", "app_id for the API (with FLIGHT_API_APP_KEY)"),
  v("FLIGHT_API_APP_KEY", "app_key for the API (with FLIGHT_API_APP_ID)", undefined, "secret"),
  v("FLIGHT_API_CONNECT_TIMEOUT", "connect timeout per request", "10s"),
  v("FLIGHT_API_TIMEOUT", "longest wait for headers, and silence while reading a body", "30s"),
  v("FLIGHT_API_MAX_ATTEMPTS", "attempts per request, retries included", "4"),
  v("FLIGHT_API_MAX_RETRY_AFTER", "longest Retry-After honoured", "60s"),
  v("AIRPORT_TIMEZONE", "IANA zone of the airport's local times", "Europe/Amsterdam"),
  v("REDIS_URL", "redis:// or rediss:// URL, password in the URL", "redis://127.0.0.1:6379", "url"),
  v("FLIGHTWATCH_PREFIX", "prefix of every Redis key (one deployment per prefix)", "flightwatch"),
  v("FLIGHTWATCH_RULES", "directory of rule files", "rules"),
  v("POLL_INTERVAL", "time between polls", "30s"),
  v("POLL_OVERLAP", "how far incremental windows reach back", "60s"),
  v("RECONCILE_INTERVAL", "full re-read of the horizon; 0 turns it off", "15m"),
  v("HORIZON_PAST_DAYS", "schedule dates before today that are watched", "1"),
  v("HORIZON_FUTURE_DAYS", "schedule dates after today that are watched", "2"),
  v("SNAPSHOT_TTL", "snapshots expire this long after the flight's schedule", "3d"),
  v("OUTBOX_RETENTION", "change events and alerts older than this are trimmed", "7d"),
  v("SMTP_URL", "smtp:// or smtps:// server for email, user:password in the URL", undefined, "url"),
  v("EMAIL_FROM", "sender of email alerts (required with SMTP_URL)"),
  v("DELIVERY_STALL_TIMEOUT", "a dead worker's notifications go to another after this", "30s"),
  v("HTTP_PORT", "port of /healthz, /readyz and /metrics; off disables", "8080"),
  v("HTTP_HOST", "interface the HTTP port listens on", "0.0.0.0"),
  v("LOG_LEVEL", "fatal, error, warn, info, debug or trace", "info"),
  v("LOG_FORMAT", "json, or text for people (default: text on a terminal, else json)"),
  v(
    "SHUTDOWN_TIMEOUT",
    "longest graceful stop on SIGTERM before in-flight work is handed back",
    "10s",
  ),
  v("DASHBOARD", "true serves the queue dashboard (Bull Board) at /queues on HTTP_PORT", "false"),
];

/** Names of the variables, for lookups. */
export const CONFIG_VARIABLE_NAMES: ReadonlySet<string> = new Set(
  CONFIG_VARIABLES.map((c) => c.name),
);
