/**
 * The one shape every channel implements (Slack, email, webhook, console): render a
 * notification for the target and send it once. Rendering is pure (see each
 * channel's `*-message.ts`); the sender is the thin shell that does I/O.
 */
import type { ChannelSpec, Rule } from "../rules/rule.js";
import type { Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";

/** What a sender may use besides the notification and its channel. */
export interface SendContext {
  /** The rule as live now (templates, labels, description). */
  rule: Rule;
  /** Airport time zone for local times in messages. */
  zone: string;
  /** Wall clock, epoch ms (Standard Webhooks timestamps, `Retry-After` dates). */
  now: () => number;
  /** 1 for the first attempt. */
  attempt: number;
  /** Email: the recipients still to deliver to (all of `to` on the first attempt). */
  recipients?: string[];
  /**
   * Whether the attempt is still this process's to make (its job's lock still held,
   * and now renewed). Senders ask it last thing before the network send — after any
   * pace wait — and return `{ status: "abandoned" }` on false: a job taken for
   * stalled meanwhile is another worker's, and two sends would be a duplicate that
   * Slack and mail cannot recognise. `waited`: the sender waited (a pace slot), so
   * the lock may have run out even though the attempt began moments ago. Absent
   * outside a delivery worker.
   */
  stillMine?: (waited: boolean) => Promise<boolean>;
}

/** The sender's last check before the network send: false when the job changed hands. */
export async function stillMine(context: SendContext, waited = false): Promise<boolean> {
  return context.stillMine === undefined || (await context.stillMine(waited));
}

/** Sends notifications through one channel type. */
export interface ChannelSender<C extends ChannelSpec = ChannelSpec> {
  readonly type: C["type"];
  /**
   * Sends of this type worth having in flight in one process (the email pool's size);
   * absent: the delivery workers' default for the type.
   */
  readonly concurrency?: number;
  /** One attempt. Resolves to the outcome; rejects only on a bug, never for a failed delivery. */
  send(notification: Notification, channel: C, context: SendContext): Promise<SendOutcome>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}
