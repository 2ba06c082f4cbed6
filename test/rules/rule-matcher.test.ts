import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CHANGE_KINDS,
  type ChangeAction,
  type ChangeEvent,
  type ChangeKind,
} from "../../src/diff/change.js";
import type { SnapshotFields } from "../../src/diff/flight-snapshot.js";
import { RuleCompiler } from "../../src/rules/compiled-rule.js";
import { CheckMemo, EventView } from "../../src/rules/event-view.js";
import { MatchContext } from "../../src/rules/match-context.js";
import type { ChangeSelector, FlightFilter, Rule, TimeBound } from "../../src/rules/rule.js";
import type { RuleMatch } from "../../src/rules/rule-match.js";
import { RuleSet } from "../../src/rules/rule-matcher.js";
import { changeEvent, SCHEDULED } from "./event-builder.js";
import { rule, select } from "./rule-builder.js";

const NOW = SCHEDULED - 3_600_000;

/** `rule id @ event id` per match, for readable comparisons. */
const pairs = (matches: readonly RuleMatch[]): string[] =>
  matches.map((m) => `${m.rule.id}@${m.event.id}`);

describe("RuleSet", () => {
  it("keeps the rules in order and finds them by id", () => {
    const rules = [rule("b"), rule("a")];
    const set = new RuleSet(rules);
    expect(set.rules.map((r) => r.id)).toEqual(["b", "a"]);
    expect(set.get("a")).toBe(rules[1]);
    expect(set.get("c")).toBeUndefined();
    rules.pop();
    expect(set.rules).toHaveLength(2);
  });

  it("reports matches in event order, then rule order, whatever the index path", () => {
    const rules = [
      rule("all"),
      rule("pax-dl", { flights: { flights: ["DL9341"] }, changes: ["gate"] }),
      rule("ops-gates", { flights: { piers: ["D"] }, changes: ["gate"] }),
      rule("pax-kl", { flights: { flights: ["KL601"] } }),
      rule("ops-belts", { changes: ["belt"] }),
    ];
    const e1 = changeEvent({ id: "e1" });
    const e2 = changeEvent({ id: "e2", kind: "belt", field: "baggageClaim" });
    const e3 = changeEvent({ id: "e3", flight: { flightNames: ["AF1"] } });
    expect(pairs(new RuleSet(rules).match([e1, e2, e3], NOW))).toEqual([
      "all@e1",
      "pax-dl@e1",
      "ops-gates@e1",
      "pax-kl@e1",
      "all@e2",
      "pax-kl@e2",
      "ops-belts@e2",
      "all@e3",
      "ops-gates@e3",
    ]);
  });

  it("matches a rule naming several of the flight's numbers once", () => {
    const both = rule("both", {
      flights: { flights: ["KL601", "DL9341", "KL0601"] },
      changes: ["gate", "pier"],
    });
    const matches = new RuleSet([both]).match([changeEvent()], NOW);
    expect(pairs(matches)).toHaveLength(1);
    // Also when the upstream lists one number twice in two spellings.
    const twice = changeEvent({ flight: { flightNames: ["KL0601", "KL601", "DL9341"] } });
    expect(new RuleSet([both]).match([twice], NOW)).toHaveLength(1);
  });

  it("keyed rules of another kind are not matched", () => {
    const set = new RuleSet([rule("pax", { flights: { flights: ["KL601"] }, changes: ["belt"] })]);
    expect(set.match([changeEvent()], NOW)).toEqual([]);
  });

  it("a flight-number rule matches nothing of other flights, whatever their kind", () => {
    const set = new RuleSet([rule("pax", { flights: { flights: ["KL602"] } })]);
    expect(set.match([changeEvent(), changeEvent({ kind: "belt" })], NOW)).toEqual([]);
  });

  it("only a rule taking every change matches an event of a kind it does not know", () => {
    const set = new RuleSet([rule("all"), rule("gates", { changes: ["gate"] })]);
    const odd = changeEvent({ kind: "future" as ChangeKind });
    expect(pairs(set.match([odd], NOW))).toEqual([`all@${odd.id}`]);
  });

  it("an empty set or no events: no matches", () => {
    expect(new RuleSet([]).match([changeEvent()], NOW)).toEqual([]);
    expect(new RuleSet([rule("all")]).match([], NOW)).toEqual([]);
  });

  it("is pure: the same input gives the same output, and nothing is mutated", () => {
    const rules = [
      rule("all"),
      rule("pax", { flights: { flights: ["KL601"] }, changes: [select("gate")] }),
    ];
    const events = [changeEvent(), changeEvent({ kind: "pier" })];
    const before = JSON.stringify({ rules, events });
    const set = new RuleSet(rules);
    expect(pairs(set.match(events, NOW))).toEqual(pairs(set.match(events, NOW)));
    expect(JSON.stringify({ rules, events })).toBe(before);
  });
});

// ---- property: the index loses nothing -------------------------------------------------

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
const HOUR = 3_600_000;

/** A flight number in one of the spellings users and the upstream write. */
const spelledNumber = fc
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

const flightFilter: fc.Arbitrary<FlightFilter> = fc
  .tuple(baseFilter(fc.boolean()), maybe(baseFilter(fc.constant(false))))
  .map(([filter, not]) => (not === undefined ? filter : { ...filter, not }));

const selector: fc.Arbitrary<ChangeSelector> = fc
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

const ruleArb = (id: string): fc.Arbitrary<Rule> =>
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

const eventArb = (id: string): fc.Arbitrary<ChangeEvent> =>
  fc
    .record({
      kind: fc.constantFrom(...CHANGE_KINDS),
      field: fc.constantFrom(...FIELDS),
      action: fc.constantFrom(...ACTIONS),
      state: maybe(fc.constantFrom(...STATES)),
      old: maybe(fc.constantFrom<string | number>(...GATES, ...PIERS, 1, 2, 3)),
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
        old: e.old,
        delayMinutes: e.delayMinutes,
        flight: {
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

/**
 * Every rule against every event with the same predicates: no index, no names carried
 * from one event to the next, and a fresh memo per rule and event (so no check result
 * is shared between rules).
 */
function naiveMatch(
  rules: readonly Rule[],
  events: readonly ChangeEvent[],
  now: number,
): RuleMatch[] {
  const compiler = new RuleCompiler();
  const compiled = rules.map((r) => compiler.compile(r));
  const out: RuleMatch[] = [];
  for (const event of events) {
    for (const c of compiled) {
      const view = new EventView(
        event,
        new MatchContext(now, "Europe/Amsterdam"),
        new CheckMemo(compiler.checkCount),
      );
      const found = c.match(view);
      if (found) out.push(found);
    }
  }
  return out;
}

describe("RuleSet index", () => {
  it("gives exactly the matches of every rule tried on every event", () => {
    const input = fc
      .tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 30 }))
      .chain(([nRules, nEvents]) =>
        fc.record({
          rules: fc.tuple(...Array.from({ length: nRules }, (_, i) => ruleArb(`r${i}`))),
          events: fc.tuple(...Array.from({ length: nEvents }, (_, i) => eventArb(`e${i}`))),
          now: fc.integer({ min: -4, max: 4 }).map((h) => SCHEDULED + h * HOUR),
        }),
      );
    let matched = 0;
    let keyed = 0;
    fc.assert(
      fc.property(input, ({ rules, events, now }) => {
        const indexed = new RuleSet(rules).match(events, now);
        const naive = naiveMatch(rules, events, now);
        matched += naive.length;
        keyed += naive.filter((m) => m.rule.flights.flights).length;
        expect(indexed.map((m) => [m.rule, m.event, m.selector])).toEqual(
          naive.map((m) => [m.rule, m.event, m.selector]),
        );
        for (let i = 0; i < naive.length; i++) {
          expect(indexed[i]?.rule).toBe(naive[i]?.rule);
          expect(indexed[i]?.event).toBe(naive[i]?.event);
          expect(indexed[i]?.selector).toBe(naive[i]?.selector);
        }
      }),
      { numRuns: 300 },
    );
    // The generators must produce matches of both index paths, or the property proves nothing.
    expect(matched).toBeGreaterThan(3000);
    expect(keyed).toBeGreaterThan(300);
  });
});
