/**
 * What the client reports after every HTTP attempt, so callers can count upstream
 * requests by status in metrics and log them without a logging library inside the
 * client. Events never carry credentials: they travel in headers, never in URLs.
 */
import type { OperationId } from "./operation-id.js";
import type { FailureReason } from "./retry-policy.js";

/** One HTTP attempt against the upstream, successful or not. */
export interface ExchangeEvent {
  operation: OperationId;
  /** Request URL, query included. */
  url: string;
  /** 1 for the first attempt of a request, 2 for its first retry, … */
  attempt: number;
  /** Wall time of the attempt, body read included. */
  durationMs: number;
  /**
   * HTTP status, when an answer came whole; absent when nothing was answered and when
   * the body never arrived whole (a timeout, a body over the cap).
   */
  status?: number;
  /** `ok`, or why the attempt failed (a closed set, fit for metric labels). */
  outcome: "ok" | FailureReason;
  /** Whether another attempt follows. */
  willRetry: boolean;
  /** Wait before that attempt, in ms, when one follows. */
  retryDelayMs?: number;
}
