/**
 * The console channel: prints each notification to stdout — a short block in a
 * terminal, one JSON object per line when piped — for the demo and for debugging a
 * rule without a real receiver. The flight's text comes from the same pure
 * description every channel uses. It can stand in for any channel (`watch
 * --console`): the notification is printed with where it would have gone.
 */
import type { Alert } from "../dispatch/alert.js";
import {
  describeAlert,
  describeChange,
  describeFlight,
  describeReminder,
} from "../render/alert-text.js";
import type { ChannelSpec, Rule } from "../rules/rule.js";
import { toLocalDateTime } from "../time/local-time.js";
import type { ChannelSender, SendContext } from "./channel-sender.js";
import { destinationOf } from "./endpoint.js";
import type { Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";
import { slackLivingText } from "./slack-living-message.js";

/** Where and how the console channel writes. */
export interface ConsoleSenderOptions {
  /** Writes one chunk; may return a promise to apply back-pressure. */
  write: (text: string) => void | Promise<void>;
  /** JSON lines (piped) instead of the readable form (a terminal). */
  json: boolean;
}

/** Prints notifications (of console channels, or of any channel in a dry run). */
export class ConsoleSender implements ChannelSender {
  readonly type = "console" as const;
  readonly #options: ConsoleSenderOptions;
  /** Living messages posted in this dry run (rule, channel, flight), the oldest first. */
  readonly #living = new Set<string>();

  constructor(options: ConsoleSenderOptions) {
    this.#options = options;
  }

  async send(
    notification: Notification,
    channel: ChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    const living = this.#livingStep(notification, channel);
    const text = this.#options.json
      ? `${JSON.stringify(consoleRecord(notification, channel, context.rule, context.zone, living))}\n`
      : consoleBlock(notification, channel, context.rule, context.zone, living);
    try {
      await this.#options.write(text);
      return { status: "delivered" };
    } catch (err) {
      return { status: "retry", reason: "connection", detail: `stdout: ${(err as Error).message}` };
    }
  }

  async close(): Promise<void> {}

  /**
   * What a Slack channel of living messages would do with the notification: post the
   * flight's message (the first about it), update it in place, or only reply in its
   * thread (a reminder); undefined for other channels. Remembered for this process only.
   */
  #livingStep(notification: Notification, channel: ChannelSpec): LivingStep | undefined {
    if (channel.type !== "slack" || channel.token === undefined) return undefined;
    const key = `${notification.ruleId}\n${channel.name}\n${notification.alert.flight.key}`;
    // A reminder only replies in the thread of a message posted already.
    if (this.#living.has(key)) return notification.alert.reminder ? "replied" : "updated";
    this.#living.add(key);
    if (this.#living.size > LIVING_REMEMBERED) {
      const oldest = this.#living.values().next().value;
      if (oldest !== undefined) this.#living.delete(oldest);
    }
    return "posted";
  }
}

/** What a living message (slack-living-sender.ts) does for a notification. */
export type LivingStep = "posted" | "updated" | "replied";

/** Living messages a dry run remembers as posted. */
const LIVING_REMEMBERED = 10_000;

const LIVING_WORDS: Readonly<Record<LivingStep, string>> = {
  posted: "living message posted",
  updated: "living message updated in place",
  replied: "living message left as it is",
};

/** The JSON form: ids, rule, flight, changes and the sentence a person would read. */
export function consoleRecord(
  notification: Notification,
  channel: ChannelSpec,
  rule: Rule,
  zone: string,
  living?: LivingStep,
) {
  const { alert } = notification;
  return {
    id: notification.id,
    rule: rule.id,
    channel: notification.channel,
    type: channel.type,
    ...(channel.type === "console" ? {} : { destination: destinationOf(channel) }),
    labels: alert.labels,
    flight: alert.flight,
    changes: alert.changes,
    ...(alert.reminder !== undefined ? { reminder: alert.reminder } : {}),
    summary: describeAlert(alert, zone),
    ...(living !== undefined
      ? { living: { step: living, message: slackLivingText(alert, rule, zone) } }
      : {}),
    decidedAt: new Date(alert.decidedAt).toISOString(),
  };
}

/**
 * The terminal form: a header line with time, rule and flight, then one line per change
 * (or the reminder); for a Slack channel of living messages, the flight's message as it
 * now stands first, and the changes as the reply in its thread.
 */
export function consoleBlock(
  notification: Notification,
  channel: ChannelSpec,
  rule: Rule,
  zone: string,
  living?: LivingStep,
): string {
  const { alert } = notification;
  const at = toLocalDateTime(alert.decidedAt, zone).slice(11, 19);
  // In a dry run (`--console`) each notification says where it would have gone.
  const via =
    channel.type !== "console"
      ? ` → ${channel.type}${channel.name === channel.type ? "" : ` ${channel.name}`} ${destinationOf(channel)}`
      : channel.name === "console"
        ? ""
        : ` (${channel.name})`;
  const head = `📣 ${at} ${rule.id}${via}: ${describeFlight(alert.flight, routeOf(alert), zone)}`;
  const what =
    alert.reminder !== undefined
      ? [`⏰ ${describeReminder(alert, zone)}`]
      : alert.changes.map((c) => describeChange(c, zone));
  if (living === undefined) return `${head}\n${what.map((line) => `     ${line}\n`).join("")}`;
  const message =
    living === "replied"
      ? []
      : slackLivingText(alert, rule, zone).map((line) => `     │ ${line}\n`);
  const thread = what.map((line, i) => `     ${i === 0 ? "↳" : " "} ${line}\n`);
  return `${head}\n     ✎ ${LIVING_WORDS[living]}:\n${message.join("")}${thread.join("")}`;
}

function routeOf(alert: Alert): readonly string[] | undefined {
  return alert.current?.route;
}
