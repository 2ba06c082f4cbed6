/**
 * The deadline of one poll (`POLL_TIMEOUT`). Whatever the upstream does, a poll must
 * end: the lease on polling is released only when it returns, and a poll that never
 * returns is never logged, counted or backed off. So the deadline both aborts the
 * poll's requests (its `signal` goes to every read) and stops waiting for them (`race`),
 * in case something does not heed the signal.
 *
 * Once the commit begins the deadline stands down: a Redis transaction under way is
 * waited for, so a poll reported failed never committed, and one that committed is
 * never reported failed. Time is kept by a timer, on the monotonic clock.
 */
import { PollTimeoutError } from "../errors.js";

/** One poll's deadline; `dispose()` it when the poll ends. */
export class PollDeadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #outer: AbortSignal | undefined;
  readonly #forward = (): void => {
    if (!this.#committing) this.#controller.abort(this.#outer?.reason);
  };
  readonly #expired: Promise<never>;
  #committing = false;

  /** Starts the clock: `timeoutMs` from now; `outer` (a shutdown) aborts the poll too. */
  constructor(timeoutMs: number, outer?: AbortSignal) {
    this.#outer = outer;
    this.#expired = new Promise<never>((_, reject) => {
      this.#controller.signal.addEventListener("abort", () =>
        reject(this.#controller.signal.reason),
      );
    });
    // Nobody may be racing yet (or ever): the rejection is read through `race`.
    this.#expired.catch(() => undefined);
    this.#timer = setTimeout(() => {
      if (this.#committing) return;
      this.#controller.abort(
        new PollTimeoutError(
          timeoutMs,
          `the poll did not finish within ${describeMs(timeoutMs)} (POLL_TIMEOUT): every request in flight was aborted and nothing was committed. ` +
            "If full reads of the horizon (baseline, reconcile) take this long, raise POLL_TIMEOUT",
        ),
      );
    }, timeoutMs);
    if (outer?.aborted) this.#forward();
    else outer?.addEventListener("abort", this.#forward, { once: true });
  }

  /** Aborted when the deadline passes (reason: a PollTimeoutError) or the outer signal aborts. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The PollTimeoutError when the deadline has passed, else undefined. */
  get timedOut(): PollTimeoutError | undefined {
    const reason: unknown = this.#controller.signal.reason;
    return reason instanceof PollTimeoutError ? reason : undefined;
  }

  /**
   * `work`'s result, or a rejection with the abort reason as soon as the poll is
   * aborted, whichever comes first. Work left behind is abandoned: its requests were
   * aborted, and `beginCommit` keeps it from committing.
   */
  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    return Promise.race([work, this.#expired]);
  }

  /** Called just before the commit: throws if the poll is aborted, else stands the deadline down. */
  beginCommit(): void {
    this.#controller.signal.throwIfAborted();
    this.#committing = true;
  }

  /** Stops the clock and lets go of the outer signal. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#outer?.removeEventListener("abort", this.#forward);
  }
}

function describeMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
