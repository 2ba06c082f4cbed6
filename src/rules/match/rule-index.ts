/**
 * Which rules can match an event, without looking at the others: rules that name
 * flight numbers are filed under each number; rules that name no flight but gates
 * under each gate (a prefix `E*` under `E`); the rest under each change kind they
 * select. An event's candidates are the rules filed under its numbers, under its gate
 * and the gates a move of its observation left, plus the unfiled rules of its kind, so
 * its cost grows with the rules that can match it, not with the size of the set.
 */
import type { ChangeEvent } from "../../diff/change.js";
import { type EventView, KIND_SLOTS } from "./event-view.js";
import { upper } from "./flight-tests.js";

/** What the index needs of a rule: its flight numbers (normal form), gates and kind mask. */
export interface IndexEntry {
  /** Undefined: the rule names no flight (it is filed by gate or by kind). */
  numbers: readonly string[] | undefined;
  /**
   * The gates of a rule that names no flight (as written: a trailing `*` matches by
   * prefix; any case); undefined (or empty) files it by kind.
   */
  gates?: readonly string[] | undefined;
  kinds: number;
}

/** Positions filed under one key, ascending; a lone position unboxed (most keys). */
type Filed = number | number[];

function file(map: Map<string, Filed>, key: string, position: number): void {
  const filed = map.get(key);
  if (filed === undefined) map.set(key, position);
  else if (typeof filed === "number") {
    if (filed !== position) map.set(key, [filed, position]);
  } else if (filed[filed.length - 1] !== position) filed.push(position);
}

/** Lists sized to what they hold (a pushed list keeps room to grow): the index lives as long as its set. */
function trim(map: Map<string, Filed>): void {
  for (const [key, filed] of map) {
    if (typeof filed !== "number" && filed.length > 2) map.set(key, filed.slice());
  }
}

/** An immutable index over rule positions 0…n−1. */
export class RuleIndex {
  /** Number → positions of the rules naming it. */
  private readonly byFlight = new Map<string, Filed>();
  /** Gate (upper case) → positions of the unnumbered rules naming it. */
  private readonly byGate = new Map<string, Filed>();
  /** Gate prefix (upper case, without the `*`) → positions of the unnumbered rules naming it. */
  private readonly byGatePrefix = new Map<string, Filed>();
  /** The lengths of the prefixes in `byGatePrefix`, ascending. */
  private readonly prefixLengths: number[];
  /** Kind slot → positions of the unnumbered rules selecting that kind, ascending. */
  private readonly byKind: number[][];
  private readonly kinds: Int32Array;
  /** Scratch of `#gate` (matching is synchronous). */
  #lists = 0;

  constructor(entries: readonly IndexEntry[]) {
    const byKind: number[][] = Array.from({ length: KIND_SLOTS }, () => []);
    this.kinds = new Int32Array(entries.length);
    entries.forEach((entry, position) => {
      this.kinds[position] = entry.kinds;
      if (entry.numbers !== undefined) {
        for (const number of entry.numbers) file(this.byFlight, number, position);
        return;
      }
      const gates = entry.gates;
      if (gates !== undefined && gates.length > 0) {
        for (const gate of gates) {
          const name = upper(gate);
          if (name.endsWith("*")) file(this.byGatePrefix, name.slice(0, -1), position);
          else file(this.byGate, name, position);
        }
        return;
      }
      for (let slot = 0; slot < KIND_SLOTS; slot++) {
        if ((entry.kinds & (1 << slot)) !== 0) byKind[slot]?.push(position);
      }
    });
    trim(this.byFlight);
    trim(this.byGate);
    trim(this.byGatePrefix);
    this.prefixLengths = [...new Set([...this.byGatePrefix.keys()].map((p) => p.length))].sort(
      (a, b) => a - b,
    );
    this.byKind = byKind.map((positions) => positions.slice());
  }

  /**
   * Writes to `out` (emptied first) the positions of the rules that can match the
   * event: the unfiled rules of its kind, then those filed under each of its numbers and
   * under its gates (the flight's, and those a gate move of its observation left: see
   * `EventView.movedFrom`) that select its kind. Every other criterion is for the caller
   * to check. Returns whether `out` is in rule order without repeats; when not (more
   * than one list contributed, and a rule naming two of the flight's numbers or gates is
   * listed twice), the caller restores the order of what matched — far fewer than the
   * candidates.
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
      const before = n;
      n = take(this.byFlight.get(names[i] as string), kinds, bit, out, n);
      if (n > before) lists++;
    }
    // Stryker disable next-line ConditionalExpression: a shortcut, empty maps give no candidates
    if (this.byGate.size > 0 || this.byGatePrefix.size > 0) {
      const event = view.event;
      const gate = event.current?.gate;
      let looked: string | undefined;
      if (typeof gate === "string") {
        looked = gate;
        n = this.#gate(gate, kinds, bit, out, n);
        lists += this.#lists;
      }
      const moves = view.moves;
      if (moves !== undefined) {
        for (let i = 0; i < moves.length; i++) {
          const move = moves[i] as ChangeEvent;
          const old = move.old;
          if (move.kind !== "gate" || move.version !== event.version) continue;
          if (typeof old !== "string" || old === looked) continue;
          n = this.#gate(old, kinds, bit, out, n);
          lists += this.#lists;
        }
      }
    }
    if (out.length !== n) out.length = n;
    return lists <= 1;
  }

  /**
   * Appends (from `n`) the rules filed under `gate`, exactly or by a prefix; returns the
   * new end, and leaves in `#lists` how many lists contributed.
   */
  #gate(gate: string, kinds: Int32Array, bit: number, out: number[], n: number): number {
    const name = upper(gate);
    let lists = 0;
    let before = n;
    n = take(this.byGate.get(name), kinds, bit, out, n);
    if (n > before) lists++;
    const lengths = this.prefixLengths;
    for (let i = 0; i < lengths.length; i++) {
      const length = lengths[i] as number;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut, a longer prefix's slice is the whole gate, a key looked up already
      if (length > name.length) break;
      before = n;
      n = take(this.byGatePrefix.get(name.slice(0, length)), kinds, bit, out, n);
      if (n > before) lists++;
    }
    this.#lists = lists;
    return n;
  }
}

/** Appends (from `n`) the positions of `filed` whose rules select the kind `bit`; returns the new end. */
function take(
  filed: Filed | undefined,
  kinds: Int32Array,
  bit: number,
  out: number[],
  n: number,
): number {
  if (filed === undefined) return n;
  if (typeof filed === "number") {
    if (((kinds[filed] as number) & bit) !== 0) out[n++] = filed;
    return n;
  }
  for (let j = 0; j < filed.length; j++) {
    const position = filed[j] as number;
    if (((kinds[position] as number) & bit) !== 0) out[n++] = position;
  }
  return n;
}
