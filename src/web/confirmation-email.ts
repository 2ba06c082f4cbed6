/**
 * The one email a subscription made on the passenger pages gets before it is confirmed:
 * the link to the confirm page (whose button confirms, so a link scanner that fetches
 * it confirms nothing). Built as the alerts' emails are — the same message fields and
 * MIME text (email-mime.ts), the same SMTP settings and connection options
 * (`smtpTransportOptions`) — and sent at once, while the passenger waits for the page.
 */
import { randomBytes } from "node:crypto";
import nodemailer, { type Transporter } from "nodemailer";
import { domainOf, type EmailMessage, escapeHtml } from "../deliver/email-message.js";
import { emailMime } from "../deliver/email-mime.js";
import { type EmailSenderOptions, smtpTransportOptions } from "../deliver/email-sender.js";
import type { EmailSettings } from "../deliver/email-settings.js";
import type { Language } from "../render/language.js";
import { type About, wordsOf } from "./page-words.js";

/** What the confirmation of one subscription says. */
export interface ConfirmationOptions {
  subscriptionId: string;
  about: About;
  /**
   * `confirm` (the default): the link of the confirm page. `already`: the address asked
   * again for a flight it follows; the link of its flight's status page.
   */
  kind?: "confirm" | "already";
  /** The confirm (or status) page's absolute URL (signed). */
  link: string;
  language: Language;
  /** How long the link works, hours (the words say it). */
  hours: number;
  /** EMAIL_FROM. */
  from: string;
}

/** The confirmation message (the same but for a random part of its Message-ID). */
export function confirmationMessage(o: ConfirmationOptions): EmailMessage {
  const w = wordsOf(o.language);
  const already = o.kind === "already";
  const text = `${already ? w.alreadyText(o.about, o.link) : w.mailText(o.about, o.link, o.hours)}\n`;
  const button = already ? w.alreadyButton : w.mailButton;
  const html = [
    "<!DOCTYPE html>",
    `<html lang="${o.language}"><head><meta charset="utf-8"></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    ...text
      .trimEnd()
      .split("\n\n")
      .map((para) =>
        para.includes(o.link)
          ? `<p>${escapeHtml(para.replace(o.link, "").trim())}<br>\n<a href="${escapeHtml(o.link)}" style="display: inline-block; margin-top: 0.5em; padding: 0.6em 1.2em; background: #0b57d0; color: #ffffff; font-weight: bold; text-decoration: none; border-radius: 4px">${escapeHtml(button)}</a></p>`
          : `<p>${escapeHtml(para).replace(/\n/g, "<br>\n")}</p>`,
      ),
    "</body></html>",
    "",
  ].join("\n");
  return {
    from: o.from,
    to: o.about.email,
    subject: (already ? w.alreadySubject : w.mailSubject)(o.about.flight, o.about.date),
    text,
    html,
    // Each send its own Message-ID: a mailbox may drop a second message with the same one.
    messageId: `<${already ? "already" : "confirm"}-${o.subscriptionId}.${randomBytes(6).toString("hex")}@${domainOf(o.from)}>`,
    inReplyTo: "",
    references: "",
    headers: {
      // RFC 3834: keeps vacation responders from answering it.
      "Auto-Submitted": "auto-generated",
      "X-Flightwatch-Confirmation": o.subscriptionId,
    },
  };
}

/** How a send ended: sent, the address refused for good (a 5xx), or failed for now. */
export type ConfirmationOutcome = "sent" | "refused" | "failed";

/** Sends confirmations over SMTP_URL's server, on one pooled connection. */
export class ConfirmationMailer {
  readonly #settings: EmailSettings;
  readonly #transport: Transporter;

  constructor(
    settings: EmailSettings,
    options: Pick<EmailSenderOptions, "timeoutMs" | "tls"> = {},
  ) {
    this.#settings = settings;
    this.#transport = nodemailer.createTransport({
      pool: true,
      ...smtpTransportOptions(settings, options),
      maxConnections: 1,
      maxRequeues: 1,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  /** Sends one message to its one recipient; never rejects. */
  async send(
    message: EmailMessage,
    date: Date,
  ): Promise<{ outcome: ConfirmationOutcome; detail?: string }> {
    try {
      await this.#transport.sendMail({
        raw: emailMime(message, date),
        envelope: { from: this.#settings.fromAddress, to: [message.to] },
        signal: AbortSignal.timeout(30_000),
      });
      return { outcome: "sent" };
    } catch (err) {
      const e = err as Error & { responseCode?: number };
      const code = e.responseCode;
      // RFC 5321: 5xx is for good (503 speaks of the session, not the address).
      const refused = code !== undefined && code >= 500 && code < 600 && code !== 503;
      return { outcome: refused ? "refused" : "failed", detail: e.message };
    }
  }

  close(): void {
    this.#transport.close();
  }
}
