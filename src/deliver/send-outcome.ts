/**
 * What one attempt to send a notification came to. Senders never throw for a
 * delivery failure: they return an outcome, and the delivery worker alone turns it
 * into "done", "try again (when)" or "dead letter" — the retry decision is made once
 * (or into "not mine any more", when the job changed hands before the send).
 */
import type { FailureReason as HttpFailureReason } from "../api/retry-policy.js";

/**
 * Why an attempt failed. A closed set: it appears in delivery records, dead letters,
 * logs and metric labels, so adding a value is a deliberate change.
 */
export type DeliveryFailureReason =
  /** 429, 5xx, timeouts, connection faults, other 4xx, 3xx (see src/api/retry-policy.ts). */
  | HttpFailureReason
  /** 410 Gone from a webhook endpoint: the endpoint is disabled until re-enabled. */
  | "gone"
  /**
   * Slack refused the message for good (`no_service`, `channel_not_found`,
   * `channel_is_archived`, `invalid_payload`, …; through the Web API also `token_revoked`,
   * `invalid_auth`, `missing_scope`, `not_in_channel`, `is_archived`, …).
   */
  | "slack_refused"
  /** An SMTP 4xx reply (the server asks to try later). */
  | "smtp_transient"
  /** An SMTP 5xx reply (refused for good, for the recipients named). */
  | "smtp_permanent"
  /**
   * The outbound policy refused the address the send would have connected to
   * (loopback, private, link-local …; see OUTBOUND_ALLOW); no connection was made.
   */
  | "destination_refused"
  /** The endpoint was disabled by an earlier 410; not attempted. */
  | "endpoint_disabled"
  /** The rule or its channel is gone from the live rule set; nothing to send with. */
  | "channel_removed"
  /** The sender is not configured (for example email without `SMTP_URL`). */
  | "not_configured";

/** A recipient refused for good (email). */
export interface RefusedRecipient {
  recipient: string;
  reason: string;
}

/** The result of one attempt. */
export type SendOutcome =
  | {
      status: "delivered";
      /** HTTP status or SMTP reply code, for the record. */
      code?: number | string;
      /** Email: recipients refused for good while others were accepted. */
      refused?: RefusedRecipient[];
      /**
       * Something an operator should hear of though the notification got through (a
       * living Slack message found deleted and posted anew) — no secrets.
       */
      detail?: string;
    }
  | {
      status: "retry";
      reason: DeliveryFailureReason;
      /** Human-readable detail (status line, error message) — no secrets. */
      detail: string;
      code?: number | string;
      /** The receiver's `Retry-After`, in ms. */
      retryAfterMs?: number;
      /** Email: only these recipients are tried again (the others were accepted or refused for good). */
      retryRecipients?: string[];
      refused?: RefusedRecipient[];
    }
  | {
      status: "failed";
      reason: DeliveryFailureReason;
      detail: string;
      code?: number | string;
      /** A webhook endpoint answered 410 Gone: stop sending to it until re-enabled. */
      disableEndpoint?: boolean;
      refused?: RefusedRecipient[];
    }
  /**
   * Nothing was sent: the job's lock was gone just before the send (this worker was
   * taken for dead while it waited, and the job handed to another). Not an attempt:
   * not recorded, and the job is left to the worker that holds it now.
   */
  | { status: "abandoned" }
  /**
   * Nothing was sent, nor will be: the passenger subscription it was for ended
   * (unsubscribed, removed or expired). Recorded as `cancelled`; no dead letter.
   */
  | { status: "cancelled"; detail: string };
