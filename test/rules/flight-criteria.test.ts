/**
 * The criteria table is the one place a flight criterion is declared: the filter type,
 * the keys rule files take and the check keys all follow it.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  CRITERIA_ENTRIES,
  type CriterionName,
  FLIGHT_CRITERIA,
  type FlightFilter,
} from "../../src/rules/flight-criteria.js";
import { flightFilterKey } from "../../src/rules/match/check-key.js";
import { FLIGHT_FILTER_KEYS } from "../../src/rules/read/rule-schema.js";
import type { FlightFilter as ModelFilter } from "../../src/rules/rule.js";

describe("flight criteria table", () => {
  it("gives the FlightFilter type its keys: the criteria and `not`", () => {
    expectTypeOf<keyof FlightFilter>().toEqualTypeOf<CriterionName | "not">();
    expectTypeOf<ModelFilter>().toEqualTypeOf<FlightFilter>();
    expectTypeOf<FlightFilter["terminals"]>().toEqualTypeOf<number[] | undefined>();
    expectTypeOf<FlightFilter["direction"]>().toEqualTypeOf<"A" | "D" | undefined>();
  });

  it("gives rule files their flight keys, in table order, then `not`", () => {
    expect(FLIGHT_FILTER_KEYS).toEqual([
      ...Object.values(FLIGHT_CRITERIA).map((criterion) => criterion.key),
      "not",
    ]);
    expect(new Set(FLIGHT_FILTER_KEYS).size).toBe(FLIGHT_FILTER_KEYS.length);
  });

  it("writes every criterion into the check key", () => {
    const values: Record<CriterionName, FlightFilter[CriterionName]> = {
      flights: ["KL601"],
      airlines: ["KL"],
      direction: "D",
      destinations: ["JFK"],
      origins: ["LHR"],
      airports: ["WAW"],
      terminals: [2],
      piers: ["D"],
      gates: ["D7"],
      serviceTypes: ["J"],
      operational: true,
      schedule: { from: { at: 0 } },
    };
    for (const [name] of CRITERIA_ENTRIES) {
      expect(flightFilterKey({ [name]: values[name] })).not.toBe("");
    }
  });
});
