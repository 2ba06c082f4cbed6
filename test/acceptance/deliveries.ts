/**
 * What the receivers of a timeline got, as one list of deliveries whatever the
 * channel — rule, flight, changes, text, id and arrival time — and the matchers that
 * say which deliveries a timeline expects: `webhook("partner").about("KL1001")
 * .change({ field: "gate", new: "D7" })`.
 */
import type { SlackReceiver } from "../support/slack-receiver.js";
import type { SmtpReceiver } from "../support/smtp-receiver.js";
import type { WebhookReceiver } from "../support/webhook-receiver.js";

export type Channel = "slack" | "email" | "webhook";

/** One change as a webhook carries it. */
export interface DeliveredChange {
  kind: string;
  field: string;
  action: string;
  old?: unknown;
  new?: unknown;
  state?: string;
  /** Time changes: minutes moved since the value before (new − old). */
  shiftMinutes?: number;
  /** Time changes: minutes after the schedule. */
  delayMinutes?: number;
  correction?: boolean;
}

/** One accepted delivery. */
export interface Delivery {
  channel: Channel;
  ruleId: string;
  /** The operating flight number. */
  flight: string;
  /** Every number the flight is sold under (webhooks only; else just `flight`). */
  flightNames: string[];
  /** Structured changes (webhooks only). */
  changes: DeliveredChange[];
  /** What a person reads: the webhook's summary, the Slack text, the mail's subject and body. */
  text: string;
  /** Email recipients. */
  to: string[];
  /** The notification id (webhook-id, Message-ID); for Slack, which has none, path and text. */
  id: string;
  /** Epoch ms of arrival. */
  receivedAt: number;
  /** The notification's sequence (webhooks: CloudEvents extension or JSON field). */
  sequence?: number;
}

/** Reads the receivers. Refused or unsigned webhook requests are returned apart: they are always a failure. */
export function readDeliveries(
  receivers: { webhook: WebhookReceiver; slack: SlackReceiver; smtp: SmtpReceiver },
  options: { webhookOk?: (status: number) => boolean } = {},
): { deliveries: Delivery[]; unverified: string[] } {
  const deliveries: Delivery[] = [];
  const unverified: string[] = [];
  const ok = options.webhookOk ?? ((status: number) => status >= 200 && status < 300);
  for (const d of receivers.webhook.deliveries) {
    if (!d.verified) {
      unverified.push(`${d.id}: ${d.verifyError ?? "unverified"}`);
      continue;
    }
    if (d.status === undefined || !ok(d.status)) continue;
    const body = d.body as { data?: WebhookBody; sequence?: number } & WebhookBody;
    const data = body.data ?? body;
    deliveries.push({
      ...(typeof body.sequence === "number" ? { sequence: body.sequence } : {}),
      channel: "webhook",
      ruleId: data.rule?.id ?? "?",
      flight: data.flight?.mainFlight ?? "?",
      flightNames: data.flight?.flightNames ?? [],
      changes: data.changes ?? [],
      text: data.summary ?? "",
      to: [],
      id: d.id,
      receivedAt: d.receivedAt,
    });
  }
  for (const m of receivers.slack.messages()) {
    const payload = m.payload as SlackPayload;
    const header = payload.blocks?.find((b) => b.type === "header")?.text?.text ?? "";
    const context = (payload.blocks ?? [])
      .filter((b) => b.type === "context")
      .flatMap((b) => b.elements ?? [])
      .map((e) => e.text ?? "")
      .join(" ");
    const flight = header.split(" ")[0] ?? "?";
    deliveries.push({
      channel: "slack",
      ruleId: /Rule `([^`]+)`/.exec(context)?.[1] ?? "?",
      flight,
      flightNames: [flight],
      changes: [],
      text: `${header}\n${payload.text ?? ""}`,
      to: [],
      id: `${m.path}|${payload.text ?? ""}`,
      receivedAt: m.receivedAt,
    });
  }
  for (const mail of receivers.smtp.messages) {
    const key = mail.headers["x-flightwatch-flight"] ?? "";
    const flight = key.split(":").at(-1) ?? "?";
    deliveries.push({
      channel: "email",
      ruleId: mail.headers["x-flightwatch-rule"] ?? "?",
      flight,
      flightNames: [flight],
      changes: [],
      text: `${mail.headers.subject ?? ""}\n${decodeQuotedPrintable(bodyOf(mail.raw))}`,
      to: mail.to,
      id: mail.headers["message-id"] ?? "?",
      receivedAt: mail.receivedAt,
    });
  }
  deliveries.sort((a, b) => a.receivedAt - b.receivedAt);
  return { deliveries, unverified };
}

interface WebhookBody {
  summary?: string;
  rule?: { id?: string };
  flight?: { mainFlight?: string; flightNames?: string[] };
  changes?: DeliveredChange[];
}

interface SlackPayload {
  text?: string;
  blocks?: { type: string; text?: { text?: string }; elements?: { text?: string }[] }[];
}

/** A message's body: what follows its headers. */
function bodyOf(raw: string): string {
  const end = raw.search(/\r?\n\r?\n/);
  return end < 0 ? "" : raw.slice(end).trimStart();
}

/** Good enough to search a mail's text: soft line breaks joined, `=XX` decoded. */
function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/(?:=[0-9A-F]{2})+/g, (run) => {
    const bytes = run
      .split("=")
      .slice(1)
      .map((h) => Number.parseInt(h, 16));
    return Buffer.from(bytes).toString("utf8");
  });
}

/** A pattern for one change: every field given must be equal. */
export type ChangePattern = Partial<Record<keyof DeliveredChange, unknown>>;

/** Which deliveries an expectation is about. Immutable: each method returns a new matcher. */
export class Matcher {
  constructor(
    readonly channel: Channel,
    readonly ruleId: string,
    readonly flight?: string,
    readonly changePatterns: readonly ChangePattern[] = [],
    readonly texts: readonly (string | RegExp)[] = [],
    readonly recipient?: string,
  ) {}

  /** About this flight: its operating number or any number it is sold under. */
  about(flight: string): Matcher {
    return new Matcher(
      this.channel,
      this.ruleId,
      flight,
      this.changePatterns,
      this.texts,
      this.recipient,
    );
  }

  /** Carrying a change like `pattern` (webhooks: structured; see `saying` for Slack and email). */
  change(pattern: ChangePattern): Matcher {
    if (this.channel !== "webhook") {
      throw new Error(`${this.channel} deliveries carry text, not changes: use saying()`);
    }
    return new Matcher(
      this.channel,
      this.ruleId,
      this.flight,
      [...this.changePatterns, pattern],
      this.texts,
      this.recipient,
    );
  }

  /** Whose text contains `text` (or matches it). */
  saying(text: string | RegExp): Matcher {
    return new Matcher(
      this.channel,
      this.ruleId,
      this.flight,
      this.changePatterns,
      [...this.texts, text],
      this.recipient,
    );
  }

  /** Email to this address. */
  to(address: string): Matcher {
    return new Matcher(
      this.channel,
      this.ruleId,
      this.flight,
      this.changePatterns,
      this.texts,
      address,
    );
  }

  matches(d: Delivery): boolean {
    if (d.channel !== this.channel || d.ruleId !== this.ruleId) return false;
    if (
      this.flight !== undefined &&
      d.flight !== this.flight &&
      !d.flightNames.includes(this.flight)
    ) {
      return false;
    }
    if (this.recipient !== undefined && !d.to.includes(this.recipient)) return false;
    for (const text of this.texts) {
      if (typeof text === "string" ? !d.text.includes(text) : !text.test(d.text)) return false;
    }
    return this.changePatterns.every((pattern) => d.changes.some((c) => changeMatches(c, pattern)));
  }

  toString(): string {
    const parts = [`${this.channel}(${this.ruleId})`];
    if (this.flight) parts.push(`about ${this.flight}`);
    for (const p of this.changePatterns) parts.push(`change ${JSON.stringify(p)}`);
    for (const t of this.texts) parts.push(`saying ${String(t)}`);
    if (this.recipient) parts.push(`to ${this.recipient}`);
    return parts.join(" ");
  }
}

function changeMatches(change: DeliveredChange, pattern: ChangePattern): boolean {
  return Object.entries(pattern).every(
    ([key, want]) => JSON.stringify(change[key as keyof DeliveredChange]) === JSON.stringify(want),
  );
}

/** Deliveries by webhook to rule `ruleId`. */
export const webhook = (ruleId: string) => new Matcher("webhook", ruleId);
/** Slack messages of rule `ruleId`. */
export const slack = (ruleId: string) => new Matcher("slack", ruleId);
/** Mail of rule `ruleId`. */
export const email = (ruleId: string) => new Matcher("email", ruleId);
