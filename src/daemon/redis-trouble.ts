/**
 * Redis outages as an operator should read them. While Redis is away every connection
 * of the daemon (the loops', BullMQ's workers and queues) fails on every reconnect
 * attempt, and everything retries by itself until Redis is back: one warning when
 * that starts, one reminder per `repeatMs` while it lasts, and one info line when
 * Redis answers again — not an error line per attempt per connection. A job that lost
 * its lock meanwhile is a warning of its own; every other error is logged at error
 * level, each one.
 */
import { ErrorCode, FlightwatchError } from "../errors.js";
import type { Logger } from "../log/logger.js";

/** Socket error codes that mean Redis cannot be reached (or went away mid-command). */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Whether `err` says Redis is out of reach for now — a refused or dropped connection,
 * a command given up after the reconnect attempts it was allowed, a Redis still
 * loading its data — rather than a fault of the command itself.
 */
export function isRedisConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
  if (err instanceof FlightwatchError) return err.code === ErrorCode.REDIS_UNAVAILABLE;
  return (
    err.name === "MaxRetriesPerRequestError" ||
    err.message === "Connection is closed." ||
    err.message.startsWith("Command aborted due to connection close") ||
    err.message.startsWith("LOADING ") ||
    // A Redis Cluster failing over: its client's own words while no master serves a slot.
    err.message.startsWith("Too many Cluster redirections.") ||
    err.message === "Failed to refresh slots cache." ||
    err.message === "None of startup nodes is available" ||
    err.message.startsWith("CLUSTERDOWN ")
  );
}

/**
 * Whether `err` is BullMQ saying a job's lock was gone: renewing it failed, or the
 * job could not be finished under it (its lock, or the job itself — run again and
 * removed meanwhile — missing). The lock expires by Redis's clock, so an outage
 * longer than the lock, like a stalled process, hands the job to another worker —
 * which runs it again (a poll is redone; a notification is sent again under its id).
 */
export function isLockLost(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return [
    "could not renew lock for job ",
    "Missing lock for job ",
    "Lock mismatch for job ",
    "Missing key for job ",
  ].some((start) => err.message.startsWith(start));
}

/** A kind of refusal by a Redis that answers: what it means and what to do. */
export interface RedisRefusal {
  /** Closed set, a metric label: `oom`, `readonly`, `cluster`, `auth`, `misconf`. */
  reason: "oom" | "readonly" | "cluster" | "crossslot" | "auth" | "misconf";
  /** One line for the operator: the cause and what to do about it. */
  advice: string;
}

/**
 * Whether `err` is Redis refusing a command for a reason the operator must fix (or
 * wait out) — memory, a replica, a cluster, credentials, persistence — and what it means.
 */
export function redisRefusal(err: unknown): RedisRefusal | undefined {
  if (!(err instanceof Error)) return undefined;
  const m = err.message;
  // A transaction refused as a whole carries the refusals of its commands.
  if (m.startsWith("EXECABORT ")) {
    const previous = (err as { previousErrors?: unknown }).previousErrors;
    return Array.isArray(previous) ? redisRefusal(previous[0]) : undefined;
  }
  if (m.startsWith("OOM ")) {
    return {
      reason: "oom",
      advice:
        "Redis refuses writes: it is out of memory (maxmemory reached under noeviction). Give it more memory or shorten OUTBOX_RETENTION/SNAPSHOT_TTL; flightwatch retries until it can write",
    };
  }
  // A blocked read ended because the server became a replica says the same.
  if (m.startsWith("READONLY ") || /^UNBLOCKED .*master -> replica/.test(m)) {
    return {
      reason: "readonly",
      advice:
        "REDIS_URL points at a read-only replica (after a failover?): point it at the primary, or at an endpoint that follows failovers",
    };
  }
  // A cluster client follows MOVED and ASK itself; one spanning hash tags is a defect.
  if (m.startsWith("CROSSSLOT ")) {
    return {
      reason: "crossslot",
      advice:
        "a command spanned several hash tags of the Redis Cluster: a flightwatch defect; please report it with this line",
    };
  }
  if (/^(MOVED|ASK) /.test(m)) {
    return {
      reason: "cluster",
      advice:
        'REDIS_URL points at a Redis Cluster node without ?cluster: add it (redis://host:6379?cluster, docs/operations.md "Redis Cluster")',
    };
  }
  if (/^(NOAUTH|WRONGPASS|NOPERM) /.test(m)) {
    return {
      reason: "auth",
      advice:
        "Redis refuses flightwatch's credentials or permissions: check the user and password in REDIS_URL and the ACL of that user",
    };
  }
  if (m.startsWith("MISCONF ")) {
    return {
      reason: "misconf",
      advice:
        "Redis refuses writes because it cannot save to disk (MISCONF): check its disk space and logs",
    };
  }
  return undefined;
}

/** How often the reminder comes, and the clock (real time). */
export interface RedisTroubleLogOptions {
  /** Least time between two warnings of one outage (default 30 s). */
  repeatMs?: number;
  /** Monotonic clock, ms (default performance.now). */
  now?: () => number;
  /** Hears every Redis error by reason (`connection`, a refusal's reason, `other`), for a metric. */
  onError?: (reason: string) => void;
}

/** Logs the errors of the daemon's parts, summarising Redis outages. */
export class RedisTroubleLog {
  readonly #log: Logger;
  readonly #repeatMs: number;
  readonly #now: () => number;
  /** Start of the outage under way, and of its last warning. */
  #since: number | undefined;
  #warnedAt = 0;
  /** Connection errors seen in the outage, and those held back since the last warning. */
  #errors = 0;
  #heldBack = 0;
  /** Refusals by reason: when last logged, and how many were held back since. */
  readonly #refusals = new Map<string, { loggedAt: number; heldBack: number }>();
  readonly #onError: ((reason: string) => void) | undefined;

  constructor(log: Logger, options: RedisTroubleLogOptions = {}) {
    this.#log = log;
    this.#repeatMs = options.repeatMs ?? 30_000;
    this.#now = options.now ?? (() => performance.now());
    this.#onError = options.onError;
  }

  /** An error of a part of the daemon (`msg` says which: "pipeline error", …). */
  error(err: Error, msg: string): void {
    if (isLockLost(err)) {
      this.#log.warn(
        { err, source: msg },
        "a job outlived its lock (Redis away longer than the lock, or this process stalled): another worker runs it again",
      );
      return;
    }
    const refusal = redisRefusal(err);
    if (refusal) {
      this.#onError?.(refusal.reason);
      this.#refused(err, msg, refusal);
      return;
    }
    if (!isRedisConnectionError(err)) {
      this.#onError?.("other");
      this.#log.error({ err }, msg);
      return;
    }
    this.#onError?.("connection");
    const now = this.#now();
    this.#errors++;
    if (this.#since === undefined) {
      this.#since = now;
      this.#warnedAt = now;
      this.#heldBack = 0;
      this.#log.warn({ err, source: msg }, "Redis out of reach; retrying until it answers");
      return;
    }
    if (now - this.#warnedAt < this.#repeatMs) {
      this.#heldBack++;
      return;
    }
    this.#log.warn(
      { err, source: msg, downMs: now - this.#since, heldBack: this.#heldBack },
      `Redis still out of reach after ${seconds(now - this.#since)}; retrying`,
    );
    this.#warnedAt = now;
    this.#heldBack = 0;
  }

  /** A refusal: one error line per reason and reminder interval, with the count held back. */
  #refused(err: Error, source: string, refusal: RedisRefusal): void {
    const now = this.#now();
    const seen = this.#refusals.get(refusal.reason);
    if (seen && now - seen.loggedAt < this.#repeatMs) {
      seen.heldBack++;
      return;
    }
    this.#log.error(
      {
        err,
        source,
        reason: refusal.reason,
        ...(seen ? { heldBack: seen.heldBack } : {}),
      },
      refusal.advice,
    );
    this.#refusals.set(refusal.reason, { loggedAt: now, heldBack: 0 });
  }

  /** Redis answers again (a connection is ready): ends the outage, if one was under way. */
  recovered(): void {
    if (this.#since === undefined) return;
    const downMs = this.#now() - this.#since;
    this.#log.info(
      { downMs, errors: this.#errors },
      `Redis answers again after ${seconds(downMs)}; carrying on`,
    );
    this.#since = undefined;
    this.#errors = 0;
  }
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
