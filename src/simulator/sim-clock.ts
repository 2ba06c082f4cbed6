/**
 * The simulator's clock. Simulated time can run faster than real time (`speed`), or
 * be moved by hand in tests (`manual`). Everything in the simulator reads time here,
 * never from `Date.now()` directly.
 */

/** A source of simulated time. */
export interface SimClock {
  /** Simulated now, epoch milliseconds. */
  now(): number;
}

/** Options of a real-time-driven clock. */
export interface ScaledClockOptions {
  /** Simulated time at start, epoch ms (default: real now). */
  startMs?: number;
  /** Simulated milliseconds per real millisecond (default 1). */
  speed?: number;
  /** Real time source, for tests (default `Date.now`). */
  realNow?: () => number;
}

/** A clock that follows real time at `speed`, from `startMs`. */
export class ScaledClock implements SimClock {
  private readonly realNow: () => number;
  private anchorReal: number;
  private anchorSim: number;
  private speedFactor: number;

  constructor(options: ScaledClockOptions = {}) {
    this.realNow = options.realNow ?? Date.now;
    this.anchorReal = this.realNow();
    this.anchorSim = options.startMs ?? this.anchorReal;
    this.speedFactor = options.speed ?? 1;
  }

  now(): number {
    return Math.floor(this.anchorSim + (this.realNow() - this.anchorReal) * this.speedFactor);
  }

  get speed(): number {
    return this.speedFactor;
  }

  /** Changes the speed from now on, without a jump in simulated time. */
  setSpeed(speed: number): void {
    this.anchorSim = this.now();
    this.anchorReal = this.realNow();
    this.speedFactor = speed;
  }

  /** Jumps simulated time forward by `ms` (catch-up scenarios). */
  skip(ms: number): void {
    this.anchorSim += ms;
  }
}

/** A clock that only moves when told to; for deterministic tests. */
export class ManualClock implements SimClock {
  private current: number;

  constructor(startMs: number) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  /** Moves simulated time forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }

  /** Sets simulated time (never backwards). */
  set(ms: number): void {
    if (ms < this.current) throw new RangeError("ManualClock cannot go backwards");
    this.current = ms;
  }
}
