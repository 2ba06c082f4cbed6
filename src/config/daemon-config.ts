/**
 * The daemon's whole configuration, read from the environment (and an optional config
 * file) in one pass that reports every problem at once — a ConfigProblemsError naming
 * each variable and what it expects — so a start fails with exit 2 and one list to fix.
 */
import { isIP } from "node:net";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { clientOptionsFromEnv } from "../config/client-settings.js";
import { readEmailSettings } from "../config/email-settings.js";
import type { EmailSettings } from "../deliver/email-settings.js";

import type { DetectorSettings } from "../detect/detector.js";
import { ConfigError, ConfigProblems, renameSettings } from "../errors.js";
import { type LogLevel, parseLogLevel } from "../log/logger.js";
import { type OutboundPolicy, readOutboundAllow } from "../outbound/outbound-policy.js";
import { parseDuration } from "../time/duration.js";
import { airportZone, DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import type { Limit, LimitKind } from "../web/rate-limit.js";
import { type ConfigFileRead, readConfigFileWithLines } from "./config-file.js";
import { isSecretName } from "./config-variables.js";
import {
  detectorSettingsFromEnv,
  type RedisSettings,
  redisSettingsFromEnv,
} from "./detect-settings.js";

/** What a daemon process runs: polling and matching, delivery, or both. */
export type Role = "poller" | "worker" | "all";
export const ROLES: readonly Role[] = ["poller", "worker", "all"];

/** Environment variables as read. */
export type ConfigEnv = Readonly<Record<string, string | undefined>>;

/** Everything `flightwatch run` needs, checked. */
export interface DaemonConfig {
  role: Role;
  /** The upstream; absent for a worker, or when the simulator is embedded. */
  client?: FlightApiClientOptions;
  redis: RedisSettings;
  /** Whether REDIS_URL was given (the demo may start a private Redis when not). */
  redisGiven: boolean;
  rulesDir: string;
  detector: DetectorSettings;
  zone: string;
  email?: EmailSettings;
  /** Internal destinations rule channels may send to (OUTBOUND_ALLOW); none by default. */
  outbound: OutboundPolicy;
  /** Health, readiness and metrics; absent when HTTP_PORT is `off`. */
  http?: { port: number; host: string };
  log: { level: LogLevel; format?: "json" | "text" };
  shutdownTimeoutMs: number;
  stallTimeoutMs?: number;
  /** SUBSCRIPTION_RETENTION: subscriptions are kept this long after their flight's date. */
  subscriptionKeepMs?: number;
  /** A stage failing this long while Redis answers turns /healthz to 503 (LIVENESS_TIMEOUT). */
  stuckTimeoutMs?: number;
  dashboard: boolean;
  /** What every request to the dashboard must present (DASHBOARD_TOKEN); set when `dashboard` is. */
  dashboardToken?: string;
  /** What requests to /metrics must present (METRICS_TOKEN); absent leaves /metrics open. */
  metricsToken?: string;
  /**
   * PUBLIC_URL: the base URL passengers reach this daemon at, without a trailing slash
   * (`https://flights.example.com`). Set, the HTTP port serves the passenger pages and
   * subscriptions' emails carry one-click unsubscribe links to them; absent, neither.
   */
  publicUrl?: string;
  /** SLACK_API_URL: Slack's Web API base for living messages; absent, Slack's own. */
  slackApiUrl?: string;
  /** SUBSCRIPTION_SECRET: signs passengers' links; absent, one generated once is kept in Redis. */
  subscriptionSecret?: string;
  /** TRUST_PROXY: a page request's client is the last X-Forwarded-For address (a reverse proxy's word). */
  trustProxy: boolean;
  /** SUBSCRIBE_LIMIT_CLIENT and SUBSCRIBE_LIMIT_EMAIL, where set: the subscribe form's rate limits. */
  subscribeLimits: Partial<Record<LimitKind, Limit>>;
}

/** How to read: role, embedded simulator, defaults the command chose, a config file. */
export interface ReadConfigOptions {
  role?: string;
  /** The simulator is embedded: no upstream variables are needed. */
  simulator?: boolean;
  /** Values used when neither the environment nor the file sets them (e.g. the demo's). */
  defaults?: Readonly<Record<string, string>>;
  /** Path of a config file; FLIGHTWATCH_CONFIG when absent. */
  configFile?: string;
}

/** The flags of `run` (and `config`, which checks what `run` would read) that shape the configuration. */
export interface ConfigFlags {
  role?: string;
  config?: string;
  simulator?: boolean;
  rules?: string;
  dashboard?: boolean;
}

/** How `run` (and `config`, to show the same) reads the configuration for these flags. */
export function configSourcesFor(
  flags: ConfigFlags,
  env: ConfigEnv,
): { env: Record<string, string | undefined>; options: ReadConfigOptions } {
  // With the embedded simulator: faster polls, and no HTTP port unless asked for.
  const defaults: Record<string, string> = flags.simulator
    ? { POLL_INTERVAL: "2s", HTTP_PORT: "off" }
    : {};
  const overrides: Record<string, string> = {
    ...(flags.rules !== undefined ? { FLIGHTWATCH_RULES: flags.rules } : {}),
    ...(flags.dashboard ? { DASHBOARD: "true" } : {}),
  };
  return {
    env: { ...env, ...overrides },
    options: {
      ...(flags.role !== undefined ? { role: flags.role } : {}),
      simulator: Boolean(flags.simulator),
      defaults,
      ...(flags.config !== undefined ? { configFile: flags.config } : {}),
    },
  };
}

export const DEFAULT_HTTP_PORT = 8080;
/**
 * Loopback: what the HTTP port serves (metrics, and the dashboard when on) is for this
 * machine unless the operator says otherwise. Containers set 0.0.0.0 (the Dockerfile
 * does), since their probes come from outside.
 */
export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** Rules directory when neither an argument nor FLIGHTWATCH_RULES gives one. */
export const DEFAULT_RULES_DIR = "rules";

/** The rules directory: the argument, else FLIGHTWATCH_RULES, else `rules`. */
export function rulesDir(arg: string | undefined, env: ConfigEnv): string {
  return arg ?? (env.FLIGHTWATCH_RULES?.trim() || DEFAULT_RULES_DIR);
}

/**
 * The effective variables: the environment over the config file over the command's
 * defaults; empty values count as unset. Also says where each came from.
 */
export function effectiveEnv(
  env: ConfigEnv,
  options: Pick<ReadConfigOptions, "defaults" | "configFile"> = {},
): {
  env: Record<string, string>;
  sources: Record<string, "env" | "file" | "default">;
  file?: string;
  /** `file:line` of each variable whose value comes from the config file. */
  fileLines: Record<string, string>;
} {
  const file = options.configFile ?? set(env.FLIGHTWATCH_CONFIG);
  const read: ConfigFileRead = file ? readConfigFileWithLines(file) : { values: {}, where: {} };
  const fromFile = read.values;
  const merged: Record<string, string> = {};
  const sources: Record<string, "env" | "file" | "default"> = {};
  const layer = (
    values: Readonly<Record<string, string | undefined>>,
    source: "env" | "file" | "default",
  ) => {
    for (const [name, value] of Object.entries(values)) {
      const v = set(value);
      if (v === undefined) continue;
      merged[name] = v;
      sources[name] = source;
    }
  };
  layer(options.defaults ?? {}, "default");
  layer(fromFile, "file");
  layer(env, "env");
  const fileLines: Record<string, string> = {};
  for (const [name, source] of Object.entries(sources)) {
    const where = read.where[name];
    if (source === "file" && where !== undefined) fileLines[name] = where;
  }
  return { env: merged, sources, ...(file ? { file } : {}), fileLines };
}

/**
 * Reads and checks the whole configuration; throws every problem at once. A problem
 * with a value from the config file names the file and line too.
 */
export function readDaemonConfig(rawEnv: ConfigEnv, options: ReadConfigOptions = {}): DaemonConfig {
  const { env, fileLines } = effectiveEnv(rawEnv, options);
  try {
    return checkDaemonConfig(env, options);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const names = Object.fromEntries(
      Object.entries(fileLines).map(([name, where]) => [name, `${where} ${name}`]),
    );
    throw renameSettings(err, names);
  }
}

function checkDaemonConfig(env: Record<string, string>, options: ReadConfigOptions): DaemonConfig {
  const problems = new ConfigProblems();
  const role = problems.take(() => readRole(options.role)) ?? "all";
  const polls = role !== "worker";
  const client =
    polls && !options.simulator ? problems.take(() => clientOptionsFromEnv(env)) : undefined;
  // The zone matters to every role (rules, messages); the client checks it too.
  const zone = env.AIRPORT_TIMEZONE ?? DEFAULT_AIRPORT_TIMEZONE;
  if (client === undefined) problems.take(() => airportZone(zone));
  const redis = problems.take(() => redisSettingsFromEnv(env));
  const detector = problems.take(() => detectorSettingsFromEnv(env));
  const email = problems.take(() => readEmailSettings(env));
  const outbound = problems.take(() => readOutboundAllow(env));
  const http = problems.take(() => readHttp(env));
  const level = problems.take(() => parseLogLevel(env.LOG_LEVEL));
  const format = problems.take(() => readLogFormat(env.LOG_FORMAT));
  const shutdownTimeoutMs = problems.take(() => duration(env, "SHUTDOWN_TIMEOUT", 1000));
  const stallTimeoutMs = problems.take(() => duration(env, "DELIVERY_STALL_TIMEOUT", 1000));
  const subscriptionKeepMs = problems.take(() => duration(env, "SUBSCRIPTION_RETENTION", 0));
  const stuckTimeoutMs = problems.take(() => duration(env, "LIVENESS_TIMEOUT", 1000));
  const dashboard = problems.take(() => readBoolean(env, "DASHBOARD"));
  if (dashboard && http === undefined) {
    problems.add(
      "DASHBOARD",
      `needs HTTP_PORT (the dashboard is served there), but HTTP_PORT is off${
        options.defaults?.HTTP_PORT === "off" && env.HTTP_PORT === "off"
          ? " (the simulator's default): set HTTP_PORT=8080"
          : ""
      }`,
    );
  }
  const dashboardToken = problems.take(() => readToken(env, "DASHBOARD_TOKEN"));
  const metricsToken = problems.take(() => readToken(env, "METRICS_TOKEN"));
  const publicUrl = problems.take(() => readPublicUrl(env.PUBLIC_URL));
  const slackApiUrl = problems.take(() => readSlackApiUrl(env.SLACK_API_URL));
  const subscriptionSecret = problems.take(() => readToken(env, "SUBSCRIPTION_SECRET"));
  const trustProxy = problems.take(() => readBoolean(env, "TRUST_PROXY"));
  const subscribeLimits: Partial<Record<LimitKind, Limit>> = {};
  for (const [kind, name] of [
    ["client", "SUBSCRIBE_LIMIT_CLIENT"],
    ["email", "SUBSCRIBE_LIMIT_EMAIL"],
  ] as const) {
    const limit = problems.take(() => readLimit(env, name));
    if (limit !== undefined) subscribeLimits[kind] = limit;
  }
  if (dashboard && env.DASHBOARD_TOKEN === undefined) {
    problems.add(
      "DASHBOARD_TOKEN",
      "is required with DASHBOARD=true (or --dashboard): the dashboard shows recipients' addresses and whole payloads; set DASHBOARD_TOKEN to a long random secret (e.g. the output of `openssl rand -hex 32`), or turn DASHBOARD off",
    );
  }
  problems.throwIfAny();
  return {
    role,
    ...(client ? { client } : {}),
    redis: redis as RedisSettings,
    redisGiven: env.REDIS_URL !== undefined,
    rulesDir: rulesDir(undefined, env),
    detector: detector as DetectorSettings,
    zone: client?.airportTimezone ?? zone,
    ...(email ? { email } : {}),
    outbound: outbound as OutboundPolicy,
    ...(http ? { http } : {}),
    log: { level: level ?? "info", ...(format ? { format } : {}) },
    shutdownTimeoutMs: shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    ...(stallTimeoutMs !== undefined ? { stallTimeoutMs } : {}),
    ...(subscriptionKeepMs !== undefined ? { subscriptionKeepMs } : {}),
    ...(stuckTimeoutMs !== undefined ? { stuckTimeoutMs } : {}),
    dashboard: dashboard ?? false,
    ...(dashboard && dashboardToken !== undefined ? { dashboardToken } : {}),
    ...(metricsToken !== undefined ? { metricsToken } : {}),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(slackApiUrl !== undefined ? { slackApiUrl } : {}),
    ...(subscriptionSecret !== undefined ? { subscriptionSecret } : {}),
    trustProxy: trustProxy ?? false,
    subscribeLimits,
  };
}

/** A rate limit, `<count>/<window>` (`10/1h`: ten uses an hour). */
function readLimit(env: Record<string, string>, name: string): Limit | undefined {
  const text = set(env[name]);
  if (text === undefined) return undefined;
  const match = /^(\d+)\s*\/\s*(\S+)$/.exec(text);
  const example = "write <count>/<window>, e.g. 10/1h (ten an hour) or 3/1d";
  if (!match) throw new ConfigError(name, `"${text}" is not a limit; ${example}`);
  const count = Number(match[1]);
  if (count < 1 || !Number.isSafeInteger(count)) {
    throw new ConfigError(name, `the count must be at least 1, got "${text}"; ${example}`);
  }
  const windowMs = parseDuration(match[2] as string, name);
  if (windowMs < 1000) {
    throw new ConfigError(name, `the window must be at least 1s, got "${text}"; ${example}`);
  }
  return { count, windowMs };
}

/** SLACK_API_URL: an http(s) URL, with a trailing slash (the client appends method names). */
export function readSlackApiUrl(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (text === undefined || text === "") return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError("SLACK_API_URL", `"${text}" is not a URL; e.g. https://slack.com/api/`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError("SLACK_API_URL", `expected https:// (or http://), got ${url.protocol}//`);
  }
  return url.href.endsWith("/") ? url.href : `${url.href}/`;
}

/** Host names plain http is allowed to in PUBLIC_URL (as in an email's unsubscribe link). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * PUBLIC_URL: an https URL (plain http on loopback only, for testing), with no query,
 * fragment or credentials; returned without its trailing slash.
 */
export function readPublicUrl(value: string | undefined): string | undefined {
  const text = set(value);
  if (text === undefined) return undefined;
  const example =
    "write the base URL passengers reach flightwatch at, e.g. https://flights.example.com";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError("PUBLIC_URL", `"${text}" is not a URL; ${example}`);
  }
  const plainOk = url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !plainOk) {
    throw new ConfigError(
      "PUBLIC_URL",
      `must be an https:// URL (plain http only on loopback, for testing), got "${text}": passengers' links carry their unsubscribe tokens`,
    );
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new ConfigError("PUBLIC_URL", `takes no query, fragment or credentials; ${example}`);
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * The credentials a configuration holds, by value, so that a masker hides them wherever
 * they appear: the upstream token and app key, the passwords in REDIS_URL and SMTP_URL,
 * and every variable named like a credential (isSecretName), rule variables included.
 */
export function secretsIn(vars: Readonly<Record<string, string>>): string[] {
  const secrets: string[] = [];
  for (const name of ["REDIS_URL", "SMTP_URL"]) {
    const password = passwordOf(vars[name]);
    if (password) secrets.push(password);
  }
  for (const [name, value] of Object.entries(vars)) {
    if (isSecretName(name)) secrets.push(value);
  }
  return secrets;
}

function passwordOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/** `--role`: poller, worker or all. */
export function readRole(value: string | undefined): Role {
  if (value === undefined) return "all";
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new ConfigError("--role", `expected poller, worker or all, got "${value}"`);
}

function readLogFormat(value: string | undefined): "json" | "text" | undefined {
  const text = set(value)?.toLowerCase();
  if (text === undefined) return undefined;
  if (text === "json" || text === "text") return text;
  throw new ConfigError("LOG_FORMAT", `expected json or text, got "${value}"`);
}

function readHttp(env: Record<string, string>): { port: number; host: string } | undefined {
  const text = env.HTTP_PORT ?? String(DEFAULT_HTTP_PORT);
  const host = env.HTTP_HOST ?? DEFAULT_HTTP_HOST;
  if (
    !/^[A-Za-z0-9.:_-]+$/.test(host) ||
    (isIP(host) === 0 && !/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(host))
  ) {
    throw new ConfigError(
      "HTTP_HOST",
      `expected an IP address or host name, e.g. 0.0.0.0 or 127.0.0.1, got "${host}"`,
    );
  }
  if (text.toLowerCase() === "off") return undefined;
  if (!/^\d+$/.test(text) || Number(text) > 65_535) {
    throw new ConfigError("HTTP_PORT", `expected a port number 0–65535 or off, got "${text}"`);
  }
  return { port: Number(text), host };
}

function readBoolean(env: Record<string, string>, name: string): boolean {
  const text = env[name]?.toLowerCase();
  if (text === undefined) return false;
  if (["true", "1", "yes", "on"].includes(text)) return true;
  if (["false", "0", "no", "off"].includes(text)) return false;
  throw new ConfigError(name, `expected true or false, got "${env[name]}"`);
}

/** Shortest token accepted: a guessable credential is no credential. */
const MIN_TOKEN_CHARS = 16;

/** A credential from a variable: printable ASCII without spaces (it goes in headers), long enough. */
function readToken(env: Record<string, string>, name: string): string | undefined {
  const token = env[name];
  if (token === undefined) return undefined;
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError(
      name,
      "may hold printable ASCII characters only, without spaces (it is sent in an Authorization header)",
    );
  }
  if (token.length < MIN_TOKEN_CHARS) {
    throw new ConfigError(
      name,
      `is ${token.length} characters long; use at least ${MIN_TOKEN_CHARS}, e.g. the output of \`openssl rand -hex 32\``,
    );
  }
  return token;
}

function duration(env: Record<string, string>, name: string, min: number): number | undefined {
  const text = env[name];
  if (text === undefined) return undefined;
  const ms = parseDuration(text, name);
  if (ms < min) throw new ConfigError(name, `must be at least ${min}ms, got "${text}"`);
  return ms;
}

function set(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
