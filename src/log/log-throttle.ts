/**
 * A budget of log lines per time window, for lines an upstream can cause at any rate
 * (one per malformed record, say: thousands a poll if it breaks every record). Up to
 * `limit` lines pass in each window; the rest are held back and counted, and the
 * next line that passes says how many were, so nothing goes unmentioned. Counting
 * every occurrence is a metric's job; the log keeps samples.
 */

/** Options of a LogThrottle. */
export interface LogThrottleOptions {
  /** Lines allowed per window. */
  limit: number;
  /** Length of a window, ms. */
  windowMs: number;
  /** Monotonic clock, ms (default performance.now): a wall-clock step moves no window. */
  now?: () => number;
}

/** Whether a line may be written now, and how many were held back before it. */
export type Admission = { write: true; suppressed: number } | { write: false };

/** Decides which lines of one kind are written; see the module comment. */
export class LogThrottle {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #windowStart = Number.NEGATIVE_INFINITY;
  #written = 0;
  #suppressed = 0;

  constructor(options: LogThrottleOptions) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Asks to write one line now. */
  admit(): Admission {
    const now = this.#now();
    // A window opens at the first line after the last one closed, not on a grid.
    if (now - this.#windowStart >= this.#windowMs) {
      this.#windowStart = now;
      this.#written = 0;
    }
    if (this.#written >= this.#limit) {
      this.#suppressed++;
      return { write: false };
    }
    this.#written++;
    const suppressed = this.#suppressed;
    this.#suppressed = 0;
    return { write: true, suppressed };
  }
}
