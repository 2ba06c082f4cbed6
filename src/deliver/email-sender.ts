/**
 * The email channel's shell: sends the message of `email-message.ts` over pooled SMTP
 * (nodemailer) and turns what the server said into a SendOutcome, recipient by
 * recipient. RFC 5321: a 4xx reply means "try later", a 5xx "never" — except 503
 * (bad sequence of commands), which speaks of the session, not of the message.
 * Network faults and timeouts are retried for every recipient not yet done. The
 * pool itself does not retry (beyond one fresh connection for a stale pooled one):
 * the retry decision is the delivery worker's, made once.
 */
import nodemailer, { type Transporter } from "nodemailer";
import type { EmailChannelSpec } from "../rules/rule.js";
import { type ChannelSender, type SendContext, stillMine } from "./channel-sender.js";
import { emailMessage } from "./email-message.js";
import type { EmailSettings } from "./email-settings.js";
import { oneLine } from "./http-post.js";
import type { Notification } from "./notification.js";
import type { RefusedRecipient, SendOutcome } from "./send-outcome.js";

/** How the pool connects. */
export interface EmailSenderOptions {
  /** Connections open at once (default 3). */
  maxConnections?: number;
  /**
   * Messages per connection before it is replaced (default 100, nodemailer's). Higher
   * is faster (the pool pauses 100 ms before replacing a connection) if the server allows.
   */
  maxMessages?: number;
  /** Bound on connecting, on the greeting and on each wait for a reply, ms (default 15 s). */
  timeoutMs?: number;
  /** Bound on one send, waiting for a free connection included, ms (default 60 s). */
  sendTimeoutMs?: number;
}

/** The error fields nodemailer sets (dist/esm/errors.d.ts `NodemailerError`). */
interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

/** What nodemailer resolves with (per-recipient rejections when some were accepted). */
interface SmtpInfo {
  rejectedErrors?: SmtpError[];
  response?: string;
}

/** Sends email notifications through a pooled SMTP connection from `SMTP_URL`. */
export class EmailSender implements ChannelSender<EmailChannelSpec> {
  readonly type = "email" as const;
  readonly #settings: EmailSettings | undefined;
  readonly #transport: Transporter | undefined;
  readonly #sendTimeoutMs: number;

  /** Without settings (no `SMTP_URL`) every send fails with `not_configured`. */
  constructor(settings: EmailSettings | undefined, options: EmailSenderOptions = {}) {
    this.#settings = settings;
    this.#sendTimeoutMs = options.sendTimeoutMs ?? 60_000;
    if (settings === undefined) return;
    const timeoutMs = options.timeoutMs ?? 15_000;
    // Nothing connects until the first send.
    this.#transport = nodemailer.createTransport({
      pool: true,
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      ...(settings.auth ? { auth: { user: settings.auth.user, pass: settings.auth.pass } } : {}),
      maxConnections: options.maxConnections ?? 3,
      maxMessages: options.maxMessages ?? 100,
      // One more go on a fresh connection covers a pooled one the server closed while
      // idle; beyond that a dropped connection is the worker's to retry, on its schedule.
      maxRequeues: 1,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      // Messages are built from flight data: never let them pull in files or URLs.
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
  }

  /** One attempt to the recipients still to reach (`context.recipients`, else the channel's `to`). */
  async send(
    notification: Notification,
    channel: EmailChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    if (this.#settings === undefined || this.#transport === undefined) {
      return {
        status: "failed",
        reason: "not_configured",
        detail: "email is not configured: set SMTP_URL (and EMAIL_FROM) and restart",
      };
    }
    const recipients = context.recipients ?? channel.to;
    if (recipients.length === 0) return { status: "delivered" };
    const message = emailMessage(
      notification,
      channel,
      context.rule,
      context.zone,
      this.#settings.from,
    );
    if (!(await stillMine(context))) return { status: "abandoned" };
    try {
      const info: SmtpInfo = await this.#transport.sendMail({
        ...message,
        // The header names the whole channel; the envelope only those still to reach.
        envelope: { from: this.#settings.fromAddress, to: recipients },
        signal: AbortSignal.timeout(this.#sendTimeoutMs),
      });
      return acceptedOutcome(info, recipients);
    } catch (err) {
      return errorOutcome(err as SmtpError, recipients, this.#sendTimeoutMs);
    }
  }

  /** Closes idle connections now and busy ones once their message is done. */
  async close(): Promise<void> {
    this.#transport?.close();
  }
}

/** RFC 5321 permanent negative completion; 503 is a session state problem (as nodemailer judges it). */
function isPermanent(code: number | undefined): boolean {
  return code !== undefined && code >= 500 && code < 600 && code !== 503;
}

/** Splits per-recipient rejections into refused-for-good and to-retry. */
function splitRejections(
  errors: readonly SmtpError[],
  recipients: readonly string[],
): { refused: RefusedRecipient[]; retry: string[]; transientCode?: number } {
  const refused: RefusedRecipient[] = [];
  const retry: string[] = [];
  let transientCode: number | undefined;
  for (const err of errors) {
    const recipient = ownAddress(err.recipient ?? "", recipients);
    if (isPermanent(err.responseCode)) {
      refused.push({ recipient, reason: oneLine(err.response ?? err.message) });
    } else {
      retry.push(recipient);
      transientCode ??= err.responseCode;
    }
  }
  return transientCode === undefined ? { refused, retry } : { refused, retry, transientCode };
}

/** The recipient as we spelled it (servers and nodemailer may change its case). */
function ownAddress(address: string, recipients: readonly string[]): string {
  const lower = address.toLowerCase();
  return recipients.find((r) => r.toLowerCase() === lower) ?? address;
}

function acceptedOutcome(info: SmtpInfo, recipients: readonly string[]): SendOutcome {
  const code = replyCode(info.response);
  const { refused, retry, transientCode } = splitRejections(info.rejectedErrors ?? [], recipients);
  if (retry.length > 0) {
    return {
      status: "retry",
      reason: "smtp_transient",
      detail: `${retry.length} recipient(s) deferred: ${retry.join(", ")}`,
      ...(transientCode !== undefined ? { code: transientCode } : {}),
      retryRecipients: retry,
      ...(refused.length > 0 ? { refused } : {}),
    };
  }
  return {
    status: "delivered",
    ...(code !== undefined ? { code } : {}),
    ...(refused.length > 0 ? { refused } : {}),
  };
}

function errorOutcome(err: SmtpError, recipients: string[], sendTimeoutMs: number): SendOutcome {
  const detail = oneLine(err.message);
  // Every recipient rejected at RCPT TO: decide each one.
  if (err.rejectedErrors && err.rejectedErrors.length > 0) {
    const { refused, retry, transientCode } = splitRejections(err.rejectedErrors, recipients);
    if (retry.length === 0) {
      return {
        status: "failed",
        reason: "smtp_permanent",
        detail,
        code: err.responseCode,
        refused,
      };
    }
    return {
      status: "retry",
      reason: "smtp_transient",
      detail,
      ...(transientCode !== undefined ? { code: transientCode } : {}),
      retryRecipients: retry,
      ...(refused.length > 0 ? { refused } : {}),
    };
  }
  // A reply about the whole message (MAIL FROM, DATA, the end of data, AUTH).
  if (err.responseCode !== undefined) {
    if (isPermanent(err.responseCode)) {
      return { status: "failed", reason: "smtp_permanent", detail, code: err.responseCode };
    }
    return {
      status: "retry",
      reason: "smtp_transient",
      detail,
      code: err.responseCode,
      retryRecipients: recipients,
    };
  }
  // Refused by nodemailer before anything was sent (a malformed address): no retry helps.
  if (err.code === "EENVELOPE" || err.code === "EMESSAGE" || err.code === "EMAXRECIPIENTS") {
    return { status: "failed", reason: "smtp_permanent", detail, code: err.code };
  }
  const timedOut = err.code === "ETIMEDOUT" || err.code === "EABORT";
  const reason = timedOut
    ? "timeout"
    : err.code === "ECONNECTION" || err.code === "ESOCKET"
      ? "connection"
      : "network";
  return {
    status: "retry",
    reason,
    detail: err.code === "EABORT" ? `no answer within ${sendTimeoutMs} ms` : detail,
    ...(err.code !== undefined ? { code: err.code } : {}),
    retryRecipients: recipients,
  };
}

function replyCode(response: string | undefined): number | undefined {
  const m = /^(\d{3})/.exec(response ?? "");
  return m ? Number(m[1]) : undefined;
}
