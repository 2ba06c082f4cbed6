/**
 * A flight criterion added as one entry of the criteria table — here a test-only `belt`
 * (baggage belts) — is read from rule files with positioned problems and a
 * did-you-mean, matched, and told apart in check keys, with no other change.
 */
import { describe, expect, it, vi } from "vitest";
import type { Criterion } from "../../src/rules/flight-criteria.js";
import { flightFilterKey } from "../../src/rules/match/check-key.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { FlightFilter } from "../../src/rules/rule.js";
import { changeEvent } from "./event-builder.js";
import { oneRule, problemOf, ruleWith } from "./read/rule-text.js";
import { rule } from "./rule-builder.js";

vi.mock("../../src/rules/flight-criteria.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/rules/flight-criteria.js")>();
  const belts: Criterion<string[]> = {
    key: "belt",
    form: {
      kind: "texts",
      what: "a belt",
      parse: (text) =>
        /^\d{1,2}$/.test(text.trim())
          ? text.trim()
          : { refused: `\`${text}\` is not a belt`, hint: "belts are numbers, e.g. 12" },
    },
    test: (wanted) => (view) => view.event.current?.belts?.some((b) => wanted.includes(b)) ?? false,
  };
  // The entry; CRITERIA_ENTRIES is the module's own view of the table, derived again.
  const FLIGHT_CRITERIA = { ...real.FLIGHT_CRITERIA, belts };
  return { ...real, FLIGHT_CRITERIA, CRITERIA_ENTRIES: Object.entries(FLIGHT_CRITERIA) };
});

/** A filter with the test-only criterion, which the real FlightFilter type does not have. */
const withBelts = (belts: string[], rest: FlightFilter = {}): FlightFilter =>
  ({ ...rest, belts }) as FlightFilter;

describe("a criterion added to the table", () => {
  it("is read from rule files, a single value as a list", () => {
    expect(oneRule(ruleWith("flights: { belt: [12, '3'], pier: D }")).flights).toEqual(
      withBelts(["12", "3"], { piers: ["D"] }),
    );
    expect(oneRule(ruleWith("flights: { belt: 7 }")).flights).toEqual(withBelts(["7"]));
  });

  it("refuses a bad value at its position, with the entry's hint", () => {
    expect(problemOf(ruleWith("flights:\n  belt: [1, x1]"))).toMatchObject({
      message: "`x1` is not a belt",
      hint: "belts are numbers, e.g. 12",
      path: "rules[0].flights.belt[1]",
      line: 5,
      column: 17,
    });
  });

  it("is suggested for a misspelt key, and pointed to from the rule level", () => {
    expect(problemOf(ruleWith("flights: { blet: 12 }")).hint).toBe("did you mean `belt`?");
    expect(problemOf(ruleWith("belt: 12")).hint).toBe(
      "`belt` is a flight criterion: put it under `flights:`",
    );
  });

  it("is matched", () => {
    const set = new RuleSet([rule("r", { flights: withBelts(["12"]) })]);
    expect(set.match([changeEvent({ current: { belts: ["11", "12"] } })], 0)).toHaveLength(1);
    expect(set.match([changeEvent({ current: { belts: ["13"] } })], 0)).toHaveLength(0);
  });

  it("keeps rules that differ only in it apart", () => {
    expect(flightFilterKey(withBelts(["12"]))).not.toBe(flightFilterKey(withBelts(["13"])));
    expect(flightFilterKey(withBelts(["12"]))).not.toBe(flightFilterKey({}));
  });
});
