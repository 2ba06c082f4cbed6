import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChangeEvent, ChangeKind } from "../../../src/diff/change.js";
import { RuleCompiler } from "../../../src/rules/match/compiled-rule.js";
import { CheckMemo, EventView } from "../../../src/rules/match/event-view.js";
import { MatchContext } from "../../../src/rules/match/match-context.js";
import { RuleSet } from "../../../src/rules/match/rule-matcher.js";
import type { Rule } from "../../../src/rules/rule.js";
import type { RuleMatch } from "../../../src/rules/rule-match.js";
import { changeEvent, SCHEDULED } from "../event-builder.js";
import { eventArb, HOUR, ruleArb } from "../rule-arbitraries.js";
import { rule, select } from "../rule-builder.js";

const NOW = SCHEDULED - 3_600_000;

/** `rule id @ event id`, for readable comparisons. */
const pair = (m: RuleMatch): string => `${m.rule.id}@${m.event.id}`;
const pairs = (matches: readonly RuleMatch[]): string[] => matches.map(pair);

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

  it("refuses an unknown zone when built", () => {
    expect(() => new RuleSet([], { zone: "Mars/Olympus" })).toThrow(
      expect.objectContaining({ code: "FW_ERR_CONFIG_INVALID" }),
    );
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

/**
 * The moves of the event's observation, found by scanning the whole batch: every
 * gate, pier or terminal `changed` of the same flight key and version.
 * `siblings: false` gives the event's own move only (the matching before observations).
 */
function observationMoves(
  event: ChangeEvent,
  events: readonly ChangeEvent[],
  siblings: boolean,
): ChangeEvent[] {
  return (siblings ? events : [event]).filter(
    (other) =>
      other.flight.key === event.flight.key &&
      other.version === event.version &&
      ["gate", "pier", "terminal"].includes(other.kind) &&
      other.action === "changed",
  );
}

/**
 * Every rule against every event with the same predicates, but no index, no names
 * carried from one event to the next, no moves grouped ahead, and no check shared
 * between rules: each rule is compiled on its own and gets a fresh memo per event.
 */
function naiveMatch(
  rules: readonly Rule[],
  events: readonly ChangeEvent[],
  now: number,
  siblings = true,
): RuleMatch[] {
  const compiled = rules.map((r) => new RuleCompiler().compile(r));
  const out: RuleMatch[] = [];
  for (const event of events) {
    const moves = observationMoves(event, events, siblings);
    for (const c of compiled) {
      const view = new EventView(
        event,
        new MatchContext(now, "Europe/Amsterdam"),
        new CheckMemo(2),
        undefined,
        moves,
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
          // Mostly near the flights' times; sometimes on the local day before or after.
          now: fc
            .oneof(
              { arbitrary: fc.integer({ min: -4, max: 4 }), weight: 4 },
              { arbitrary: fc.constantFrom(-13, 14), weight: 1 },
            )
            .map((h) => SCHEDULED + h * HOUR),
        }),
      );
    let matched = 0;
    let keyed = 0;
    let gated = 0;
    let bySibling = 0;
    fc.assert(
      fc.property(input, ({ rules, events, now }) => {
        const indexed = new RuleSet(rules).match(events, now);
        const naive = naiveMatch(rules, events, now);
        matched += naive.length;
        keyed += naive.filter((m) => m.rule.flights.flights).length;
        gated += naive.filter((m) => !m.rule.flights.flights && m.rule.flights.gates).length;
        const alone = new Set(naiveMatch(rules, events, now, false).map(pair));
        const together = new Set(naive.map(pair));
        for (const p of together) if (!alone.has(p)) bySibling++;
        for (const p of alone) if (!together.has(p)) bySibling++;
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
    // The generators must produce matches of every index path, or the property proves nothing.
    expect(matched).toBeGreaterThan(3000);
    expect(keyed).toBeGreaterThan(300);
    expect(gated).toBeGreaterThan(100);
    // …and matches won or lost through another event's move of the same observation.
    expect(bySibling).toBeGreaterThan(100);
  });
});
