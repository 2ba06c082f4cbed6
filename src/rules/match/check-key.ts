/**
 * Keys that say when two flight filters or two change filters match the same events,
 * so rules written alike share one compiled check. Every property of the rule model
 * has a writer: flight criteria write their part from the criteria table (flight-criteria.ts),
 * and a property added to `ChangeSelector` without a writer here fails to compile instead
 * of being silently ignored — which would merge rules that differ. Each part is self-delimiting.
 */
import { CRITERIA_ENTRIES, type CriterionName, type FlightFilter } from "../flight-criteria.js";
import type { ChangeSelector } from "../rule.js";

type Writers<T> = { [K in keyof T]-?: ((value: NonNullable<T[K]>) => string) | null };

const list = (values: readonly (string | number)[]): string =>
  `[${values.map((v) => (typeof v === "number" ? String(v) : JSON.stringify(v))).join(",")}]`;

// Plain arrays: keys are written for every rule loaded (100,000 passenger rules).
const CRITERION_NAMES = CRITERIA_ENTRIES.map(([name]) => name);
const KEY_WRITERS = CRITERIA_ENTRIES.map(([, criterion]) => criterion.writeKey ?? JSON.stringify);

/** Equal for flight filters that hold for the same flights (`skipFlights`: ignoring the top-level `flights`). */
export function flightFilterKey(filter: FlightFilter, skipFlights = false): string {
  let key = "";
  for (let i = 0; i < CRITERION_NAMES.length; i++) {
    const name = CRITERION_NAMES[i] as CriterionName;
    const value = filter[name];
    if (value === undefined || (skipFlights && name === "flights")) continue;
    key += `${name}${(KEY_WRITERS[i] as (value: unknown) => string)(value)};`;
  }
  if (filter.not !== undefined) key += `not(${flightFilterKey(filter.not)});`;
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
