/**
 * Sends notifications to Slack. A channel with `url` posts to an incoming webhook
 * through Slack's own client, `@slack/webhook` (v8): it builds the request — the message
 * as JSON, its User-Agent, no redirects followed. Given our `fetch` (slack-fetch.ts),
 * the request goes out over undici, through the outbound policy and our timeouts, and
 * the raw answer is kept: its retries are off, and what follows stays ours. Each send
 * first takes the webhook's next slot from the shared `DestinationLimiter`, so all
 * workers together stay at about one message per second per webhook; a 429 pushes that
 * webhook's slots back for everyone (the client fails a 429 at once and drops
 * `Retry-After`; we read it from the answer). Slack's answers become outcomes: `ok`
 * delivered, 429 and 5xx and network faults retried on the channel's schedule, its 4xx
 * error texts (`no_service`, …) refused for good. A channel with `token` and `channel`
 * goes through the Web API instead, as living messages (slack-living-sender.ts), over
 * the same pool and pace.
 */
import { setTimeout as delay } from "node:timers/promises";
import { IncomingWebhook } from "@slack/webhook";
import type { Dispatcher } from "undici";
import { parseRetryAfter } from "../api/retry-policy.js";
import { guardedAgent } from "../outbound/guarded-agent.js";
import { OutboundPolicy } from "../outbound/outbound-policy.js";
import type { SlackChannelSpec } from "../rules/rule.js";
import type { ChannelSender, SendContext } from "./channel-sender.js";
import { DEFAULT_PACE_INTERVAL_MS, type DestinationLimiter } from "./destination-limiter.js";
import { type HttpPostResult, httpOutcome, oneLine } from "./http-post.js";
import type { Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";
import { noRequest, slackFetch } from "./slack-fetch.js";
import { SlackLivingSender } from "./slack-living-sender.js";
import { type SlackMessage, slackMessage } from "./slack-message.js";
import { DEFAULT_MAX_PACE_WAIT_MS, paceSend } from "./slack-pace.js";
import type { SlackThreads } from "./slack-threads.js";

export { DEFAULT_MAX_PACE_WAIT_MS } from "./slack-pace.js";

/** How a Slack sender connects and paces. */
export interface SlackSenderOptions {
  /** Shared per-webhook (and per Web API channel) pacing (one Redis for every worker). */
  limiter: DestinationLimiter;
  /**
   * Where Web API channels' living messages are remembered (Redis); without it a
   * channel with `token` is a dead letter that says so.
   */
  threads?: SlackThreads;
  /** The Web API's base URL (default Slack's, `https://slack.com/api/`); tests give a look-alike. */
  slackApiUrl?: string;
  /** Least time between two messages to one webhook, ms (default 1000). */
  intervalMs?: number;
  /** Longest wait for a slot before giving the job back as a retry (default 15 s). */
  maxWaitMs?: number;
  /** Waits for a slot; injected in tests. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Connection pool; by default the sender's own, closed by `close()`, which connects
   * only where `outbound` allows. A pool given here is used as it is.
   */
  dispatcher?: Dispatcher;
  /** Internal destinations allowed (OUTBOUND_ALLOW); none by default. */
  outbound?: OutboundPolicy;
  /** Bound on one POST, ms (default 15 s). */
  timeoutMs?: number;
}

/** The Slack channel's sender. */
export class SlackSender implements ChannelSender<SlackChannelSpec> {
  readonly type = "slack" as const;
  readonly #limiter: DestinationLimiter;
  readonly #intervalMs: number;
  readonly #maxWaitMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #timeoutMs: number | undefined;
  readonly #living: SlackLivingSender | undefined;

  constructor(options: SlackSenderOptions) {
    this.#limiter = options.limiter;
    this.#intervalMs = options.intervalMs ?? DEFAULT_PACE_INTERVAL_MS;
    this.#maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_PACE_WAIT_MS;
    this.#sleep = options.sleep ?? ((ms) => delay(ms));
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      guardedAgent(options.outbound ?? OutboundPolicy.STRICT, { connections: 16 });
    this.#timeoutMs = options.timeoutMs;
    this.#living =
      options.threads === undefined
        ? undefined
        : new SlackLivingSender({
            threads: options.threads,
            limiter: this.#limiter,
            dispatcher: this.#dispatcher,
            intervalMs: this.#intervalMs,
            maxWaitMs: this.#maxWaitMs,
            sleep: this.#sleep,
            ...(options.slackApiUrl !== undefined ? { slackApiUrl: options.slackApiUrl } : {}),
            ...(this.#timeoutMs !== undefined ? { timeoutMs: this.#timeoutMs } : {}),
          });
  }

  /** One paced attempt: wait for the webhook's slot, check the job is still ours, POST, read Slack's verdict. */
  async send(
    notification: Notification,
    channel: SlackChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    if (channel.token !== undefined) {
      if (this.#living) return this.#living.send(notification, channel, context);
      return {
        status: "failed",
        reason: "not_configured",
        detail: "this Slack sender has no Redis for living messages (a channel with `token`)",
      };
    }
    const message = slackMessage(notification, channel, context.rule, context.zone);
    const paced = await paceSend(this.#limiter, channel.url, context, {
      intervalMs: this.#intervalMs,
      maxWaitMs: this.#maxWaitMs,
      sleep: this.#sleep,
      what: "webhook",
    });
    if (paced !== undefined) return paced;
    const result = await this.#post(channel.url, message);
    const nowMs = context.now();
    const outcome = slackOutcome(result, nowMs);
    if (result.kind === "response" && result.status === 429) {
      const until =
        nowMs + (outcome.status === "retry" ? (outcome.retryAfterMs ?? this.#intervalMs) : 0);
      await this.#limiter.pushBack(channel.url, until, nowMs).catch(() => undefined);
    }
    return outcome;
  }

  /**
   * POSTs a message with `@slack/webhook`, over our undici pool (its `fetch`): resolves
   * to the answer as it came, whatever the client made of it.
   */
  async #post(url: string, message: SlackMessage): Promise<HttpPostResult> {
    let answer: HttpPostResult | undefined;
    const fetch = slackFetch(
      {
        dispatcher: this.#dispatcher,
        ...(this.#timeoutMs !== undefined ? { timeoutMs: this.#timeoutMs } : {}),
      },
      (seen) => {
        answer = seen;
      },
    );
    const client = new IncomingWebhook(url, { fetch, retryConfig: { retries: 0 } });
    let failure: unknown;
    try {
      await client.send(message);
    } catch (err) {
      // Its error says less than the answer kept, which decides — when there is one.
      failure = err;
    }
    return answer ?? noRequest(failure);
  }

  /** Closes the sender's own connection pool (not a dispatcher it was given). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

/**
 * Slack's verdict: 2xx delivered (Slack answers `ok`); 429, 5xx and network faults
 * retried (honouring `Retry-After`); every other 4xx — `invalid_payload`,
 * `action_prohibited`, `no_service`, `channel_not_found`, `channel_is_archived` — refused
 * for good, naming Slack's error text.
 */
export function slackOutcome(result: HttpPostResult, nowMs: number): SendOutcome {
  if (result.kind === "response" && result.status >= 400 && result.status < 500) {
    if (result.status === 429) {
      const retryAfterMs = parseRetryAfter(result.headers["retry-after"], nowMs);
      return {
        status: "retry",
        reason: "rate_limited",
        detail: `Slack rate limit (HTTP 429${result.body ? `: ${oneLine(result.body)}` : ""})`,
        code: 429,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    const error = result.body ? oneLine(result.body) : "no error text";
    return {
      status: "failed",
      reason: "slack_refused",
      detail: `Slack refused the message: ${error} (HTTP ${result.status})`,
      code: result.status,
    };
  }
  return httpOutcome(result, nowMs);
}
