/**
 * Living messages: a `slack` channel with `token` and `channel` goes through Slack's Web
 * API with the app's bot token, through Slack's own client `@slack/web-api` (v8). Per
 * rule, channel and flight there is one message that shows the flight as it is now
 * (slack-living-message.ts): the first notification about the flight posts it
 * (`chat.postMessage`), later ones update it in place (`chat.update`), and each posts
 * what changed as a reply in its thread (`thread_ts`; the channel's usual Slack message).
 *
 * The client builds each request (form encoding, the bearer token, its User-Agent),
 * detects rate limits and types Slack's errors; it sends with our `fetch`
 * (slack-fetch.ts: undici, the outbound policy's guarded agent, our timeout), its
 * retries off and rate-limited calls rejected at once, so the pace, the retry schedule,
 * `Retry-After`, ids and order stay ours. Where the message is (`channel`, `ts`) and the
 * sequence of the alert it shows are kept in Redis (slack-threads.ts): every process,
 * after a restart, updates the same message, and an older alert (a replay) never
 * overwrites what a newer one wrote. Each step of a notification (main message, thread
 * reply) is recorded once Slack accepted it, and a retry skips recorded steps; a crash
 * between Slack's accepting a post and that record repeats that one post (Slack has no
 * idempotency key). A message that will not take updates any more — deleted, not this
 * app's to edit, past the workspace's edit window — is replaced by a new one, and so is
 * one whose thread a reply finds deleted (a reminder's, an older alert's): once per
 * attempt, its calls paced as any other. An update refused for its content alone
 * (slack-api-outcome.ts) leaves the message as it was and still posts the reply.
 */
import { setTimeout as delay } from "node:timers/promises";
import { type Logger, LogLevel, WebClient } from "@slack/web-api";
import type { Dispatcher } from "undici";
import type { SlackApiChannelSpec } from "../rules/rule.js";
import type { ChannelSender, SendContext } from "./channel-sender.js";
import {
  DEFAULT_PACE_INTERVAL_MS,
  type DestinationLimiter,
  destinationHash,
} from "./destination-limiter.js";
import type { HttpPostResult } from "./http-post.js";
import type { Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";
import {
  EDIT_REFUSED,
  MESSAGE_REPLACED,
  platformError,
  type SlackApiMethod,
  slackApiOutcome,
  THREAD_GONE,
} from "./slack-api-outcome.js";
import { slackFetch } from "./slack-fetch.js";
import { slackLivingMessage } from "./slack-living-message.js";
import { type SlackMessage, slackMessage } from "./slack-message.js";
import { DEFAULT_MAX_PACE_WAIT_MS, paceSend } from "./slack-pace.js";
import {
  type SlackProgress,
  type SlackThread,
  type SlackThreads,
  slackThreadOf,
} from "./slack-threads.js";

/** Slack's Web API, the default `slackApiUrl`. */
export const SLACK_API_URL = "https://slack.com/api/";

/** How a living-message sender connects, paces and remembers. */
export interface SlackLivingSenderOptions {
  /** Where the living messages and the steps of notifications are kept. */
  threads: SlackThreads;
  /** Shared pacing, per Slack channel and token. */
  limiter: DestinationLimiter;
  /** The connection pool (the outbound policy's guarded agent); closed by its owner. */
  dispatcher: Dispatcher;
  /** The Web API's base URL (default Slack's). */
  slackApiUrl?: string;
  /** Least time between two calls to one Slack channel, ms (default 1000). */
  intervalMs?: number;
  /** Longest wait for a slot before giving the job back as a retry (default 15 s). */
  maxWaitMs?: number;
  /** Waits for a slot; injected in tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Bound on one call, ms (default 15 s). */
  timeoutMs?: number;
}

/** What one Web API call came to. */
type CallResult =
  | { ok: true; channel: string | undefined; ts: string | undefined }
  | { ok: false; failure: unknown; answer: HttpPostResult | undefined };

/** One Web API call of an attempt (see `#caller`). */
type Call = (
  method: SlackApiMethod,
  where: { channel: string; ts?: string; thread_ts?: string },
  message: SlackMessage,
) => Promise<CallResult>;

/** The step of the main message a notification needs. */
type MainStep = "post" | "update" | "none";

/** The client's logger, silenced: what goes wrong becomes an outcome, which is logged. */
const SILENT: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};

/** Sends notifications of Web API Slack channels as living messages. */
export class SlackLivingSender implements ChannelSender<SlackApiChannelSpec> {
  readonly type = "slack" as const;
  readonly #threads: SlackThreads;
  readonly #limiter: DestinationLimiter;
  readonly #dispatcher: Dispatcher;
  readonly #apiUrl: string;
  readonly #intervalMs: number;
  readonly #maxWaitMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #timeoutMs: number | undefined;

  constructor(options: SlackLivingSenderOptions) {
    this.#threads = options.threads;
    this.#limiter = options.limiter;
    this.#dispatcher = options.dispatcher;
    this.#apiUrl = options.slackApiUrl ?? SLACK_API_URL;
    this.#intervalMs = options.intervalMs ?? DEFAULT_PACE_INTERVAL_MS;
    this.#maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_PACE_WAIT_MS;
    this.#sleep = options.sleep ?? ((ms) => delay(ms));
    this.#timeoutMs = options.timeoutMs;
  }

  /**
   * One attempt: the steps the notification still needs (main message, thread reply),
   * paced as one group, each recorded once Slack accepted it.
   */
  async send(
    notification: Notification,
    channel: SlackApiChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    const { alert } = notification;
    const seq = alert.sequence ?? 0;
    // A test sample is about a flight the rule could take — maybe a real one: it gets a
    // message of its own, and leaves nothing behind that a real alert would update.
    const thread = alert.test ? undefined : slackThreadOf(notification, channel);
    let known: { thread: SlackThread | undefined; progress: SlackProgress } = {
      thread: undefined,
      progress: { main: false },
    };
    if (thread !== undefined) {
      try {
        known = await this.#threads.read(thread, notification.id);
      } catch (err) {
        return stateTrouble(err);
      }
    }
    let main = mainStep(known.thread, known.progress, seq, alert.changes.length);
    const reply = known.progress.replyTs === undefined;
    // An earlier attempt did it all (its end was not recorded: a crash, Redis trouble).
    if (main === "none" && !reply) return { status: "delivered" };

    // The channel's pace, per Slack channel and token (its hash: the token is a secret).
    const destination = `slack-api ${channel.channelId} ${destinationHash(channel.token)}`;
    const calls = (main === "none" ? 0 : 1) + (reply ? 1 : 0);
    const paced = await paceSend(this.#limiter, destination, context, {
      intervalMs: this.#intervalMs * calls,
      maxWaitMs: this.#maxWaitMs,
      sleep: this.#sleep,
      what: "Slack channel",
    });
    if (paced !== undefined) return paced;

    const call = this.#caller(channel.token);
    let current = known.thread;
    const notes: string[] = [];
    let replaces: string | undefined;
    const living = () => slackLivingMessage(alert, context.rule, context.zone);
    if (main === "update" && current !== undefined) {
      const updated = await call(
        "chat.update",
        { channel: current.channel, ts: current.ts },
        living(),
      );
      if (!updated.ok) {
        const error = platformError(updated.failure);
        if (error !== undefined && Object.hasOwn(MESSAGE_REPLACED, error)) {
          // Deleted, or no longer ours to edit: a new one takes its place (once: a post is
          // no update), in a slot of its own.
          const more = await this.#paceMore(destination, context, 1);
          if (more !== undefined) return more;
          notes.push(
            `the living message ${current.ts} ${MESSAGE_REPLACED[error]} (${error}); posted a new one in its place`,
          );
          replaces = current.ts;
          main = "post";
        } else if (error !== undefined && EDIT_REFUSED.has(error)) {
          // Only this edit was refused: the message keeps what it showed, the change still
          // goes in its thread. Nothing recorded: a retry tries the update again.
          notes.push(
            `the living message ${current.ts} could not be updated (${error}); the change was posted in its thread`,
          );
          main = "none";
        } else {
          return this.#failed("chat.update", channel, destination, updated, context);
        }
      } else if (thread !== undefined) {
        try {
          await this.#threads.updated(thread, notification.id, current.ts, seq);
        } catch (err) {
          return stateTrouble(err);
        }
      }
    }
    // A message posted in this attempt is never posted anew in it: one repair per attempt.
    const postedNow = main === "post";
    if (main === "post") {
      const posted = await this.#postMain(call, channel, destination, context, living(), {
        thread,
        notificationId: notification.id,
        seq,
        replaces,
      });
      if ("status" in posted) return posted;
      current = posted;
    }
    if (reply) {
      // There is a thread by now: one was known, or was just posted.
      let where = current as SlackThread;
      const text = slackMessage(notification, channel, context.rule, context.zone);
      const replyIn = (parent: SlackThread) =>
        call("chat.postMessage", { channel: parent.channel, thread_ts: parent.ts }, text);
      let replied = await replyIn(where);
      const gone = replied.ok ? undefined : platformError(replied.failure);
      if (gone !== undefined && THREAD_GONE.has(gone) && !postedNow) {
        // Its message was deleted (a reminder's or an older alert's reply finds out, as
        // they update nothing): a new one takes its place, and the reply goes in its
        // thread — in slots of their own.
        const more = await this.#paceMore(destination, context, 2);
        if (more !== undefined) return more;
        const posted = await this.#postMain(call, channel, destination, context, living(), {
          thread,
          notificationId: notification.id,
          seq,
          replaces: where.ts,
        });
        if ("status" in posted) return posted;
        notes.push(
          `the living message ${where.ts} was gone (${gone}); posted a new one in its place`,
        );
        where = posted;
        replied = await replyIn(where);
      }
      if (!replied.ok) {
        return this.#failed("chat.postMessage", channel, destination, replied, context);
      }
      if (thread !== undefined) {
        try {
          await this.#threads.replied(thread, notification.id, replied.ts ?? "");
        } catch (err) {
          return stateTrouble(err);
        }
      }
    }
    return {
      status: "delivered",
      code: 200,
      ...(notes.length > 0 ? { detail: notes.join("; ") } : {}),
    };
  }

  /**
   * Posts the flight's main message and records it (unless a test sample's): resolves to
   * the thread as it is now — the new message, or one a newer alert's attempt wrote
   * meanwhile — or to the outcome of a failure.
   */
  async #postMain(
    call: Call,
    channel: SlackApiChannelSpec,
    destination: string,
    context: SendContext,
    message: SlackMessage,
    record: {
      thread: string | undefined;
      notificationId: string;
      seq: number;
      replaces: string | undefined;
    },
  ): Promise<SlackThread | SendOutcome> {
    const posted = await call("chat.postMessage", { channel: channel.channelId }, message);
    if (!posted.ok) return this.#failed("chat.postMessage", channel, destination, posted, context);
    if (posted.ts === undefined) return unreadable("chat.postMessage");
    const main: SlackThread = {
      channel: posted.channel ?? channel.channelId,
      ts: posted.ts,
      seq: record.seq,
    };
    if (record.thread === undefined) return main;
    try {
      return await this.#threads.posted(
        record.thread,
        record.notificationId,
        main,
        record.replaces,
      );
    } catch (err) {
      return stateTrouble(err);
    }
  }

  /**
   * Slots for calls a repair adds to the attempt (Slack counts them as any other):
   * undefined when they may go now, else the outcome to return instead.
   */
  #paceMore(
    destination: string,
    context: SendContext,
    calls: number,
  ): Promise<SendOutcome | undefined> {
    return paceSend(this.#limiter, destination, context, {
      intervalMs: this.#intervalMs * calls,
      maxWaitMs: this.#maxWaitMs,
      sleep: this.#sleep,
      what: "Slack channel",
    });
  }

  /** Nothing of its own to close: the pool is its owner's. */
  async close(): Promise<void> {}

  /**
   * Calls of one attempt, with one client of the channel's token: each resolves to
   * Slack's `channel` and `ts`, or to what the client threw and the answer behind it.
   */
  #caller(token: string): Call {
    let answer: HttpPostResult | undefined;
    const client = new WebClient(token, {
      slackApiUrl: this.#apiUrl,
      fetch: slackFetch(
        {
          dispatcher: this.#dispatcher,
          ...(this.#timeoutMs !== undefined ? { timeoutMs: this.#timeoutMs } : {}),
        },
        (seen) => {
          answer = seen;
        },
      ),
      // Ours: the retry schedule, Retry-After, the pace.
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      // A method name is never a URL here: every call goes to slackApiUrl.
      allowAbsoluteUrls: false,
      logger: SILENT,
    });
    return async (method, where, message) => {
      answer = undefined;
      try {
        const args = { ...where, text: message.text, blocks: message.blocks };
        const result =
          method === "chat.update"
            ? await client.chat.update({ ...args, ts: where.ts ?? "" })
            : await client.chat.postMessage(args);
        return { ok: true, channel: result.channel, ts: result.ts };
      } catch (failure) {
        return { ok: false, failure, answer };
      }
    };
  }

  /** A failed call's outcome; a 429 holds the channel back for every worker. */
  async #failed(
    method: SlackApiMethod,
    channel: SlackApiChannelSpec,
    destination: string,
    result: Extract<CallResult, { ok: false }>,
    context: SendContext,
  ): Promise<SendOutcome> {
    const nowMs = context.now();
    const outcome = slackApiOutcome(
      method,
      channel.channelId,
      result.failure,
      result.answer,
      nowMs,
    );
    if (outcome.status === "retry" && outcome.reason === "rate_limited") {
      const until = nowMs + (outcome.retryAfterMs ?? this.#intervalMs);
      await this.#limiter.pushBack(destination, until, nowMs).catch(() => undefined);
    }
    return outcome;
  }
}

/**
 * What the main message needs: a post when there is none yet; nothing when this
 * notification's step is done, when it brings no change of the flight (a reminder), or
 * when the message shows a newer alert already; else an update.
 */
function mainStep(
  thread: SlackThread | undefined,
  progress: SlackProgress,
  seq: number,
  changes: number,
): MainStep {
  if (thread === undefined) return "post";
  if (progress.main || changes === 0 || thread.seq > seq) return "none";
  return "update";
}

/** Redis failed us around a step: tried again (a step Slack took may be repeated, see above). */
function stateTrouble(err: unknown): SendOutcome {
  const message = err instanceof Error ? err.message : String(err);
  return {
    status: "retry",
    reason: "connection",
    detail: `living message state in Redis: ${message}`,
  };
}

/** Slack said `ok` but named no message: tried again. */
function unreadable(method: SlackApiMethod): SendOutcome {
  return {
    status: "retry",
    reason: "network",
    detail: `${method}: Slack answered ok without the message's ts`,
  };
}
