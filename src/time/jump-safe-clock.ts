/**
 * A clock that the wall clock cannot send backwards. The daemon keeps instants in
 * Redis — when a group is due, when polls may start again after a failure, when a
 * catch-up began — and compares them with "now" later. A wall clock stepped back (an
 * NTP step, a VM resumed with a stale clock) would hold all of them back by the size
 * of the step: an hour's step, an hour without alerts.
 *
 * This clock follows the wall clock; when the wall clock goes back, it carries on from
 * where it was (as a monotonic clock would) and then converges on the wall clock again
 * by running slower — at half speed by default, so an hour's step is absorbed in two
 * hours, during which waits take at most twice as long. Forward steps are taken at once
 * (as before: a wait ends early). This is how NTP daemons slew small offsets rather
 * than step them.
 */

/** How a JumpSafeClock follows the wall clock. */
export interface JumpSafeClockOptions {
  /** The clock followed, epoch ms (default Date.now; the simulator's in demos). */
  wall?: () => number;
  /** Monotonic clock, ms (default performance.now). */
  monotonic?: () => number;
  /** Share of elapsed time by which an offset shrinks (default 0.5: running at half speed). */
  slewRate?: number;
  /** A step back smaller than this is taken as is (default 1 s): jitter, not a jump. */
  toleranceMs?: number;
  /** Hears each step back detected, with its size in ms. */
  onJump?: (backMs: number) => void;
}

/** Whole epoch ms that never go back by more than the tolerance. */
export class JumpSafeClock {
  readonly #wall: () => number;
  readonly #monotonic: () => number;
  readonly #slewRate: number;
  readonly #toleranceMs: number;
  readonly #onJump: ((backMs: number) => void) | undefined;
  /** How far ahead of the wall clock this clock runs (≥ 0). */
  #offset = 0;
  #last: { value: number; at: number } | undefined;

  constructor(options: JumpSafeClockOptions = {}) {
    this.#wall = options.wall ?? Date.now;
    this.#monotonic = options.monotonic ?? (() => performance.now());
    this.#slewRate = options.slewRate ?? 0.5;
    this.#toleranceMs = options.toleranceMs ?? 1_000;
    this.#onJump = options.onJump;
  }

  /** Now, epoch ms. */
  readonly now = (): number => {
    const wall = this.#wall();
    const at = this.#monotonic();
    const last = this.#last;
    if (last === undefined) {
      this.#last = { value: wall, at };
      return wall;
    }
    const elapsed = Math.max(0, at - last.at);
    const before = this.#offset;
    this.#offset = Math.max(0, before - this.#slewRate * elapsed);
    // Where this clock would be had the wall clock moved as time did.
    const expected = last.value + elapsed - (before - this.#offset);
    const value = wall + this.#offset;
    if (value < expected - this.#toleranceMs) {
      const back = expected - value;
      this.#offset += back;
      this.#onJump?.(back);
    }
    const now = Math.max(wall + this.#offset, last.value);
    this.#last = { value: now, at };
    // Whole milliseconds, as Date.now gives them (Redis expiries, ids and scores take integers).
    return Math.floor(now);
  };

  /** How far ahead of the wall clock it runs now, ms (0 unless absorbing a step back). */
  get offsetMs(): number {
    return this.#offset;
  }
}
