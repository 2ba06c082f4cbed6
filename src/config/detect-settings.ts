/**
 * Detection settings from environment variables. Every bad value is a ConfigError
 * naming its variable; empty values count as unset.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | `REDIS_URL` | `redis://127.0.0.1:6379` | redis:// or rediss://, password in the URL |
 * | `FLIGHTWATCH_PREFIX` | `flightwatch` | key prefix (a Redis Cluster hash tag) |
 * | `DELIVERY_SHARDS` | 1; 8 on a cluster | hash tags delivery is split over (the same in every process) |
 * | `POLL_INTERVAL` | `30s` | time between polls |
 * | `POLL_OVERLAP` | `60s` | the most incremental windows reach back (sized from the observed stamp lag) |
 * | `POLL_OVERLAP_MIN` | `1s` | the least they reach back (at least 2 s until the lag is measured) |
 * | `RECONCILE_INTERVAL` | `1h` | full re-read of the horizon; `0` turns it off |
 * | `HORIZON_PAST_DAYS` | `1` | schedule dates before today that are watched |
 * | `HORIZON_FUTURE_DAYS` | `2` | schedule dates after today that are watched |
 * | `SNAPSHOT_TTL` | `3d` | snapshots expire this long after the flight's schedule |
 * | `OUTBOX_RETENTION` | `7d` | change events older than this are trimmed from the outbox |
 * | `POLL_TIMEOUT` | `5m` | a poll still running after this fails; its requests are aborted |
 */
import { DEFAULT_DETECTOR_SETTINGS, type DetectorSettings } from "../detect/detector.js";
import { checkHorizonDays } from "../detect/horizon.js";
import { ConfigError, ConfigProblems } from "../errors.js";
import { checkDeliveryShards, DEFAULT_PREFIX } from "../store/redis-keys.js";
import { parseDuration } from "../time/duration.js";

/** Environment variables read here. */
export type DetectEnv = Readonly<Record<string, string | undefined>>;

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** Where detection keeps its data. */
export interface RedisSettings {
  url: string;
  prefix: string;
  /** Hash tags delivery is split over (see redis-keys.ts); absent: 1. */
  deliveryShards?: number;
}

/** Default of `DELIVERY_SHARDS` on a Redis Cluster: a few shards for each of three masters. */
export const CLUSTER_DELIVERY_SHARDS = 8;

const get = (env: DetectEnv, name: string): string | undefined => {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
};

/** `REDIS_URL`, `FLIGHTWATCH_PREFIX` and `DELIVERY_SHARDS`. */
export function redisSettingsFromEnv(env: DetectEnv): RedisSettings {
  const url = get(env, "REDIS_URL") ?? DEFAULT_REDIS_URL;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not echoed: an unparsable URL cannot be masked, and may hold a password.
    throw new ConfigError("REDIS_URL", "is not a URL (expected redis://[:password@]host:6379)");
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new ConfigError("REDIS_URL", `expected redis:// or rediss://, got ${parsed.protocol}//`);
  }
  const shardsText = get(env, "DELIVERY_SHARDS");
  let deliveryShards = parsed.searchParams.has("cluster") ? CLUSTER_DELIVERY_SHARDS : 1;
  if (shardsText !== undefined) {
    deliveryShards = checkDeliveryShards(
      /^\d{1,4}$/.test(shardsText) ? Number(shardsText) : Number.NaN,
      `"${shardsText}"`,
    );
  }
  return { url, prefix: get(env, "FLIGHTWATCH_PREFIX") ?? DEFAULT_PREFIX, deliveryShards };
}

/**
 * Detector settings; `overrides` (e.g. from command-line flags) win over the
 * environment. Every bad variable is reported (one ConfigError, or a
 * ConfigProblemsError listing them all).
 */
export function detectorSettingsFromEnv(
  env: DetectEnv,
  overrides: Partial<Record<string, string>> = {},
): DetectorSettings {
  const problems = new ConfigProblems();
  const read = (name: string): string | undefined => overrides[name] ?? get(env, name);
  const duration = (name: string, fallback: number, min: number): number =>
    problems.take(() => {
      const text = read(name);
      if (text === undefined) return fallback;
      const ms = parseDuration(text, name);
      if (ms < min) throw new ConfigError(name, `must be at least ${min}ms, got "${text}"`);
      return ms;
    }) ?? fallback;
  const days = (name: string, fallback: number): number =>
    problems.take(() => {
      const text = read(name);
      if (text === undefined) return fallback;
      if (!/^\d+$/.test(text))
        throw new ConfigError(name, `expected a whole number of days, got "${text}"`);
      return Number(text);
    }) ?? fallback;
  const d = DEFAULT_DETECTOR_SETTINGS;
  const horizon = {
    past: days("HORIZON_PAST_DAYS", d.horizon.past),
    future: days("HORIZON_FUTURE_DAYS", d.horizon.future),
  };
  problems.take(() => checkHorizonDays(horizon, "HORIZON_PAST_DAYS / HORIZON_FUTURE_DAYS"));
  const settings: DetectorSettings = {
    intervalMs: duration("POLL_INTERVAL", d.intervalMs, 100),
    overlapMs: duration("POLL_OVERLAP", d.overlapMs, 0),
    overlapMinMs: duration("POLL_OVERLAP_MIN", d.overlapMinMs, 0),
    reconcileEveryMs: duration("RECONCILE_INTERVAL", d.reconcileEveryMs, 0),
    horizon,
    snapshotTtlMs: duration("SNAPSHOT_TTL", d.snapshotTtlMs, 60_000),
    outboxRetentionMs: duration("OUTBOX_RETENTION", d.outboxRetentionMs, 60_000),
    maxBackoffMs: d.maxBackoffMs,
    pollTimeoutMs:
      problems.take(() => {
        const text = read("POLL_TIMEOUT");
        if (text === undefined) return d.pollTimeoutMs;
        const ms = parseDuration(text, "POLL_TIMEOUT");
        if (ms < 1000) throw new ConfigError("POLL_TIMEOUT", `must be at least 1s, got "${text}"`);
        return ms;
      }) ?? d.pollTimeoutMs,
  };
  // A snapshot must outlive the flight's stay in the horizon, or the next
  // reconciliation would find the flight again and report it as added.
  const needed = (horizon.past + 1) * 86_400_000;
  if (settings.snapshotTtlMs < needed) {
    problems.add(
      "SNAPSHOT_TTL",
      `must be at least ${horizon.past + 1}d with HORIZON_PAST_DAYS=${horizon.past} (a flight stays watched that long after its schedule)`,
    );
  }
  problems.throwIfAny();
  return settings;
}
