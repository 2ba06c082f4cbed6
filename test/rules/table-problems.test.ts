/**
 * What the two tables (flight criteria, change-selector options) say about a value
 * they refuse — the message and the hint an operator reads — and the edges of reading
 * and matching that their shared helpers decide: spaces around a quoted value, numbers
 * where a gate is a name, and check keys that keep schedule windows apart.
 */
import { describe, expect, it } from "vitest";
import { flightFilterKey } from "../../src/rules/match/check-key.js";
import { codeIn, gateIn } from "../../src/rules/match/flight-tests.js";
import { oneRule, problemOf, ruleWith } from "./read/rule-text.js";

const problem = (flights: string) => {
  const p = problemOf(ruleWith(`flights: ${flights}`));
  return { message: p.message, hint: p.hint };
};

describe("a refused flight criterion", () => {
  it.each([
    ["{ flight: [ {a: 1} ] }", "a flight must be a single value, not a mapping", undefined],
    [
      "{ flight: XX }",
      "`XX` is not a flight number",
      "write an airline code and a number, e.g. KL1395 or kl 0601",
    ],
    [
      "{ airline: K }",
      "`K` is not an airline code",
      "write the IATA code (2 characters, e.g. KL) or the ICAO code (3 letters, e.g. KLM)",
    ],
    [
      "{ direction: up }",
      "unknown direction `up`",
      "write departure or arrival (or D / A); leave `direction` out for both",
    ],
    [
      "{ destination: JFK, direction: arrival }",
      "`destination` matches departures only, but `direction` is arrival",
      "use `origin` for arrivals, or `airport` for either",
    ],
    [
      "{ origin: JFK, direction: departure }",
      "`origin` matches arrivals only, but `direction` is departure",
      "use `destination` for departures, or `airport` for either",
    ],
    ["{ pier: DDD }", "`DDD` is not a pier", "piers are a letter (or two letters/digits), e.g. D"],
    [
      "{ gate: D-7 }",
      "`D-7` is not a gate",
      "gates are up to 8 letters and digits (D7, E22), with a trailing * to match by prefix (E*)",
    ],
    [
      "{ service_type: JJ }",
      "`JJ` is not a service type",
      "service types are one-letter codes: J scheduled passenger, C charter, F freight …",
    ],
    [
      "{ destination: J }",
      "`J` is not an IATA airport code",
      "airport codes are 3 letters, e.g. JFK",
    ],
  ])("%s: says what is wrong and how to write it", (flights, message, hint) => {
    expect(problem(flights)).toEqual({ message, hint });
  });
});

describe("reading a flight criterion", () => {
  it("takes a quoted value with spaces around it as the value", () => {
    const { flights } = oneRule(ruleWith('flights: { pier: " d ", direction: " Arrival " }'));
    expect(flights).toEqual({ piers: ["D"], direction: "A" });
  });
});

describe("matching a gate", () => {
  it("never takes a number for a gate name, not even its digits", () => {
    expect(gateIn(["7", "D7"])(7)).toBe(false);
    expect(gateIn(["7*"])(7)).toBe(false);
    expect(gateIn(["7"])("7")).toBe(true);
  });

  it("compares upper-cased: lower-case letters, and letters beyond ASCII whose capital is ASCII", () => {
    const gates = gateIn(["DI", "E*"]);
    expect(gates("di")).toBe(true);
    expect(gates("e12")).toBe(true);
    // The dotless ı capitalises to I: a value with no lower-case ASCII is upper-cased too.
    expect(gates("Dı")).toBe(true);
    expect(gates("DJ")).toBe(false);
    const piers = codeIn(["DI"]);
    expect(piers("Dı")).toBe(true);
    expect(piers("di")).toBe(true);
    expect(piers("DJ")).toBe(false);
  });
});

describe("the check key of a schedule window", () => {
  it("tells windows apart that differ only in a bound's distance from now", () => {
    expect(flightFilterKey({ schedule: { from: { fromNowMs: 60_000 } } })).not.toBe(
      flightFilterKey({ schedule: { from: { fromNowMs: 120_000 } } }),
    );
  });
});

describe("a refused change-selector option", () => {
  it.each([
    [
      "{ kind: state, actions: [changed] }",
      "`state` changes are never `changed`",
      "`state` changes are `added` or `withdrawn`",
    ],
    [
      "{ kind: departure_time, fields: [actualOffBlockTime] }",
      "`fields` does not apply to `departure_time`",
      "only `time` takes `fields`; `departure_time` already means publicEstimatedOffBlockTime, actualOffBlockTime",
    ],
    ["{ kind: time, within: 0s }", "`within` must be more than 0", "e.g. within: 3h"],
    [
      "{ kind: state, actions: [changed, assigned] }",
      "`state` changes are never `changed` or `assigned`",
      "`state` changes are `added` or `withdrawn`",
    ],
    [
      "{ kind: gate, delay_at_least: 5m }",
      "`delay_at_least` does not apply to `gate`",
      "only time kinds take it: `time`, `departure_time`, `arrival_time`, `estimated_off_block`, `actual_off_block`, `estimated_landing`, `actual_landing`, `boarding_time`, `gate_open_time`, `gate_closing_time`, `on_belt_time`",
    ],
  ])("%s: says what is wrong and how to write it", (changes, message, hint) => {
    const p = problemOf(ruleWith(`changes: [${changes}]`));
    expect({ message: p.message, hint: p.hint }).toEqual({ message, hint });
  });
});
