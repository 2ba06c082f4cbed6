/**
 * What a passenger page reads of a request: the fields of a posted form (URL-encoded, as
 * browsers send it, or multipart/form-data, which RFC 8058 allows a one-click POST to
 * be), bounded in size, and the client's address for the rate limits.
 */
import type { IncomingMessage } from "node:http";

/** Largest body read: the forms have four short fields. */
export const MAX_FORM_BYTES = 16 * 1024;

/** The fields of a posted form; `tooLarge` when the body went past MAX_FORM_BYTES. */
export async function readForm(
  req: IncomingMessage,
): Promise<{ fields: URLSearchParams; tooLarge?: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_FORM_BYTES) {
      // Read no further; the connection closes with the answer.
      req.destroy();
      return { fields: new URLSearchParams(), tooLarge: true };
    }
    chunks.push(buffer);
  }
  const body = Buffer.concat(chunks).toString("utf8");
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const boundary = /boundary="?([^";]+)"?/i.exec(req.headers["content-type"] ?? "")?.[1];
    return {
      fields: boundary === undefined ? new URLSearchParams() : multipartFields(body, boundary),
    };
  }
  // URL-encoded, and (leniently) a body sent without a type, as some one-click clients do.
  return { fields: new URLSearchParams(body) };
}

/** The text fields of a multipart/form-data body (files are not expected and are skipped). */
export function multipartFields(body: string, boundary: string): URLSearchParams {
  const fields = new URLSearchParams();
  for (const part of body.split(`--${boundary}`)) {
    const split = part.indexOf("\r\n\r\n");
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined || /\bfilename=/i.test(head)) continue;
    fields.append(name, part.slice(split + 4).replace(/\r\n$/, ""));
  }
  return fields;
}

/**
 * The client's address: the peer's, or — `trustProxy`, behind a reverse proxy — the
 * last X-Forwarded-For entry, the one the proxy itself appended (those before it are
 * the client's own word).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const peer = req.socket.remoteAddress ?? "unknown";
  if (!trustProxy) return peer;
  const header = req.headers["x-forwarded-for"];
  const text = Array.isArray(header) ? header.join(",") : header;
  const last = text
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .at(-1);
  return last ?? peer;
}
