/**
 * fast-check arbitraries of rules and change events over small pools of values, so
 * that random rules often match random events and often share criteria.
 */
import fc from "fast-check";
import { CHANGE_KINDS, type ChangeAction, type ChangeEvent } from "../../src/diff/change.js";
import type { SnapshotFields } from "../../src/diff/flight-snapshot.js";
import type { ChangeSelector, FlightFilter, Rule, TimeBound } from "../../src/rules/rule.js";
import { changeEvent, SCHEDULED, VERSION } from "./event-builder.js";
import { rule } from "./rule-builder.js";

const DESIGNATORS = ["KL", "DL", "AF", "U2", "KLM"];
const NUMBERS = [1, 7, 601, 9341];
const AIRPORTS = ["WAW", "JFK", "LHR"];
const PIERS = ["D", "E", "d"];
const GATES = ["D7", "D70", "E2", "d7"];
const STATES = ["SCH", "BRD", "CNX", "DEL"];
const FIELDS = [
  "gate",
  "pier",
  "publicEstimatedOffBlockTime",
  "actualLandingTime",
  "publicFlightState",
];
const ACTIONS: ChangeAction[] = ["assigned", "changed", "added", "withdrawn", "removed"];
/**
 * Two flights seen at two versions: a batch mixes events of one observation (same key
 * and version) with those of others, in any order.
 */
const KEYS = ["D:2026-11-21:KL601", "A:2026-11-21:AF1"];
const VERSIONS = [VERSION, VERSION + 60_000];
export const HOUR = 3_600_000;

/** A flight number in one of the spellings users and the upstream write. */
export const spelledNumber = fc
  .tuple(
    fc.constantFrom(...DESIGNATORS),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom("", "0", "00", " "),
    fc.boolean(),
  )
  .map(([designator, n, pad, lower]) => {
    const text = `${designator}${pad}${n}`;
    return lower ? text.toLowerCase() : text;
  });

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined, freq: 2 });
const someOf = <T>(...values: T[]): fc.Arbitrary<T[]> => fc.subarray(values, { minLength: 1 });

const timeBound: fc.Arbitrary<TimeBound> = fc.oneof(
  fc.integer({ min: -3, max: 3 }).map((h) => ({ at: SCHEDULED + h * HOUR })),
  fc.integer({ min: -3, max: 3 }).map((h) => ({ fromNowMs: h * HOUR })),
  fc.record({ localDayOffset: fc.integer({ min: -1, max: 1 }), endOfDay: fc.boolean() }),
);

const CRITERIA = {
  airlines: someOf("KL", "KLM", "DL", "AF"),
  direction: fc.constantFrom("A" as const, "D" as const),
  airports: someOf(...AIRPORTS),
  destinations: someOf(...AIRPORTS),
  origins: someOf(...AIRPORTS),
  terminals: someOf(1, 2, 3),
  piers: someOf(...PIERS),
  gates: someOf(...GATES, "D*", "E*"),
  serviceTypes: someOf("J", "F"),
  operational: fc.boolean(),
  schedule: fc.record({ from: timeBound, to: timeBound }, { requiredKeys: [] }),
};
type Criterion = keyof typeof CRITERIA;

/** A filter of up to two criteria besides `flights` (more would almost never all hold). */
const baseFilter = (numbered: fc.Arbitrary<boolean>): fc.Arbitrary<FlightFilter> =>
  fc
    .tuple(
      fc.record(CRITERIA),
      fc.subarray(Object.keys(CRITERIA) as Criterion[], { maxLength: 2 }),
      numbered,
      fc.array(spelledNumber, { minLength: 1, maxLength: 3 }),
    )
    .map(([all, keys, withFlights, flights]) => {
      const filter: Record<string, unknown> = {};
      for (const key of keys) filter[key] = all[key];
      if (withFlights) filter.flights = flights;
      return filter as FlightFilter;
    });

export const flightFilter: fc.Arbitrary<FlightFilter> = fc
  .tuple(baseFilter(fc.boolean()), maybe(baseFilter(fc.boolean())))
  .map(([filter, not]) => (not === undefined ? filter : { ...filter, not }));

export const selector: fc.Arbitrary<ChangeSelector> = fc
  .record(
    {
      kinds: someOf(...CHANGE_KINDS),
      fields: someOf(...FIELDS),
      states: someOf(...STATES),
      actions: someOf(...ACTIONS),
      delayAtLeastMinutes: fc.integer({ min: -10, max: 60 }),
      shiftAtLeastMinutes: fc.integer({ min: 0, max: 60 }),
      withinMs: fc.integer({ min: 0, max: 4 }).map((h) => h * HOUR),
    },
    { requiredKeys: ["kinds"] },
  )
  .map((s) => ({ name: s.kinds.join("+"), ...s }));

export const ruleArb = (id: string): fc.Arbitrary<Rule> =>
  fc
    .record({
      flights: maybe(flightFilter),
      changes: maybe(fc.array(selector, { minLength: 1, maxLength: 3 })),
    })
    .map(({ flights, changes }) => {
      const built = rule(id, { flights: flights ?? {} });
      if (changes) built.changes = changes;
      return built;
    });

const fields: fc.Arbitrary<SnapshotFields> = fc.record(
  {
    gate: fc.constantFrom(...GATES),
    pier: fc.constantFrom(...PIERS),
    terminal: fc.constantFrom(1, 2, 3),
    route: someOf(...AIRPORTS),
    serviceType: fc.constantFrom("J", "F", "j"),
    times: fc.record(
      {
        actualOffBlockTime: fc.integer({ min: -4, max: 4 }).map((h) => SCHEDULED + h * HOUR),
        publicEstimatedOffBlockTime: fc
          .integer({ min: -4, max: 4 })
          .map((h) => SCHEDULED + h * HOUR),
        actualLandingTime: fc.integer({ min: -4, max: 4 }).map((h) => SCHEDULED + h * HOUR),
        estimatedLandingTime: fc.integer({ min: -4, max: 4 }).map((h) => SCHEDULED + h * HOUR),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

export const eventArb = (id: string): fc.Arbitrary<ChangeEvent> =>
  fc
    .record({
      // Moves (gate, pier, terminal changed) often enough that observations have some.
      kind: fc.oneof(
        fc.constantFrom(...CHANGE_KINDS),
        fc.constantFrom("gate" as const, "pier" as const, "terminal" as const),
      ),
      field: fc.constantFrom(...FIELDS),
      action: fc.oneof(fc.constantFrom(...ACTIONS), fc.constant<ChangeAction>("changed")),
      key: fc.constantFrom(...KEYS),
      version: fc.constantFrom(...VERSIONS),
      state: maybe(fc.constantFrom(...STATES)),
      old: maybe(fc.constantFrom<string | number>(...GATES, ...PIERS, 1, 2, 3)),
      // Mostly an old value of the event's own kind, so a move can satisfy a criterion.
      fitting: fc.boolean(),
      oldGate: fc.constantFrom(...GATES),
      oldPier: fc.constantFrom(...PIERS),
      oldTerminal: fc.constantFrom(1, 2, 3),
      delayMinutes: maybe(fc.integer({ min: -20, max: 60 })),
      names: fc.array(spelledNumber, { minLength: 1, maxLength: 4 }),
      mainFlight: fc.constantFrom("KL0601", "DL9341", "KLM601", "???"),
      direction: maybe(fc.constantFrom("A" as const, "D" as const)),
      scheduled: maybe(fc.integer({ min: -4, max: 4 }).map((h) => SCHEDULED + h * HOUR)),
      prefixIATA: maybe(fc.constantFrom("KL", "AF")),
      prefixICAO: maybe(fc.constantFrom("KLM", "AFR")),
      operational: maybe(fc.boolean()),
      current: maybe(fields),
    })
    .map((e) =>
      changeEvent({
        id,
        kind: e.kind,
        field: e.field,
        action: e.action,
        state: e.state,
        old: !e.fitting
          ? e.old
          : e.kind === "gate"
            ? e.oldGate
            : e.kind === "pier"
              ? e.oldPier
              : e.kind === "terminal"
                ? e.oldTerminal
                : e.old,
        delayMinutes: e.delayMinutes,
        version: e.version,
        flight: {
          key: e.key,
          flightNames: e.names,
          mainFlight: e.mainFlight,
          direction: e.direction,
          scheduled: e.scheduled,
          prefixIATA: e.prefixIATA,
          prefixICAO: e.prefixICAO,
          operational: e.operational,
        },
        current: e.current ?? null,
      }),
    );

/** `yaml` stringify options in random styles (block or flow, plain or quoted strings). */
export const yamlStyle = {
  indentSeq: fc.boolean(),
  collectionStyle: fc.constantFrom("any", "block", "flow") as fc.Arbitrary<
    "any" | "block" | "flow"
  >,
  defaultStringType: fc.constantFrom("PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE") as fc.Arbitrary<
    "PLAIN" | "QUOTE_DOUBLE" | "QUOTE_SINGLE"
  >,
};
