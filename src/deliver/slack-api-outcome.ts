/**
 * What a failed Slack Web API call means for a notification, decided once from what
 * `@slack/web-api` made of Slack's answer (its typed errors: `ErrorCode.PlatformError`
 * with Slack's `error`, `ErrorCode.RateLimitedError` with `retryAfter`) and, where the
 * client's error says less, from the answer itself as our `fetch` kept it. Slack's
 * refusals that will not pass by themselves (a revoked token, a missing scope, a channel
 * the bot is not in) fail for good, naming Slack's error and what to do about it; rate
 * limits, Slack's own trouble, 5xx and network faults are tried again. Pure.
 */
import { ErrorCode, type WebAPIPlatformError, type WebAPIRateLimitedError } from "@slack/web-api";
import { type HttpPostResult, httpOutcome, oneLine } from "./http-post.js";
import type { SendOutcome } from "./send-outcome.js";

/** The Web API methods flightwatch calls. */
export type SlackApiMethod = "chat.postMessage" | "chat.update";

/**
 * chat.update's errors after which the living message will not take this update or any
 * later one — it was deleted (`message_not_found`), this app may not edit it
 * (`cant_update_message`: posted by another app's token, say), or the workspace's edit
 * window closed (`edit_window_closed`) — with what each says of the message: a new one is
 * posted in its place, so the flight as it is now is visible again.
 */
export const MESSAGE_REPLACED: Readonly<Record<string, string>> = {
  message_not_found: "was gone",
  cant_update_message: "cannot be updated by this app",
  edit_window_closed: "can no longer be edited",
};

/**
 * chat.update's errors about this edit alone — its content (too long, blocks Slack would
 * not take or not swap for the message's own) or Slack's failing to apply it: the message
 * keeps what it showed (the next alert updates it), and the thread reply is still posted.
 * Kept to errors known to say nothing of the token or the channel; any other refusal of
 * chat.update still fails the notification.
 */
export const EDIT_REFUSED: ReadonlySet<string> = new Set([
  "msg_too_long",
  "no_text",
  "invalid_blocks",
  "invalid_blocks_format",
  "block_mismatch",
  "invalid_attachments",
  "too_many_attachments",
  "update_failed",
]);

/** chat.postMessage's errors for a reply whose parent is gone (deleted): there is no thread. */
export const THREAD_GONE: ReadonlySet<string> = new Set(["thread_not_found", "message_not_found"]);

/** Slack's errors that need the operator, and what the operator does about each. */
const REFUSALS: Readonly<Record<string, string>> = {
  invalid_auth:
    "the bot token is not valid; copy the app's Bot User OAuth Token (xoxb-…) into the rule's token",
  token_revoked: "the bot token was revoked; install the app again and update the rule's token",
  account_inactive:
    "the app's bot user or its workspace was deactivated; install the app again and update the rule's token",
  not_authed: "no token reached Slack; check the rule's token",
  missing_scope:
    "the bot token lacks the chat:write scope; add it under OAuth & Permissions, reinstall the app and update the rule's token",
  channel_not_found:
    "the bot cannot see this channel; check the rule's channel id, and invite the app if the channel is private",
  not_in_channel:
    "the bot is not a member of this channel; invite it (`/invite @<app>` in the channel)",
  is_archived: "the channel is archived; unarchive it or point the rule at another channel",
};

/** Errors Slack documents as passing trouble on its side: tried again. */
const PASSING: ReadonlySet<string> = new Set([
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "ratelimited",
  "team_added_to_org",
]);

/** Slack's `error` of a platform error (an `ok: false` answer); undefined for any other failure. */
export function platformError(failure: unknown): string | undefined {
  return codeOf(failure) === ErrorCode.PlatformError
    ? String((failure as WebAPIPlatformError).data.error)
    : undefined;
}

/**
 * The outcome of a failed call to `method` about Slack channel `channelId`: `failure` is
 * what the client threw, `answer` the last answer our `fetch` saw (none when no request
 * went out).
 */
export function slackApiOutcome(
  method: SlackApiMethod,
  channelId: string,
  failure: unknown,
  answer: HttpPostResult | undefined,
  nowMs: number,
): SendOutcome {
  if (codeOf(failure) === ErrorCode.RateLimitedError) {
    const seconds = (failure as WebAPIRateLimitedError).retryAfter;
    return {
      status: "retry",
      reason: "rate_limited",
      detail: `Slack rate limit on ${method} (HTTP 429, Retry-After ${seconds} s)`,
      code: 429,
      retryAfterMs: Math.max(0, seconds) * 1000,
    };
  }
  const error = platformError(failure);
  if (error !== undefined) {
    const said = oneLine(error) || "no error text";
    if (PASSING.has(error)) {
      return {
        status: "retry",
        reason: "server_error",
        detail: `Slack could not take ${method} for now: ${said}`,
      };
    }
    const advice = Object.hasOwn(REFUSALS, error) ? REFUSALS[error] : undefined;
    return {
      status: "failed",
      reason: "slack_refused",
      detail: `${said}: ${advice ?? `Slack refused ${method}`} (${method}, channel ${channelId})`,
    };
  }
  if (answer?.kind === "response" && answer.status === 429) {
    // A 429 without a usable Retry-After: the client gives up on it with a plain error.
    return {
      status: "retry",
      reason: "rate_limited",
      detail: `Slack rate limit on ${method} (HTTP 429 without Retry-After)`,
      code: 429,
    };
  }
  if (answer === undefined || (answer.kind === "response" && answer.status < 300)) {
    // The request never went out, or its answer could not be read as one of Slack's.
    const why = failure instanceof Error ? failure.message : String(failure);
    return {
      status: "retry",
      reason: "network",
      detail: `${method}: ${answer === undefined ? "no request was made" : "unreadable answer"}: ${oneLine(why)}`,
    };
  }
  const outcome = httpOutcome(answer, nowMs);
  return outcome.status === "retry" || outcome.status === "failed"
    ? { ...outcome, detail: `${method}: ${outcome.detail}` }
    : outcome;
}

function codeOf(failure: unknown): unknown {
  return typeof failure === "object" && failure !== null
    ? (failure as { code?: unknown }).code
    : undefined;
}
