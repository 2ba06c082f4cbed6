/**
 * Counts per time bucket over a sliding window: the demo's sparkline of changes per
 * second. Bounded: one number per bucket, reused as the window slides.
 */

/** Options of a `ChangeRate`. */
export interface ChangeRateOptions {
  /** Buckets in the window (default 60). */
  buckets?: number;
  /** Width of one bucket on the clock the caller passes, ms (default 1000). */
  bucketMs?: number;
}

/** Event counts per bucket over the last `buckets` buckets of a clock given on every call. */
export class ChangeRate {
  readonly buckets: number;
  readonly bucketMs: number;
  readonly #counts: number[];
  /** Bucket number (time / bucketMs) of the newest bucket, or undefined before the first count. */
  #head: number | undefined;

  constructor(options: ChangeRateOptions = {}) {
    this.buckets = options.buckets ?? 60;
    this.bucketMs = options.bucketMs ?? 1000;
    if (!Number.isInteger(this.buckets) || this.buckets < 1) {
      throw new RangeError(`buckets must be a whole number ≥ 1 (got ${this.buckets})`);
    }
    if (!(this.bucketMs > 0) || !Number.isFinite(this.bucketMs)) {
      throw new RangeError(`bucketMs must be a positive number (got ${this.bucketMs})`);
    }
    this.#counts = new Array<number>(this.buckets).fill(0);
  }

  /**
   * Adds `count` events at `now`. A clock that went back a little lands in the bucket
   * it names; one that jumped a whole window or more either way (a restarted
   * simulator) starts the window afresh.
   */
  add(now: number, count = 1): void {
    if (count <= 0) return;
    const bucket = this.#bucketOf(now);
    this.#advance(bucket);
    const slot = this.#slot(bucket);
    this.#counts[slot] = (this.#counts[slot] ?? 0) + count;
  }

  /** Counts of the window ending at `now`, oldest bucket first; the last one is still filling. */
  series(now: number): number[] {
    const end = this.#bucketOf(now);
    const out: number[] = [];
    for (let b = end - this.buckets + 1; b <= end; b++) out.push(this.#countOf(b));
    return out;
  }

  #bucketOf(now: number): number {
    return Math.floor(now / this.bucketMs);
  }

  #slot(bucket: number): number {
    return ((bucket % this.buckets) + this.buckets) % this.buckets;
  }

  /** Moves the window so that it ends at `bucket`, zeroing the buckets it slides over. */
  #advance(bucket: number): void {
    if (this.#head === undefined || Math.abs(bucket - this.#head) >= this.buckets) {
      this.#counts.fill(0);
      this.#head = bucket;
      return;
    }
    for (let b = this.#head + 1; b <= bucket; b++) this.#counts[this.#slot(b)] = 0;
    if (bucket > this.#head) this.#head = bucket;
  }

  /** The count of a bucket: zero outside what the window holds. */
  #countOf(bucket: number): number {
    const head = this.#head;
    if (head === undefined || bucket > head || bucket <= head - this.buckets) return 0;
    return this.#counts[this.#slot(bucket)] ?? 0;
  }
}
