/**
 * The tests behind the flight criteria (flight-criteria.ts) that need more than one
 * line: each takes a criterion's value and returns a closure over precomputed sets.
 * Semantics are docs/rules.md, "Flight filter": the gate, pier and terminal criteria
 * hold for the value after the change, or for the value before a move seen in the same
 * observation (`EventView.movedFrom`).
 */
import type { ChangeValue } from "../../diff/change.js";
import { normaliseFlightNumber } from "../flight-number.js";
import type { ScheduleWindow, TimeBound } from "../schedule-window.js";
import type { EventView, LocationKind } from "./event-view.js";
import type { MatchContext } from "./match-context.js";

/** Whether an event's flight passes a compiled filter or criterion. */
export type FlightTest = (view: EventView) => boolean;

/**
 * A code upper-cased: the value itself when it has no lower-case letter (the upstream's
 * gates, piers and codes never do), so that the hundreds of rules asking about one
 * event's gate make no new string each.
 */
export function upper(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c >= 97 && c <= 122) || c > 127) return value.toUpperCase();
  }
  return value;
}

/** Flight numbers in normal form and unique (the loader normalises already; a hand-built rule may not). */
export function normalNumbers(flights: readonly string[]): string[] {
  return [...new Set(flights.map((f) => normaliseFlightNumber(f) ?? upper(f)))];
}

/** Any of the flight's names is one of the numbers. */
export function flightsTest(flights: readonly string[]): FlightTest {
  const numbers = normalNumbers(flights);
  const [only] = numbers;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut (the set gives the same for one number), and `only` is defined whenever there is one number
  if (numbers.length === 1 && only !== undefined) return (view) => view.names.includes(only);
  const wanted = new Set(numbers);
  return (view) => view.names.some((name) => wanted.has(name));
}

/** The operating airline (or the main flight's designator) is one of the IATA or ICAO codes. */
export function airlinesTest(airlines: readonly string[]): FlightTest {
  const iata = new Set(airlines.map(upper).filter((code) => code.length === 2));
  const icao = new Set(airlines.map(upper).filter((code) => code.length === 3));
  return (view) => {
    const { flight } = view.event;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty set holds no code, skipping it is a shortcut
    if (iata.size > 0) {
      const code = flight.prefixIATA ?? view.mainDesignator;
      if (code !== undefined && iata.has(upper(code))) return true;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty set holds no code, skipping it is a shortcut
    if (icao.size > 0) {
      const code = flight.prefixICAO ?? view.mainDesignator;
      if (code !== undefined && icao.has(upper(code))) return true;
    }
    return false;
  };
}

/** The route includes one of the airports. */
export function routeTest(airports: readonly string[]): FlightTest {
  const wanted = new Set(airports);
  return (view) => {
    const route = view.event.current?.route;
    if (route === undefined) return false;
    for (const airport of route) if (wanted.has(upper(airport))) return true;
    return false;
  };
}

/**
 * The flight's `kind` location (terminal, pier, gate) is one `holds` accepts, now or
 * before a move seen in the same observation.
 */
export function locationTest(
  kind: LocationKind,
  holds: (value: string | number) => boolean,
): FlightTest {
  const left = (old: ChangeValue | undefined): boolean =>
    // Stryker disable next-line ConditionalExpression: every `holds` (codeIn, gateIn, the terminal set) refuses what is not its type; the check only narrows it
    (typeof old === "string" || typeof old === "number") && holds(old);
  return (view) => {
    const now = view.event.current?.[kind];
    // Stryker disable next-line ConditionalExpression: every `holds` refuses undefined; the check only narrows the type
    if (now !== undefined && holds(now)) return true;
    return view.movedFrom(kind, left);
  };
}

/** Whether a code is one of `codes`, ignoring case (a number never is). */
export function codeIn(codes: readonly string[]): (value: string | number) => boolean {
  const set = new Set(codes.map(upper));
  return (value) => typeof value === "string" && set.has(upper(value));
}

/** Whether a gate is one of `gates`, an entry ending in `*` matching by prefix; ignoring case. */
export function gateIn(gates: readonly string[]): (value: string | number) => boolean {
  const exact = new Set<string>();
  // Stryker disable next-line ArrayDeclaration: names are compared upper-case, so no name starts with the mutant's lower-case entry
  const prefixes: string[] = [];
  for (const gate of gates.map(upper)) {
    if (gate.endsWith("*")) prefixes.push(gate.slice(0, -1));
    else exact.add(gate);
  }
  return (value) => {
    if (typeof value !== "string") return false;
    const name = upper(value);
    if (exact.has(name)) return true;
    for (const prefix of prefixes) if (name.startsWith(prefix)) return true;
    return false;
  };
}

/** The scheduled time is inside the window (inclusive from, exclusive to). */
export function scheduleTest(window: ScheduleWindow): FlightTest {
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
