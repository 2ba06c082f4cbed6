/**
 * Rule matching: which rules select which change events. Pure — a function of the
 * rules, the events and `now` — and indexed (see `RuleIndex`), so 100,000 passenger
 * rules cost little more per event than 100. Semantics: docs/rules.md, "How matching works".
 * The events of one observation (same flight key and version: one outbox entry) are
 * matched together in one respect: a gate, pier or terminal move among them lets the
 * location criteria of every one of them hold for the value the flight left.
 */
import type { ChangeEvent } from "../../diff/change.js";
import { airportZone, DEFAULT_AIRPORT_TIMEZONE } from "../../time/local-time.js";
import type { Rule } from "../rule.js";
import type { RuleMatch } from "../rule-match.js";
import { type RuleCheck, RuleCompiler } from "./compiled-rule.js";
import { CheckMemo, EventView, isMove, normalisedNames } from "./event-view.js";
import { MatchContext } from "./match-context.js";
import { RuleIndex } from "./rule-index.js";

/** Options of a `RuleSet`. */
export interface RuleSetOptions {
  /** The airport's IANA zone, for `today` / `tomorrow` bounds. Default Europe/Amsterdam. */
  zone?: string;
}

/** Rules compiled for matching: an index plus per-rule predicates. Immutable. */
export class RuleSet {
  readonly rules: readonly Rule[];
  /** Each rule's checks, by position: shared objects, a handful for rules written alike. */
  private readonly checks: readonly RuleCheck[];
  private readonly index: RuleIndex;
  private readonly byId: ReadonlyMap<string, Rule>;
  private readonly zone: string;
  /** Scratch for one `match` call at a time (matching is synchronous, so never shared). */
  private readonly memo: CheckMemo;
  // Stryker disable next-line ArrayDeclaration: scratch, emptied before each use (by `RuleIndex.candidates`)
  private readonly candidates: number[] = [];
  // Stryker disable next-line ArrayDeclaration: scratch, emptied before each use (in `match`)
  private readonly positions: number[] = [];
  /** The rules with reminders, matching every change (`reminding`); null until first asked. */
  private reminders: RuleSet | undefined | null = null;

  constructor(rules: readonly Rule[], options: RuleSetOptions = {}) {
    this.rules = Object.freeze(rules.slice());
    this.zone = options.zone ?? DEFAULT_AIRPORT_TIMEZONE;
    // An unknown zone fails here (ConfigError), not at the first `today` bound matched.
    airportZone(this.zone);
    const compiler = new RuleCompiler();
    // The compiled rules serve the index; the set keeps only their shared checks.
    const compiled = this.rules.map((rule) => compiler.compile(rule));
    this.checks = compiled.map((c) => c.check);
    this.memo = new CheckMemo(compiler.checkCount);
    this.index = new RuleIndex(compiled);
    this.byId = new Map(this.rules.map((rule) => [rule.id, rule]));
  }

  /** The rule with this id, if the set has it. */
  get(id: string): Rule | undefined {
    return this.byId.get(id);
  }

  /** Whether some rule asks for reminders. */
  get hasReminders(): boolean {
    return this.reminderSet() !== undefined;
  }

  /**
   * The rules with reminders whose flight filter holds for the flight of `event` (any
   * change of it, or none: only its flight and fields are read), in rule order.
   * Reminders come from a flight's fields whatever changed, so their rules see every
   * observation of the flights they select.
   */
  reminding(event: ChangeEvent, now: number): Rule[] {
    const set = this.reminderSet();
    if (set === undefined) return [];
    return set.match([event], now).map((m) => this.byId.get(m.rule.id) as Rule);
  }

  /** The rules with reminders, as taking every change (built at the first use). */
  private reminderSet(): RuleSet | undefined {
    if (this.reminders === null) {
      const rules = this.rules.filter((r) => r.reminders !== undefined && r.reminders.length > 0);
      this.reminders =
        rules.length === 0
          ? undefined
          : new RuleSet(
              rules.map((r) => ({ ...r, changes: undefined, reminders: undefined })),
              { zone: this.zone },
            );
    }
    return this.reminders;
  }

  /** Every (rule, event) match, in event order, then rule order (order of `rules`). */
  match(events: readonly ChangeEvent[], now: number): RuleMatch[] {
    const context = new MatchContext(now, this.zone);
    const matches: RuleMatch[] = [];
    const candidates = this.candidates;
    const positions = this.positions;
    const moves = movesByFlight(events);
    // Events of one flight come in a row and share their `flightNames` array.
    let lastFlightNames: readonly string[] | undefined;
    // Stryker disable next-line ArrayDeclaration: replaced at the first event, whose flightNames are never undefined
    let lastNames: readonly string[] = [];
    let lastKey: string | undefined;
    let lastMoves: readonly ChangeEvent[] | undefined;
    for (const event of events) {
      const flightNames = event.flight.flightNames;
      // Stryker disable next-line ConditionalExpression: a cache, normalising the names again gives the same names
      if (flightNames !== lastFlightNames) {
        lastFlightNames = flightNames;
        lastNames = normalisedNames(flightNames);
      }
      if (
        moves !== undefined &&
        // Stryker disable next-line ConditionalExpression: a cache, looking the flight's moves up again gives the same list
        event.flight.key !== lastKey
      ) {
        lastKey = event.flight.key;
        lastMoves = moves.get(lastKey);
      }
      const view = new EventView(event, context, this.memo, lastNames, lastMoves);
      const ordered = this.index.candidates(view, candidates);
      const first = matches.length;
      positions.length = 0;
      for (let i = 0; i < candidates.length; i++) {
        const position = candidates[i] as number;
        const found = (this.checks[position] as RuleCheck).match(
          this.rules[position] as Rule,
          view,
        );
        if (found === undefined) continue;
        matches.push(found);
        positions.push(position);
      }
      // Stryker disable next-line EqualityOperator: one match is in order already (restoring it changes nothing)
      if (!ordered && positions.length > 1) restoreRuleOrder(matches, first, positions);
    }
    return matches;
  }
}

/**
 * The moves (see `isMove`) among the events, by flight key; undefined when there are
 * none, as in most batches. Keyed by flight, not by position: an observation's events
 * come in a row from the outbox, but a batch put together otherwise (`rules test
 * --event`) need not keep them so. The view keeps the moves of its own version.
 */
function movesByFlight(events: readonly ChangeEvent[]): Map<string, ChangeEvent[]> | undefined {
  let moves: Map<string, ChangeEvent[]> | undefined;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as ChangeEvent;
    if (!isMove(event)) continue;
    moves ??= new Map();
    const key = event.flight.key;
    const list = moves.get(key);
    if (list === undefined) moves.set(key, [event]);
    else list.push(event);
  }
  return moves;
}

/**
 * Sorts `matches[first…]` by rule position (`positions`, parallel to them) and drops a
 * rule's second match of the same event. An insertion sort: there are a few at most.
 */
function restoreRuleOrder(matches: RuleMatch[], first: number, positions: number[]): void {
  for (let i = 1; i < positions.length; i++) {
    const position = positions[i] as number;
    const match = matches[first + i] as RuleMatch;
    let j = i - 1;
    while (
      // Stryker disable next-line ConditionalExpression: positions[-1] is undefined and compares false, which ends the loop as well
      j >= 0 &&
      // Stryker disable next-line EqualityOperator: equal positions are one rule's alike matches of the event, all but one dropped below
      (positions[j] as number) > position
    ) {
      positions[j + 1] = positions[j] as number;
      matches[first + j + 1] = matches[first + j] as RuleMatch;
      j--;
    }
    positions[j + 1] = position;
    matches[first + j + 1] = match;
  }
  let kept = 1;
  for (let i = 1; i < positions.length; i++) {
    if (positions[i] === positions[kept - 1]) continue;
    positions[kept] = positions[i] as number;
    matches[first + kept] = matches[first + i] as RuleMatch;
    kept++;
  }
  matches.length = first + kept;
}
