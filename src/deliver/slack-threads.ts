/**
 * What flightwatch remembers of living Slack messages, in Redis: per (rule, channel,
 * flight, Slack channel) the message that shows the flight — its channel id, its `ts`
 * and the sequence of the alert it shows — so that every process, after any restart,
 * updates the same message; and per notification how far its delivery got (the main
 * message updated, the thread reply posted), so that a retry skips what Slack has
 * already. Both expire days after their last write (as snapshots do after a flight).
 */
import { createHash } from "node:crypto";
import type { SlackApiChannelSpec } from "../rules/rule.js";
import { LuaScript } from "../store/lua-script.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { Notification } from "./notification.js";

/** How long a living message is remembered after its last write, by default: 3 days. */
export const DEFAULT_SLACK_THREAD_TTL_MS = 3 * 86_400_000;

/** A living message: where it is, and the sequence of the alert it shows. */
export interface SlackThread {
  /** The Slack channel's id, as Slack answered it. */
  channel: string;
  /** The message's timestamp, Slack's id of it (and of its thread). */
  ts: string;
  /** `alert.sequence` of the alert the message shows (0: none). */
  seq: number;
}

/** How far one notification's delivery got. */
export interface SlackProgress {
  /** The main message shows this notification (posted or updated), or needs no change. */
  main: boolean;
  /** The `ts` of its thread reply, once Slack accepted it. */
  replyTs?: string;
}

/**
 * KEYS: thread, progress. ARGV: channel, ts, seq, the ts of the message this one
 * replaces ('' for none), ttl ms. A new message takes the thread's place unless the one
 * there shows a newer alert and is not the one replaced (written meanwhile by a replay
 * of a newer alert: it stays). Returns the thread as it is now.
 */
const POSTED = new LuaScript(`
local cur = redis.call('HMGET', KEYS[1], 'channel', 'ts', 'seq')
if not (cur[2] and cur[2] ~= ARGV[4] and tonumber(cur[3] or '0') > tonumber(ARGV[3])) then
  redis.call('HSET', KEYS[1], 'channel', ARGV[1], 'ts', ARGV[2], 'seq', ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('HSET', KEYS[2], 'main', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return redis.call('HMGET', KEYS[1], 'channel', 'ts', 'seq')`);

/**
 * KEYS: thread, progress. ARGV: ts, seq, ttl ms. The message `ts` was updated to show
 * the alert of `seq`: its sequence rises (never falls), if it is still the thread's.
 */
const UPDATED = new LuaScript(`
local cur = redis.call('HMGET', KEYS[1], 'ts', 'seq')
if cur[1] == ARGV[1] and tonumber(cur[2] or '0') < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'seq', ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[2], 'main', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1`);

/** The living messages and the progress of their notifications, in Redis. */
export class SlackThreads {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #ttlMs: number;

  constructor(redis: RedisConnection, keys: RedisKeys, options: { ttlMs?: number } = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#ttlMs = options.ttlMs ?? DEFAULT_SLACK_THREAD_TTL_MS;
  }

  /** The thread of a notification (none yet: undefined) and how far the notification got. */
  async read(
    thread: string,
    notificationId: string,
  ): Promise<{ thread: SlackThread | undefined; progress: SlackProgress }> {
    const replies = await this.#redis
      .multi()
      .hmget(this.#keys.slackThread(thread), "channel", "ts", "seq")
      .hmget(this.#keys.slackProgress(notificationId), "main", "reply")
      .exec();
    const [[threadError, found], [progressError, done]] = replies as [
      [Error | null, (string | null)[]],
      [Error | null, (string | null)[]],
    ];
    if (threadError || progressError) throw threadError ?? progressError;
    const progress: SlackProgress = { main: done[0] === "1" };
    if (typeof done[1] === "string") progress.replyTs = done[1];
    return { thread: threadOf(found), progress };
  }

  /** A new main message was posted (none was there, or it was gone); resolves to the thread as it is now. */
  async posted(
    thread: string,
    notificationId: string,
    message: SlackThread,
    replaces: string | undefined,
  ): Promise<SlackThread> {
    const now = (await POSTED.run(
      this.#redis,
      2,
      this.#keys.slackThread(thread),
      this.#keys.slackProgress(notificationId),
      message.channel,
      message.ts,
      String(message.seq),
      replaces ?? "",
      String(this.#ttlMs),
    )) as (string | null)[];
    return threadOf(now) ?? message;
  }

  /** The main message `ts` was updated to show the alert of `seq`. */
  async updated(thread: string, notificationId: string, ts: string, seq: number): Promise<void> {
    await UPDATED.run(
      this.#redis,
      2,
      this.#keys.slackThread(thread),
      this.#keys.slackProgress(notificationId),
      ts,
      String(seq),
      String(this.#ttlMs),
    );
  }

  /** The notification's thread reply was posted: a retry must not post it again. */
  async replied(thread: string, notificationId: string, replyTs: string): Promise<void> {
    const progress = this.#keys.slackProgress(notificationId);
    const replies = await this.#redis
      .multi()
      .hset(progress, "reply", replyTs)
      .pexpire(progress, this.#ttlMs)
      .pexpire(this.#keys.slackThread(thread), this.#ttlMs)
      .exec();
    // A write Redis refused (out of memory) is no record: the caller must not count on it.
    const refused = replies?.find(([err]) => err !== null)?.[0];
    if (refused) throw refused;
  }
}

/**
 * The thread a notification belongs to: a hash of its rule, channel, flight and Slack
 * channel (a rule pointed at another Slack channel starts new messages there). Not the
 * token: a new token of the same app still updates the app's messages.
 */
export function slackThreadOf(notification: Notification, channel: SlackApiChannelSpec): string {
  return createHash("sha256")
    .update(
      `${notification.ruleId}\n${notification.channel}\n${notification.alert.flight.key}\n${channel.channelId}`,
    )
    .digest("hex")
    .slice(0, 32);
}

function threadOf(fields: readonly (string | null)[] | undefined): SlackThread | undefined {
  const [channel, ts, seq] = fields ?? [];
  if (typeof channel !== "string" || typeof ts !== "string") return undefined;
  return { channel, ts, seq: Number(seq ?? 0) || 0 };
}
