/**
 * Drives polls: every poller process runs this loop, and two small Redis keys make
 * them take turns — the **turn** (one per `POLL_INTERVAL`, expiring when the next one
 * is due) and the **lease** (held while a poll runs, renewed as it goes). A process
 * polls when it takes both; so across any number of processes one poll runs per
 * interval, never two at once, and a poll that outlasts the interval delays the next
 * one instead of overlapping it.
 *
 * Why not a BullMQ job scheduler (as before): its ticks are computed from each
 * process's wall clock, so a clock stepped back an hour stopped polling for an hour,
 * and a killed poller's job waited for BullMQ's stalled-job check (lock plus one or
 * two check periods) before another process polled. Here every wait is a local
 * monotonic timer or a relative Redis expiry (PX): a clock jump changes nothing, and a
 * killed poller's turn passes on when its lease or turn expires — within one interval
 * (or one lease, at most 15 s, for a poll killed half-way).
 *
 * The process that polled keeps the turn while it is healthy (it renews its turn just
 * before the expiry, extending it by exactly one interval); the others look again when
 * the turn would expire. A failed poll gives the turn up, so another poller — perhaps
 * one whose network is fine — takes the next one; the shared backoff in the poll status
 * (see Detector) still spaces the attempts.
 */
import { randomUUID } from "node:crypto";
import { LuaScript } from "../store/lua-script.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { Detector, PollReport } from "./detector.js";

/** How a PollLoop runs. */
export interface PollLoopOptions {
  /** A connection of its own (plain commands); the caller closes it. */
  redis: RedisConnection;
  keys: RedisKeys;
  /** What runs a poll (a Detector). */
  detector: Pick<Detector, "poll">;
  /** Time between polls, real ms. */
  intervalMs: number;
  /** Hears every poll's report (a poll that threw becomes a `failed` report). */
  onPoll?: (report: PollReport) => void;
  /** Hears the loop's own trouble (Redis errors while taking or giving back a turn). */
  onError?: (err: Error) => void;
  /** Name of this process's turns (default random). */
  token?: string;
}

/**
 * Takes the turn when no poll runs and the turn is free (or this process's own, about
 * to expire: then it is extended by one interval from its expiry, keeping the pace).
 * KEYS: turn, lease. ARGV: token, interval, lease, slack (ms).
 * Returns {1, 0} when taken, {0, ms until it is worth looking again} when not: the
 * turn's expiry, or while a poll runs at most an interval (the poller may give its turn
 * up when it ends).
 */
const TAKE_TURN = new LuaScript(`
local interval = tonumber(ARGV[2])
local leaseLeft = redis.call('PTTL', KEYS[2])
if leaseLeft ~= -2 then
  if leaseLeft < 0 then leaseLeft = tonumber(ARGV[3]) end
  return {0, math.min(leaseLeft, interval)}
end
local owner = redis.call('GET', KEYS[1])
if owner then
  local left = redis.call('PTTL', KEYS[1])
  if owner ~= ARGV[1] or left > tonumber(ARGV[4]) then return {0, math.max(left, 0)} end
  interval = interval + math.max(left, 0)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', interval)
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
return {1, 0}`);

/** KEYS: lease. ARGV: token, lease ms. Renews the lease when it is still this process's. */
const RENEW_LEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`);

/**
 * KEYS: turn, lease. ARGV: token, give up the turn (1/0). Releases the lease; when
 * giving up, the rest of the turn belongs to nobody (any poller takes the next one).
 */
const END_TURN = new LuaScript(`
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
if ARGV[2] == '1' and redis.call('GET', KEYS[1]) == ARGV[1] then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then redis.call('SET', KEYS[1], '*', 'PX', left) end
end
return 1`);

/** How much later than the others a poller that failed looks for its next turn. */
const GIVE_WAY_MS = 100;

/** Lease of a running poll: one interval, within [1 s, 15 s]; renewed every third of it. */
export function leaseMsFor(intervalMs: number): number {
  return Math.min(Math.max(intervalMs, 1_000), 15_000);
}

/** A running poll loop. */
export class PollLoop {
  readonly #options: PollLoopOptions;
  readonly #token: string;
  readonly #leaseMs: number;
  /** How early the owner may renew its turn before it expires. */
  readonly #slackMs: number;
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;
  /** The poll under way, if any (stop waits for it). */
  #running: Promise<void> | undefined;

  private constructor(options: PollLoopOptions) {
    this.#options = options;
    this.#token = options.token ?? randomUUID();
    this.#leaseMs = leaseMsFor(options.intervalMs);
    this.#slackMs = Math.min(100, Math.max(1, Math.floor(options.intervalMs / 10)));
  }

  /** Starts the loop: this process looks for a turn at once. */
  static start(options: PollLoopOptions): PollLoop {
    const loop = new PollLoop(options);
    loop.#schedule(0);
    return loop;
  }

  /** Stops looking for turns, lets a running poll finish, and gives back its lease. */
  async close(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#stopping) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#tick().finally(() => {
        this.#running = undefined;
      });
    }, ms);
  }

  async #tick(): Promise<void> {
    const { redis, keys, intervalMs } = this.#options;
    let next = Math.min(intervalMs, 1_000);
    try {
      const [taken, waitMs] = (await TAKE_TURN.run(
        redis,
        2,
        keys.pollTurn,
        keys.pollLease,
        this.#token,
        String(intervalMs),
        String(this.#leaseMs),
        String(this.#slackMs),
      )) as [number, number];
      if (taken === 1) {
        const started = performance.now();
        const ok = await this.#poll();
        const elapsed = performance.now() - started;
        // The owner looks again just before its turn runs out (see TAKE_TURN's slack).
        // After a failure the others get a head start on the next turn.
        next = ok
          ? Math.max(0, intervalMs - elapsed - this.#slackMs / 2)
          : intervalMs + GIVE_WAY_MS;
      } else {
        // Just after the turn or lease runs out; a little spread so that pollers do
        // not all ask at the same instant.
        next = waitMs + 5 + Math.floor(Math.random() * 20);
      }
    } catch (err) {
      // The turn could not even be taken (Redis away, or refusing writes): a poll that
      // should have run and did not — a failed one, so that it is counted as such.
      this.#options.onPoll?.(failedReport(asError(err), 0));
    }
    this.#schedule(next);
  }

  /** Runs one poll under the lease; resolves whether it went well (the turn is kept). */
  async #poll(): Promise<boolean> {
    const { redis, keys, detector } = this.#options;
    const renew = setInterval(() => {
      RENEW_LEASE.run(redis, 1, keys.pollLease, this.#token, String(this.#leaseMs)).catch(
        (err: unknown) => this.#options.onError?.(asError(err)),
      );
    }, this.#leaseMs / 3);
    let report: PollReport;
    const t0 = performance.now();
    try {
      report = await detector.poll();
    } catch (err) {
      // Redis trouble before or after the poll itself: a failed poll all the same.
      report = failedReport(asError(err), Math.round(performance.now() - t0));
    } finally {
      clearInterval(renew);
    }
    const ok = report.outcome !== "failed";
    try {
      await END_TURN.run(redis, 2, keys.pollTurn, keys.pollLease, this.#token, ok ? "0" : "1");
    } catch (err) {
      this.#options.onError?.(asError(err));
    }
    this.#options.onPoll?.(report);
    return ok;
  }
}

/** The report of a poll that failed outside the Detector (Redis trouble around it). */
function failedReport(error: Error, durationMs: number): PollReport {
  return {
    outcome: "failed",
    startedAt: Date.now(),
    durationMs,
    requests: 0,
    records: 0,
    flights: 0,
    events: [],
    error,
  };
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
