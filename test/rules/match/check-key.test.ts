import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { changeFilterKey, flightFilterKey } from "../../../src/rules/match/check-key.js";
import type { ChangeSelector, FlightFilter } from "../../../src/rules/rule.js";
import { flightFilter, HOUR, selector } from "../rule-arbitraries.js";

/** Plain data without undefined properties, as JSON sees it (key order is irrelevant to isDeepStrictEqual). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const FULL: FlightFilter = {
  flights: ["KL601"],
  airlines: ["KL"],
  direction: "D",
  airports: ["WAW"],
  destinations: ["WAW"],
  origins: ["LHR"],
  terminals: [2],
  piers: ["D"],
  gates: ["D7"],
  serviceTypes: ["J"],
  operational: true,
  schedule: { from: { at: 1000 }, to: { fromNowMs: 2000 } },
  not: { serviceTypes: ["F"] },
};

/** One variant of FULL per way a criterion can differ. */
const FILTER_VARIANTS: [string, FlightFilter][] = [
  ["flights", { ...FULL, flights: ["KL602"] }],
  ["airlines", { ...FULL, airlines: ["KLM"] }],
  ["direction", { ...FULL, direction: "A" }],
  ["airports", { ...FULL, airports: ["WAW", "JFK"] }],
  ["destinations", { ...FULL, destinations: ["JFK"] }],
  ["origins", { ...FULL, origins: [] }],
  ["terminals", { ...FULL, terminals: [1] }],
  ["piers", { ...FULL, piers: ["E"] }],
  ["gates", { ...FULL, gates: ["D7*"] }],
  ["serviceTypes", { ...FULL, serviceTypes: ["J", "C"] }],
  ["operational", { ...FULL, operational: false }],
  ["schedule.from value", { ...FULL, schedule: { from: { at: 1001 }, to: { fromNowMs: 2000 } } }],
  [
    "schedule.from kind",
    { ...FULL, schedule: { from: { fromNowMs: 1000 }, to: { fromNowMs: 2000 } } },
  ],
  ["schedule.to missing", { ...FULL, schedule: { from: { at: 1000 } } }],
  ["schedule.from missing", { ...FULL, schedule: { to: { fromNowMs: 2000 } } }],
  ["schedule local day", { ...FULL, schedule: { from: { localDayOffset: 0, endOfDay: false } } }],
  [
    "schedule local day end",
    { ...FULL, schedule: { from: { localDayOffset: 0, endOfDay: true } } },
  ],
  [
    "schedule local day offset",
    { ...FULL, schedule: { from: { localDayOffset: 1, endOfDay: false } } },
  ],
  ["schedule infinities", { ...FULL, schedule: { from: { at: Number.NEGATIVE_INFINITY } } }],
  ["not", { ...FULL, not: { serviceTypes: ["C"] } }],
  ["not.flights", { ...FULL, not: { serviceTypes: ["F"], flights: ["KL601"] } }],
];

describe("flightFilterKey", () => {
  it.each(FILTER_VARIANTS)("differs when %s differs", (_what, variant) => {
    expect(flightFilterKey(variant)).not.toBe(flightFilterKey(FULL));
  });

  it.each(Object.keys(FULL))("differs when %s is left out", (name) => {
    const without = { ...FULL, [name]: undefined };
    expect(flightFilterKey(without)).not.toBe(flightFilterKey(FULL));
  });

  it("every variant has a key of its own", () => {
    const keys = new Set(FILTER_VARIANTS.map(([, v]) => flightFilterKey(v)));
    expect(keys.size).toBe(FILTER_VARIANTS.length);
    expect(flightFilterKey({ schedule: { from: { at: Number.POSITIVE_INFINITY } } })).not.toBe(
      flightFilterKey({ schedule: { from: { at: Number.NEGATIVE_INFINITY } } }),
    );
  });

  it("ignores key order and undefined properties", () => {
    const reordered: FlightFilter = {};
    for (const name of Object.keys(FULL).reverse()) {
      Object.assign(reordered, { [name]: FULL[name as keyof FlightFilter], extra: undefined });
    }
    delete (reordered as Record<string, unknown>).extra;
    expect(flightFilterKey(reordered)).toBe(flightFilterKey(FULL));
    expect(flightFilterKey({ ...FULL, direction: undefined })).toBe(
      flightFilterKey(Object.fromEntries(Object.entries(FULL).filter(([k]) => k !== "direction"))),
    );
  });

  it("skipFlights leaves out the top-level flights only", () => {
    expect(flightFilterKey({ ...FULL, flights: ["AF1"] }, true)).toBe(flightFilterKey(FULL, true));
    expect(flightFilterKey({ flights: ["AF1"] }, true)).toBe("");
    expect(flightFilterKey({ not: { flights: ["AF1"] } }, true)).not.toBe(
      flightFilterKey({ not: { flights: ["AF2"] } }, true),
    );
  });

  it("keys are equal exactly when filters are equal (random filters)", () => {
    fc.assert(
      fc.property(flightFilter, flightFilter, (a, b) => {
        expect(flightFilterKey(a) === flightFilterKey(b)).toBe(
          isDeepStrictEqual(plain(a), plain(b)),
        );
      }),
      { numRuns: 2000 },
    );
  });
});

const SELECTOR: ChangeSelector = {
  name: "departure_time",
  kinds: ["time"],
  fields: ["publicEstimatedOffBlockTime"],
  states: ["DEL"],
  actions: ["changed"],
  delayAtLeastMinutes: 15,
  shiftAtLeastMinutes: 10,
  withinMs: 3 * HOUR,
};

describe("changeFilterKey", () => {
  it.each<[string, Partial<ChangeSelector>]>([
    ["kinds", { kinds: ["time", "gate"] }],
    ["fields", { fields: ["actualOffBlockTime"] }],
    ["states", { states: [] }],
    ["actions", { actions: ["assigned"] }],
    ["delayAtLeastMinutes", { delayAtLeastMinutes: 16 }],
    ["withinMs", { withinMs: HOUR }],
    ["fields (left out)", { fields: undefined }],
    ["states (left out)", { states: undefined }],
    ["actions (left out)", { actions: undefined }],
    ["delayAtLeastMinutes (left out)", { delayAtLeastMinutes: undefined }],
    ["withinMs (left out)", { withinMs: undefined }],
  ])("differs when %s differs", (_what, change) => {
    expect(changeFilterKey([{ ...SELECTOR, ...change }])).not.toBe(changeFilterKey([SELECTOR]));
  });

  it("ignores the name and the shift threshold (not matching's business)", () => {
    const other = { ...SELECTOR, name: "time", shiftAtLeastMinutes: 30 };
    expect(changeFilterKey([other])).toBe(changeFilterKey([SELECTOR]));
  });

  it("depends on the selectors' order and number", () => {
    const gate: ChangeSelector = { name: "gate", kinds: ["gate"] };
    expect(changeFilterKey([gate, SELECTOR])).not.toBe(changeFilterKey([SELECTOR, gate]));
    expect(changeFilterKey([gate])).not.toBe(changeFilterKey([gate, gate]));
    expect(changeFilterKey([])).not.toBe(changeFilterKey([{ name: "none", kinds: [] }]));
  });

  it("keys are equal exactly when selector lists are equal but for names and shifts (random lists)", () => {
    const lists = fc.array(selector, { maxLength: 2 });
    const matching = (list: ChangeSelector[]) =>
      plain(list.map(({ name: _n, shiftAtLeastMinutes: _s, ...rest }) => rest));
    fc.assert(
      fc.property(lists, lists, (a, b) => {
        expect(changeFilterKey(a) === changeFilterKey(b)).toBe(
          isDeepStrictEqual(matching(a), matching(b)),
        );
      }),
      { numRuns: 2000 },
    );
  });
});
