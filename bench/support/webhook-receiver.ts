/**
 * A webhook receiver for tests and benchmarks: a real node:http server on 127.0.0.1,
 * port 0, that records every request and, given a secret, checks its Standard
 * Webhooks signature with the `standardwebhooks` package as a real receiver would. A
 * bad or missing signature is never accepted: it is recorded with `verified: false`
 * and answered 401 whatever `respond` says. Answers are scriptable per request
 * (status, headers, body, delay). Kept lean: it must keep up with thousands of
 * requests per second.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request as received. */
export interface WebhookDelivery {
  /** `webhook-id` ("" when missing). */
  id: string;
  /** `webhook-timestamp`, seconds (NaN when missing). */
  timestamp: number;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON (the raw text when it is not JSON). */
  body: unknown;
  rawBody: string;
  /** `Date.now()` when the body had arrived. */
  receivedAt: number;
  /** The signature checked out with the receiver's secret; true for every request when it has none. */
  verified: boolean;
  /** Why verification failed. */
  verifyError?: string;
  /** The status it was answered with (set before the answer is written). */
  status?: number;
}

/** How to answer one request. */
export interface ReceiverResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a slow receiver, or one the sender times out on). */
  delayMs?: number;
}

/** Options of a receiver. */
export interface WebhookReceiverOptions {
  /** Standard Webhooks secret (`whsec_…`): every request must be signed with it. */
  secret?: string;
  /** The answer to a verified request; `n` counts requests from 1. Default: 204. */
  respond?: (delivery: WebhookDelivery, n: number) => ReceiverResponse;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** Where to POST: `http://127.0.0.1:<port>/hook`. */
  url: string;
  /** Every request, in arrival order. */
  deliveries: WebhookDelivery[];
  /** Distinct `webhook-id`s of accepted requests (verified and answered 2xx). */
  uniqueIds(): Set<string>;
  /** Resolves when at least `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves when at least `count` distinct ids have been accepted; rejects after `timeoutMs`. */
  waitForIds(count: number, timeoutMs?: number): Promise<void>;
  /**
   * An outage: stops listening and drops open connections, so senders get "connection
   * refused" until `up()`. Requests already answered stay recorded.
   */
  down(): Promise<void>;
  /** Ends an outage: listens again on the same port (the URL does not change). */
  up(): Promise<void>;
  /** Stops listening and drops open connections (delayed answers are abandoned). */
  close(): Promise<void>;
}

const DEFAULT_RESPONSE: ReceiverResponse = { status: 204 };

/** Starts a receiver on a free loopback port. */
export async function startWebhookReceiver(
  options: WebhookReceiverOptions = {},
): Promise<WebhookReceiver> {
  const verifier = options.secret === undefined ? undefined : new Webhook(options.secret);
  const deliveries: WebhookDelivery[] = [];
  const accepted = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let waiters: Array<() => void> = [];

  const settle = () => {
    const pending = waiters;
    waiters = [];
    for (const check of pending) check();
  };

  const answer = (res: ServerResponse, delivery: WebhookDelivery, reply: ReceiverResponse) => {
    delivery.status = reply.status;
    if (reply.status >= 200 && reply.status < 300 && delivery.verified) accepted.add(delivery.id);
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, rawBody: string) => {
    const delivery = record(req.headers, rawBody, verifier);
    deliveries.push(delivery);
    const reply = delivery.verified
      ? (options.respond?.(delivery, deliveries.length) ?? DEFAULT_RESPONSE)
      : { status: 401, body: delivery.verifyError ?? "bad signature" };
    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) answer(res, delivery, reply);
      }, reply.delayMs);
      timers.add(timer);
    } else {
      answer(res, delivery, reply);
    }
    settle();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
    // A client that gives up (timeout) resets the socket; nothing to answer then.
    req.on("error", () => {});
    res.on("error", () => {});
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const wait = (reached: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== check);
        reject(new Error(`webhook receiver: ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = () => {
        if (reached()) {
          clearTimeout(timer);
          resolve();
        } else {
          waiters.push(check);
        }
      };
      check();
    });

  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    uniqueIds: () => new Set(accepted),
    waitFor: (count, timeoutMs = 5_000) =>
      wait(
        () => deliveries.length >= count,
        `${count} requests expected, ${deliveries.length} arrived`,
        timeoutMs,
      ),
    // Accepted ids are added when the answer is written, which may be after a delay.
    waitForIds: (count, timeoutMs = 5_000) =>
      wait(() => accepted.size >= count, `${count} ids expected`, timeoutMs),
    down: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    up: () =>
      new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      }),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Reads the Standard Webhooks headers and checks the signature. */
function record(
  headers: IncomingHttpHeaders,
  rawBody: string,
  verifier: Webhook | undefined,
): WebhookDelivery {
  const id = header(headers, "webhook-id") ?? "";
  const delivery: WebhookDelivery = {
    id,
    timestamp: Number(header(headers, "webhook-timestamp") ?? Number.NaN),
    headers,
    body: parseBody(rawBody),
    rawBody,
    receivedAt: Date.now(),
    verified: verifier === undefined,
  };
  if (verifier) {
    try {
      verifier.verify(rawBody, stringHeaders(headers), { jsonParse: false });
      delivery.verified = true;
    } catch (err) {
      delivery.verifyError = err instanceof Error ? err.message : String(err);
    }
  }
  return delivery;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return {
    "webhook-id": header(headers, "webhook-id") ?? "",
    "webhook-timestamp": header(headers, "webhook-timestamp") ?? "",
    "webhook-signature": header(headers, "webhook-signature") ?? "",
  };
}

function parseBody(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    return rawBody;
  }
}
