/**
 * Liveness of the daemon's stages (poll, dispatch, notify, deliver): whether one has
 * been failing without a break for longer than a bound. flightwatch recovers from
 * Redis trouble in-process as a rule; this is the backstop for what it does not
 * foresee — a stage that keeps failing while Redis answers turns `/healthz` to 503, so
 * a supervisor restarts the process. A Redis that does not answer is not such a case
 * (restarting would not help; readiness says so instead), nor is an upstream that
 * fails (the poll stage works: it backs off and tries again).
 */

/** How a StageHealth judges. */
export interface StageHealthOptions {
  /** A stage failing without a success for this long is stuck (default 2 min). */
  stuckAfterMs?: number;
  /** A streak ends when no failure came for this long (default 30 s): an idle stage after trouble is fine. */
  quietMs?: number;
  /** Monotonic clock, ms (default performance.now). */
  monotonic?: () => number;
}

/** One stage's current streak of failures. */
interface Streak {
  since: number;
  last: number;
  failures: number;
  error: string;
}

/** A stage found stuck. */
export interface StuckStage {
  stage: string;
  /** How long it has been failing, ms. */
  forMs: number;
  failures: number;
  /** The last error's message. */
  lastError: string;
}

/** Streaks of failures per stage. */
export class StageHealth {
  readonly #stuckAfterMs: number;
  readonly #quietMs: number;
  readonly #monotonic: () => number;
  readonly #streaks = new Map<string, Streak>();

  constructor(options: StageHealthOptions = {}) {
    this.#stuckAfterMs = options.stuckAfterMs ?? 120_000;
    this.#quietMs = options.quietMs ?? 30_000;
    this.#monotonic = options.monotonic ?? (() => performance.now());
  }

  /** The stage did its work (a step, a poll, a job), whatever it found. */
  ok(stage: string): void {
    this.#streaks.delete(stage);
  }

  /** The stage failed. */
  failed(stage: string, err: Error): void {
    const now = this.#monotonic();
    const streak = this.#streaks.get(stage);
    if (streak && now - streak.last <= this.#quietMs) {
      streak.last = now;
      streak.failures++;
      streak.error = err.message;
      return;
    }
    this.#streaks.set(stage, { since: now, last: now, failures: 1, error: err.message });
  }

  /** The stages failing without a break for longer than the bound. */
  stuck(): StuckStage[] {
    const now = this.#monotonic();
    const stuck: StuckStage[] = [];
    for (const [stage, streak] of this.#streaks) {
      if (now - streak.last > this.#quietMs) continue;
      const forMs = now - streak.since;
      if (forMs >= this.#stuckAfterMs) {
        stuck.push({ stage, forMs, failures: streak.failures, lastError: streak.error });
      }
    }
    return stuck;
  }
}
