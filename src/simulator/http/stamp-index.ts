/**
 * The simulator's records by `lastUpdatedAt`, so that a `/flights` query from a
 * `lastUpdatedAt` bound (what every incremental poll asks) looks at the records
 * stamped since instead of scanning the whole store.
 *
 * A log of (stamp, id) grows with every change; stamps come from the clock, so it is
 * normally in order and a binary search finds where a bound starts. An entry counts
 * only while it is its record's current stamp. The log is rebuilt from the current
 * stamps, sorted, when it has grown to twice the store or an entry came out of order
 * (a backdated stamp).
 */
import type { FlightChange, FlightStore } from "../flight-store.js";

interface Entry {
  ms: number;
  id: string;
}

export class StampIndex {
  readonly #store: FlightStore;
  readonly #current = new Map<string, number>();
  #log: Entry[] = [];
  #sorted = true;

  constructor(store: FlightStore) {
    this.#store = store;
    for (const flight of store.all()) {
      if (flight.id !== undefined) this.#current.set(flight.id, store.lastUpdatedMs(flight));
    }
    this.#rebuild();
    store.onChange((change) => this.#note(change));
  }

  /** Ids of the records whose `lastUpdatedAt` is at or after `fromMs`, oldest first. */
  idsFrom(fromMs: number): string[] {
    if (!this.#sorted) this.#rebuild();
    const log = this.#log;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((log[mid] as Entry).ms < fromMs) lo = mid + 1;
      else hi = mid;
    }
    const ids: string[] = [];
    for (let i = lo; i < log.length; i++) {
      const { ms, id } = log[i] as Entry;
      // Older entries of a record changed since are not it any more.
      if (this.#current.get(id) === ms) ids.push(id);
    }
    // A record stamped twice with the same instant has two current entries.
    return ids.length > 1 ? [...new Set(ids)] : ids;
  }

  #note({ id, after }: FlightChange): void {
    if (after === undefined) {
      this.#current.delete(id);
      return;
    }
    const ms = this.#store.lastUpdatedMs(after);
    this.#current.set(id, ms);
    const last = this.#log.at(-1);
    if (last !== undefined && ms < last.ms) this.#sorted = false;
    this.#log.push({ ms, id });
    if (this.#log.length > 2 * this.#current.size + 1024) this.#sorted = false;
  }

  #rebuild(): void {
    this.#log = [...this.#current].map(([id, ms]) => ({ ms, id })).sort((a, b) => a.ms - b.ms);
    this.#sorted = true;
  }
}
