/**
 * Paces sends per destination (a Slack webhook URL, a webhook endpoint) across every
 * delivery worker process: Redis holds each destination's next free slot, and one
 * Lua script reads and advances it atomically, so two workers can never take the same
 * slot. BullMQ's own limiter is per queue; Slack's limit (about one message per second)
 * is per webhook, so one busy channel must not slow down the others.
 *
 * Time comes from the caller (`nowMs`): the limiter keeps no clock of its own, so tests
 * drive it with an injected clock. Keys expire once their slot has passed.
 */
import { createHash } from "node:crypto";
import { ConfigError } from "../errors.js";
import { LuaScript } from "../store/lua-script.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";

/** Default spacing of sends to one destination: Slack's one message per second. */
export const DEFAULT_PACE_INTERVAL_MS = 1000;

/** How a limiter paces by default. */
export interface DestinationLimiterOptions {
  /** Least time between two sends to one destination, ms (default 1000). */
  intervalMs?: number;
}

/** Per-call pacing. */
export interface ReserveOptions {
  /** Spacing for this destination, ms (the limiter's default when absent). */
  intervalMs?: number;
  /** Do not reserve a slot further away than this; `reserved: false` instead. */
  maxWaitMs?: number;
}

/** The answer to a reservation. */
export interface PaceSlot {
  /** Whether the slot is now the caller's (false only past `maxWaitMs`). */
  reserved: boolean;
  /** Ms from `nowMs` until the slot (0 = send now). */
  waitMs: number;
}

// The instant a key holds (by the callers' clock), or now when it is gone. A key lives
// exactly until its instant, so its remaining time to live bounds it: an instant further
// away than that (with a second's slack for clocks that differ a little) was written
// before the caller's clock was stepped back (NTP, a VM resume), and waiting for it
// would take as long as the step. The time to live, Redis's own, is believed instead.
const UNTIL_OF = `
local function untilOf(key, now)
  local value = redis.call('GET', key)
  if not value then return now end
  local instant = tonumber(value)
  local left = redis.call('PTTL', key)
  if left >= 0 and instant - now > left + 1000 then instant = now + left end
  return instant
end
`;

// KEYS[1] pace key; ARGV now, interval, maxWait (-1 = any). The key holds the next
// free slot; taking a slot moves it one interval on and keeps the key alive until then.
const RESERVE = new LuaScript(`${UNTIL_OF}
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])
local nextFree = untilOf(KEYS[1], now)
local slot = math.max(now, nextFree)
local wait = slot - now
if maxWait >= 0 and wait > maxWait then return {0, wait} end
redis.call('SET', KEYS[1], slot + interval, 'PX', wait + interval)
return {1, wait}
`);

// KEYS[1] pace key, KEYS[2] hold key; ARGV now, until. Only ever moves the next free
// slot and the hold later. The hold also stops slots taken before the push back.
const PUSH_BACK = new LuaScript(`${UNTIL_OF}
local now = tonumber(ARGV[1])
local untilMs = tonumber(ARGV[2])
if untilMs <= now then return 0 end
if untilMs > untilOf(KEYS[2], now) then
  redis.call('SET', KEYS[2], untilMs, 'PX', untilMs - now)
end
local nextFree = untilOf(KEYS[1], now)
if untilMs <= nextFree then return 0 end
redis.call('SET', KEYS[1], untilMs, 'PX', untilMs - now)
return 1
`);

// KEYS[1] hold key; ARGV now. Ms until the hold ends (0 = none).
const HELD_FOR = new LuaScript(`${UNTIL_OF}
local now = tonumber(ARGV[1])
return math.max(0, untilOf(KEYS[1], now) - now)
`);

/** One send slot per interval per destination, shared through Redis. */
export class DestinationLimiter {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #intervalMs: number;

  constructor(redis: RedisConnection, keys: RedisKeys, options: DestinationLimiterOptions = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#intervalMs = checkInterval(options.intervalMs ?? DEFAULT_PACE_INTERVAL_MS);
  }

  /**
   * Reserves the destination's next free slot at or after `nowMs`; resolves to how long
   * to wait before using it. A reserved slot is spent even if the caller never sends.
   */
  async reserve(
    destination: string,
    nowMs: number,
    options: ReserveOptions = {},
  ): Promise<PaceSlot> {
    const interval = checkInterval(options.intervalMs ?? this.#intervalMs);
    const maxWait =
      options.maxWaitMs === undefined ? -1 : Math.max(0, Math.floor(options.maxWaitMs));
    const [reserved, waitMs] = (await RESERVE.run(
      this.#redis,
      1,
      this.#key(destination),
      String(Math.floor(nowMs)),
      String(interval),
      String(maxWait),
    )) as [number, number];
    return { reserved: reserved === 1, waitMs };
  }

  /** No slot of the destination before `untilMs` (after a 429 and its `Retry-After`). */
  async pushBack(destination: string, untilMs: number, nowMs: number): Promise<void> {
    await PUSH_BACK.run(
      this.#redis,
      2,
      this.#key(destination),
      this.#keys.deliveryHold(destinationHash(destination)),
      String(Math.floor(nowMs)),
      String(Math.ceil(untilMs)),
    );
  }

  /**
   * Ms from `nowMs` until a push back ends (0 = none): a slot reserved before the 429
   * came back must not be used while the destination asked everyone to wait.
   */
  async heldFor(destination: string, nowMs: number): Promise<number> {
    return (await HELD_FOR.run(
      this.#redis,
      1,
      this.#keys.deliveryHold(destinationHash(destination)),
      String(Math.floor(nowMs)),
    )) as number;
  }

  #key(destination: string): string {
    return this.#keys.deliveryPace(destinationHash(destination));
  }
}

/** The name a destination goes by in Redis: 128 bits of SHA-256, never the URL itself. */
export function destinationHash(destination: string): string {
  return createHash("sha256").update(destination).digest("hex").slice(0, 32);
}

function checkInterval(ms: number): number {
  if (!Number.isInteger(ms) || ms < 1) {
    throw new ConfigError(
      "intervalMs",
      `${ms} is not a pace interval; give whole milliseconds ≥ 1`,
    );
  }
  return ms;
}
