import { describe, expect, it } from "vitest";
import type { ChangeEvent, ChangeKind } from "../../../src/diff/change.js";
import { RuleSet } from "../../../src/rules/match/rule-matcher.js";
import type { FlightFilter } from "../../../src/rules/rule.js";
import { changeEvent, type EventParts, SCHEDULED, VERSION } from "../event-builder.js";
import { rule } from "../rule-builder.js";

const NOW = SCHEDULED - 2 * 3_600_000;
const HOUR = 3_600_000;

/** Whether a rule with this flight filter (and no change filter) selects the event. */
function holds(filter: FlightFilter, parts: EventParts = {}, now = NOW): boolean {
  return (
    new RuleSet([rule("r", { flights: filter })]).match([changeEvent(parts)], now).length === 1
  );
}

/** Ids of the events a rule with this flight filter (and these change kinds) selects in one batch. */
function selected(
  filter: FlightFilter,
  events: readonly ChangeEvent[],
  changes?: ChangeKind[],
): string[] {
  const set = new RuleSet([
    rule("r", changes ? { flights: filter, changes } : { flights: filter }),
  ]);
  return set.match(events, NOW).map((m) => m.event.id);
}

describe("flight filter", () => {
  it("empty: every flight", () => {
    expect(holds({})).toBe(true);
    expect(
      holds({}, { current: null, flight: { direction: undefined, scheduled: undefined } }),
    ).toBe(true);
  });

  describe("flights", () => {
    it("matches the operating number, written with leading zeros upstream", () => {
      expect(holds({ flights: ["KL601"] })).toBe(true);
    });
    it("matches a codeshare number", () => {
      expect(holds({ flights: ["DL9341"] })).toBe(true);
      expect(holds({ flights: ["AF1", "DL9341"] })).toBe(true);
    });
    it("normalises the rule's numbers too (a hand-built rule)", () => {
      expect(holds({ flights: ["kl 0601"] })).toBe(true);
    });
    it("does not hold for other numbers", () => {
      expect(holds({ flights: ["KL602"] })).toBe(false);
      expect(holds({ flights: ["KL6010"] })).toBe(false);
      expect(holds({ flights: [] })).toBe(false);
    });
    it("ignores upstream names that are not flight numbers", () => {
      expect(holds({ flights: ["KL601"] }, { flight: { flightNames: ["???", "KL601"] } })).toBe(
        true,
      );
      expect(holds({ flights: ["KL601"] }, { flight: { flightNames: ["KL-601"] } })).toBe(false);
    });
  });

  describe("airlines", () => {
    it("IATA code vs prefixIATA, ICAO vs prefixICAO", () => {
      expect(holds({ airlines: ["KL"] })).toBe(true);
      expect(holds({ airlines: ["KLM"] })).toBe(true);
      expect(holds({ airlines: ["AF", "AFR"] })).toBe(false);
      // A codeshare's airline is not the operating one.
      expect(holds({ airlines: ["DL"] })).toBe(false);
    });
    it("falls back to the main flight's designator when the records give no prefix", () => {
      const flight = { prefixIATA: undefined, prefixICAO: undefined, mainFlight: "KL0601" };
      expect(holds({ airlines: ["KL"] }, { flight })).toBe(true);
      expect(holds({ airlines: ["AF"] }, { flight })).toBe(false);
      expect(holds({ airlines: ["KLM"] }, { flight })).toBe(false);
      expect(holds({ airlines: ["KLM"] }, { flight: { ...flight, mainFlight: "KLM601" } })).toBe(
        true,
      );
    });
    it("prefers the prefix over the main flight's designator", () => {
      expect(holds({ airlines: ["KL"] }, { flight: { prefixIATA: "HV" } })).toBe(false);
    });
    it("judges an IATA code by the IATA prefix even when the records give no ICAO prefix", () => {
      // A Transavia flight whose main number is written with KL's designator.
      const flight = { prefixIATA: "HV", prefixICAO: undefined, mainFlight: "KL601" };
      expect(holds({ airlines: ["KL"] }, { flight })).toBe(false);
      expect(holds({ airlines: ["HV"] }, { flight })).toBe(true);
    });
    it("judges an ICAO code by the ICAO prefix even when the records give no IATA prefix", () => {
      const flight = { prefixIATA: undefined, prefixICAO: "TRA", mainFlight: "KLM601" };
      expect(holds({ airlines: ["KLM"] }, { flight })).toBe(false);
      expect(holds({ airlines: ["TRA"] }, { flight })).toBe(true);
    });
    it("does not hold when nothing names the airline", () => {
      const flight = { prefixIATA: undefined, prefixICAO: undefined, mainFlight: "123" };
      expect(holds({ airlines: ["KL", "KLM"] }, { flight })).toBe(false);
    });
  });

  describe("direction", () => {
    it("holds for the flight's direction only", () => {
      expect(holds({ direction: "D" })).toBe(true);
      expect(holds({ direction: "A" })).toBe(false);
      expect(holds({ direction: "D" }, { flight: { direction: undefined } })).toBe(false);
    });
  });

  describe("route: airports, destinations, origins", () => {
    it("airports: anywhere in the route, either direction", () => {
      expect(holds({ airports: ["WAW"] })).toBe(true);
      expect(holds({ airports: ["WAW"] }, { flight: { direction: "A" } })).toBe(true);
      expect(holds({ airports: ["JFK"] })).toBe(false);
      expect(holds({ airports: ["WAW"] }, { current: { gate: "D7" } })).toBe(false);
      expect(holds({ airports: ["WAW"] }, { current: null })).toBe(false);
    });
    it("destinations: departures only", () => {
      expect(holds({ destinations: ["JFK", "WAW"] })).toBe(true);
      expect(holds({ destinations: ["WAW"] }, { flight: { direction: "A" } })).toBe(false);
      expect(holds({ destinations: ["WAW"] }, { flight: { direction: undefined } })).toBe(false);
      expect(holds({ destinations: ["JFK"] })).toBe(false);
    });
    it("origins: arrivals only", () => {
      expect(holds({ origins: ["WAW"] }, { flight: { direction: "A" } })).toBe(true);
      expect(holds({ origins: ["WAW"] })).toBe(false);
      expect(holds({ origins: ["LHR"] }, { flight: { direction: "A" } })).toBe(false);
    });
  });

  describe("terminals, piers, gates", () => {
    it("terminals: the current terminal", () => {
      expect(holds({ terminals: [1, 2] })).toBe(true);
      expect(holds({ terminals: [3] })).toBe(false);
      expect(holds({ terminals: [2] }, { current: { gate: "D7" } })).toBe(false);
    });
    it("piers: the current pier, case-insensitively", () => {
      expect(holds({ piers: ["D"] })).toBe(true);
      expect(holds({ piers: ["E"] })).toBe(false);
      expect(holds({ piers: ["D"] }, { current: { pier: "d" } })).toBe(true);
      expect(holds({ piers: ["D"] }, { current: { gate: "D7" } })).toBe(false);
    });
    it("gates: exact names and trailing-* prefixes", () => {
      expect(holds({ gates: ["D7"] })).toBe(true);
      expect(holds({ gates: ["d7"] })).toBe(true);
      expect(holds({ gates: ["D"] })).toBe(false);
      expect(holds({ gates: ["D70"] })).toBe(false);
      expect(holds({ gates: ["D*"] })).toBe(true);
      expect(holds({ gates: ["E*", "D7*"] })).toBe(true);
      expect(holds({ gates: ["E*"] })).toBe(false);
      expect(holds({ gates: ["*"] })).toBe(true);
      expect(holds({ gates: ["*"] }, { kind: "belt", current: { pier: "D" } })).toBe(false);
    });

    it("a gate change matches the gate it left as well as the new one", () => {
      const leaving = { kind: "gate", field: "gate", old: "E2", new: "D7" } as const;
      expect(holds({ gates: ["E2"] }, leaving)).toBe(true);
      expect(holds({ gates: ["E*"] }, leaving)).toBe(true);
      expect(holds({ gates: ["D7"] }, leaving)).toBe(true);
      expect(holds({ gates: ["F*"] }, leaving)).toBe(false);
    });
    it("a pier change matches the pier it left", () => {
      const leaving = { kind: "pier", field: "pier", old: "E", new: "D" } as const;
      expect(holds({ piers: ["E"] }, leaving)).toBe(true);
      expect(holds({ piers: ["F"] }, leaving)).toBe(false);
    });
    it("a terminal change matches the terminal it left", () => {
      const leaving = { kind: "terminal", field: "terminal", old: 1, new: 2 } as const;
      expect(holds({ terminals: [1] }, leaving)).toBe(true);
      expect(holds({ terminals: [3] }, leaving)).toBe(false);
    });
    it("the old value counts only for a change of that same field", () => {
      // A belt change whose old value happens to look like a gate, pier or terminal.
      expect(holds({ gates: ["E2"] }, { kind: "belt", field: "baggageClaim", old: "E2" })).toBe(
        false,
      );
      expect(holds({ piers: ["E"] }, { kind: "gate", field: "gate", old: "E" })).toBe(false);
      expect(holds({ terminals: [1] }, { kind: "gate", field: "gate", old: 1 })).toBe(false);
    });
    it("a gate change still matches its old gate when the flight has no gate now", () => {
      expect(holds({ gates: ["E2"] }, { kind: "gate", old: "E2", current: { pier: "D" } })).toBe(
        true,
      );
    });
  });

  describe("a move seen in the same observation (same flight and version)", () => {
    // One poll sees KL601 move from gate D7 at pier D, terminal 1 to gate E9 at pier E, terminal 2.
    const after = { gate: "E9", pier: "E", terminal: 2, serviceType: "J", route: ["WAW"] };
    const gate = (parts: EventParts = {}) =>
      changeEvent({ id: "gate", old: "D7", new: "E9", current: after, ...parts });
    const pier = (parts: EventParts = {}) =>
      changeEvent({
        id: "pier",
        kind: "pier",
        field: "pier",
        old: "D",
        new: "E",
        current: after,
        ...parts,
      });
    const terminal = (parts: EventParts = {}) =>
      changeEvent({
        id: "terminal",
        kind: "terminal",
        field: "terminal",
        old: 1,
        new: 2,
        current: after,
        ...parts,
      });

    it("a gate change that comes with a pier change is news for the pier it left", () => {
      expect(selected({ piers: ["D"] }, [gate(), pier()], ["gate"])).toEqual(["gate"]);
      expect(selected({ piers: ["D"] }, [gate(), pier()])).toEqual(["gate", "pier"]);
      // The other way round: the pier change is news for the gate it left.
      expect(selected({ gates: ["D*"] }, [gate(), pier()], ["pier"])).toEqual(["pier"]);
      // Alone, the gate change no longer says the flight was at pier D.
      expect(selected({ piers: ["D"] }, [gate()], ["gate"])).toEqual([]);
      // The pier it moved to holds as before; a pier it never was at does not.
      expect(selected({ piers: ["E"] }, [gate(), pier()], ["gate"])).toEqual(["gate"]);
      expect(selected({ piers: ["F"] }, [gate(), pier()])).toEqual([]);
    });

    it("a terminal move counts for every change seen with it", () => {
      const moved = [gate(), pier(), terminal()];
      expect(selected({ terminals: [1] }, moved, ["gate"])).toEqual(["gate"]);
      expect(selected({ terminals: [1] }, moved)).toEqual(["gate", "pier", "terminal"]);
      const state = changeEvent({
        id: "state",
        kind: "state",
        field: "publicFlightState",
        action: "added",
        state: "GCH",
        current: after,
      });
      expect(selected({ terminals: [1] }, [state, terminal()], ["state"])).toEqual(["state"]);
      expect(selected({ terminals: [3] }, moved)).toEqual([]);
      // Every criterion still holds only for its own field's move.
      expect(selected({ terminals: [1], piers: ["D"] }, [gate(), terminal()], ["gate"])).toEqual(
        [],
      );
      expect(selected({ terminals: [1], piers: ["D"] }, moved, ["gate"])).toEqual(["gate"]);
    });

    it("does not reach the events of another observation", () => {
      // The same flight seen a minute later (another outbox entry) with its gate changed again.
      const later = gate({ id: "later", old: "E9", new: "E2", version: VERSION + 60_000 });
      expect(selected({ piers: ["D"] }, [pier(), later], ["gate"])).toEqual([]);
      // Another flight with a move in the same batch, at the same version.
      const other = gate({
        id: "other",
        flight: { key: "D:2026-11-21:AF1", flightNames: ["AF1"] },
      });
      expect(selected({ piers: ["D"] }, [pier(), other], ["gate"])).toEqual([]);
      expect(selected({ piers: ["D"] }, [pier(), other, gate()], ["gate"])).toEqual(["gate"]);
    });

    it("finds the observation's moves wherever they are in the batch", () => {
      const other = changeEvent({
        id: "other",
        kind: "belt",
        field: "baggageClaim",
        flight: { key: "A:2026-11-21:AF1" },
      });
      expect(selected({ piers: ["D"] }, [gate(), other, pier()], ["gate"])).toEqual(["gate"]);
      expect(selected({ piers: ["D"] }, [pier(), other, gate()], ["gate"])).toEqual(["gate"]);
    });

    it("only a change gives a value before: an assignment has none", () => {
      const assigned = pier({ action: "assigned", old: undefined });
      expect(selected({ piers: ["D"] }, [gate(), assigned], ["gate"])).toEqual([]);
      // A change of another field whose old value looks like a pier is no pier move.
      const belt = changeEvent({
        id: "belt",
        kind: "belt",
        field: "baggageClaim",
        old: "D",
        current: after,
      });
      expect(selected({ piers: ["D"] }, [gate(), belt], ["gate"])).toEqual([]);
    });

    it("not: a flight leaving pier D still is a pier D flight, so not: { pier: D } excludes it", () => {
      expect(selected({ not: { piers: ["D"] } }, [gate(), pier()])).toEqual([]);
      expect(selected({ not: { piers: ["D"] } }, [gate()])).toEqual(["gate"]);
      expect(selected({ piers: ["E"], not: { gates: ["D7"] } }, [gate(), pier()])).toEqual([]);
    });
  });

  describe("serviceTypes", () => {
    it("holds for the current service type", () => {
      expect(holds({ serviceTypes: ["J", "C"] })).toBe(true);
      expect(holds({ serviceTypes: ["F"] })).toBe(false);
      expect(holds({ serviceTypes: ["J"] }, { current: { gate: "D7" } })).toBe(false);
    });
  });

  describe("operational", () => {
    it("true: operational flights, and flights without the flag", () => {
      expect(holds({ operational: true })).toBe(true);
      expect(holds({ operational: true }, { flight: { operational: false } })).toBe(false);
      expect(holds({ operational: true }, { flight: { operational: undefined } })).toBe(true);
    });
    it("false: flights flagged non-operational only", () => {
      expect(holds({ operational: false }, { flight: { operational: false } })).toBe(true);
      expect(holds({ operational: false })).toBe(false);
      expect(holds({ operational: false }, { flight: { operational: undefined } })).toBe(false);
    });
  });

  describe("schedule", () => {
    it("absolute bounds: from inclusive, to exclusive", () => {
      expect(holds({ schedule: { from: { at: SCHEDULED } } })).toBe(true);
      expect(holds({ schedule: { from: { at: SCHEDULED + 1 } } })).toBe(false);
      expect(holds({ schedule: { to: { at: SCHEDULED + 1 } } })).toBe(true);
      expect(holds({ schedule: { to: { at: SCHEDULED } } })).toBe(false);
      expect(
        holds({ schedule: { from: { at: SCHEDULED - HOUR }, to: { at: SCHEDULED + HOUR } } }),
      ).toBe(true);
    });
    it("relative bounds move with now", () => {
      const nextThreeHours = { schedule: { from: { fromNowMs: 0 }, to: { fromNowMs: 3 * HOUR } } };
      expect(holds(nextThreeHours, {}, SCHEDULED - 3 * HOUR)).toBe(false);
      expect(holds(nextThreeHours, {}, SCHEDULED - 3 * HOUR + 1)).toBe(true);
      expect(holds(nextThreeHours, {}, SCHEDULED)).toBe(true);
      expect(holds(nextThreeHours, {}, SCHEDULED + 1)).toBe(false);
      expect(
        holds({ schedule: { from: { fromNowMs: -30 * 60_000 } } }, {}, SCHEDULED + 30 * 60_000),
      ).toBe(true);
    });
    it("local-day bounds: today and tomorrow in the airport zone", () => {
      // Now: 2026-11-21 11:00 local (CET, UTC+1). Today runs 2026-11-20T23:00Z to 2026-11-21T23:00Z.
      const today = {
        from: { localDayOffset: 0, endOfDay: false },
        to: { localDayOffset: 0, endOfDay: true },
      };
      const at = (iso: string) => ({ flight: { scheduled: Date.parse(iso) } });
      expect(holds({ schedule: today }, at("2026-11-20T23:00:00Z"), SCHEDULED)).toBe(true);
      expect(holds({ schedule: today }, at("2026-11-20T22:59:59.999Z"), SCHEDULED)).toBe(false);
      expect(holds({ schedule: today }, at("2026-11-21T22:59:59.999Z"), SCHEDULED)).toBe(true);
      expect(holds({ schedule: today }, at("2026-11-21T23:00:00Z"), SCHEDULED)).toBe(false);
      const tomorrow = {
        from: { localDayOffset: 1, endOfDay: false },
        to: { localDayOffset: 1, endOfDay: true },
      };
      expect(holds({ schedule: tomorrow }, at("2026-11-21T23:00:00Z"), SCHEDULED)).toBe(true);
      expect(holds({ schedule: tomorrow }, at("2026-11-22T22:59:59.999Z"), SCHEDULED)).toBe(true);
      expect(holds({ schedule: tomorrow }, at("2026-11-22T23:00:00Z"), SCHEDULED)).toBe(false);
      expect(holds({ schedule: tomorrow }, at("2026-11-21T22:59:59.999Z"), SCHEDULED)).toBe(false);
      // Just before local midnight, today is still the 21st.
      expect(
        holds({ schedule: today }, at("2026-11-21T12:00:00Z"), Date.parse("2026-11-21T22:59:00Z")),
      ).toBe(true);
      expect(
        holds({ schedule: today }, at("2026-11-21T12:00:00Z"), Date.parse("2026-11-21T23:00:00Z")),
      ).toBe(false);
    });

    it("local-day bounds use the RuleSet's zone", () => {
      const today = { schedule: { to: { localDayOffset: 0, endOfDay: true } } };
      const set = new RuleSet([rule("r", { flights: today })], { zone: "America/New_York" });
      // Now 2026-11-21 05:00 in New York (EST, UTC−5): today ends at 2026-11-22T05:00Z.
      const now = Date.parse("2026-11-21T10:00:00Z");
      const at = (iso: string) => changeEvent({ flight: { scheduled: Date.parse(iso) } });
      expect(set.match([at("2026-11-22T04:59:59Z")], now)).toHaveLength(1);
      expect(set.match([at("2026-11-22T05:00:00Z")], now)).toHaveLength(0);
    });

    it("does not hold without a scheduled time", () => {
      expect(holds({ schedule: { from: { at: 0 } } }, { flight: { scheduled: undefined } })).toBe(
        false,
      );
    });
  });

  describe("not", () => {
    it("excludes flights matching the nested filter in full", () => {
      expect(holds({ not: { serviceTypes: ["F"] } })).toBe(true);
      expect(holds({ not: { serviceTypes: ["J"] } })).toBe(false);
      expect(holds({ not: { serviceTypes: ["J"], piers: ["E"] } })).toBe(true);
      expect(holds({ not: { serviceTypes: ["J"], piers: ["D"] } })).toBe(false);
    });
    it("an absent field fails the nested criterion, so the flight is not excluded", () => {
      expect(holds({ not: { serviceTypes: ["J"] } }, { current: { gate: "D7" } })).toBe(true);
    });
    it("nests", () => {
      expect(holds({ not: { not: { piers: ["D"] } } })).toBe(true);
      expect(holds({ not: { not: { piers: ["E"] } } })).toBe(false);
    });
    it("an empty nested filter excludes every flight", () => {
      expect(holds({ not: {} })).toBe(false);
    });
    it("excludes a flight by any of its numbers (an ops rule leaving out one codeshare partner's flight)", () => {
      expect(holds({ not: { flights: ["DL9341"] } })).toBe(false);
      expect(holds({ not: { flights: ["KL0601"] } })).toBe(false);
      expect(holds({ not: { flights: ["KL602", "AF1"] } })).toBe(true);
    });
    it("excludes a flight by a codeshare number that is not the first of the numbers it lists", () => {
      expect(holds({ not: { flights: ["AF1", "DL9341"] } })).toBe(false);
      expect(holds({ not: { flights: ["KL602", "kl 0601"] } })).toBe(false);
    });
  });

  it("needs every criterion given", () => {
    const filter: FlightFilter = {
      flights: ["KL601"],
      direction: "D",
      piers: ["D"],
      airlines: ["KL"],
    };
    expect(holds(filter)).toBe(true);
    expect(holds({ ...filter, direction: "A" })).toBe(false);
    expect(holds({ ...filter, piers: ["E"] })).toBe(false);
    expect(holds({ ...filter, airlines: ["AF"] })).toBe(false);
  });
});
