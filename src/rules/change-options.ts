/**
 * The options of a change selector written as a mapping (`{ kind: time, within: 3h }`),
 * one entry each: its key in rule files, how its value is written and checked, which
 * kinds take it, its test of an event and its check-key part. The reader
 * (read/change-selector-reader.ts), the compiled selector (match/change-selector.ts),
 * the check keys (match/check-key.ts) and the `ChangeSelector` type are all derived from
 * this table, so a new option is one entry here. Semantics are docs/rules.md, "Change filter".
 */
import type { ChangeAction, ChangeKind } from "../diff/change.js";
import {
  CHANGE_ACTIONS,
  type KindSpec,
  STATE_CODES,
  TIME_FIELD_NAMES,
  TIME_KIND_NAMES,
} from "./change-kinds.js";
import type { Refusal } from "./flight-criteria.js";
import type { EventView } from "./match/event-view.js";

/** A test of an event besides its kind, which the compiled selector checks first. */
export type ChangeTest = (view: EventView) => boolean;

/** How an option's value is written; `V` is the value the rule model holds. */
export type OptionForm<V> = (
  | { kind: "names"; what: string; valid: readonly string[]; norm: (text: string) => string }
  | { kind: "duration"; unitMs: number }
) & {
  /** Never set: carries the value type for `ChangeSelector`. */
  readonly value?: V;
};

/** One option of a change selector. */
export interface ChangeOption<V> {
  /** The key in rule files (`delay_at_least`). */
  key: string;
  form: OptionForm<V>;
  /** Why the kind named `name` cannot take it (the hint), or undefined when it can. */
  refusedFor?: (name: string, spec: KindSpec) => string | undefined;
  /** A value the form reads but the kind or the option refuses. */
  check?: (value: V, name: string, spec: KindSpec) => Refusal | undefined;
  /** Its test of an event, built once per selector; none: matching does not apply it. */
  test?: (value: V) => ChangeTest;
  /** Its part of a check key, self-delimiting; default the value as JSON; null: not matched on. */
  writeKey?: ((value: V) => string) | null;
}

/** A list of names from a closed set, normalised by `norm`: `what` names one in messages. */
const names = <T extends string>(
  what: string,
  valid: readonly string[],
  norm: (text: string) => string,
): OptionForm<T[]> => ({ kind: "names", what, valid, norm });

/** A duration, held as a number of `unitMs`. */
const duration = (unitMs: number): OptionForm<number> => ({ kind: "duration", unitMs });

const quoted = (list: readonly string[], or = ", "): string => list.map((n) => `\`${n}\``).join(or);

const timeKindsOnly = (_name: string, spec: KindSpec): string | undefined =>
  spec.time ? undefined : `only time kinds take it: ${quoted(TIME_KIND_NAMES)}`;

/** Declares an option (keeps its value type for `ChangeSelector`). */
const option = <V>(o: ChangeOption<V>): ChangeOption<V> => o;

/** Between the states a kind means, in messages. */
// Stryker disable next-line StringLiteral: never written while every kind that means a state means one (CNX, DIV)
const STATE_SEPARATOR = ", ";

/**
 * The options, by their name in the rule model, in the order rule files list them;
 * tests run in this order.
 */
export const CHANGE_OPTIONS = {
  /** Only these state codes (`state` kind). */
  states: option({
    key: "states",
    form: names<string>("state", STATE_CODES, (t) => t.toUpperCase()),
    refusedFor: (name, spec) => {
      if (name === "state") return undefined;
      return spec.states
        ? `\`${name}\` already means state ${spec.states.join(STATE_SEPARATOR)}; for other states write { kind: state, states: [...] }`
        : "only `state` takes `states`";
    },
    test: (list) => {
      // Undefined (an event of another kind) is in no list of state codes.
      const states = new Set<string | undefined>(list);
      return (view) => states.has(view.event.state);
    },
  }),
  /** Only these actions. */
  actions: option({
    key: "actions",
    form: names<ChangeAction>("action", CHANGE_ACTIONS, (t) => t.toLowerCase()),
    check: (actions, name, spec) => {
      const never = actions.filter((a) => !spec.actions.includes(a));
      if (never.length === 0) return undefined;
      return {
        refused: `\`${name}\` changes are never ${quoted(never, " or ")}`,
        hint: `\`${name}\` changes are ${quoted(spec.actions, " or ")}`,
      };
    },
    test: (list) => {
      const actions = new Set<string>(list);
      return (view) => actions.has(view.event.action);
    },
  }),
  /** Only these upstream fields (time fields such as `publicEstimatedOffBlockTime`). */
  fields: option({
    key: "fields",
    form: names<string>("time field", TIME_FIELD_NAMES, (t) => t),
    refusedFor: (name, spec) => {
      if (name === "time") return undefined;
      return spec.fields
        ? `only \`time\` takes \`fields\`; \`${name}\` already means ${spec.fields.join(", ")}`
        : "only `time` takes `fields`";
    },
    test: (list) => {
      const fields = new Set(list);
      return (view) => fields.has(view.event.field);
    },
  }),
  /** Time changes only: the new time at least this many minutes after the schedule. */
  delayAtLeastMinutes: option({
    key: "delay_at_least",
    form: duration(60_000),
    refusedFor: timeKindsOnly,
    test: (least) => (view) => {
      const { event } = view;
      return (
        event.kind === "time" &&
        // Stryker disable next-line ConditionalExpression: `undefined >= least` is false as well; the check only narrows the type
        event.delayMinutes !== undefined &&
        event.delayMinutes >= least
      );
    },
  }),
  /**
   * Time changes only: the new time at least this many minutes from the value last
   * alerted (hysteresis; the dispatcher applies it, it needs memory of past alerts).
   */
  shiftAtLeastMinutes: option({
    key: "shift_at_least",
    form: duration(60_000),
    refusedFor: timeKindsOnly,
    writeKey: null,
  }),
  /** Only while the flight's best known departure/arrival time is at most this far ahead. */
  withinMs: option({
    key: "within",
    form: duration(1),
    check: (ms) =>
      ms > 0 ? undefined : { refused: "`within` must be more than 0", hint: "e.g. within: 3h" },
    // Flights already past their time still match: only "too far ahead" is filtered.
    test: (within) => (view) => {
      // A flight whose time is unknown is not known to be within reach.
      return (view.bestKnownTime ?? Number.POSITIVE_INFINITY) - view.context.now <= within;
    },
  }),
};

/** An option's name in the rule model (`withinMs`). */
export type OptionName = keyof typeof CHANGE_OPTIONS;

/** The value type of each option, by its name in the rule model. */
export type OptionValues = {
  [K in OptionName]?: (typeof CHANGE_OPTIONS)[K] extends ChangeOption<infer V> ? V : never;
};

/** One entry of a rule's change filter: a kind name and its options. */
export interface ChangeSelector extends OptionValues {
  /** The name the user wrote (`gate`, `cancelled`, `estimated_off_block`…), for messages. */
  name: string;
  /** Event kinds it can match (also what the matcher indexes on). */
  kinds: ChangeKind[];
}

/** The options as [name, option] pairs, in table order. */
export const OPTION_ENTRIES = Object.entries(CHANGE_OPTIONS) as [
  OptionName,
  ChangeOption<unknown>,
][];
