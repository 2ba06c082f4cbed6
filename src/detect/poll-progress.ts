/**
 * How long ago detection last committed a poll, as this process has seen it — for
 * readiness and the poll-lag metric. Every commit bumps the detection state's `seq`
 * (see DetectionStore.commit); a process notes the moment, on its own monotonic clock,
 * at which it sees `seq` change (or commits itself). An age measured this way cannot
 * go negative or freeze when the wall clock is stepped back (NTP, a VM resume), and it
 * counts from the commit, not from the start of a poll that may have taken seconds.
 */

/** What PollProgress reads and how it tells time. */
export interface PollProgressOptions {
  /** The detection state's commit counter (undefined before the first commit, or after a loss). */
  readSeq: () => Promise<string | undefined>;
  /** Monotonic clock, ms (default performance.now). */
  monotonic?: () => number;
}

/** The age of the last commit seen by this process. */
export class PollProgress {
  readonly #readSeq: () => Promise<string | undefined>;
  readonly #monotonic: () => number;
  /** The counter last read, and when a change of it (or an own commit) was last seen. */
  #seq: string | undefined;
  #read = false;
  #seenAt: number | undefined;

  constructor(options: PollProgressOptions) {
    this.#readSeq = options.readSeq;
    this.#monotonic = options.monotonic ?? (() => performance.now());
  }

  /** This process has just committed a poll. */
  noteCommit(): void {
    this.#seenAt = this.#monotonic();
    // The counter moved by this very commit: the next read only learns its value.
    this.#read = false;
  }

  /**
   * Reads the counter: a value other than the one read last time means a commit
   * happened since (the first read only learns the value: that commit's time is unknown).
   */
  async refresh(): Promise<void> {
    const seq = await this.#readSeq();
    if (this.#read && seq !== undefined && seq !== this.#seq) this.#seenAt = this.#monotonic();
    this.#seq = seq;
    this.#read = true;
  }

  /** Ms since the last commit seen, or undefined when none has been seen yet. */
  ageMs(): number | undefined {
    return this.#seenAt === undefined ? undefined : this.#monotonic() - this.#seenAt;
  }
}
