/**
 * The email channel's shell: sends the messages of `email-message.ts`, as the MIME text
 * of `email-mime.ts`, over pooled SMTP (nodemailer), one to each recipient still to reach — so nobody sees the others'
 * addresses, and each has an unsubscribe link of their own — and turns what the server
 * said into one SendOutcome, recipient by recipient. RFC 5321: a 4xx reply means "try
 * later", a 5xx "never" — except 503 (bad sequence of commands), which speaks of the
 * session, not of the message. Network faults and timeouts are retried for every
 * recipient not yet done. The pool itself does not retry (beyond one fresh connection
 * for a stale pooled one): the retry decision is the delivery worker's, made once.
 *
 * Credentials go over TLS only: with `smtp://user:pass@…` the session must upgrade
 * with STARTTLS before AUTH (nodemailer's `requireTLS`), so a server that offers no
 * STARTTLS never sees them and the send fails saying why — unless the operator opted
 * out (SMTP_ALLOW_PLAINTEXT_AUTH). Without credentials STARTTLS stays opportunistic.
 */
import type { ConnectionOptions } from "node:tls";
import nodemailer, { type Transporter } from "nodemailer";
import type { EmailChannelSpec } from "../rules/rule.js";
import { type ChannelSender, type SendContext, stillMine } from "./channel-sender.js";
import { emailMessage } from "./email-message.js";
import { emailMime } from "./email-mime.js";
import {
  DEFAULT_SMTP_MAX_CONNECTIONS,
  DEFAULT_SMTP_MAX_MESSAGES,
  describeServer,
  type EmailSettings,
} from "./email-settings.js";
import { oneLine } from "./http-post.js";
import type { Notification } from "./notification.js";
import type { RefusedRecipient, SendOutcome } from "./send-outcome.js";

/** How the pool connects. */
export interface EmailSenderOptions {
  /** Connections open at once (default: the settings', SMTP_MAX_CONNECTIONS, else 3). */
  maxConnections?: number;
  /**
   * Messages per connection before it is replaced (default: the settings',
   * SMTP_MAX_MESSAGES, else 100 — nodemailer's). Higher is faster (the pool pauses 100 ms
   * before replacing a connection) if the server allows.
   */
  maxMessages?: number;
  /** Bound on connecting, on the greeting and on each wait for a reply, ms (default 15 s). */
  timeoutMs?: number;
  /** Bound on one send, waiting for a free connection included, ms (default 60 s). */
  sendTimeoutMs?: number;
  /** TLS options beyond the defaults (tests: `{ ca }` to trust their server's certificate). */
  tls?: ConnectionOptions;
}

/** Whether a session must be encrypted before AUTH: credentials over `smtp://`, not opted out. */
export function tlsRequiredFor(settings: EmailSettings): boolean {
  return settings.auth !== undefined && !settings.secure && !settings.allowPlaintextAuth;
}

/** The error fields nodemailer sets (dist/esm/errors.d.ts `NodemailerError`). */
interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  /** The SMTP command it answers (`STARTTLS`, `AUTH PLAIN`, …). */
  command?: string;
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
  /**
   * Sends worth having in flight: twice the pool's connections, so that a connection
   * that finishes a message finds the next one built and waiting.
   */
  readonly concurrency: number;

  /** Without settings (no `SMTP_URL`) every send fails with `not_configured`. */
  constructor(settings: EmailSettings | undefined, options: EmailSenderOptions = {}) {
    this.#settings = settings;
    this.#sendTimeoutMs = options.sendTimeoutMs ?? 60_000;
    const maxConnections =
      options.maxConnections ?? settings?.maxConnections ?? DEFAULT_SMTP_MAX_CONNECTIONS;
    this.concurrency = 2 * maxConnections;
    if (settings === undefined) return;
    // Nothing connects until the first send.
    this.#transport = nodemailer.createTransport({
      pool: true,
      ...smtpTransportOptions(settings, options),
      maxConnections,
      maxMessages: options.maxMessages ?? settings.maxMessages ?? DEFAULT_SMTP_MAX_MESSAGES,
      // One more go on a fresh connection covers a pooled one the server closed while
      // idle; beyond that a dropped connection is the worker's to retry, on its schedule.
      maxRequeues: 1,
      // Messages are built from flight data: never let them pull in files or URLs.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  /**
   * One attempt to the recipients still to reach (`context.recipients`, else the
   * channel's `to`): a message to each, at once over the pool, their outcomes made one.
   */
  async send(
    notification: Notification,
    channel: EmailChannelSpec,
    context: SendContext,
  ): Promise<SendOutcome> {
    const settings = this.#settings;
    const transport = this.#transport;
    if (settings === undefined || transport === undefined) {
      return {
        status: "failed",
        reason: "not_configured",
        detail: "email is not configured: set SMTP_URL (and EMAIL_FROM) and restart",
      };
    }
    const recipients = context.recipients ?? channel.to;
    if (recipients.length === 0) return { status: "delivered" };
    const messages = recipients.map((recipient) =>
      emailMessage(notification, channel, context.rule, context.zone, settings.from, recipient),
    );
    const date = new Date(context.now());
    // One check for all: the sends below start together, right after it.
    if (!(await stillMine(context))) return { status: "abandoned" };
    const outcomes = await Promise.all(
      messages.map(async (message, i): Promise<SendOutcome> => {
        const to = [recipients[i] as string];
        try {
          const info: SmtpInfo = await transport.sendMail({
            raw: emailMime(message, date),
            // The raw message's own Message-ID, told to nodemailer too: it would otherwise
            // make one up for its report (five reads of the system's random source).
            messageId: message.messageId,
            envelope: { from: settings.fromAddress, to },
            signal: AbortSignal.timeout(this.#sendTimeoutMs),
          });
          return acceptedOutcome(info, to);
        } catch (err) {
          const smtpErr = err as SmtpError;
          return (
            tlsRefusedOutcome(smtpErr, settings, to) ??
            errorOutcome(smtpErr, to, this.#sendTimeoutMs)
          );
        }
      }),
    );
    return combineOutcomes(outcomes, recipients);
  }

  /** Closes idle connections now and busy ones once their message is done. */
  async close(): Promise<void> {
    this.#transport?.close();
  }
}

/**
 * How to reach the server, for a pool of senders and for one-off checks alike: where,
 * with what credentials, TLS required before AUTH when `tlsRequiredFor` says so.
 */
export function smtpTransportOptions(
  settings: EmailSettings,
  options: Pick<EmailSenderOptions, "timeoutMs" | "tls"> = {},
) {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: tlsRequiredFor(settings),
    ...(settings.auth ? { auth: { user: settings.auth.user, pass: settings.auth.pass } } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
  };
}

/**
 * The outcome of a session that could not be encrypted before AUTH: the server refused
 * STARTTLS (or offers none). A 4xx (`454 TLS not available`) is retried; otherwise it
 * fails for good — the credentials were never sent, and no retry changes the server.
 * Undefined for every other error.
 */
function tlsRefusedOutcome(
  err: SmtpError,
  settings: EmailSettings,
  recipients: string[],
): SendOutcome | undefined {
  const refused = err.code === "ETLS" && err.command === "STARTTLS";
  if (!refused || err.responseCode === undefined || !tlsRequiredFor(settings)) return undefined;
  const detail = tlsRefusedDetail(settings, err.response ?? String(err.responseCode));
  if (err.responseCode >= 400 && err.responseCode < 500) {
    return retryAll(detail, err.responseCode, recipients);
  }
  return { status: "failed", reason: "smtp_permanent", detail, code: err.responseCode };
}

/** Why a session with credentials stopped before AUTH, and the three ways out. */
export function tlsRefusedDetail(settings: EmailSettings, response: string): string {
  return `${describeServer(settings)} did not start TLS (it answered "${oneLine(response)}" to STARTTLS, or offers none); SMTP_URL has credentials, which flightwatch sends over TLS only: enable STARTTLS on the server, use smtps://, or set SMTP_ALLOW_PLAINTEXT_AUTH=true to send them in clear`;
}

/** RFC 5321 permanent negative completion; 503 is a session state problem (as nodemailer judges it). */
/** A transient reply about the whole message: every recipient is tried again. */
function retryAll(detail: string, code: number, recipients: string[]): SendOutcome {
  return { status: "retry", reason: "smtp_transient", detail, code, retryRecipients: recipients };
}

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
    return retryAll(detail, err.responseCode, recipients);
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

/**
 * One outcome of a send to each recipient (in the same order), made the notification's:
 * done for those accepted, refused for good for those refused (a 5xx to their message
 * refuses them alone), retried for the rest. It is a retry while anyone is left to try;
 * failed when everyone was refused; delivered otherwise.
 */
function combineOutcomes(
  outcomes: readonly SendOutcome[],
  recipients: readonly string[],
): SendOutcome {
  const refused: RefusedRecipient[] = [];
  const retryRecipients: string[] = [];
  const retries: Extract<SendOutcome, { status: "retry" }>[] = [];
  const failures: Extract<SendOutcome, { status: "failed" }>[] = [];
  let delivered: Extract<SendOutcome, { status: "delivered" }> | undefined;
  outcomes.forEach((outcome, i) => {
    const recipient = recipients[i] as string;
    if (outcome.status === "delivered") delivered ??= outcome;
    if (outcome.status === "retry") {
      retries.push(outcome);
      retryRecipients.push(...(outcome.retryRecipients ?? [recipient]));
    }
    if (outcome.status === "failed") {
      failures.push(outcome);
      if (!outcome.refused?.length) refused.push({ recipient, reason: outcome.detail });
    }
    if (outcome.status !== "abandoned" && outcome.status !== "cancelled") {
      refused.push(...(outcome.refused ?? []));
    }
  });
  const withRefused = refused.length > 0 ? { refused } : {};
  const [retry] = retries;
  if (retry !== undefined) {
    const retryAfter = retries.map((r) => r.retryAfterMs).filter((ms) => ms !== undefined);
    return {
      status: "retry",
      reason: retry.reason,
      detail: distinct(retries.map((r) => r.detail)),
      ...(retry.code !== undefined ? { code: retry.code } : {}),
      ...(retryAfter.length > 0 ? { retryAfterMs: Math.max(...retryAfter) } : {}),
      retryRecipients,
      ...withRefused,
    };
  }
  const [failure] = failures;
  if (delivered === undefined && failure !== undefined) {
    return {
      status: "failed",
      reason: failure.reason,
      detail: distinct(failures.map((f) => f.detail)),
      ...(failure.code !== undefined ? { code: failure.code } : {}),
      ...withRefused,
    };
  }
  return {
    status: "delivered",
    ...(delivered?.code !== undefined ? { code: delivered.code } : {}),
    ...withRefused,
  };
}

/**
 * Details said once each, in order — the same fault for every recipient is one line —
 * and at most three of them, for a record that stays readable with many recipients.
 */
function distinct(details: readonly string[]): string {
  const unique = [...new Set(details)];
  const more = unique.length - 3;
  return `${unique.slice(0, 3).join("; ")}${more > 0 ? ` (and ${more} more)` : ""}`;
}
