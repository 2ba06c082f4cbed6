/**
 * Sends notifications to Slack incoming webhooks through Slack's own client,
 * `@slack/webhook` (v8): it builds the request — the message as JSON, its User-Agent,
 * no redirects followed. Given our `fetch`, the request goes out over undici, through
 * the outbound policy and our timeouts, and the raw answer is kept: its retries are
 * off, and what follows stays ours. Each send first takes the webhook's next slot from
 * the shared `DestinationLimiter`, so all workers together stay at about one message
 * per second per webhook; a 429 pushes that webhook's slots back for everyone (the
 * client fails a 429 at once and drops `Retry-After`; we read it from the answer).
 * Slack's answers become outcomes: `ok` delivered, 429 and 5xx and network faults
 * retried on the channel's schedule, its 4xx error texts (`no_service`, …) refused for
 * good.
 */
import { setTimeout as delay } from "node:timers/promises";
import { IncomingWebhook } from "@slack/webhook";
import type { Dispatcher } from "undici";
import { parseRetryAfter } from "../api/retry-policy.js";
import { guardedAgent } from "../outbound/guarded-agent.js";
import { OutboundPolicy } from "../outbound/outbound-policy.js";
import type { SlackChannelSpec } from "../rules/rule.js";
import { type ChannelSender, type SendContext, stillMine } from "./channel-sender.js";
import { DEFAULT_PACE_INTERVAL_MS, type DestinationLimiter } from "./destination-limiter.js";
import { type HttpPostResult, httpOutcome, oneLine, postJson } from "./http-post.js";
import type { Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";
import { type SlackMessage, slackMessage } from "./slack-message.js";

/** Longest wait for a slot inside one attempt; beyond it the attempt is handed back as a retry. */
export const DEFAULT_MAX_PACE_WAIT_MS = 15_000;

/** How a Slack sender connects and paces. */
export interface SlackSenderOptions {
  /** Shared per-webhook pacing (one Redis for every worker). */
  limiter: DestinationLimiter;
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
  }

  /** One paced attempt: wait for the webhook's slot, check the job is still ours, POST, read Slack's verdict. */
  async send(
    notification: Notification,
    channel: SlackChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    const message = slackMessage(notification, channel, context.rule, context.zone);
    let slot: Awaited<ReturnType<DestinationLimiter["reserve"]>>;
    try {
      slot = await this.#limiter.reserve(channel.url, context.now(), {
        intervalMs: this.#intervalMs,
        maxWaitMs: this.#maxWaitMs,
      });
    } catch (err) {
      // Without the shared pace a send could break Slack's limit for every worker.
      const message = err instanceof Error ? err.message : String(err);
      return { status: "retry", reason: "connection", detail: `pace limiter: ${message}` };
    }
    if (!slot.reserved) {
      return {
        status: "retry",
        reason: "rate_limited",
        detail: `paced: this webhook's next free slot is ${slot.waitMs} ms away`,
        retryAfterMs: slot.waitMs,
      };
    }
    if (slot.waitMs > 0) {
      await this.#sleep(slot.waitMs);
      // A 429 that came in while this send waited for its slot holds it back too.
      const heldMs = await this.#limiter.heldFor(channel.url, context.now()).catch(() => 0);
      if (heldMs > 0) {
        return {
          status: "retry",
          reason: "rate_limited",
          detail: `held back: this webhook answered 429, next send in ${heldMs} ms`,
          retryAfterMs: heldMs,
        };
      }
    }
    // The wait may have outlived this worker's lock: the job may be another's by now.
    if (!(await stillMine(context, slot.waitMs > 0))) return { status: "abandoned" };
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
    const fetch = async (target: string | URL | Request, init?: RequestInit) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => {
        headers[name] = value;
      });
      // The client's name and version, not the host's Node version and kernel release.
      headers["user-agent"] = `${(headers["user-agent"] ?? "").split(" ")[0]} flightwatch`.trim();
      answer = await postJson(String(target), String(init?.body ?? ""), headers, {
        dispatcher: this.#dispatcher,
        ...(this.#timeoutMs !== undefined ? { timeoutMs: this.#timeoutMs } : {}),
      });
      if (answer.kind !== "response") throw new Error(answer.message);
      return new Response(NULL_BODY.has(answer.status) ? null : answer.body, {
        status: answer.status,
        headers: responseHeaders(answer.headers),
      });
    };
    const client = new IncomingWebhook(url, { fetch, retryConfig: { retries: 0 } });
    let failure: unknown;
    try {
      await client.send(message);
    } catch (err) {
      // Its error says less than the answer kept, which decides — when there is one.
      failure = err;
    }
    if (answer !== undefined) return answer;
    const why = failure instanceof Error ? failure.message : String(failure);
    return { kind: "network", errorCode: undefined, message: `no request was made: ${why}` };
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

/** Statuses whose Fetch API response must have no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** undici's header record as the Fetch API's headers (repeated ones joined). */
function responseHeaders(headers: Record<string, string | string[] | undefined>): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
  }
  return out;
}
