/**
 * A time-ordered agenda (binary min-heap): what is due next, in O(log n) per entry,
 * so a tick costs only the events it processes and never a scan of all flights.
 * Entries due at the same time come out in the order they were added.
 */

/** An agenda entry: due time, insertion sequence, payload. */
export interface AgendaEntry<T> {
  at: number;
  seq: number;
  item: T;
}

/** Min-heap of items by (due time, insertion order). */
export class Agenda<T> {
  private readonly heap: AgendaEntry<T>[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Adds an item due at `at`; returns its sequence number. */
  push(at: number, item: T): number {
    const entry = { at, seq: this.nextSeq++, item };
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (!p || !before(entry, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
    return entry.seq;
  }

  /** The next entry without removing it. */
  peek(): AgendaEntry<T> | undefined {
    return this.heap[0];
  }

  /** Removes and returns the next entry. */
  pop(): AgendaEntry<T> | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (!top || !last || heap.length === 0) return top;
    let i = 0;
    const n = heap.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const l = heap[left];
      const r = heap[right];
      let child = left;
      let c = l;
      if (r && l && before(r, l)) {
        child = right;
        c = r;
      }
      if (!c || !before(c, last)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

function before<T>(a: AgendaEntry<T>, b: AgendaEntry<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
