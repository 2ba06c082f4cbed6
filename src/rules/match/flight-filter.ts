/**
 * A rule's flight filter compiled to one predicate over an `EventView`: each criterion
 * the rule gives becomes its test from the criteria table (flight-criteria.ts), and
 * criteria the rule leaves out cost nothing. `not` negates the nested filter as it is,
 * so `not: { pier: D }` also excludes a flight leaving pier D.
 */
import { CRITERIA_ENTRIES, type FlightFilter } from "../flight-criteria.js";
import { type FlightTest, normalNumbers } from "./flight-tests.js";

export type { FlightTest } from "./flight-tests.js";
export { resolveBound } from "./flight-tests.js";

const always: FlightTest = () => true;

/** Compiles a flight filter; an empty filter passes every flight. */
export function compileFlightFilter(filter: FlightFilter): FlightTest {
  const tests: FlightTest[] = [];
  for (const [name, criterion] of CRITERIA_ENTRIES) {
    const value = filter[name];
    if (value === undefined) continue;
    const test = criterion.test(value);
    const direction = criterion.only?.direction;
    tests.push(
      direction === undefined
        ? test
        : (view) => view.event.flight.direction === direction && test(view),
    );
  }
  if (filter.not) {
    const excluded = compileFlightFilter(filter.not);
    tests.push((view) => !excluded(view));
  }
  return allOf(tests);
}

function allOf(tests: FlightTest[]): FlightTest {
  const [first, second] = tests;
  if (first === undefined) return always;
  // Stryker disable next-line ConditionalExpression: a shortcut, the loop below gives the same for one test
  if (second === undefined) return first;
  // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut, the loop below gives the same for two tests
  if (tests.length === 2) {
    return (view) => first(view) && second(view);
  }
  return (view) => {
    for (let i = 0; i < tests.length; i++) if (!(tests[i] as FlightTest)(view)) return false;
    return true;
  };
}

/**
 * The flight numbers a filter names (its own `flights`, not those under `not`), in
 * normal form and unique — what the rule index files the rule under; undefined when
 * the filter names none. The loader normalises already; normalising again keeps a
 * hand-built rule honest.
 */
export function filterFlightNumbers(filter: FlightFilter): string[] | undefined {
  return filter.flights === undefined ? undefined : normalNumbers(filter.flights);
}
