/**
 * A real SMTP server on loopback for the email tests and the email benchmark
 * (`smtp-server`; plain text without STARTTLS unless asked to offer it). It records
 * every message it accepts and every AUTH it is given, and can be told, per recipient
 * and per attempt, to answer RCPT TO or the end of DATA with a 4xx or 5xx reply — the
 * way real relays defer and refuse mail.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerSession } from "smtp-server";

/**
 * A self-signed certificate for `localhost`, 127.0.0.1 and ::1 (valid 100 years from
 * 2025-01-01, so a clock a little behind still trusts it), made with
 * `faketime 2025-01-01 openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes
 * -days 36500 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
 * -addext basicConstraints=critical,CA:TRUE`. Clients trust it with `{ ca: TEST_TLS.cert }`.
 */
export const TEST_TLS = {
  cert: readFileSync(new URL("./tls/localhost-cert.pem", import.meta.url), "utf8"),
  key: readFileSync(new URL("./tls/localhost-key.pem", import.meta.url), "utf8"),
};

/** One AUTH command the server was given, and whether the session was encrypted by then. */
export interface AuthAttempt {
  user: string;
  secure: boolean;
}

/** A reply to force: an SMTP code (4xx or 5xx) and its text. */
export interface SmtpReply {
  code: number;
  message?: string;
}

/** Answer for RCPT TO `address`, the `attempt`-th time (1-based) this server sees it; undefined accepts. */
export type RcptScript = (address: string, attempt: number) => SmtpReply | undefined;
/** Answer for the end of DATA of the `attempt`-th message (1-based); undefined accepts. */
export type DataScript = (recipients: string[], attempt: number) => SmtpReply | undefined;

/** How the receiver behaves. */
export interface SmtpReceiverOptions {
  /** Required credentials; without them any client (with or without AUTH) is accepted. */
  auth?: { user: string; pass: string };
  rcpt?: RcptScript;
  data?: DataScript;
  /** Offer STARTTLS with TEST_TLS (default: no STARTTLS; AUTH is accepted in clear either way). */
  starttls?: boolean;
}

/** One accepted message. `headers` is parsed on first use (the benchmark never asks). */
export class ReceivedMail {
  #headers: Record<string, string> | undefined;

  constructor(
    readonly from: string,
    readonly to: string[],
    readonly raw: string,
    /** The authenticated user name, when the client logged in. */
    readonly user: string | undefined,
    /** `Date.now()` when the server accepted it. */
    readonly receivedAt: number = Date.now(),
  ) {}

  /** Top-level headers by lower-case name (first occurrence), unfolded, encoded words decoded. */
  get headers(): Record<string, string> {
    this.#headers ??= parseHeaders(this.raw);
    return this.#headers;
  }
}

/** A running receiver. */
export interface SmtpReceiver {
  port: number;
  /** `smtp://[user:pass@]127.0.0.1:port` for SMTP_URL. */
  url(credentials?: { user: string; pass: string }): string;
  /** Accepted messages, in order of acceptance. */
  messages: ReceivedMail[];
  /** Every AUTH the server was given, accepted or not, in order. */
  auths: AuthAttempt[];
  /** How many times RCPT TO named `address` (accepted or not). */
  rcptCount(address: string): number;
  /**
   * Replaces the RCPT TO and/or DATA scripts from now on (an outage that starts or
   * ends mid-run); `undefined` for one accepts everything again. Attempt counts go on.
   */
  script(scripts: Pick<SmtpReceiverOptions, "rcpt" | "data">): void;
  /** Resolves once `count` messages are in; rejects after `timeoutMs`. */
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1, on a free port. */
export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const auths: AuthAttempt[] = [];
  const rcptSeen = new Map<string, number>();
  const waiters = new Set<() => void>();
  let dataAttempts = 0;
  let scripts: Pick<SmtpReceiverOptions, "rcpt" | "data"> = {
    rcpt: options.rcpt,
    data: options.data,
  };

  const server = new SMTPServer({
    secure: false,
    ...(options.starttls ? { key: TEST_TLS.key, cert: TEST_TLS.cert } : {}),
    disabledCommands: options.starttls ? [] : ["STARTTLS"],
    // AUTH in clear is accepted: what a client sends before TLS is the client's choice.
    allowInsecureAuth: true,
    authOptional: options.auth === undefined,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 100,
    onAuth(auth, session, callback) {
      auths.push({ user: auth.username ?? "", secure: session.secure });
      const want = options.auth;
      if (want && (auth.username !== want.user || auth.password !== want.pass)) {
        callback(replyError({ code: 535, message: "5.7.8 Authentication credentials invalid" }));
        return;
      }
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      const key = address.address.toLowerCase();
      const attempt = (rcptSeen.get(key) ?? 0) + 1;
      rcptSeen.set(key, attempt);
      const reply = scripts.rcpt?.(address.address, attempt);
      callback(reply ? replyError(reply) : null);
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        dataAttempts += 1;
        const to = session.envelope.rcptTo.map((a) => a.address);
        const reply = scripts.data?.(to, dataAttempts);
        if (reply) {
          callback(replyError(reply));
          return;
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        const user = typeof session.user === "string" ? session.user : undefined;
        messages.push(new ReceivedMail(from, to, Buffer.concat(chunks).toString("utf8"), user));
        for (const wake of waiters) wake();
        callback(null);
      });
    },
  });

  // A client that goes away mid-session (a daemon killed by a crash test) resets its
  // connection; smtp-server reports that as an "error" event, which must not be uncaught.
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;

  return {
    port,
    messages,
    auths,
    url(credentials) {
      const auth = credentials
        ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@`
        : "";
      return `smtp://${auth}127.0.0.1:${port}`;
    },
    rcptCount: (address) => rcptSeen.get(address.toLowerCase()) ?? 0,
    script(next) {
      scripts = { ...scripts, ...next };
    },
    waitForMessages(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${messages.length} of ${count} messages within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function replyError(reply: SmtpReply): Error {
  const err = new Error(reply.message ?? (reply.code >= 500 ? "Refused" : "Try again later"));
  (err as Error & { responseCode: number }).responseCode = reply.code;
  return err;
}

function parseHeaders(raw: string): Record<string, string> {
  const end = raw.search(/\r?\n\r?\n/);
  const head = (end < 0 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, " ");
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= decodeWords(line.slice(colon + 1).trim());
  }
  return headers;
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`); whitespace between two of them goes. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, "$1$2")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, _charset, enc: string, text: string) => {
      if (enc.toUpperCase() === "B") return Buffer.from(text, "base64").toString("utf8");
      const bytes = text
        .replace(/_/g, " ")
        .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(bytes, "latin1").toString("utf8");
    });
}
