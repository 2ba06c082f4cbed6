/**
 * Keys that say when two flight filters or two change filters match the same events,
 * so rules written alike share one compiled check. Every property of the rule model
 * has a writer: flight criteria and change-selector options write their part from their
 * tables (flight-criteria.ts, change-options.ts), the value as JSON unless the entry says
 * otherwise, so no property is silently ignored — which would merge rules that differ.
 * Each part is self-delimiting.
 */

import { type ChangeSelector, OPTION_ENTRIES, type OptionName } from "../change-options.js";
import { CRITERIA_ENTRIES, type CriterionName, type FlightFilter } from "../flight-criteria.js";

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

// Options matching does not apply (`writeKey: null`) are left out: they never tell events apart.
const WRITTEN_OPTIONS = OPTION_ENTRIES.filter(([, option]) => option.writeKey !== null);
const OPTION_NAMES = WRITTEN_OPTIONS.map(([name]) => name);
const OPTION_WRITERS = WRITTEN_OPTIONS.map(([, option]) => option.writeKey ?? JSON.stringify);

/** Equal for change filters (selector lists) that pick the same selector position for every event. */
export function changeFilterKey(selectors: readonly ChangeSelector[]): string {
  let key = "";
  for (const selector of selectors) {
    key += `{kinds${JSON.stringify(selector.kinds)};`;
    for (let i = 0; i < OPTION_NAMES.length; i++) {
      const value = selector[OPTION_NAMES[i] as OptionName];
      if (value === undefined) continue;
      key += `${OPTION_NAMES[i]}${(OPTION_WRITERS[i] as (value: unknown) => string)(value)};`;
    }
    key += "}";
  }
  return key;
}
