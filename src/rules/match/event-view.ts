/**
 * One change event as the rule predicates see it: the facts several rules ask about
 * (normalised flight numbers, kind bit, best known time, airline designator) worked
 * out once per event instead of once per rule, and only when some rule asks.
 */
import {
  CHANGE_KINDS,
  type ChangeEvent,
  type ChangeKind,
  type ChangeValue,
} from "../../diff/change.js";
import { airlineDesignator, normaliseFlightNumber } from "../flight-number.js";
import type { MatchContext } from "./match-context.js";

const KIND_INDEX = new Map<string, number>(CHANGE_KINDS.map((kind, i) => [kind, i]));

/**
 * Number of kind slots: one per known kind and one shared by kinds this build does not
 * know (an event from a newer differ), which only rules taking every change can match.
 */
export const KIND_SLOTS = CHANGE_KINDS.length + 1;

/** Slot of a change kind (see `KIND_SLOTS`). */
export function kindIndex(kind: ChangeKind | string): number {
  return KIND_INDEX.get(kind) ?? CHANGE_KINDS.length;
}

/** Bit of a change kind in a kind mask. */
export function kindBit(kind: ChangeKind | string): number {
  return 1 << kindIndex(kind);
}

/** A mask with every slot's bit set: what a rule without a change filter accepts. */
export const ALL_KINDS = (1 << KIND_SLOTS) - 1;

/**
 * A predicate many rules share (rules with the same selectors or the same filter share
 * one): it depends on the event and `now` only, so its result is computed once per
 * event. Returns a number so that one memo serves yes/no checks and "which selector".
 */
export interface SharedCheck {
  /** Position in the memo, 0…n−1, unique among the checks one memo serves. */
  readonly id: number;
  run(view: EventView): number;
}

/**
 * Results of shared checks for the event being matched. A memo serves one view at a
 * time: creating the next view forgets every result (by a stamp, not by clearing).
 */
export class CheckMemo {
  private readonly stamps: Uint32Array;
  private readonly values: Int32Array;
  private stamp = 0;

  constructor(size: number) {
    this.stamps = new Uint32Array(size);
    this.values = new Int32Array(size);
  }

  /** Forgets every result: a new event is being matched. */
  next(): void {
    this.stamp++;
    if (this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  /** The check's result for the current event, computed on first use. */
  run(check: SharedCheck, view: EventView): number {
    const id = check.id;
    if (this.stamps[id] === this.stamp) return this.values[id] as number;
    const value = check.run(view);
    this.stamps[id] = this.stamp;
    this.values[id] = value;
    return value;
  }
}

/** The change kinds that move a flight: their old value still counts for the flight filter. */
export type LocationKind = "gate" | "pier" | "terminal";

/**
 * Whether the event moves its flight: a gate, pier or terminal `changed` (an assignment
 * has no value before, and a value the upstream stops giving is no change at all).
 */
export function isMove(event: ChangeEvent): boolean {
  const { kind } = event;
  return (kind === "gate" || kind === "pier" || kind === "terminal") && event.action === "changed";
}

/** Per-event facts for the predicates; lazily computed, so unasked facts cost nothing. */
export class EventView {
  readonly event: ChangeEvent;
  readonly context: MatchContext;
  /** Slot of `event.kind` (see `kindIndex`). */
  readonly kindIndex: number;
  /** Bit of `event.kind` (see `kindBit`). */
  readonly kindBit: number;
  /** Shared check results for this event; the view starts a new round in it. */
  readonly memo: CheckMemo;
  /**
   * Moves (see `isMove`) of the event's flight in the batch being matched, any version:
   * `movedFrom` keeps those of the event's own observation. Undefined when there are none.
   */
  readonly moves: readonly ChangeEvent[] | undefined;
  private namesCache: readonly string[] | undefined = undefined;
  private bestTime: number | undefined = undefined;
  private bestTimeKnown = false;
  private designator: string | undefined | null = null;

  /**
   * `names` may be given when the caller knows them (the previous event's, for the same
   * `flightNames` array): normalising costs more than the rest of a view. `moves` are
   * the batch's moves of the event's flight (same `flight.key`; see `moves`).
   */
  constructor(
    event: ChangeEvent,
    context: MatchContext,
    memo: CheckMemo,
    names?: readonly string[],
    moves?: readonly ChangeEvent[],
  ) {
    this.event = event;
    this.context = context;
    this.kindIndex = kindIndex(event.kind);
    this.kindBit = 1 << this.kindIndex;
    this.memo = memo;
    this.namesCache = names;
    this.moves = moves;
    memo.next();
  }

  /**
   * Whether a `kind` move of this event's observation (same flight and version: what one
   * poll saw, the event itself included) left a value `held` accepts. A gate change
   * D7 → E9 comes with a pier change D → E: both events are news for a pier D rule.
   */
  movedFrom(kind: LocationKind, held: (old: ChangeValue | undefined) => boolean): boolean {
    const moves = this.moves;
    if (moves === undefined) return false;
    const version = this.event.version;
    for (let i = 0; i < moves.length; i++) {
      const move = moves[i] as ChangeEvent;
      if (move.kind === kind && move.version === version && held(move.old)) {
        return true;
      }
    }
    return false;
  }

  /** The flight's numbers, normalised (`KL0601` → `KL601`) and unique; unshaped names left out. */
  get names(): readonly string[] {
    if (this.namesCache === undefined)
      this.namesCache = normalisedNames(this.event.flight.flightNames);
    return this.namesCache;
  }

  /**
   * The flight's best known departure (D) or arrival (A) time: actual, else estimated,
   * else scheduled; the schedule when the direction is unknown; undefined when none is.
   */
  get bestKnownTime(): number | undefined {
    if (!this.bestTimeKnown) {
      this.bestTime = bestKnownTime(this.event);
      this.bestTimeKnown = true;
    }
    return this.bestTime;
  }

  /** Airline designator of the main flight (`KL` of `KL0601`), for carriers the records omit. */
  get mainDesignator(): string | undefined {
    if (this.designator === null) this.designator = airlineDesignator(this.event.flight.mainFlight);
    return this.designator;
  }
}

/** `flightNames` in normal form, unique, unshaped ones left out (see `EventView.names`). */
export function normalisedNames(names: readonly string[]): readonly string[] {
  const out: string[] = [];
  for (const name of names) {
    const normal = normaliseFlightNumber(name);
    if (normal !== undefined && !out.includes(normal)) out.push(normal);
  }
  return out;
}

/** See `EventView.bestKnownTime`. */
export function bestKnownTime(event: ChangeEvent): number | undefined {
  const { flight } = event;
  const times = event.current?.times;
  if (flight.direction === "D") {
    return times?.actualOffBlockTime ?? times?.publicEstimatedOffBlockTime ?? flight.scheduled;
  }
  if (flight.direction === "A") {
    return times?.actualLandingTime ?? times?.estimatedLandingTime ?? flight.scheduled;
  }
  return flight.scheduled;
}
