/**
 * Rules compiled for matching. Each rule keeps its kind mask and flight numbers (what
 * the index files it under) and refers to two shared checks: its change filter and the
 * rest of its flight filter. Rules written alike — 100,000 passenger rules use a
 * handful of selector lists and one window per day — share one check, which then runs
 * once per event however many of those rules are candidates, and costs memory once.
 */

import type { ChangeSelector, FlightFilter, Rule } from "../rule.js";
import type { RuleMatch } from "../rule-match.js";
import { compileSelectorList } from "./change-selector.js";
import { changeFilterKey, flightFilterKey } from "./check-key.js";
import { ALL_KINDS, type EventView, kindBit, type SharedCheck } from "./event-view.js";
import { compileFlightFilter, filterFlightNumbers } from "./flight-filter.js";

/** One rule with its predicates built (by a `RuleCompiler`). */
export class CompiledRule {
  readonly rule: Rule;
  /** Bits of every kind some selector can match; all bits when the rule takes every change. */
  readonly kinds: number;
  /** The flight numbers it names, normal form; undefined when it names none. */
  readonly numbers: readonly string[] | undefined;
  /** Position of the first matching selector (−1: none); undefined = every change. */
  private readonly selectors: SharedCheck | undefined;
  /** The flight filter but for `flights` (1 holds, 0 not); undefined = nothing else to check. */
  private readonly filter: SharedCheck | undefined;

  constructor(
    rule: Rule,
    kinds: number,
    numbers: readonly string[] | undefined,
    selectors: SharedCheck | undefined,
    filter: SharedCheck | undefined,
  ) {
    this.rule = rule;
    this.kinds = kinds;
    this.numbers = numbers;
    this.selectors = selectors;
    this.filter = filter;
  }

  /** The rule's match of the event, or undefined when the rule does not select it. */
  match(view: EventView): RuleMatch | undefined {
    if ((this.kinds & view.kindBit) === 0) return undefined;
    if (this.numbers !== undefined && !namesAny(view.names, this.numbers)) return undefined;
    return this.matchCandidate(view);
  }

  /**
   * `match` for a candidate the index found: its kind and flight numbers are known to
   * hold (it was filed under one of the event's numbers, or names none).
   */
  matchCandidate(view: EventView): RuleMatch | undefined {
    let selector: ChangeSelector | undefined;
    if (this.selectors !== undefined) {
      const first = view.memo.run(this.selectors, view);
      if (first < 0) return undefined;
      selector = this.rule.changes?.[first];
    }
    if (this.filter !== undefined && view.memo.run(this.filter, view) === 0) return undefined;
    return selector === undefined
      ? { rule: this.rule, event: view.event }
      : { rule: this.rule, event: view.event, selector };
  }
}

function namesAny(names: readonly string[], numbers: readonly string[]): boolean {
  for (let i = 0; i < numbers.length; i++) if (names.includes(numbers[i] as string)) return true;
  return false;
}

/**
 * Compiles rules, sharing one check among rules whose change filters (or flight filters
 * but for `flights`) are written alike. The checks of one compiler are numbered 0…n−1
 * for one `CheckMemo` of `checkCount` entries.
 */
export class RuleCompiler {
  private readonly selectorChecks = new Map<string, SharedCheck>();
  private readonly filterChecks = new Map<string, SharedCheck>();
  private count = 0;

  /** How many shared checks the rules compiled so far use. */
  get checkCount(): number {
    return this.count;
  }

  /** Compiles one rule. */
  compile(rule: Rule): CompiledRule {
    const numbers = numbersOf(rule.flights);
    // The top-level `flights` is checked by the rule itself (and the index): the rest
    // of the filter is shared by every rule written alike, whatever flight it names.
    const filterKey = flightFilterKey(rule.flights, true);
    const filter =
      filterKey === ""
        ? undefined
        : this.shared(this.filterChecks, filterKey, () => {
            const test = compileFlightFilter({ ...rule.flights, flights: undefined });
            return (view) => (test(view) ? 1 : 0);
          });
    const { changes } = rule;
    if (changes === undefined) return new CompiledRule(rule, ALL_KINDS, numbers, undefined, filter);
    const selectors = this.shared(this.selectorChecks, changeFilterKey(changes), () =>
      compileSelectorList(changes),
    );
    let kinds = 0;
    for (const selector of changes) kinds |= kindsOf(selector);
    return new CompiledRule(rule, kinds, numbers, selectors, filter);
  }

  private shared(
    checks: Map<string, SharedCheck>,
    key: string,
    build: () => (view: EventView) => number,
  ): SharedCheck {
    let check = checks.get(key);
    if (check === undefined) {
      check = { id: this.count++, run: build() };
      checks.set(key, check);
    }
    return check;
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
