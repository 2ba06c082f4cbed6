/**
 * Keys that say when two flight filters or two change filters match the same events,
 * so rules written alike share one compiled check. Every property of the rule model
 * has a writer here (the types demand it): a criterion added to `FlightFilter` or
 * `ChangeSelector` without one fails to compile instead of being silently ignored —
 * which would merge rules that differ. Each writer's output is self-delimiting.
 */
import type { ChangeSelector, FlightFilter, TimeBound } from "../rule.js";

type Writers<T> = { [K in keyof T]-?: ((value: NonNullable<T[K]>) => string) | null };

const list = (values: readonly (string | number)[]): string =>
  `[${values.map((v) => (typeof v === "number" ? String(v) : JSON.stringify(v))).join(",")}]`;

const bound = (b: TimeBound): string =>
  "at" in b
    ? `@${b.at}`
    : "fromNowMs" in b
      ? `+${b.fromNowMs}`
      : `#${b.localDayOffset}${b.endOfDay ? "e" : "s"}`;

const FILTER_WRITERS: Writers<FlightFilter> = {
  flights: list,
  airlines: list,
  direction: (d) => d,
  airports: list,
  destinations: list,
  origins: list,
  terminals: list,
  piers: list,
  gates: list,
  serviceTypes: list,
  operational: String,
  schedule: (w) => `(${w.from ? bound(w.from) : ""}~${w.to ? bound(w.to) : ""})`,
  not: (f) => `(${flightFilterKey(f)})`,
};
const FILTER_KEYS = Object.keys(FILTER_WRITERS) as (keyof FlightFilter)[];

/** Equal for flight filters that hold for the same flights (`skipFlights`: ignoring the top-level `flights`). */
export function flightFilterKey(filter: FlightFilter, skipFlights = false): string {
  let key = "";
  for (const name of FILTER_KEYS) {
    const value = filter[name];
    if (value === undefined || (skipFlights && name === "flights")) continue;
    const write = FILTER_WRITERS[name] as (value: unknown) => string;
    key += `${name}${write(value)};`;
  }
  return key;
}

const SELECTOR_WRITERS: Writers<ChangeSelector> = {
  // For messages only.
  name: null,
  kinds: list,
  fields: list,
  states: list,
  actions: list,
  delayAtLeastMinutes: String,
  // Applied by the dispatcher, not by matching.
  shiftAtLeastMinutes: null,
  withinMs: String,
};
const SELECTOR_KEYS = (Object.keys(SELECTOR_WRITERS) as (keyof ChangeSelector)[]).filter(
  (name) => SELECTOR_WRITERS[name] !== null,
);

/** Equal for change filters (selector lists) that pick the same selector position for every event. */
export function changeFilterKey(selectors: readonly ChangeSelector[]): string {
  let key = "";
  for (const selector of selectors) {
    key += "{";
    for (const name of SELECTOR_KEYS) {
      const value = selector[name];
      if (value === undefined) continue;
      const write = SELECTOR_WRITERS[name] as (value: unknown) => string;
      key += `${name}${write(value)};`;
    }
    key += "}";
  }
  return key;
}
