/**
 * A fixed-capacity list that forgets its oldest items: the demo view keeps "the last
 * N" of everything it shows, however long the demo runs.
 */

/** The newest `capacity` items pushed, oldest overwritten first. */
export class RingBuffer<T> {
  readonly capacity: number;
  readonly #items: (T | undefined)[];
  /** Index the next push writes to. */
  #next = 0;
  #size = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`ring buffer capacity must be a whole number ≥ 1 (got ${capacity})`);
    }
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  /** Items held (at most `capacity`). */
  get size(): number {
    return this.#size;
  }

  /** Adds an item, dropping the oldest when full. */
  push(item: T): void {
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
  }

  /** Up to `limit` items, newest first. */
  newest(limit = this.#size): T[] {
    const n = Math.min(Math.max(0, limit), this.#size);
    const out: T[] = [];
    for (let i = 1; i <= n; i++) {
      out.push(this.#items[(this.#next - i + this.capacity) % this.capacity] as T);
    }
    return out;
  }

  /** The newest item that satisfies `test`, or undefined. */
  find(test: (item: T) => boolean): T | undefined {
    for (let i = 1; i <= this.#size; i++) {
      const item = this.#items[(this.#next - i + this.capacity) % this.capacity] as T;
      if (test(item)) return item;
    }
    return undefined;
  }
}
