/**
 * A rule's change filter compiled for matching: each selector becomes a kind mask and
 * a predicate over the change — the tests of its options from the options table
 * (change-options.ts) — tried in order; the first that holds is the one whose
 * thresholds apply. Semantics are docs/rules.md, "Change filter". Options without a
 * test (`shiftAtLeastMinutes`) need the last alerted value, which the dispatcher keeps.
 */

import { type ChangeSelector, type ChangeTest, OPTION_ENTRIES } from "../change-options.js";
import { type EventView, kindBit } from "./event-view.js";

/** A selector ready for matching. */
export interface CompiledSelector {
  /** Bits of the kinds it can match (see `kindBit`). */
  kinds: number;
  /** The options besides the kind; the kind is checked on `kinds` first. */
  test: ChangeTest;
}

/** Compiles one selector. */
export function compileSelector(selector: ChangeSelector): CompiledSelector {
  let kinds = 0;
  for (const kind of selector.kinds) kinds |= kindBit(kind);
  const tests: ChangeTest[] = [];
  for (const [name, option] of OPTION_ENTRIES) {
    const value = selector[name];
    if (value !== undefined && option.test !== undefined) tests.push(option.test(value));
  }
  return { kinds, test: allOf(tests) };
}

function allOf(tests: ChangeTest[]): ChangeTest {
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
