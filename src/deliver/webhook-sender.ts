/**
 * The webhook channel: one signed JSON POST per attempt, per Standard Webhooks. The
 * notification id is the `webhook-id` on every attempt, so a receiver deduplicates
 * repeats (retries, re-runs after a crash) on it; the timestamp is the attempt's own,
 * and the signature covers id, timestamp and body. The verdict is the shared HTTP one
 * with the webhook's own rule on top: 410 Gone disables the endpoint.
 */
import { Webhook } from "standardwebhooks";
import { Agent, type Dispatcher } from "undici";
import { VERSION } from "../cli/version.js";
import type { WebhookChannelSpec } from "../rules/rule.js";
import type { ChannelSender, SendContext } from "./channel-sender.js";
import { httpOutcome, postJson } from "./http-post.js";
import type { Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";
import { webhookMessage } from "./webhook-message.js";

/** How a webhook sender connects. */
export interface WebhookSenderOptions {
  /** Connection pool; by default the sender's own keep-alive Agent (closed by `close()`). */
  dispatcher?: Dispatcher;
  /** Bound on one attempt, ms (default 15 s). */
  timeoutMs?: number;
}

/** Connections kept per endpoint: enough for the delivery workers' ~50 concurrent sends. */
const CONNECTIONS_PER_ORIGIN = 64;

/** The `user-agent` of every webhook request. */
export const WEBHOOK_USER_AGENT = `flightwatch/${VERSION}`;

/** Sends notifications to webhook endpoints (Standard Webhooks, CloudEvents or plain JSON). */
export class WebhookSender implements ChannelSender<WebhookChannelSpec> {
  readonly type = "webhook" as const;
  private readonly dispatcher: Dispatcher;
  private readonly ownAgent: Agent | undefined;
  private readonly timeoutMs: number | undefined;
  // Decoding a secret's base64 on every send would be wasted work at thousands per second.
  private readonly signers = new Map<string, Webhook>();

  constructor(options: WebhookSenderOptions = {}) {
    this.ownAgent = options.dispatcher
      ? undefined
      : new Agent({
          connections: CONNECTIONS_PER_ORIGIN,
          keepAliveTimeout: 30_000,
          keepAliveMaxTimeout: 600_000,
        });
    this.dispatcher = options.dispatcher ?? (this.ownAgent as Agent);
    this.timeoutMs = options.timeoutMs;
  }

  /** One attempt: render, sign, POST, judge. */
  async send(
    notification: Notification,
    channel: WebhookChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    const message = webhookMessage(notification, channel, context);
    const nowMs = context.now();
    const headers: Record<string, string> = {
      "content-type": message.contentType,
      "user-agent": WEBHOOK_USER_AGENT,
      "webhook-id": notification.id,
      "webhook-timestamp": String(Math.floor(nowMs / 1000)),
    };
    if (channel.secret !== undefined) {
      const signer = this.signer(channel.secret);
      if (!signer) {
        return {
          status: "failed",
          reason: "not_configured",
          detail: `channel ${channel.name}: the secret is not a Standard Webhooks secret (whsec_ and base64)`,
        };
      }
      headers["webhook-signature"] = signer.sign(notification.id, new Date(nowMs), message.body);
    }
    const result = await postJson(channel.url, message.body, headers, {
      dispatcher: this.dispatcher,
      ...(this.timeoutMs !== undefined ? { timeoutMs: this.timeoutMs } : {}),
    });
    // An HTTP-date `Retry-After` is measured from when the answer came, not from the send.
    const outcome = httpOutcome(result, context.now());
    if (outcome.status === "failed" && outcome.code === 410) {
      return { ...outcome, reason: "gone", disableEndpoint: true };
    }
    return outcome;
  }

  /** Closes the sender's own Agent; a dispatcher given in the options is the caller's to close. */
  async close(): Promise<void> {
    await this.ownAgent?.close();
  }

  private signer(secret: string): Webhook | undefined {
    let signer = this.signers.get(secret);
    if (!signer) {
      try {
        signer = new Webhook(secret);
      } catch {
        return undefined;
      }
      this.signers.set(secret, signer);
    }
    return signer;
  }
}
