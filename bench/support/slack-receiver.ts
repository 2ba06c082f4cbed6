/**
 * A Slack incoming-webhook look-alike on loopback (node:http, port 0). Each path is
 * one webhook. It answers as Slack does — `200 ok`, or an error text with a status —
 * checks payloads against Slack's Block Kit limits (`invalid_payload`,
 * `invalid_blocks`), records every request, can be scripted per path (`429` with
 * `Retry-After`, `404 no_service`, a slow answer…), and can enforce "one message per
 * interval per path" itself, answering 429 when a sender goes faster.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SLACK_LIMITS } from "../../src/deliver/slack-message.js";

/** One request as the receiver saw it. */
export interface SlackRequest {
  path: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  payload: unknown;
  /** The request's User-Agent header. */
  userAgent?: string;
  /** `Date.now()` when the body was complete. */
  receivedAt: number;
  /** What the receiver answered. */
  status: number;
  answer: string;
}

/** A scripted answer for the next request to a path. */
export interface SlackReply {
  status: number;
  /** Slack's error text (`no_service`, `rate_limited`, …); `ok` by default. */
  body?: string;
  /** Seconds for `Retry-After`. */
  retryAfter?: number | string;
  /** Hold the answer this long (to make a sender time out). */
  delayMs?: number;
}

/** A running look-alike. */
export interface SlackReceiver {
  /** The webhook URL for a path (`/services/T0/B0/x`). */
  url(path: string): string;
  /** Every request (accepted or not), oldest first; of one path when given. */
  requests(path?: string): SlackRequest[];
  /** The accepted messages (answered `200 ok`), oldest first; of one path when given. */
  messages(path?: string): SlackRequest[];
  /** Queues answers for the next requests to a path, consumed one per request. */
  script(path: string, ...replies: SlackReply[]): void;
  /** Answer 429 to a path's message that comes sooner than `intervalMs` after its last accepted one (0 = off). */
  enforceInterval(intervalMs: number): void;
  close(): Promise<void>;
}

/** Starts a look-alike on 127.0.0.1 and a free port. */
export async function startSlackReceiver(): Promise<SlackReceiver> {
  const log: SlackRequest[] = [];
  const scripts = new Map<string, SlackReply[]>();
  const lastAccepted = new Map<string, number>();
  let intervalMs = 0;

  const answer = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const path = req.url ?? "/";
    const receivedAt = Date.now();
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      payload = undefined;
    }
    const reply = scripts.get(path)?.shift() ?? defaultReply(path, payload, receivedAt);
    if (reply.status === 200) lastAccepted.set(path, receivedAt);
    const body = reply.body ?? "ok";
    log.push({
      path,
      payload,
      ...(req.headers["user-agent"] !== undefined ? { userAgent: req.headers["user-agent"] } : {}),
      receivedAt,
      status: reply.status,
      answer: body,
    });
    const headers: Record<string, string> = { "content-type": "text/html" };
    if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
    const send = () => res.writeHead(reply.status, headers).end(body);
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  };

  const defaultReply = (path: string, payload: unknown, at: number): SlackReply => {
    const last = lastAccepted.get(path);
    if (intervalMs > 0 && last !== undefined && at - last < intervalMs) {
      return { status: 429, body: "rate_limited", retryAfter: 1 };
    }
    return checkPayload(payload);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => answer(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests: (path) => log.filter((r) => path === undefined || r.path === path),
    messages: (path) =>
      log.filter((r) => r.status === 200 && (path === undefined || r.path === path)),
    script(path, ...replies) {
      scripts.set(path, [...(scripts.get(path) ?? []), ...replies]);
    },
    enforceInterval(ms) {
      intervalMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Slack's checks on a payload, as far as flightwatch's messages can break them (shared
 * with the Web API look-alike of the tests, test/support/slack-api.ts).
 */
export function checkPayload(payload: unknown): SlackReply {
  if (typeof payload !== "object" || payload === null) {
    return { status: 400, body: "invalid_payload" };
  }
  const { text, blocks } = payload as { text?: unknown; blocks?: unknown };
  if (typeof text !== "string" && !Array.isArray(blocks)) {
    return { status: 400, body: "no_text" };
  }
  if (blocks === undefined) return { status: 200 };
  if (!Array.isArray(blocks) || blocks.length > SLACK_LIMITS.blocks || !blocks.every(validBlock)) {
    return { status: 400, body: "invalid_blocks" };
  }
  return { status: 200 };
}

type Text = { type?: unknown; text?: unknown };

function validText(t: Text | undefined, type: string, max: number): boolean {
  return (
    t !== undefined &&
    t.type === type &&
    typeof t.text === "string" &&
    t.text.length >= 1 &&
    t.text.length <= max
  );
}

function validBlock(block: unknown): boolean {
  const b = block as { type?: unknown; text?: Text; fields?: Text[]; elements?: Text[] };
  switch (b.type) {
    case "header":
      return validText(b.text, "plain_text", SLACK_LIMITS.headerChars);
    case "section": {
      if (b.text === undefined && b.fields === undefined) return false;
      if (b.text !== undefined && !validText(b.text, "mrkdwn", SLACK_LIMITS.sectionChars)) {
        return false;
      }
      const fields = b.fields ?? [];
      return (
        fields.length <= SLACK_LIMITS.fields &&
        fields.every((f) => validText(f, "mrkdwn", SLACK_LIMITS.fieldChars))
      );
    }
    case "context": {
      const elements = b.elements ?? [];
      return (
        elements.length >= 1 &&
        elements.length <= SLACK_LIMITS.contextElements &&
        elements.every((e) => validText(e, "mrkdwn", SLACK_LIMITS.sectionChars))
      );
    }
    default:
      return false;
  }
}
