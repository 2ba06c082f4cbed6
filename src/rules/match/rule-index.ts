/**
 * Which rules can match an event, without looking at the others: rules that name
 * flight numbers are filed under each number, the rest under each change kind they
 * select. An event's candidates are the rules filed under its numbers plus the
 * unnumbered rules of its kind, so its cost grows with the rules that can match it,
 * not with the size of the set.
 */
import { type EventView, KIND_SLOTS } from "./event-view.js";

/** What the index needs of a rule: its flight numbers (normal form) and kind mask. */
export interface IndexEntry {
  /** Undefined: the rule names no flight (it is filed by kind). */
  numbers: readonly string[] | undefined;
  kinds: number;
}

/** An immutable index over rule positions 0…n−1. */
export class RuleIndex {
  /** Number → positions of the rules naming it, ascending; a lone position unboxed (most numbers). */
  private readonly byFlight = new Map<string, number | number[]>();
  /** Kind slot → positions of the unnumbered rules selecting that kind, ascending. */
  private readonly byKind: number[][];
  private readonly kinds: Int32Array;

  constructor(entries: readonly IndexEntry[]) {
    const byKind: number[][] = Array.from({ length: KIND_SLOTS }, () => []);
    this.kinds = new Int32Array(entries.length);
    entries.forEach((entry, position) => {
      this.kinds[position] = entry.kinds;
      if (entry.numbers === undefined) {
        for (let slot = 0; slot < KIND_SLOTS; slot++) {
          if ((entry.kinds & (1 << slot)) !== 0) byKind[slot]?.push(position);
        }
        return;
      }
      for (const number of entry.numbers) {
        const filed = this.byFlight.get(number);
        if (filed === undefined) this.byFlight.set(number, position);
        else if (typeof filed === "number") this.byFlight.set(number, [filed, position]);
        else filed.push(position);
      }
    });
    // Lists sized to what they hold (a pushed list keeps room to grow): the index lives
    // as long as its set.
    for (const [number, filed] of this.byFlight) {
      if (typeof filed !== "number" && filed.length > 2) this.byFlight.set(number, filed.slice());
    }
    this.byKind = byKind.map((positions) => positions.slice());
  }

  /**
   * Writes to `out` (emptied first) the positions of the rules that can match the
   * event: the unnumbered rules of its kind, then those filed under each of its numbers
   * that select its kind. Every other criterion is for the caller to check. Returns
   * whether `out` is in rule order without repeats; when not (more than one list
   * contributed, and a rule naming two of the flight's numbers is listed twice), the
   * caller restores the order of what matched — far fewer than the candidates.
   */
  candidates(view: EventView, out: number[]): boolean {
    // Written in place and cut to length at the end, not emptied first: emptying an
    // array gives its storage back, and refilling it then allocates anew for every event.
    let n = 0;
    const kinds = this.kinds;
    const bit = view.kindBit;
    let lists = 0;
    const byKind = this.byKind[view.kindIndex] as number[];
    if (byKind.length > 0) {
      lists++;
      for (let i = 0; i < byKind.length; i++) out[n++] = byKind[i] as number;
    }
    const names = view.names;
    for (let i = 0; i < names.length; i++) {
      const filed = this.byFlight.get(names[i] as string);
      if (filed === undefined) continue;
      const before = n;
      if (typeof filed === "number") {
        if (((kinds[filed] as number) & bit) !== 0) out[n++] = filed;
      } else {
        for (let j = 0; j < filed.length; j++) {
          const position = filed[j] as number;
          if (((kinds[position] as number) & bit) !== 0) out[n++] = position;
        }
      }
      if (n > before) lists++;
    }
    if (out.length !== n) out.length = n;
    return lists <= 1;
  }
}
