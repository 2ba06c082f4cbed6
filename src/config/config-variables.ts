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
  v(
    "FLIGHT_API_REQUEST_TIMEOUT",
    "longest time one request attempt may take as a whole, headers and body",
    "60s",
  ),
  v("FLIGHT_API_MAX_BODY", "largest response body read (KB/MB/GB count in 1024s)", "32MB"),
  v("FLIGHT_API_MAX_ATTEMPTS", "attempts per request, retries included", "4"),
  v("FLIGHT_API_MAX_RETRY_AFTER", "longest Retry-After honoured", "60s"),
  v("AIRPORT_TIMEZONE", "IANA zone of the airport's local times", "Europe/Amsterdam"),
  v(
    "REDIS_URL",
    "redis:// or rediss:// URL, password in the URL; ?cluster for a Redis Cluster",
    "redis://127.0.0.1:6379",
    "url",
  ),
  v("FLIGHTWATCH_PREFIX", "prefix of every Redis key (one deployment per prefix)", "flightwatch"),
  v(
    "DELIVERY_SHARDS",
    "hash tags the delivery queues are split over; the same in every process",
    "1 (8 with ?cluster)",
  ),
  v("FLIGHTWATCH_RULES", "directory of rule files", "rules"),
  v("POLL_INTERVAL", "time between polls", "30s"),
  v(
    "POLL_OVERLAP",
    "the most incremental windows reach back; within it, the reach follows the stamp lag observed",
    "60s",
  ),
  v(
    "POLL_OVERLAP_MIN",
    "the least incremental windows reach back (at least 2s until the stamp lag is measured)",
    "1s",
  ),
  v(
    "RECONCILE_INTERVAL",
    "full re-read of the horizon (finds removals, changes without a new stamp, lags beyond the overlap); 0 turns it off",
    "1h",
  ),
  v(
    "POLL_TIMEOUT",
    "a poll still running after this fails and its requests are aborted; must cover a full read of the horizon",
    "5m",
  ),
  v("HORIZON_PAST_DAYS", "schedule dates before today that are watched", "1"),
  v("HORIZON_FUTURE_DAYS", "schedule dates after today that are watched", "2"),
  v("SNAPSHOT_TTL", "snapshots expire this long after the flight's schedule", "3d"),
  v("OUTBOX_RETENTION", "change events and alerts older than this are trimmed", "7d"),
  v("SMTP_URL", "smtp:// or smtps:// server for email, user:password in the URL", undefined, "url"),
  v("EMAIL_FROM", "sender of email alerts (required with SMTP_URL)"),
  v(
    "SMTP_ALLOW_PLAINTEXT_AUTH",
    "true sends the credentials of an smtp:// SMTP_URL even when the server offers no STARTTLS (in clear; warned at start)",
    "false",
  ),
  v(
    "SMTP_MAX_CONNECTIONS",
    "SMTP connections kept open at once; email sends in flight are twice this",
    "3",
  ),
  v(
    "SMTP_MAX_MESSAGES",
    "messages over one SMTP connection before it is replaced (a 100 ms pause each time); raise it if your relay allows",
    "100",
  ),
  v(
    "SUBSCRIPTION_RETENTION",
    "passenger subscriptions are kept this long after the end of their flight's schedule date, then expire",
    "2d",
  ),
  v(
    "SLACK_API_URL",
    "the base URL of Slack's Web API for living messages (a proxy in front of it, or a look-alike in tests); the host must be public or in OUTBOUND_ALLOW",
    "https://slack.com/api/",
    "url",
  ),
  v(
    "PUBLIC_URL",
    "the base URL passengers reach flightwatch at (https; behind a reverse proxy, its URL): set, HTTP_PORT serves the passenger pages under /passenger/ and subscriptions' emails get one-click unsubscribe links to them",
  ),
  v(
    "SUBSCRIPTION_SECRET",
    "signs the links of passengers' emails and pages (at least 16 characters); unset, one is generated once and kept in Redis under the prefix",
    undefined,
    "secret",
  ),
  v(
    "TRUST_PROXY",
    "true takes a passenger page request's client address from the last X-Forwarded-For entry (set it behind a reverse proxy, for the rate limits)",
    "false",
  ),
  v(
    "SUBSCRIBE_LIMIT_CLIENT",
    "posts of the passenger subscribe form one client may make in a window, as <count>/<window> (an IPv6 client counts by its /64)",
    "10/1h",
  ),
  v(
    "SUBSCRIBE_LIMIT_EMAIL",
    "confirmation emails the subscribe form may send one mailbox in a window, as <count>/<window>",
    "3/1d",
  ),
  v("DELIVERY_STALL_TIMEOUT", "a dead worker's notifications go to another after this", "30s"),
  v(
    "OUTBOUND_ALLOW",
    "internal destinations webhooks and Slack may reach: comma-separated CIDRs and host names, e.g. 127.0.0.1,10.20.0.0/16,hooks.internal (public addresses need no entry)",
  ),
  v(
    "LIVENESS_TIMEOUT",
    "a stage failing this long while Redis answers turns /healthz to 503 (a supervisor restarts the process)",
    "2m",
  ),
  v(
    "HTTP_PORT",
    "port of /healthz, /readyz, /metrics and the subscriptions API (/api/v1); off disables them all",
    "8080",
  ),
  v(
    "HTTP_HOST",
    "interface the HTTP port listens on; 0.0.0.0 for every interface (the container image sets it)",
    "127.0.0.1",
  ),
  v("LOG_LEVEL", "fatal, error, warn, info, debug or trace", "info"),
  v("LOG_FORMAT", "json, or text for people (default: text on a terminal, else json)"),
  v(
    "SHUTDOWN_TIMEOUT",
    "longest graceful stop on SIGTERM before in-flight work is handed back",
    "10s",
  ),
  v("DASHBOARD", "true serves the queue dashboard (Bull Board) at /queues on HTTP_PORT", "false"),
  v(
    "DASHBOARD_TOKEN",
    "credential of the dashboard (required with DASHBOARD=true, at least 16 characters): Authorization: Bearer <token>, or basic auth with the token as the password",
    undefined,
    "secret",
  ),
  v(
    "METRICS_TOKEN",
    "when set, /metrics needs it as DASHBOARD_TOKEN is needed; unset leaves /metrics open",
    undefined,
    "secret",
  ),
];

/** Names of the variables, for lookups. */
export const CONFIG_VARIABLE_NAMES: ReadonlySet<string> = new Set(
  CONFIG_VARIABLES.map((c) => c.name),
);

/**
 * Variables flightwatch (or Node, for it) reads that are not settings: `config` does
 * not list them and a config file cannot set them, but they are the daemon's all the same.
 */
export const PROCESS_VARIABLES: readonly { name: string; meaning: string }[] = [
  { name: "FLIGHTWATCH_CONFIG", meaning: "the config file, when --config is not given" },
  { name: "FLIGHTWATCH_CRASH_AT", meaning: "test hook: kill the process at a named point" },
  { name: "NODE_ENV", meaning: "production in the image" },
  { name: "NODE_OPTIONS", meaning: "options of the Node runtime" },
  { name: "PATH", meaning: "where the demo finds redis-server" },
];

/** The prefix of every variable flightwatch has or will have. */
const DAEMON_PREFIX = "FLIGHTWATCH_";

const DAEMON_NAMES: ReadonlySet<string> = new Set([
  ...CONFIG_VARIABLE_NAMES,
  ...PROCESS_VARIABLES.map((p) => p.name),
]);

/**
 * True when `name` (in any case) belongs to the daemon: a setting of the table above,
 * a process variable, or any `FLIGHTWATCH_…` name. Rule files never read these.
 */
export function isDaemonVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return DAEMON_NAMES.has(upper) || upper.startsWith(DAEMON_PREFIX);
}

/**
 * True when a variable's name says its value is a credential (a secret, token,
 * password or key, a webhook URL): such values are masked wherever they would show.
 */
export function isSecretName(name: string): boolean {
  return /SECRET|TOKEN|PASSW(?:OR)?D|(?:^|_)(?:API|APP)?KEY(?:_|$)|WEBHOOK_URL/.test(
    name.toUpperCase(),
  );
}
