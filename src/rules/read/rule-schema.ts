/**
 * The vocabulary of rule files (docs/rules.md): which keys each mapping takes, the
 * change kinds and what each stands for, state codes, time fields and channel keys.
 * The validator and its hints ("did you mean", "applies to …") read these tables.
 */
import type { ChangeAction, ChangeKind } from "../../diff/change.js";
import { TIME_FIELDS, type TimeField } from "../../diff/flight-snapshot.js";
import { CRITERIA_ENTRIES } from "../flight-criteria.js";
import type { ChannelType } from "../rule.js";

/** Keys of a rule. */
export const RULE_KEYS = [
  "id",
  "description",
  "labels",
  "enabled",
  "flights",
  "changes",
  "channels",
  "group_wait",
  "cool_down",
  "flapping",
] as const;

/** Keys of a flight filter: the criteria's (flight-criteria.ts), then `not`. */
export const FLIGHT_FILTER_KEYS: readonly string[] = [
  ...CRITERIA_ENTRIES.map(([, criterion]) => criterion.key),
  "not",
];

/** Keys of a `schedule` window. */
export const SCHEDULE_KEYS = ["from", "to"] as const;

/** Keys of a change selector written as a mapping. */
export const SELECTOR_KEYS = [
  "kind",
  "states",
  "actions",
  "fields",
  "delay_at_least",
  "shift_at_least",
  "within",
] as const;

/** Keys of `flapping`. */
export const FLAPPING_KEYS = ["window", "action"] as const;

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

/** Keys each channel type takes besides `type` and `name`. */
export const CHANNEL_KEYS: Readonly<Record<ChannelType, readonly string[]>> = {
  slack: ["url", "template", "retry"],
  email: ["to", "subject", "template", "unsubscribe_url", "retry"],
  webhook: ["url", "secret", "format", "retry"],
  console: ["retry"],
};

/** Keys of a channel's `retry`. */
export const RETRY_KEYS = ["delays", "for"] as const;
