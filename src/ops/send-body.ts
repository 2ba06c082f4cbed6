/**
 * Sending a whole response body on the daemon's HTTP port — the ops routes, the
 * subscriptions API and the passenger pages alike: its length, and `no-store`, since
 * none of them may be cached (states change, links and answers hold tokens).
 */
import type { ServerResponse } from "node:http";

/** Sends `body` as `type` with `status`; `headers` add to (or replace) the defaults. */
export function sendBody(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  // Node omits the body of a HEAD response by itself; the length still describes it.
  res.writeHead(status, {
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(body);
}
