/**
 * The pace of Slack sends, shared by incoming webhooks and Web API channels: before a
 * send (or a group of calls) the destination's next slot is taken from the shared
 * `DestinationLimiter`, so all workers together stay within Slack's limit; a slot near
 * enough is waited for, one too far away hands the job back as a retry, a 429 that came
 * in meanwhile holds the send back too, and last of all the job must still be this
 * worker's (see `stillMine`).
 */
import { type SendContext, stillMine } from "./channel-sender.js";
import type { DestinationLimiter } from "./destination-limiter.js";
import type { SendOutcome } from "./send-outcome.js";

/** Longest wait for a slot inside one attempt; beyond it the attempt is handed back as a retry. */
export const DEFAULT_MAX_PACE_WAIT_MS = 15_000;

/** How one send is paced. */
export interface PaceOptions {
  /** The destination's spacing for this send, ms (its slot lasts this long). */
  intervalMs: number;
  /** Longest wait for the slot; beyond it the send is handed back as a retry. */
  maxWaitMs: number;
  sleep: (ms: number) => Promise<void>;
  /** The destination in details: `webhook`, `Slack channel`. */
  what: string;
}

/**
 * Takes the destination's slot and waits for it: undefined when the send may go now,
 * else the outcome to return instead (a retry, or `abandoned` when the job changed hands).
 */
export async function paceSend(
  limiter: DestinationLimiter,
  destination: string,
  context: SendContext,
  options: PaceOptions,
): Promise<SendOutcome | undefined> {
  let slot: Awaited<ReturnType<DestinationLimiter["reserve"]>>;
  try {
    slot = await limiter.reserve(destination, context.now(), {
      intervalMs: options.intervalMs,
      maxWaitMs: options.maxWaitMs,
    });
  } catch (err) {
    // Without the shared pace a send could break Slack's limit for every worker.
    const message = err instanceof Error ? err.message : String(err);
    return { status: "retry", reason: "connection", detail: `pace limiter: ${message}` };
  }
  if (!slot.reserved) {
    return {
      status: "retry",
      reason: "rate_limited",
      detail: `paced: this ${options.what}'s next free slot is ${slot.waitMs} ms away`,
      retryAfterMs: slot.waitMs,
    };
  }
  if (slot.waitMs > 0) {
    await options.sleep(slot.waitMs);
    // A 429 that came in while this send waited for its slot holds it back too.
    const heldMs = await limiter.heldFor(destination, context.now()).catch(() => 0);
    if (heldMs > 0) {
      return {
        status: "retry",
        reason: "rate_limited",
        detail: `held back: this ${options.what} answered 429, next send in ${heldMs} ms`,
        retryAfterMs: heldMs,
      };
    }
  }
  // The wait may have outlived this worker's lock: the job may be another's by now.
  if (!(await stillMine(context, slot.waitMs > 0))) return { status: "abandoned" };
  return undefined;
}
