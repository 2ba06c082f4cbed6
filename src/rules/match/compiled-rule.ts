/**
 * Rules compiled for matching. Each rule has its flight numbers (what the index files it
 * under) and one `RuleCheck`: its kind mask and two shared checks, its change filter and
 * the rest of its flight filter. Rules written alike — 100,000 passenger rules use a
 * handful of selector lists and one window per day — share one check, which then runs
 * once per event however many of those rules are candidates, and costs memory once.
 */

import type { ChangeSelector, FlightFilter, Rule } from "../rule.js";
import type { RuleMatch } from "../rule-match.js";
import { compileSelectorList } from "./change-selector.js";
import { changeFilterKey, flightFilterKey } from "./check-key.js";
import { ALL_KINDS, type EventView, kindBit, type SharedCheck } from "./event-view.js";
import { compileFlightFilter, filterFlightNumbers } from "./flight-filter.js";

/**
 * What a rule checks of a candidate event (its change filter, the rest of its flight
 * filter), shared by every rule whose two checks are the same: 100,000 passenger rules
 * need a handful, and a set keeps one reference per rule.
 */
export class RuleCheck {
  /** Bits of every kind some selector can match; all bits when the rule takes every change. */
  readonly kinds: number;
  /** Position of the first matching selector (−1: none); undefined = every change. */
  private readonly selectors: SharedCheck | undefined;
  /** The flight filter but for `flights` (1 holds, 0 not); undefined = nothing else to check. */
  private readonly filter: SharedCheck | undefined;

  constructor(kinds: number, selectors: SharedCheck | undefined, filter: SharedCheck | undefined) {
    this.kinds = kinds;
    this.selectors = selectors;
    this.filter = filter;
  }

  /**
   * The match of `rule` (one of those sharing this check) for a candidate: an event whose
   * kind and flight numbers are known to hold (the index filed the rule under one of the
   * event's numbers, or the rule names none).
   */
  match(rule: Rule, view: EventView): RuleMatch | undefined {
    let selector: ChangeSelector | undefined;
    if (this.selectors !== undefined) {
      const first = view.memo.run(this.selectors, view);
      if (first < 0) return undefined;
      selector = rule.changes?.[first];
    }
    if (this.filter !== undefined && view.memo.run(this.filter, view) === 0) return undefined;
    return selector === undefined
      ? { rule, event: view.event }
      : { rule, event: view.event, selector };
  }
}

/** One rule with its predicates built (by a `RuleCompiler`). */
export class CompiledRule {
  readonly rule: Rule;
  /** The flight numbers it names, normal form; undefined when it names none. */
  readonly numbers: readonly string[] | undefined;
  /** Its checks, shared with the rules written alike. */
  readonly check: RuleCheck;

  constructor(rule: Rule, numbers: readonly string[] | undefined, check: RuleCheck) {
    this.rule = rule;
    this.numbers = numbers;
    this.check = check;
  }

  /**
   * The gates of its flight filter when it names no flight (the index files it under
   * them; the check still tests them); undefined otherwise.
   */
  get gates(): readonly string[] | undefined {
    return this.numbers === undefined ? this.rule.flights.gates : undefined;
  }

  /** Bits of every kind some selector can match; all bits when the rule takes every change. */
  get kinds(): number {
    return this.check.kinds;
  }

  /** The rule's match of the event, or undefined when the rule does not select it. */
  match(view: EventView): RuleMatch | undefined {
    if ((this.check.kinds & view.kindBit) === 0) return undefined;
    if (this.numbers !== undefined && !namesAny(view.names, this.numbers)) return undefined;
    return this.check.match(this.rule, view);
  }
}

function namesAny(names: readonly string[], numbers: readonly string[]): boolean {
  for (let i = 0; i < numbers.length; i++) if (names.includes(numbers[i] as string)) return true;
  return false;
}

/**
 * Compiles rules, sharing one check among rules whose change filters (or flight filters
 * but for `flights`) are written alike, and one `RuleCheck` among rules with the same
 * two. The checks of one compiler are numbered 0…n−1 for one `CheckMemo` of
 * `checkCount` entries.
 */
export class RuleCompiler {
  private readonly selectorChecks = new Map<string, SharedCheck>();
  private readonly filterChecks = new Map<string, SharedCheck>();
  private readonly ruleChecks = new Map<string, RuleCheck>();
  /**
   * The checks of frozen filters already compiled, by the filter itself: rules loaded
   * alike hold one frozen filter (read/rule-interner.ts), whose key need not be written
   * again for each. Frozen only: another could change between two rules.
   */
  private readonly byFlights = new Map<FlightFilter, SharedCheck | undefined>();
  private readonly byChanges = new Map<readonly ChangeSelector[], SharedCheck>();
  private count = 0;

  /** How many shared checks the rules compiled so far use. */
  get checkCount(): number {
    return this.count;
  }

  /** Compiles one rule. */
  compile(rule: Rule): CompiledRule {
    return new CompiledRule(rule, numbersOf(rule.flights), this.checkOf(rule));
  }

  private checkOf(rule: Rule): RuleCheck {
    const filter = this.filterCheck(rule.flights);
    const { changes } = rule;
    const selectors = changes === undefined ? undefined : this.selectorCheck(changes);
    const key = `${selectors?.id ?? ""}/${filter?.id ?? ""}`;
    let check = this.ruleChecks.get(key);
    if (check === undefined) {
      let kinds = ALL_KINDS;
      if (changes !== undefined) {
        kinds = 0;
        for (const selector of changes) kinds |= kindsOf(selector);
      }
      check = new RuleCheck(kinds, selectors, filter);
      this.ruleChecks.set(key, check);
    }
    return check;
  }

  /**
   * The top-level `flights` is checked by the rule itself (and the index): the rest of
   * the filter is shared by every rule written alike, whatever flight it names.
   */
  private filterCheck(flights: FlightFilter): SharedCheck | undefined {
    const frozen = Object.isFrozen(flights);
    if (frozen && this.byFlights.has(flights)) return this.byFlights.get(flights);
    const key = flightFilterKey(flights, true);
    let check = this.filterChecks.get(key);
    if (check === undefined && key !== "") {
      const test = compileFlightFilter({ ...flights, flights: undefined });
      check = this.shared((view) => (test(view) ? 1 : 0));
      this.filterChecks.set(key, check);
    }
    if (frozen) this.byFlights.set(flights, check);
    return check;
  }

  private selectorCheck(changes: readonly ChangeSelector[]): SharedCheck {
    const frozen = Object.isFrozen(changes);
    let check = frozen ? this.byChanges.get(changes) : undefined;
    if (check !== undefined) return check;
    const key = changeFilterKey(changes);
    check = this.selectorChecks.get(key);
    if (check === undefined) {
      check = this.shared(compileSelectorList(changes));
      this.selectorChecks.set(key, check);
    }
    if (frozen) this.byChanges.set(changes, check);
    return check;
  }

  private shared(run: (view: EventView) => number): SharedCheck {
    return { id: this.count++, run };
  }
}

function kindsOf(selector: ChangeSelector): number {
  let mask = 0;
  for (const kind of selector.kinds) mask |= kindBit(kind);
  return mask;
}

/** `filterFlightNumbers`, reusing the rule's own array when it is in normal form already. */
function numbersOf(filter: FlightFilter): readonly string[] | undefined {
  const numbers = filterFlightNumbers(filter);
  const given = filter.flights;
  if (numbers === undefined || given === undefined) return undefined;
  return numbers.length === given.length && numbers.every((n, i) => n === given[i])
    ? given
    : numbers;
}
