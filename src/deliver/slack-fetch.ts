/**
 * The `fetch` flightwatch hands Slack's own clients (`@slack/webhook` for incoming
 * webhooks, `@slack/web-api` for the Web API): the client builds the request — URL,
 * body, content type, `User-Agent`, auth header — and it goes out as one POST over our
 * undici pool, so through the outbound policy's guarded agent and our timeout, with no
 * redirect followed. The answer, as it came, is handed to the caller before the client
 * reads it: what the client makes of an answer (an error that drops `Retry-After`, a
 * message without the status) says less than the answer itself, which decides.
 */
import type { Dispatcher } from "undici";
import { type HttpPostResult, postJson } from "./http-post.js";

/** How Slack's requests go out. */
export interface SlackFetchOptions {
  /** The sender's connection pool (its guarded agent). */
  dispatcher: Dispatcher;
  /** Bound on one request, ms (http-post's default when absent). */
  timeoutMs?: number;
}

/** A WHATWG `fetch` as Slack's clients call it. */
export type SlackFetch = (target: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` for one of Slack's clients: each request it makes is POSTed with our pool,
 * and `onAnswer` hears the answer (a response, a network fault, a refused destination)
 * before the client does. A fault rejects, as a fetch would.
 */
export function slackFetch(
  options: SlackFetchOptions,
  onAnswer: (answer: HttpPostResult) => void,
): SlackFetch {
  return async (target, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    // The client's name and version, not the host's Node version and kernel release.
    headers["user-agent"] = `${(headers["user-agent"] ?? "").split(" ")[0]} flightwatch`.trim();
    const answer = await postJson(String(target), String(init?.body ?? ""), headers, {
      dispatcher: options.dispatcher,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    onAnswer(answer);
    if (answer.kind !== "response") throw new Error(answer.message);
    return new Response(NULL_BODY.has(answer.status) ? null : answer.body, {
      status: answer.status,
      headers: responseHeaders(answer.headers),
    });
  };
}

/** The result of a call whose client failed before it reached our `fetch`: nothing went out. */
export function noRequest(failure: unknown): HttpPostResult {
  const why = failure instanceof Error ? failure.message : String(failure);
  return { kind: "network", errorCode: undefined, message: `no request was made: ${why}` };
}

/** Statuses whose Fetch API response must have no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** undici's header record as the Fetch API's headers (repeated ones joined). */
function responseHeaders(headers: Record<string, string | string[] | undefined>): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
  }
  return out;
}
