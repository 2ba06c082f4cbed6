/**
 * Notifications: one alert sent through one channel of its rule. The id is derived
 * from the alert id (itself derived from the rule, the flight and the change events
 * it carries) and the channel's name, so the same alert always gives the same
 * notification id — in every process, after every restart and on every retry. It is
 * the BullMQ job id (a second enqueue is a no-op), the webhook's `webhook-id` and
 * CloudEvents `id`, and the email's `Message-ID`: a receiver can always recognise a
 * repeat.
 */
import { createHash } from "node:crypto";
import type { Alert } from "../dispatch/alert.js";
import type { ChannelSpec, ChannelType, Rule } from "../rules/rule.js";

export type { ChannelType };

/** One alert to deliver through one channel. */
export interface Notification {
  /** `msg_` and 26 base32 characters (128 bits of SHA-256 of the alert id and channel name). */
  id: string;
  ruleId: string;
  /** Name of the rule's channel (unique within the rule). */
  channel: string;
  type: ChannelType;
  alert: Alert;
  /**
   * A replay (`flightwatch deliveries replay`): the id of the notification it sends
   * again, under an id of its own. It carries the alert as it was, takes no place in
   * its order (receivers asked for it again) and says it is a replay in every channel.
   */
  replayOf?: string;
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** The id of the notification of an alert through a rule's channel. */
export function notificationId(alertId: string, channelName: string): string {
  const digest = createHash("sha256").update(alertId).update("\n").update(channelName).digest();
  // 130 bits of base32 from the first 17 bytes; 26 characters keep 128+ bits.
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of digest.subarray(0, 17)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return `msg_${out}`;
}

/** The notification of an alert through one channel of its rule. */
export function notificationOf(alert: Alert, channel: ChannelSpec): Notification {
  return {
    id: notificationId(alert.id, channel.name),
    ruleId: alert.ruleId,
    channel: channel.name,
    type: channel.type,
    alert,
  };
}

/** The notifications of an alert: one per channel of its rule, in the rule's order. */
export function notificationsOf(alert: Alert, rule: Rule): Notification[] {
  return rule.channels.map((channel) => notificationOf(alert, channel));
}
