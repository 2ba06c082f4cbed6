/**
 * A rule's flight filter compiled to one predicate over an `EventView`: each criterion
 * the rule gives becomes a small closure over precomputed sets, and criteria the rule
 * leaves out cost nothing. Semantics are docs/rules.md, "Flight filter": the gate, pier
 * and terminal criteria hold for the value after the change, or for the value before
 * a move seen in the same observation (`EventView.movedFrom`); `not` negates the nested
 * filter as it is, so `not: { pier: D }` also excludes a flight leaving pier D.
 */
import type { ChangeValue } from "../../diff/change.js";
import { normaliseFlightNumber } from "../flight-number.js";
import type { FlightFilter, ScheduleWindow, TimeBound } from "../rule.js";
import type { EventView } from "./event-view.js";
import type { MatchContext } from "./match-context.js";

/** Whether an event's flight passes a compiled filter. */
export type FlightTest = (view: EventView) => boolean;

const always: FlightTest = () => true;

/** Compiles a flight filter; an empty filter passes every flight. */
export function compileFlightFilter(filter: FlightFilter): FlightTest {
  const tests: FlightTest[] = [];
  if (filter.flights) tests.push(flightsTest(filter));
  if (filter.airlines) tests.push(airlinesTest(filter.airlines));
  if (filter.direction) {
    const direction = filter.direction;
    tests.push((view) => view.event.flight.direction === direction);
  }
  if (filter.airports) {
    const airports = new Set(filter.airports);
    tests.push((view) => routeIncludes(view, airports));
  }
  if (filter.destinations) {
    const airports = new Set(filter.destinations);
    tests.push((view) => view.event.flight.direction === "D" && routeIncludes(view, airports));
  }
  if (filter.origins) {
    const airports = new Set(filter.origins);
    tests.push((view) => view.event.flight.direction === "A" && routeIncludes(view, airports));
  }
  if (filter.terminals) {
    const terminals = new Set(filter.terminals);
    const left = (old: ChangeValue | undefined): boolean =>
      // Stryker disable next-line ConditionalExpression: a set of terminal numbers has no other value; `typeof` only narrows the type
      typeof old === "number" && terminals.has(old);
    tests.push((view) => {
      const now = view.event.current?.terminal;
      // Stryker disable next-line ConditionalExpression: a set of terminal numbers never has undefined; the check only narrows the type
      if (now !== undefined && terminals.has(now)) return true;
      return view.movedFrom("terminal", left);
    });
  }
  if (filter.piers) {
    const piers = new Set(filter.piers.map(upper));
    const left = (old: ChangeValue | undefined): boolean =>
      typeof old === "string" && piers.has(upper(old));
    tests.push((view) => {
      const now = view.event.current?.pier;
      if (now !== undefined && piers.has(now.toUpperCase())) return true;
      return view.movedFrom("pier", left);
    });
  }
  if (filter.gates) tests.push(gatesTest(filter.gates));
  if (filter.serviceTypes) {
    const types = new Set(filter.serviceTypes.map(upper));
    tests.push((view) => {
      const type = view.event.current?.serviceType;
      return type !== undefined && types.has(type.toUpperCase());
    });
  }
  if (filter.operational !== undefined) {
    const wanted = filter.operational;
    // The API flags non-operational flights explicitly; a flight without the flag is
    // taken as operational, as nearly every flight is.
    tests.push((view) => (view.event.flight.operational ?? true) === wanted);
  }
  if (filter.schedule) tests.push(scheduleTest(filter.schedule));
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

const upper = (code: string): string => code.toUpperCase();

/**
 * The flight numbers a filter names (its own `flights`, not those under `not`), in
 * normal form and unique — what the rule index files the rule under; undefined when
 * the filter names none. The loader normalises already; normalising again keeps a
 * hand-built rule honest.
 */
export function filterFlightNumbers(filter: FlightFilter): string[] | undefined {
  const { flights } = filter;
  if (flights === undefined) return undefined;
  return [...new Set(flights.map((f) => normaliseFlightNumber(f) ?? upper(f)))];
}

function flightsTest(filter: FlightFilter): FlightTest {
  // Stryker disable next-line ArrayDeclaration: unreachable, a filter that gets here has `flights`, so it has numbers
  const numbers = filterFlightNumbers(filter) ?? [];
  const [only] = numbers;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut (the set gives the same for one number), and `only` is defined whenever there is one number
  if (numbers.length === 1 && only !== undefined) return (view) => view.names.includes(only);
  const wanted = new Set(numbers);
  return (view) => view.names.some((name) => wanted.has(name));
}

function airlinesTest(airlines: readonly string[]): FlightTest {
  const iata = new Set(airlines.map(upper).filter((code) => code.length === 2));
  const icao = new Set(airlines.map(upper).filter((code) => code.length === 3));
  return (view) => {
    const { flight } = view.event;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty set holds no code, skipping it is a shortcut
    if (iata.size > 0) {
      const code = flight.prefixIATA ?? view.mainDesignator;
      if (code !== undefined && iata.has(code.toUpperCase())) return true;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty set holds no code, skipping it is a shortcut
    if (icao.size > 0) {
      const code = flight.prefixICAO ?? view.mainDesignator;
      if (code !== undefined && icao.has(code.toUpperCase())) return true;
    }
    return false;
  };
}

function routeIncludes(view: EventView, airports: ReadonlySet<string>): boolean {
  const route = view.event.current?.route;
  if (route === undefined) return false;
  for (const airport of route) if (airports.has(airport.toUpperCase())) return true;
  return false;
}

function gatesTest(gates: readonly string[]): FlightTest {
  const exact = new Set<string>();
  // Stryker disable next-line ArrayDeclaration: names are compared upper-case, so no name starts with the mutant's lower-case entry
  const prefixes: string[] = [];
  for (const gate of gates.map(upper)) {
    if (gate.endsWith("*")) prefixes.push(gate.slice(0, -1));
    else exact.add(gate);
  }
  const holds = (gate: string): boolean => {
    const name = gate.toUpperCase();
    if (exact.has(name)) return true;
    for (const prefix of prefixes) if (name.startsWith(prefix)) return true;
    return false;
  };
  const left = (old: ChangeValue | undefined): boolean => typeof old === "string" && holds(old);
  return (view) => {
    const now = view.event.current?.gate;
    if (now !== undefined && holds(now)) return true;
    return view.movedFrom("gate", left);
  };
}

function scheduleTest(window: ScheduleWindow): FlightTest {
  const { from, to } = window;
  return (view) => {
    const scheduled = view.event.flight.scheduled;
    if (scheduled === undefined) return false;
    if (from !== undefined && scheduled < resolveBound(from, view.context)) return false;
    if (to !== undefined && scheduled >= resolveBound(to, view.context)) return false;
    return true;
  };
}

/** The instant a schedule bound stands for at the moment of matching. */
export function resolveBound(bound: TimeBound, context: MatchContext): number {
  if ("at" in bound) return bound.at;
  if ("fromNowMs" in bound) return context.now + bound.fromNowMs;
  return context.localDayStart(bound.localDayOffset + (bound.endOfDay ? 1 : 0));
}
