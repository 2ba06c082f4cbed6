/**
 * An email notification as message fields, one message per recipient: subject, a text
 * and an HTML part, and the headers that make mail about flights behave — a
 * deterministic `Message-ID` per recipient (a resend is recognisably the same message),
 * threading per (rule, flight), and RFC 8058 one-click unsubscribe when the channel
 * gives a URL (the recipient's own, with `{recipient}` in it). Pure: the same
 * notification, channel, rule, zone, sender and recipient always give the same message.
 */
import { createHash } from "node:crypto";
import { languageOf, renderTemplate } from "../render/alert-template.js";
import {
  clipText,
  describeAlert,
  describeChange,
  describeFlight,
  ruleFlightName,
  type TextOptions,
} from "../render/alert-text.js";
import { type Phrases, phrasesOf } from "../render/language.js";
import type { EmailChannelSpec, Rule } from "../rules/rule.js";
import type { Notification } from "./notification.js";

/** Default email subject: flight, date and what changed (`rules test` shows the same). */
export const DEFAULT_SUBJECT = "{flight} {date}: {changes}";

/**
 * Longest value from the upstream an email shows — a gate, a route, the codeshares — in
 * characters. The upstream bounds none of them; real ones are a few characters long.
 */
export const EMAIL_VALUE_CHARS = 100;

/** Longest subject, in characters (with a template's own text and labels included). */
export const EMAIL_SUBJECT_CHARS = 200;

/** Domain of Message-IDs when the sender has none (it always has one once validated). */
const FALLBACK_DOMAIN = "flightwatch.invalid";

/** The fields of one email, ready for the SMTP transport. */
export interface EmailMessage {
  from: string;
  /** The `To:` header: this message's one recipient, who sees no other. */
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<notification id.recipient tag@sender's domain>` (see `emailMessageId`). */
  messageId: string;
  /** The synthetic root of the (rule, flight) thread. */
  inReplyTo: string;
  references: string;
  /** Other headers: `Auto-Submitted`, `X-Flightwatch-*`, `List-Unsubscribe(-Post)`. */
  headers: Record<string, string>;
}

/**
 * The message of an email notification to one of its channel's recipients; `from` is
 * `EMAIL_FROM` (`Name <address>` or an address).
 */
export function emailMessage(
  notification: Notification,
  channel: EmailChannelSpec,
  rule: Rule,
  zone: string,
  from: string,
  recipient: string,
): EmailMessage {
  const { alert } = notification;
  const domain = domainOf(from);
  const cut = { maxValueChars: EMAIL_VALUE_CHARS };
  // Named by the number the rule knows the flight by: the codeshare on the passenger's ticket.
  const text: TextOptions = {
    ...cut,
    flightName: ruleFlightName(alert.flight, rule),
    ...languageOf(rule),
  };
  const words = phrasesOf(rule.language);
  const headline =
    channel.template === undefined
      ? describeAlert(alert, zone, text)
      : renderTemplate(channel.template, alert, rule, zone, cut);
  // A reminder lists the flight it is about; an alert, its changes.
  const changes =
    alert.reminder !== undefined
      ? [
          describeFlight(alert.flight, alert.current?.route, zone, {
            ...text,
            current: alert.current,
          }),
        ]
      : alert.changes.map((c) =>
          describeChange(c, zone, { ...cut, current: alert.current, ...languageOf(rule) }),
        );
  const heading = alert.reminder !== undefined ? words.reminder : words.changes;
  // The rule's id is for support (X-Flightwatch-Rule), not for the people who read the
  // mail: they read its description, free text written for them.
  // The labels (a booking reference) are echoed, for the people who read it too.
  const labels = Object.entries(alert.labels)
    .map(([name, value]) => `${name}: ${clipText(value, EMAIL_VALUE_CHARS)}`)
    .join(", ");
  const footer = [rule.description ?? "", labels].filter((part) => part !== "").join("\n");
  const unsubscribe =
    channel.unsubscribeUrl === undefined
      ? undefined
      : unsubscribeUrlFor(channel.unsubscribeUrl, recipient);
  const root = threadRootId(notification.ruleId, alert.flight.key, domain);
  const headers: Record<string, string> = {
    // RFC 3834: keeps vacation responders from answering every alert.
    "Auto-Submitted": "auto-generated",
    // One notification, one id, however many recipients: support finds each message by it.
    "X-Flightwatch-Notification": notification.id,
    "X-Flightwatch-Rule": rule.id,
    // The key holds the upstream's main flight number, which nothing bounds either.
    "X-Flightwatch-Flight": clipText(alert.flight.key, EMAIL_SUBJECT_CHARS),
  };
  if (alert.test) headers["X-Flightwatch-Test"] = "true";
  if (notification.replayOf !== undefined) {
    headers["X-Flightwatch-Replay-Of"] = notification.replayOf;
  }
  if (unsubscribe !== undefined) {
    headers["List-Unsubscribe"] = `<${unsubscribe}>`;
    headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
  }
  return {
    from,
    to: recipient,
    subject: clipText(
      `${alert.test ? "TEST — " : ""}${notification.replayOf !== undefined ? "Replay — " : ""}${oneLine(renderTemplate(channel.subject ?? DEFAULT_SUBJECT, alert, rule, zone, cut))}`,
      EMAIL_SUBJECT_CHARS,
    ),
    text: textPart(headline, heading, changes, footer, unsubscribe, words),
    html: htmlPart(headline, changes, footer, unsubscribe, words),
    messageId: emailMessageId(notification.id, recipient, domain),
    inReplyTo: root,
    references: root,
    headers,
  };
}

/**
 * The `Message-ID` of a notification's message to one recipient: the notification id
 * (the same on every attempt) and a tag of the recipient (a hash of the address, case
 * folded), so each recipient's message has an id of its own, the same on every resend.
 */
export function emailMessageId(notificationId: string, recipient: string, domain: string): string {
  const tag = createHash("sha256").update(recipient.trim().toLowerCase()).digest("hex");
  return `<${notificationId}.${tag.slice(0, 12)}@${domain}>`;
}

/** The placeholder of `unsubscribe_url` that stands for the recipient's address. */
const RECIPIENT_PLACEHOLDER = "{recipient}";

/**
 * The one-click unsubscribe URL of one recipient: the channel's, with `{recipient}`
 * replaced by the address (percent-encoded). RFC 8058's POST names nobody, so a URL
 * shared by several recipients can only unsubscribe them all, or none.
 */
export function unsubscribeUrlFor(url: string, recipient: string): string {
  return new URL(url.replaceAll(RECIPIENT_PLACEHOLDER, encodeURIComponent(recipient))).href;
}

/**
 * The id every message about one flight from one rule refers to. It is never sent
 * itself: clients that thread by `References` (Thunderbird, Apple Mail, mutt) group the
 * messages under it without needing to know which one went first.
 */
export function threadRootId(ruleId: string, flightKey: string, domain: string): string {
  const digest = createHash("sha256").update(ruleId).update("\n").update(flightKey).digest("hex");
  return `<thread-${digest.slice(0, 32)}@${domain}>`;
}

/** Text made safe to place in HTML, as element content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** The domain of a sender (`Name <a@example.com>` or `a@example.com`). */
export function domainOf(from: string): string {
  const address = /<([^<>]*)>\s*$/.exec(from)?.[1] ?? from;
  const at = address.lastIndexOf("@");
  const domain = at < 0 ? "" : address.slice(at + 1).trim();
  return /^[A-Za-z0-9.-]+$/.test(domain) ? domain : FALLBACK_DOMAIN;
}

function textPart(
  headline: string,
  heading: string,
  changes: string[],
  footer: string,
  unsubscribe: string | undefined,
  words: Phrases,
): string {
  const lines = [headline, "", heading, ...changes.map((c) => `- ${c}`)];
  if (footer !== "" || unsubscribe !== undefined) lines.push("");
  if (footer !== "") lines.push(footer);
  if (unsubscribe !== undefined) lines.push(`${words.unsubscribe}: ${unsubscribe}`);
  return `${lines.join("\n")}\n`;
}

function htmlPart(
  headline: string,
  changes: string[],
  footer: string,
  unsubscribe: string | undefined,
  words: Phrases,
): string {
  // The template is plain text (the same one fills the text part), so the whole
  // rendered text is escaped, not only the values in it.
  const paragraph = escapeHtml(headline).replace(/\r?\n/g, "<br>\n");
  const items = changes.map((c) => `<li>${escapeHtml(c)}</li>`).join("\n");
  const link =
    unsubscribe === undefined
      ? ""
      : `<a href="${escapeHtml(unsubscribe)}">${escapeHtml(words.unsubscribe)}</a>`;
  const small = [escapeHtml(footer).replace(/\n/g, "<br>\n"), link]
    .filter((part) => part !== "")
    .join(" · ");
  return [
    "<!DOCTYPE html>",
    '<html><head><meta charset="utf-8"></head>',
    '<body style="font-family: sans-serif">',
    `<p>${paragraph}</p>`,
    `<ul>\n${items}\n</ul>`,
    ...(small === "" ? [] : [`<p style="color: #666; font-size: small">${small}</p>`]),
    "</body></html>",
    "",
  ].join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
