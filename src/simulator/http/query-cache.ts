/**
 * A small cache of query results (filtered and sorted record lists and their
 * serialised pages), valid for one data generation. Filtering and sorting a
 * day's flights costs milliseconds; a client paging through a result asks for the
 * same list again per page, so keeping it makes paging a slice.
 */

/** A cached result: the sorted records and the JSON of pages already served. */
export interface CachedResult<T> {
  records: T[];
  pages: Map<number, string>;
}

/** Results by query key, dropped wholesale when the data generation changes. */
export class QueryCache<T> {
  private readonly maxEntries: number;
  private generation: unknown;
  private readonly entries = new Map<string, CachedResult<T>>();

  constructor(maxEntries = 256) {
    this.maxEntries = maxEntries;
  }

  /**
   * The result for `key` in data generation `generation` (any value compared with
   * `===`, e.g. the store version), computing it with `compute` when missing.
   */
  get(generation: unknown, key: string, compute: () => T[]): CachedResult<T> {
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
    let entry = this.entries.get(key);
    if (entry) {
      // Refresh recency: Map iteration order is insertion order.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry;
    }
    entry = { records: compute(), pages: new Map() };
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return entry;
  }
}
