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
    this.byKind = Array.from({ length: KIND_SLOTS }, () => []);
    this.kinds = new Int32Array(entries.length);
    entries.forEach((entry, position) => {
      this.kinds[position] = entry.kinds;
      if (entry.numbers === undefined) {
        for (let slot = 0; slot < KIND_SLOTS; slot++) {
          if ((entry.kinds & (1 << slot)) !== 0) this.byKind[slot]?.push(position);
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
  }

  /**
   * Positions of the rules that can match the event, ascending and unique. A rule
   * naming several of the flight's numbers is listed once. Rules of other kinds are
   * left out; every other criterion is for the caller to check.
   */
  candidates(view: EventView): readonly number[] {
    const byKind = this.byKind[view.kindIndex] ?? [];
    const names = view.names;
    let out: number[] | undefined;
    for (let i = 0; i < names.length; i++) {
      const filed = this.byFlight.get(names[i] as string);
      if (filed === undefined) continue;
      out ??= byKind.slice();
      if (typeof filed === "number") this.add(out, filed, view.kindBit);
      else for (let j = 0; j < filed.length; j++) this.add(out, filed[j] as number, view.kindBit);
    }
    if (out === undefined) return byKind;
    // Usually a handful: sorting restores rule order, and duplicates end up adjacent.
    if (out.length > 1) {
      out.sort((a, b) => a - b);
      let unique = 1;
      for (let i = 1; i < out.length; i++)
        if (out[i] !== out[unique - 1]) out[unique++] = out[i] as number;
      out.length = unique;
    }
    return out;
  }

  private add(out: number[], position: number, kindBit: number): void {
    if (((this.kinds[position] as number) & kindBit) !== 0) out.push(position);
  }
}
