/**
 * The console channel: prints each notification to stdout — a short block in a
 * terminal, one JSON object per line when piped — for the demo and for debugging a
 * rule without a real receiver. The flight's text comes from the same pure
 * description every channel uses. It can stand in for any channel (`watch
 * --console`): the notification is printed with where it would have gone.
 */
import type { Alert } from "../dispatch/alert.js";
import { describeAlert, describeChange, describeFlight } from "../render/alert-text.js";
import type { ChannelSpec, Rule } from "../rules/rule.js";
import { toLocalDateTime } from "../time/local-time.js";
import type { ChannelSender, SendContext } from "./channel-sender.js";
import { destinationOf } from "./endpoint.js";
import type { Notification } from "./notification.js";
import type { SendOutcome } from "./send-outcome.js";

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

  constructor(options: ConsoleSenderOptions) {
    this.#options = options;
  }

  async send(
    notification: Notification,
    channel: ChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    const text = this.#options.json
      ? `${JSON.stringify(consoleRecord(notification, channel, context.rule, context.zone))}\n`
      : consoleBlock(notification, channel, context.rule, context.zone);
    try {
      await this.#options.write(text);
      return { status: "delivered" };
    } catch (err) {
      return { status: "retry", reason: "connection", detail: `stdout: ${(err as Error).message}` };
    }
  }

  async close(): Promise<void> {}
}

/** The JSON form: ids, rule, flight, changes and the sentence a person would read. */
export function consoleRecord(
  notification: Notification,
  channel: ChannelSpec,
  rule: Rule,
  zone: string,
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
    summary: describeAlert(alert, zone),
    decidedAt: new Date(alert.decidedAt).toISOString(),
  };
}

/** The terminal form: a header line with time, rule and flight, then one line per change. */
export function consoleBlock(
  notification: Notification,
  channel: ChannelSpec,
  rule: Rule,
  zone: string,
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
  return `${head}\n${alert.changes.map((c) => `     ${describeChange(c, zone)}\n`).join("")}`;
}

function routeOf(alert: Alert): readonly string[] | undefined {
  return alert.current?.route;
}
