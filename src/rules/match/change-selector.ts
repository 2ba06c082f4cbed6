/**
 * A rule's change filter compiled for matching: each selector becomes a kind mask and
 * a predicate over the change, tried in order; the first that holds is the one whose
 * thresholds apply. Semantics are docs/rules.md, "Change filter". `shiftAtLeastMinutes`
 * is not checked here: it needs the last alerted value, which the dispatcher keeps.
 */

import type { ChangeSelector } from "../rule.js";
import { type EventView, kindBit } from "./event-view.js";

type Test = (view: EventView) => boolean;

/** A selector ready for matching. */
export interface CompiledSelector {
  /** Bits of the kinds it can match (see `kindBit`). */
  kinds: number;
  /** The options besides the kind; the kind is checked on `kinds` first. */
  test: Test;
}

/** Compiles one selector. */
export function compileSelector(selector: ChangeSelector): CompiledSelector {
  let kinds = 0;
  for (const kind of selector.kinds) kinds |= kindBit(kind);
  const tests: Test[] = [];
  if (selector.fields) {
    const fields = new Set(selector.fields);
    tests.push((view) => fields.has(view.event.field));
  }
  if (selector.states) {
    const states = new Set(selector.states);
    // Stryker disable next-line ConditionalExpression: a set of state codes never has undefined; the check only narrows the type
    tests.push((view) => view.event.state !== undefined && states.has(view.event.state));
  }
  if (selector.actions) {
    const actions = new Set<string>(selector.actions);
    tests.push((view) => actions.has(view.event.action));
  }
  if (selector.delayAtLeastMinutes !== undefined) {
    const least = selector.delayAtLeastMinutes;
    tests.push((view) => {
      const { event } = view;
      return (
        event.kind === "time" &&
        // Stryker disable next-line ConditionalExpression: `undefined >= least` is false as well; the check only narrows the type
        event.delayMinutes !== undefined &&
        event.delayMinutes >= least
      );
    });
  }
  if (selector.withinMs !== undefined) {
    const within = selector.withinMs;
    // Flights already past their time still match: only "too far ahead" is filtered.
    tests.push((view) => {
      const best = view.bestKnownTime;
      // Stryker disable next-line ConditionalExpression: `undefined - now` is NaN, and `NaN <= within` is false as well
      return best !== undefined && best - view.context.now <= within;
    });
  }
  return { kinds, test: allOf(tests) };
}

function allOf(tests: Test[]): Test {
  const [first, second] = tests;
  if (first === undefined) return () => true;
  // Stryker disable next-line ConditionalExpression: a shortcut, `every` below gives the same for one test
  if (second === undefined) return first;
  // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut, `every` below gives the same for two tests
  if (tests.length === 2) {
    return (view) => first(view) && second(view);
  }
  return (view) => tests.every((test) => test(view));
}

/**
 * Compiles a change filter to a function giving the position of the first selector
 * that matches the event, or −1 when none does.
 */
export function compileSelectorList(
  selectors: readonly ChangeSelector[],
): (view: EventView) => number {
  const compiled = selectors.map(compileSelector);
  return (view) => {
    for (let i = 0; i < compiled.length; i++) {
      const { kinds, test } = compiled[i] as CompiledSelector;
      if ((kinds & view.kindBit) !== 0 && test(view)) return i;
    }
    return -1;
  };
}
