/**
 * An email notification as message fields: subject, a text and an HTML part, and the
 * headers that make mail about flights behave — a deterministic `Message-ID` (a
 * resend is recognisably the same message), threading per (rule, flight), and RFC 8058
 * one-click unsubscribe when the channel gives a URL. Pure: the same notification,
 * channel, rule, zone and sender always give the same message.
 */
import { createHash } from "node:crypto";
import { renderTemplate } from "../dispatch/alert-template.js";
import { describeAlert, describeChange } from "../dispatch/alert-text.js";
import type { EmailChannelSpec, Rule } from "../rules/rule.js";
import type { Notification } from "./notification.js";

/** Default email subject: flight, date and what changed (`rules test` shows the same). */
export const DEFAULT_SUBJECT = "{flight} {date}: {changes}";

/** Domain of Message-IDs when the sender has none (it always has one once validated). */
const FALLBACK_DOMAIN = "flightwatch.invalid";

/** The fields of one email, ready for the SMTP transport. */
export interface EmailMessage {
  from: string;
  /** The `To:` header: every recipient of the channel, also on a retry to fewer of them. */
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** `<notification id@sender's domain>`. */
  messageId: string;
  /** The synthetic root of the (rule, flight) thread. */
  inReplyTo: string;
  references: string;
  /** Other headers: `Auto-Submitted`, `X-Flightwatch-*`, `List-Unsubscribe(-Post)`. */
  headers: Record<string, string>;
}

/** The message of an email notification; `from` is `EMAIL_FROM` (`Name <address>` or an address). */
export function emailMessage(
  notification: Notification,
  channel: EmailChannelSpec,
  rule: Rule,
  zone: string,
  from: string,
): EmailMessage {
  const { alert } = notification;
  const domain = domainOf(from);
  const headline =
    channel.template === undefined
      ? describeAlert(alert, zone)
      : renderTemplate(channel.template, alert, rule, zone);
  const changes = alert.changes.map((c) => describeChange(c, zone));
  const footer = `Rule ${rule.id}${rule.description ? ` — ${rule.description}` : ""}`;
  const unsubscribe =
    channel.unsubscribeUrl === undefined ? undefined : new URL(channel.unsubscribeUrl).href;
  const root = threadRootId(notification.ruleId, alert.flight.key, domain);
  const headers: Record<string, string> = {
    // RFC 3834: keeps vacation responders from answering every alert.
    "Auto-Submitted": "auto-generated",
    "X-Flightwatch-Rule": rule.id,
    "X-Flightwatch-Flight": alert.flight.key,
  };
  if (unsubscribe !== undefined) {
    headers["List-Unsubscribe"] = `<${unsubscribe}>`;
    headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
  }
  return {
    from,
    to: [...channel.to],
    subject: oneLine(renderTemplate(channel.subject ?? DEFAULT_SUBJECT, alert, rule, zone)),
    text: textPart(headline, changes, footer, unsubscribe),
    html: htmlPart(headline, changes, footer, unsubscribe),
    messageId: `<${notification.id}@${domain}>`,
    inReplyTo: root,
    references: root,
    headers,
  };
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
  changes: string[],
  footer: string,
  unsubscribe: string | undefined,
): string {
  const lines = [headline, "", "Changes:", ...changes.map((c) => `- ${c}`), "", footer];
  if (unsubscribe !== undefined) lines.push(`Unsubscribe: ${unsubscribe}`);
  return `${lines.join("\n")}\n`;
}

function htmlPart(
  headline: string,
  changes: string[],
  footer: string,
  unsubscribe: string | undefined,
): string {
  // The template is plain text (the same one fills the text part), so the whole
  // rendered text is escaped, not only the values in it.
  const paragraph = escapeHtml(headline).replace(/\r?\n/g, "<br>\n");
  const items = changes.map((c) => `<li>${escapeHtml(c)}</li>`).join("\n");
  const link =
    unsubscribe === undefined ? "" : ` · <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a>`;
  return [
    "<!DOCTYPE html>",
    '<html><head><meta charset="utf-8"></head>',
    '<body style="font-family: sans-serif">',
    `<p>${paragraph}</p>`,
    `<ul>\n${items}\n</ul>`,
    `<p style="color: #666; font-size: small">${escapeHtml(footer)}${link}</p>`,
    "</body></html>",
    "",
  ].join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
