/**
 * A Slack Web API look-alike on loopback (node:http, port 0) for the methods living
 * messages use: `chat.postMessage` (a message, or a reply with `thread_ts`) and
 * `chat.update`. It reads requests as `@slack/web-api` sends them — form-encoded, with
 * `blocks` as a JSON string and the token as `Authorization: Bearer` — and JSON bodies
 * too, as Slack accepts; it keeps the channel's messages (so an update of a deleted or
 * unknown message is `message_not_found`, a reply in the thread of one
 * `thread_not_found`, and an update of a message whose edit window was closed
 * `edit_window_closed`), checks blocks against Slack's limits (`invalid_blocks`), and
 * answers as Slack does: HTTP 200 with `{ ok: true, channel, ts }` or `{ ok: false,
 * error }`, and 429 with `Retry-After` when scripted. Every call is recorded; answers
 * can be scripted per method.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkPayload } from "./slack-receiver.js";

/** One call as the look-alike saw it. */
export interface SlackApiCall {
  method: string;
  /** The bearer token it came with. */
  token: string | undefined;
  contentType: string | undefined;
  userAgent: string | undefined;
  /** The arguments, `blocks` parsed from its JSON. */
  args: Record<string, unknown>;
  /** What it answered: the status and the body. */
  status: number;
  answer: Record<string, unknown>;
}

/** A message in a channel, as it is now. */
export interface SlackApiMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown;
  /** The message it replies to (a thread reply). */
  threadTs?: string;
  /** How often it was updated. */
  edits: number;
}

/** A scripted answer to a method's next call. */
export interface SlackApiReply {
  /** Answer this call as usual (to script the calls after it). */
  pass?: true;
  /** HTTP status (200 by default). */
  status?: number;
  /** Slack's `error` (`{ ok: false, error }`). */
  error?: string;
  /** Seconds for `Retry-After`. */
  retryAfter?: number | string;
}

/** A running look-alike. */
export interface SlackApi {
  /** The base URL to give as `slackApiUrl` (`http://127.0.0.1:<port>/api/`). */
  readonly url: string;
  /** Every call, oldest first; of one method when given. */
  calls(method?: string): SlackApiCall[];
  /** The messages there are now (not deleted), oldest first: top-level ones and replies. */
  messages(): SlackApiMessage[];
  /** The top-level messages of a channel. */
  topLevel(channel: string): SlackApiMessage[];
  /** The replies in a message's thread, oldest first. */
  replies(ts: string): SlackApiMessage[];
  /** Deletes a message, as a person in the channel could. */
  deleteMessage(ts: string): void;
  /**
   * Closes a message's edit window (the workspace limits edits, and the time is up):
   * from now on `chat.update` of it answers `edit_window_closed`.
   */
  closeEditWindow(ts: string): void;
  /** Queues answers to a method's next calls, one per call. */
  script(method: string, ...replies: SlackApiReply[]): void;
  close(): Promise<void>;
}

/** Starts a look-alike on 127.0.0.1 and a free port. */
export async function startSlackApi(): Promise<SlackApi> {
  const calls: SlackApiCall[] = [];
  const messages: SlackApiMessage[] = [];
  const scripts = new Map<string, SlackApiReply[]>();
  const editsClosed = new Set<string>();
  let next = 1;

  const post = (args: Record<string, unknown>): Record<string, unknown> => {
    const channel = args.channel;
    if (typeof channel !== "string" || channel === "") {
      return { ok: false, error: "channel_not_found" };
    }
    const threadTs = args.thread_ts;
    if (
      typeof threadTs === "string" &&
      !messages.some((m) => m.channel === channel && m.ts === threadTs)
    ) {
      // A reply to a message that is not there (deleted): Slack has no thread for it.
      return { ok: false, error: "thread_not_found" };
    }
    const refused = checkPayload({ text: args.text, blocks: args.blocks });
    if (refused.status !== 200) return { ok: false, error: refused.body };
    const ts = `1763713000.${String(next++).padStart(6, "0")}`;
    const message: SlackApiMessage = {
      channel,
      ts,
      text: String(args.text ?? ""),
      blocks: args.blocks,
      edits: 0,
    };
    if (typeof threadTs === "string") message.threadTs = threadTs;
    messages.push(message);
    return { ok: true, channel, ts, message: { text: message.text, ts } };
  };

  const update = (args: Record<string, unknown>): Record<string, unknown> => {
    const found = messages.find((m) => m.channel === args.channel && m.ts === args.ts);
    if (found === undefined) return { ok: false, error: "message_not_found" };
    if (editsClosed.has(found.ts)) return { ok: false, error: "edit_window_closed" };
    const refused = checkPayload({ text: args.text, blocks: args.blocks });
    if (refused.status !== 200) return { ok: false, error: refused.body };
    found.text = String(args.text ?? "");
    found.blocks = args.blocks;
    found.edits++;
    return { ok: true, channel: found.channel, ts: found.ts, text: found.text };
  };

  const answer = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const method = (req.url ?? "/").replace(/^\/api\//, "").replace(/\?.*$/, "");
    const contentType = req.headers["content-type"];
    const args = parseArgs(raw, contentType);
    const auth = req.headers.authorization;
    const token = auth?.startsWith("Bearer ")
      ? auth.slice(7)
      : typeof args.token === "string"
        ? args.token
        : undefined;
    const scripted = scripts.get(method)?.shift();
    let status = 200;
    let body: Record<string, unknown>;
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
    if (scripted !== undefined && scripted.pass !== true) {
      status = scripted.status ?? 200;
      body = {
        ok: false,
        error: scripted.error ?? (status === 429 ? "ratelimited" : "fatal_error"),
      };
      if (scripted.retryAfter !== undefined) headers["retry-after"] = String(scripted.retryAfter);
    } else if (token === undefined || token === "") {
      body = { ok: false, error: "not_authed" };
    } else if (method === "chat.postMessage") {
      body = post(args);
    } else if (method === "chat.update") {
      body = update(args);
    } else {
      status = 404;
      body = { ok: false, error: "unknown_method" };
    }
    calls.push({
      method,
      token,
      contentType,
      userAgent: req.headers["user-agent"],
      args,
      status,
      answer: body,
    });
    res.writeHead(status, headers).end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => answer(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/`,
    calls: (method) => calls.filter((c) => method === undefined || c.method === method),
    messages: () => messages.slice(),
    topLevel: (channel) =>
      messages.filter((m) => m.channel === channel && m.threadTs === undefined),
    replies: (ts) => messages.filter((m) => m.threadTs === ts),
    deleteMessage(ts) {
      const at = messages.findIndex((m) => m.ts === ts);
      if (at >= 0) messages.splice(at, 1);
    },
    closeEditWindow(ts) {
      editsClosed.add(ts);
    },
    script(method, ...replies) {
      scripts.set(method, [...(scripts.get(method) ?? []), ...replies]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A body as Slack reads it: form fields (`blocks` and other structures as JSON) or JSON. */
function parseArgs(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.startsWith("application/json")) {
    try {
      const parsed = JSON.parse(raw) as unknown;
      return typeof parsed === "object" && parsed !== null
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  }
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    if (key === "blocks" || key === "attachments" || key === "metadata") {
      try {
        args[key] = JSON.parse(value) as unknown;
      } catch {
        args[key] = value;
      }
    } else {
      args[key] = value;
    }
  }
  return args;
}
