/**
 * The flight criteria of a rule's `flights` filter, one entry each: its key in rule
 * files, how its value is written and checked, and how it tests a flight. The reader
 * (read/flight-filter-reader.ts), the matcher (match/flight-filter.ts), the check keys
 * (match/check-key.ts) and the `FlightFilter` type are all derived from this table, so
 * a new criterion is one entry here (and, when its test needs more than a line, one
 * function in match/flight-tests.ts). Semantics are docs/rules.md, "Flight filter".
 */
import { normaliseFlightNumber } from "./flight-number.js";
import {
  airlinesTest,
  codeIn,
  type FlightTest,
  flightsTest,
  gateIn,
  locationTest,
  routeTest,
  scheduleTest,
} from "./match/flight-tests.js";
import type { ScheduleWindow, TimeBound } from "./schedule-window.js";

/** Why a written value is refused: the message and how to fix it. */
export interface Refusal {
  refused: string;
  hint: string;
}

/** Reads one text of a criterion (`${NAME}` already substituted) into its value, or refuses it. */
export type TextParser<T extends string | number> = (text: string) => T | Refusal;

/**
 * How a criterion's value is written. `V` is the value the rule model holds; forms
 * other than `text` and `texts` are read by the reader's own code for them.
 */
export type ValueForm<V> = (
  | { kind: "text"; parse: TextParser<string | number> }
  | { kind: "texts"; what: string; parse: TextParser<string | number> }
  | { kind: "wholeNumbers"; what: string }
  | { kind: "boolean" }
  | { kind: "schedule" }
) & {
  /** Never set: carries the value type for `FlightFilter`. */
  readonly value?: V;
};

/** One flight criterion. */
export interface Criterion<V> {
  /** The key in rule files (`service_type`). */
  key: string;
  form: ValueForm<V>;
  /** The test of a flight, built once per distinct value. */
  test: (value: V) => FlightTest;
  /** Only departures (`D`) or arrivals (`A`) can match it; `direction` must not say otherwise. */
  only?: { direction: "A" | "D"; hint: string };
  /** Its part of a check key (match/check-key.ts), self-delimiting; default: the value as JSON. */
  writeKey?: (value: V) => string;
}

const FLIGHT_HINT = "write an airline code and a number, e.g. KL1395 or kl 0601";

const refuse = (refused: string, hint: string): Refusal => ({ refused, hint });

/**
 * Whether a parse refused its text: a parse gives a code or a number (TextParser says
 * so), or a refusal, the only object.
 */
export const isRefusal = (value: unknown): value is Refusal => typeof value === "object";

/** One text, parsed by `parse`. */
const text = <T extends string | number>(parse: TextParser<T>): ValueForm<T> => ({
  kind: "text",
  parse,
});

/** A list of texts (one value counts as a list of one), each parsed by `parse`, duplicates dropped. */
const texts = <T extends string | number>(what: string, parse: TextParser<T>): ValueForm<T[]> => ({
  kind: "texts",
  what,
  parse,
});

/** A list of codes of one shape, upper-cased: `what` names one in messages. */
const codes = (what: string, shape: RegExp, hint: string): ValueForm<string[]> =>
  texts(what, (written) => {
    const code = written.trim().toUpperCase();
    return shape.test(code) ? code : refuse(`\`${written}\` is not ${what}`, hint);
  });

const AIRPORTS = codes(
  "an IATA airport code",
  /^[A-Z]{3}$/,
  "airport codes are 3 letters, e.g. JFK",
);

const DIRECTIONS = new Map<string, "A" | "D">([
  ["departure", "D"],
  ["d", "D"],
  ["arrival", "A"],
  ["a", "A"],
]);

/** Declares a criterion (keeps its value type for `FlightFilter`). */
const criterion = <V>(c: Criterion<V>): Criterion<V> => c;

/**
 * The criteria, by their name in the rule model, in the order of docs/rules.md; tests
 * run in this order, cheap ones first.
 */
export const FLIGHT_CRITERIA = {
  flights: criterion({
    key: "flight",
    form: texts("a flight", (written) => {
      const flight = normaliseFlightNumber(written);
      return flight ?? refuse(`\`${written}\` is not a flight number`, FLIGHT_HINT);
    }),
    test: flightsTest,
  }),
  airlines: criterion({
    key: "airline",
    form: codes(
      "an airline code",
      /^(?:[A-Z][A-Z0-9]|[0-9][A-Z]|[A-Z]{3})$/,
      "write the IATA code (2 characters, e.g. KL) or the ICAO code (3 letters, e.g. KLM)",
    ),
    test: airlinesTest,
  }),
  direction: criterion({
    key: "direction",
    form: text(
      (written) =>
        DIRECTIONS.get(written.trim().toLowerCase()) ??
        refuse(
          `unknown direction \`${written}\``,
          "write departure or arrival (or D / A); leave `direction` out for both",
        ),
    ),
    test: (direction) => (view) => view.event.flight.direction === direction,
  }),
  destinations: criterion({
    key: "destination",
    form: AIRPORTS,
    test: routeTest,
    only: { direction: "D", hint: "use `origin` for arrivals, or `airport` for either" },
  }),
  origins: criterion({
    key: "origin",
    form: AIRPORTS,
    test: routeTest,
    only: { direction: "A", hint: "use `destination` for departures, or `airport` for either" },
  }),
  airports: criterion({ key: "airport", form: AIRPORTS, test: routeTest }),
  terminals: criterion({
    key: "terminal",
    form: { kind: "wholeNumbers", what: "a terminal" } as ValueForm<number[]>,
    test: (terminals) => {
      const wanted = new Set(terminals);
      // Stryker disable next-line ConditionalExpression: a set of terminal numbers has no other value; `typeof` only narrows the type
      return locationTest("terminal", (t) => typeof t === "number" && wanted.has(t));
    },
  }),
  piers: criterion({
    key: "pier",
    form: codes("a pier", /^[A-Z0-9]{1,2}$/, "piers are a letter (or two letters/digits), e.g. D"),
    test: (piers) => locationTest("pier", codeIn(piers)),
  }),
  gates: criterion({
    key: "gate",
    form: codes(
      "a gate",
      /^[A-Z0-9]{1,8}\*?$/,
      "gates are up to 8 letters and digits (D7, E22), with a trailing * to match by prefix (E*)",
    ),
    test: (gates) => locationTest("gate", gateIn(gates)),
  }),
  serviceTypes: criterion({
    key: "service_type",
    form: codes(
      "a service type",
      /^[A-Z]$/,
      "service types are one-letter codes: J scheduled passenger, C charter, F freight …",
    ),
    test: (serviceTypes) => {
      const holds = codeIn(serviceTypes);
      return (view) => {
        const type = view.event.current?.serviceType;
        // Stryker disable next-line ConditionalExpression: `holds` (codeIn) refuses anything but a string, undefined included; the check only narrows the type
        return type !== undefined && holds(type);
      };
    },
  }),
  operational: criterion({
    key: "operational",
    form: { kind: "boolean" } as ValueForm<boolean>,
    // The API flags non-operational flights explicitly; a flight without the flag is
    // taken as operational, as nearly every flight is.
    test: (wanted) => (view) => (view.event.flight.operational ?? true) === wanted,
  }),
  schedule: criterion({
    key: "schedule",
    form: { kind: "schedule" } as ValueForm<ScheduleWindow>,
    test: scheduleTest,
    // Stryker disable next-line StringLiteral: any mark for a missing bound keeps the keys apart (`~` separates the bounds, each bound starts with its own sign)
    writeKey: (w) => `(${w.from ? writeBound(w.from) : ""}~${w.to ? writeBound(w.to) : ""})`,
  }),
};

function writeBound(b: TimeBound): string {
  if ("at" in b) return `@${b.at}`;
  // Stryker disable next-line StringLiteral: the `+` only has to differ from `@` and `#`, which an empty prefix does too (the test that the branch is taken kills the others)
  if ("fromNowMs" in b) return `+${b.fromNowMs}`;
  // Stryker disable next-line StringLiteral: any two different marks (one of them empty) keep the end and the start of a day apart
  return `#${b.localDayOffset}${b.endOfDay ? "e" : "s"}`;
}

/** A criterion's name in the rule model (`serviceTypes`). */
export type CriterionName = keyof typeof FLIGHT_CRITERIA;

/** The value type of each criterion, by its name in the rule model. */
export type CriteriaValues = {
  [K in CriterionName]?: (typeof FLIGHT_CRITERIA)[K] extends Criterion<infer V> ? V : never;
};

/**
 * Flight filter: every given criterion must hold; a list means any of its values.
 * Flights matching `not` are excluded.
 */
export interface FlightFilter extends CriteriaValues {
  not?: FlightFilter;
}

/** The criteria as [name, criterion] pairs, in table order. */
export const CRITERIA_ENTRIES = Object.entries(FLIGHT_CRITERIA) as [
  CriterionName,
  Criterion<unknown>,
][];
