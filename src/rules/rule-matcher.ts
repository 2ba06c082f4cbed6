/**
 * Rule matching: which rules select which change events. Pure — a function of the
 * rules, the events and `now` — and indexed (see `RuleIndex`), so 100,000 passenger
 * rules cost little more per event than 100. Semantics: docs/rules.md, "How matching works".
 */
import type { ChangeEvent } from "../diff/change.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import { type CompiledRule, RuleCompiler } from "./compiled-rule.js";
import { CheckMemo, EventView, normalisedNames } from "./event-view.js";
import { MatchContext } from "./match-context.js";
import type { Rule } from "./rule.js";
import { RuleIndex } from "./rule-index.js";
import type { RuleMatch } from "./rule-match.js";

/** Options of a `RuleSet`. */
export interface RuleSetOptions {
  /** The airport's IANA zone, for bounds tied to the local day. Default Europe/Amsterdam. */
  zone?: string;
}

/** Rules compiled for matching: an index plus per-rule predicates. Immutable. */
export class RuleSet {
  readonly rules: readonly Rule[];
  private readonly compiled: readonly CompiledRule[];
  private readonly index: RuleIndex;
  private readonly byId: ReadonlyMap<string, Rule>;
  private readonly zone: string;
  /** Scratch for one `match` call at a time (matching is synchronous, so never shared). */
  private readonly memo: CheckMemo;

  constructor(rules: readonly Rule[], options: RuleSetOptions = {}) {
    this.rules = Object.freeze(rules.slice());
    this.zone = options.zone ?? DEFAULT_AIRPORT_TIMEZONE;
    const compiler = new RuleCompiler();
    this.compiled = this.rules.map((rule) => compiler.compile(rule));
    this.memo = new CheckMemo(compiler.checkCount);
    this.index = new RuleIndex(this.compiled);
    this.byId = new Map(this.rules.map((rule) => [rule.id, rule]));
  }

  /** The rule with this id, if the set has it. */
  get(id: string): Rule | undefined {
    return this.byId.get(id);
  }

  /** Every (rule, event) match, in event order, then rule order (order of `rules`). */
  match(events: readonly ChangeEvent[], now: number): RuleMatch[] {
    const context = new MatchContext(now, this.zone);
    const matches: RuleMatch[] = [];
    // Events of one flight come in a row and share their `flightNames` array.
    let lastFlightNames: readonly string[] | undefined;
    let lastNames: readonly string[] = [];
    for (const event of events) {
      const flightNames = event.flight.flightNames;
      if (flightNames !== lastFlightNames) {
        lastFlightNames = flightNames;
        lastNames = normalisedNames(flightNames);
      }
      const view = new EventView(event, context, this.memo, lastNames);
      const candidates = this.index.candidates(view);
      for (let i = 0; i < candidates.length; i++) {
        const found = (this.compiled[candidates[i] as number] as CompiledRule).match(view);
        if (found !== undefined) matches.push(found);
      }
    }
    return matches;
  }
}
