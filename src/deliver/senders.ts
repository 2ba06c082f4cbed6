/**
 * The senders a process delivers with, built from the checked configuration: webhooks
 * and Slack over undici (Slack paced per webhook or channel through Redis, and its living
 * messages remembered there), email over pooled SMTP
 * (`SMTP_URL`/`EMAIL_FROM`), and the console. With `consoleOnly` every channel
 * prints to the console instead (a dry run for demos and rule debugging). Webhooks and
 * Slack connect only to public addresses and those `outbound` allows (OUTBOUND_ALLOW).
 */

import type { OutboundPolicy } from "../outbound/outbound-policy.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { ChannelSender } from "./channel-sender.js";
import { ConsoleSender, type ConsoleSenderOptions } from "./console-sender.js";
import { DestinationLimiter } from "./destination-limiter.js";
import { EmailSender } from "./email-sender.js";
import type { EmailSettings } from "./email-settings.js";
import type { ChannelType } from "./notification.js";
import { SlackSender } from "./slack-sender.js";
import { SlackThreads } from "./slack-threads.js";
import { WebhookSender } from "./webhook-sender.js";

/** What the senders are built from. */
export interface SendersOptions {
  /** SMTP_URL and EMAIL_FROM as the configuration read them; none: email is a dead letter that says so. */
  email?: EmailSettings;
  /** For the Slack pacing and living messages (plain commands). */
  redis: RedisConnection;
  keys: RedisKeys;
  console: ConsoleSenderOptions;
  /** Print every channel's notifications instead of sending them. */
  consoleOnly?: boolean;
  /** Internal destinations webhooks and Slack may reach (OUTBOUND_ALLOW); none when absent. */
  outbound?: OutboundPolicy;
  /** Slack's Web API base for living messages (SLACK_API_URL); Slack's own when absent. */
  slackApiUrl?: string;
}

/** One sender per channel type; without email settings, email notifications are dead letters that say so. */
export function buildSenders(options: SendersOptions): Record<ChannelType, ChannelSender> {
  const console = new ConsoleSender(options.console);
  const outbound = options.outbound ? { outbound: options.outbound } : {};
  if (options.consoleOnly) {
    return { console, webhook: console, slack: console, email: console };
  }
  return {
    console,
    webhook: new WebhookSender(outbound),
    slack: new SlackSender({
      limiter: new DestinationLimiter(options.redis, options.keys),
      threads: new SlackThreads(options.redis, options.keys),
      ...outbound,
      ...(options.slackApiUrl !== undefined ? { slackApiUrl: options.slackApiUrl } : {}),
    }),
    email: new EmailSender(options.email),
  };
}
