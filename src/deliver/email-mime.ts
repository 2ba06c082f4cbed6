/**
 * An email message as the text the SMTP transport sends: headers and a
 * multipart/alternative body (text, then HTML), built in one string. Nodemailer's own
 * composer builds the same message as a tree of streams, several small socket writes
 * and random boundaries a message — most of the CPU an email costs; this builds it
 * with nodemailer's own encoders (its header encoding, line folding and
 * quoted-printable), so what a mail client reads is what nodemailer would have written,
 * and the pool sends it as `raw`, in one piece.
 */
import { createHash } from "node:crypto";
import { foldLines } from "nodemailer/lib/mime-funcs";
import MimeNode from "nodemailer/lib/mime-node";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";
import type { EmailMessage } from "./email-message.js";

/** RFC 5322 §2.1.1: lines should be at most 78 characters; nodemailer folds at 76. */
const LINE = 76;

/**
 * One node encodes every header: the encoding keeps no state, and a node made per
 * header (what the static `MimeNode.encodeHeaderValue` does) draws random bytes for a
 * boundary each time — most of what a message cost.
 */
const ENCODER = new MimeNode();

/** A header line (folded, CRLF), or nothing for an empty value — as nodemailer leaves it out. */
function header(key: string, value: string): string {
  const encoded = ENCODER.encodeHeaderValue(key, value);
  return encoded === "" ? "" : `${foldLines(`${key}: ${encoded}`, LINE)}\r\n`;
}

/** The `From:` line of the last sender asked for: every message of a process has the same. */
let fromLine = { from: "", line: "" };

/** The MIME text of a message, CRLF line ends, dated `date`. */
export function emailMime(message: EmailMessage, date: Date): string {
  if (fromLine.from !== message.from) {
    fromLine = { from: message.from, line: header("From", message.from) };
  }
  // Never in the parts: quoted-printable lines cannot hold it (it is no encoding of
  // theirs, and a hash of them besides), so no part can end the message early.
  const boundary = `--_fw_${createHash("sha256")
    .update(message.messageId)
    .update(message.text)
    .update(message.html)
    .digest("hex")
    .slice(0, 32)}`;
  let head =
    fromLine.line +
    header("To", message.to) +
    header("Subject", message.subject) +
    header("Message-ID", message.messageId) +
    header("In-Reply-To", message.inReplyTo) +
    header("References", message.references) +
    header("Date", date.toUTCString().replace(/GMT/, "+0000"));
  for (const [key, value] of Object.entries(message.headers)) head += header(key, value);
  return (
    `${head}MIME-Version: 1.0\r\n` +
    `Content-Type: multipart/alternative;\r\n boundary="${boundary}"\r\n\r\n` +
    part(boundary, "text/plain", message.text) +
    part(boundary, "text/html", message.html) +
    `--${boundary}--\r\n`
  );
}

/** One part: its headers and its text, quoted-printable (CRLF line ends). */
function part(boundary: string, type: string, text: string): string {
  const body = qpWrap(qpEncode(text.replace(/\r?\n|\r/g, "\r\n")), LINE);
  return (
    `--${boundary}\r\n` +
    `Content-Type: ${type}; charset=utf-8\r\n` +
    "Content-Transfer-Encoding: quoted-printable\r\n\r\n" +
    `${body}\r\n`
  );
}
