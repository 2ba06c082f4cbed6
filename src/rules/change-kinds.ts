/**
 * The change vocabulary of rule files (docs/rules.md, "Change filter"): the change kind
 * names and what each stands for, state codes, actions and time fields. The selector
 * reader and the options table (change-options.ts) read these tables.
 */
import type { ChangeAction, ChangeKind } from "../diff/change.js";
import { TIME_FIELDS, type TimeField } from "../diff/flight-snapshot.js";

/** Public flight state codes (NOTES.md), departures then arrival-only ones. */
export const STATE_CODES = [
  "SCH",
  "DEL",
  "WIL",
  "GTO",
  "BRD",
  "GCH",
  "GCL",
  "GTD",
  "DEP",
  "CNX",
  "TOM",
  "AIR",
  "EXP",
  "FIR",
  "LND",
  "FIB",
  "ARR",
  "DIV",
] as const;

/** Every change action, in the order docs/rules.md lists them. */
export const CHANGE_ACTIONS: readonly ChangeAction[] = [
  "assigned",
  "changed",
  "added",
  "withdrawn",
  "removed",
];

/** What a change kind name in a rule file stands for. */
export interface KindSpec {
  kinds: ChangeKind[];
  /** The upstream time fields it covers (time kinds only; undefined = all of them). */
  fields?: readonly TimeField[];
  /** The state codes it is about (`cancelled` = CNX …). */
  states?: readonly string[];
  /** The actions it can see; `fixed` when the name itself implies them (`cancelled`). */
  actions: readonly ChangeAction[];
  fixedActions?: true;
  /** A time kind: takes `delay_at_least` and `shift_at_least`. */
  time?: true;
}

const VALUE_ACTIONS: readonly ChangeAction[] = ["assigned", "changed"];
const field = (kind: ChangeKind): KindSpec => ({ kinds: [kind], actions: VALUE_ACTIONS });
const time = (...fields: TimeField[]): KindSpec => ({
  kinds: ["time"],
  fields,
  actions: VALUE_ACTIONS,
  time: true,
});

/** Change kind names as rule files write them (docs/rules.md "Kinds"), in that order. */
export const KIND_SPECS: Readonly<Record<string, KindSpec>> = {
  gate: field("gate"),
  pier: field("pier"),
  terminal: field("terminal"),
  belt: field("belt"),
  checkin: field("checkin"),
  codeshares: field("codeshares"),
  aircraft: field("aircraftType"),
  registration: field("registration"),
  route: field("route"),
  service_type: field("serviceType"),
  state: { kinds: ["state"], actions: ["added", "withdrawn"] },
  cancelled: { kinds: ["state"], states: ["CNX"], actions: ["added"], fixedActions: true },
  uncancelled: { kinds: ["state"], states: ["CNX"], actions: ["withdrawn"], fixedActions: true },
  diverted: { kinds: ["state"], states: ["DIV"], actions: ["added"], fixedActions: true },
  added: { kinds: ["flight"], actions: ["added"], fixedActions: true },
  removed: { kinds: ["flight"], actions: ["removed"], fixedActions: true },
  time: { kinds: ["time"], actions: VALUE_ACTIONS, time: true },
  departure_time: time("publicEstimatedOffBlockTime", "actualOffBlockTime"),
  arrival_time: time("estimatedLandingTime", "actualLandingTime"),
  estimated_off_block: time("publicEstimatedOffBlockTime"),
  actual_off_block: time("actualOffBlockTime"),
  estimated_landing: time("estimatedLandingTime"),
  actual_landing: time("actualLandingTime"),
  boarding_time: time("expectedTimeBoarding"),
  gate_open_time: time("expectedTimeGateOpen"),
  gate_closing_time: time("expectedTimeGateClosing"),
  on_belt_time: time("expectedTimeOnBelt"),
};

/** The kind names, in table order. */
export const KIND_NAMES: readonly string[] = Object.keys(KIND_SPECS);

/** Names of the time kinds (those taking `delay_at_least` / `shift_at_least`). */
export const TIME_KIND_NAMES: readonly string[] = KIND_NAMES.filter((n) => KIND_SPECS[n]?.time);

/** The upstream time fields `fields` may name. */
export const TIME_FIELD_NAMES: readonly string[] = TIME_FIELDS;
