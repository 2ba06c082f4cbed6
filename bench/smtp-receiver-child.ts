/**
 * The email benchmark's SMTP server, run as a child process so that parsing SMTP and
 * keeping messages does not share the sender's event loop (a real relay runs
 * elsewhere). It is the tests' receiver (bench/support/smtp-receiver.ts: smtp-server on
 * loopback, plain text, accepting every message).
 *
 * Protocol over IPC: it sends `{ port }` once listening; asked `{ count, timeoutMs }`,
 * it waits until `count` messages are in (or the time passed) and answers with how
 * many it has and its CPU time — and, asked `from` too, when each message from that
 * one on came in and the gate-change token in its subject (bench/gate-updates.ts);
 * `{ close: true }` ends it.
 */
import { newestToken } from "./gate-updates.js";
import { startSmtpReceiver } from "./support/smtp-receiver.js";

/** A request to the child. */
export type SmtpChildRequest =
  | { count: number; timeoutMs: number; from?: number }
  | { close: true };

/** The answer to `count`. */
export interface SmtpChildReport {
  messages: number;
  /** CPU time the child has used since it started, ms. */
  cpuMs: number;
  /** With `from`: when each message from `from` on was accepted (epoch ms)… */
  receivedAt?: number[];
  /** …and the newest gate-change token in its subject (-1: none). */
  tokens?: number[];
}

if (!process.send) throw new Error("run by the email benchmark (IPC)");
const send = process.send.bind(process);
const receiver = await startSmtpReceiver();

process.on("message", (request: SmtpChildRequest) => {
  if ("close" in request) {
    void receiver.close().then(() => process.exit(0));
    return;
  }
  receiver
    .waitForMessages(request.count, request.timeoutMs)
    .catch(() => undefined)
    .then(() => {
      const used = process.cpuUsage();
      const report: SmtpChildReport = {
        messages: receiver.messages.length,
        cpuMs: (used.user + used.system) / 1000,
      };
      if (request.from !== undefined) {
        const mails = receiver.messages.slice(request.from);
        report.receivedAt = mails.map((m) => m.receivedAt);
        report.tokens = mails.map((m) => newestToken(m.headers.subject ?? "") ?? -1);
      }
      send(report);
    });
});
send({ port: receiver.port });
