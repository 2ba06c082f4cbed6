/** The `flights` filter: normalisation of every criterion and each way it can be wrong. */
import { describe, expect, it } from "vitest";
import type { FlightFilter } from "../../../src/rules/rule.js";
import { oneRule, problemOf, problemsOf, ruleWith } from "./rule-text.js";

const filterOf = (flights: string): FlightFilter =>
  oneRule(ruleWith(`flights: ${flights}`)).flights;

describe("flight filter normalisation", () => {
  it("normalises flight numbers: case, spaces, leading zeros, suffix", () => {
    expect(filterOf('{ flight: [kl 0601, KL0601, "KL1395A", u2 12, KLM601] }').flights).toEqual([
      "KL601",
      "KL1395A",
      "U212",
      "KLM601",
    ]);
  });

  it("takes a single value where a list is allowed", () => {
    expect(
      filterOf(
        "{ flight: KL1395, airline: kl, pier: d, gate: d7, terminal: 2, service_type: j, destination: jfk, origin: lhr, airport: waw }",
      ),
    ).toEqual({
      flights: ["KL1395"],
      airlines: ["KL"],
      piers: ["D"],
      gates: ["D7"],
      terminals: [2],
      serviceTypes: ["J"],
      destinations: ["JFK"],
      origins: ["LHR"],
      airports: ["WAW"],
    });
  });

  it("upper-cases and de-duplicates codes", () => {
    expect(filterOf("{ airline: [KL, klm, 3u, U2, kl], destination: [JFK, ewr, jfk] }")).toEqual({
      airlines: ["KL", "KLM", "3U", "U2"],
      destinations: ["JFK", "EWR"],
    });
  });

  it("reads gates with a prefix star, numbers as written", () => {
    expect(filterOf('{ gate: [D7, "e*", 7, "07", H1A] }').gates).toEqual([
      "D7",
      "E*",
      "7",
      "07",
      "H1A",
    ]);
  });

  it("reads piers and terminals", () => {
    expect(filterOf("{ pier: [D, e, H1], terminal: [1, '2', 3] }")).toEqual({
      piers: ["D", "E", "H1"],
      terminals: [1, 2, 3],
    });
  });

  it.each([
    ["departure", "D"],
    ["arrival", "A"],
    ["D", "D"],
    ["a", "A"],
    ["Departure", "D"],
  ])("reads direction %s as %s", (text, direction) => {
    expect(filterOf(`{ direction: ${text} }`).direction).toBe(direction);
  });

  it("reads operational", () => {
    expect(filterOf("{ operational: true }").operational).toBe(true);
    expect(filterOf("{ operational: false }").operational).toBe(false);
  });

  it("reads a nested not", () => {
    expect(filterOf("{ pier: D, not: { service_type: F, not: { airline: KL } } }")).toEqual({
      piers: ["D"],
      not: { serviceTypes: ["F"], not: { airlines: ["KL"] } },
    });
  });

  it("takes an empty mapping as every flight", () => {
    expect(filterOf("{}")).toEqual({});
  });
});

describe("flight filter problems", () => {
  it.each([
    ["flight: KL", "`KL` is not a flight number", "rules[0].flights.flight"],
    ["flight: [KL1, 601]", "`601` is not a flight number", "rules[0].flights.flight[1]"],
    ["airline: KLMX", "`KLMX` is not an airline code", "rules[0].flights.airline"],
    ["airline: [KL, '12']", "`12` is not an airline code", "rules[0].flights.airline[1]"],
    ["destination: JFKK", "`JFKK` is not an IATA airport code", "rules[0].flights.destination"],
    ["origin: [LHR, L1R]", "`L1R` is not an IATA airport code", "rules[0].flights.origin[1]"],
    ["airport: JF", "`JF` is not an IATA airport code", "rules[0].flights.airport"],
    ["pier: DDD", "`DDD` is not a pier", "rules[0].flights.pier"],
    ["gate: 'D-7'", "`D-7` is not a gate", "rules[0].flights.gate"],
    ["gate: '*'", "`*` is not a gate", "rules[0].flights.gate"],
    ["gate: ABCDEFGHI", "`ABCDEFGHI` is not a gate", "rules[0].flights.gate"],
    ["service_type: JJ", "`JJ` is not a service type", "rules[0].flights.service_type"],
    ["terminal: 0", "a terminal must be a whole number from 1, not 0", "rules[0].flights.terminal"],
    [
      "terminal: [1, one]",
      "a terminal must be a whole number from 1, not `one`",
      "rules[0].flights.terminal[1]",
    ],
    [
      "terminal: 1.5",
      "a terminal must be a whole number from 1, not 1.5",
      "rules[0].flights.terminal",
    ],
    ["direction: north", "unknown direction `north`", "rules[0].flights.direction"],
    ["direction: constructor", "unknown direction `constructor`", "rules[0].flights.direction"],
    [
      "direction: [D]",
      "`direction` must be a single value, not a list",
      "rules[0].flights.direction",
    ],
    [
      "operational: yes",
      "`operational` must be true or false, not `yes`",
      "rules[0].flights.operational",
    ],
  ])("%s", (criterion, message, path) => {
    const problem = problemOf(ruleWith(`flights: { ${criterion} }`));
    expect(problem).toMatchObject({ message, path, ruleId: "r", line: 4 });
    expect(problem.hint ?? "").not.toBe(undefined);
  });

  it("points at the offending value", () => {
    expect(problemOf(ruleWith("flights:\n  destination: [JFK, JFKK]"))).toMatchObject({
      line: 5,
      column: 26,
      hint: "airport codes are 3 letters, e.g. JFK",
    });
  });

  it("refuses an unknown criterion with a did-you-mean", () => {
    expect(problemOf(ruleWith("flights: { destinaton: JFK }"))).toMatchObject({
      path: "rules[0].flights.destinaton",
      column: 16,
      message: "unknown key `destinaton`",
      hint: "did you mean `destination`?",
    });
    expect(problemOf(ruleWith("flights: { flights: { flight: KL1 } }")).hint).toContain(
      "takes the criteria directly",
    );
  });

  it("refuses an empty list, which would match nothing", () => {
    expect(problemOf(ruleWith("flights: { pier: [] }"))).toMatchObject({
      path: "rules[0].flights.pier",
      message: "`pier` is an empty list: it would match no flight",
    });
  });

  it("refuses a criterion without a value", () => {
    expect(problemOf(ruleWith("flights:\n  pier:"))).toMatchObject({
      message: "`pier` has no value",
      line: 5,
      column: 7,
    });
  });

  it("refuses a filter that is not a mapping", () => {
    expect(problemOf(ruleWith("flights: KL1395"))).toMatchObject({
      path: "rules[0].flights",
      message: "`flights` must be a mapping, not `KL1395`",
    });
  });

  it("refuses an empty or too deep not", () => {
    expect(problemOf(ruleWith("flights: { not: {} }"))).toMatchObject({
      path: "rules[0].flights.not",
      message: "`not` is empty: it would exclude every flight",
    });
    expect(
      problemOf(ruleWith("flights: { not: { not: { not: { not: { not: { pier: D } } } } } }")),
    ).toMatchObject({
      message: "`not` is nested too deeply",
      path: "rules[0].flights.not.not.not.not.not",
    });
    expect(problemOf(ruleWith("flights: { not: { pier: DDD } }"))).toMatchObject({
      path: "rules[0].flights.not.pier",
    });
  });

  it("refuses destination on arrivals and origin on departures", () => {
    expect(problemOf(ruleWith("flights: { direction: arrival, destination: JFK }"))).toMatchObject({
      path: "rules[0].flights.destination",
      message: "`destination` matches departures only, but `direction` is arrival",
    });
    expect(problemOf(ruleWith("flights: { direction: D, origin: JFK }"))).toMatchObject({
      message: "`origin` matches arrivals only, but `direction` is departure",
    });
  });

  it("reports every bad item of a list", () => {
    expect(problemsOf(ruleWith("flights: { flight: [X, KL1, Y] }")).map((p) => p.path)).toEqual([
      "rules[0].flights.flight[0]",
      "rules[0].flights.flight[2]",
    ]);
  });
});
