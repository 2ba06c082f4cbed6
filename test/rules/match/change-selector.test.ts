import { describe, expect, it } from "vitest";
import type { ChangeKind } from "../../../src/diff/change.js";
import { RuleSet } from "../../../src/rules/match/rule-matcher.js";
import type { ChangeSelector } from "../../../src/rules/rule.js";
import { changeEvent, type EventParts, SCHEDULED } from "../event-builder.js";
import { rule, select } from "../rule-builder.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The selector a rule with these selectors picks for the event, or null when it does not match. */
function picked(
  changes: (ChangeKind | ChangeSelector)[],
  parts: EventParts = {},
  now = SCHEDULED - 2 * HOUR,
): ChangeSelector | undefined | null {
  const matches = new RuleSet([rule("r", { changes })]).match([changeEvent(parts)], now);
  return matches.length === 0 ? null : matches[0]?.selector;
}

const selects = (
  selector: ChangeSelector | ChangeKind,
  parts: EventParts = {},
  now?: number,
): boolean => picked([selector], parts, now) !== null;

const timeChange = (field: string, delayMinutes?: number): EventParts => ({
  kind: "time",
  field,
  action: "changed",
  old: "2026-11-21T11:00:00.000+01:00",
  new: "2026-11-21T11:20:00.000+01:00",
  shiftMinutes: 20,
  delayMinutes,
});

describe("change selector", () => {
  it("kinds: the event's kind must be one of them", () => {
    expect(selects("gate")).toBe(true);
    expect(selects("pier")).toBe(false);
    expect(selects({ name: "loc", kinds: ["pier", "gate"] })).toBe(true);
    expect(selects({ name: "none", kinds: [] })).toBe(false);
  });

  it("fields: only these upstream fields", () => {
    const boarding = select("time", { fields: ["expectedTimeBoarding"] });
    expect(selects(boarding, timeChange("expectedTimeBoarding"))).toBe(true);
    expect(selects(boarding, timeChange("publicEstimatedOffBlockTime"))).toBe(false);
  });

  it("states: only these state codes; an event without a state never", () => {
    const boarding = select("state", { states: ["BRD", "GCL"] });
    const stateEvent = (state: string | undefined): EventParts => ({
      kind: "state",
      field: "publicFlightState",
      action: "added",
      state,
    });
    expect(selects(boarding, stateEvent("GCL"))).toBe(true);
    expect(selects(boarding, stateEvent("DEP"))).toBe(false);
    expect(selects(boarding, stateEvent(undefined))).toBe(false);
  });

  it("actions: only these actions (cancelled = state CNX added)", () => {
    const cancelled: ChangeSelector = {
      name: "cancelled",
      kinds: ["state"],
      states: ["CNX"],
      actions: ["added"],
    };
    const cnx = { kind: "state", field: "publicFlightState", state: "CNX" } as const;
    expect(selects(cancelled, { ...cnx, action: "added" })).toBe(true);
    expect(selects(cancelled, { ...cnx, action: "withdrawn" })).toBe(false);
    const added: ChangeSelector = { name: "added", kinds: ["flight"], actions: ["added"] };
    expect(selects(added, { kind: "flight", field: "flight", action: "added" })).toBe(true);
    expect(selects(added, { kind: "flight", field: "flight", action: "removed" })).toBe(false);
    expect(selects(select("gate", { actions: ["assigned"] }))).toBe(false);
    expect(selects(select("gate", { actions: ["assigned", "changed"] }))).toBe(true);
  });

  it("delayAtLeastMinutes: time changes at least that late against the schedule", () => {
    const late = select("time", { delayAtLeastMinutes: 15 });
    expect(selects(late, timeChange("publicEstimatedOffBlockTime", 15))).toBe(true);
    expect(selects(late, timeChange("publicEstimatedOffBlockTime", 40))).toBe(true);
    expect(selects(late, timeChange("publicEstimatedOffBlockTime", 14))).toBe(false);
    expect(selects(late, timeChange("publicEstimatedOffBlockTime", -20))).toBe(false);
    // No schedule, no delay known: not "at least 15 minutes late".
    expect(selects(late, timeChange("publicEstimatedOffBlockTime", undefined))).toBe(false);
    // Only time events: a delay on anything else (the differ never sets one) does not count.
    expect(selects({ name: "odd", kinds: ["gate"], delayAtLeastMinutes: 0 })).toBe(false);
    const odd = { name: "odd", kinds: ["gate" as const], delayAtLeastMinutes: 0 };
    expect(selects(odd, { delayMinutes: 30 })).toBe(false);
  });

  it("shiftAtLeastMinutes is left to the dispatcher: the selector still matches", () => {
    const step = select("time", { shiftAtLeastMinutes: 30 });
    expect(
      selects(step, { ...timeChange("publicEstimatedOffBlockTime", 5), shiftMinutes: 1 }),
    ).toBe(true);
  });

  describe("withinMs", () => {
    const within3h = select("gate", { withinMs: 3 * HOUR });
    const flightAt = (time: number): number => time - 3 * HOUR;

    it("departures: actual off-block, else estimated, else scheduled", () => {
      const atd = SCHEDULED + HOUR;
      const eobt = SCHEDULED + 30 * MINUTE;
      const both = {
        current: { times: { actualOffBlockTime: atd, publicEstimatedOffBlockTime: eobt } },
      };
      expect(selects(within3h, both, flightAt(atd))).toBe(true);
      expect(selects(within3h, both, flightAt(atd) - 1)).toBe(false);
      const estimated = {
        current: { times: { publicEstimatedOffBlockTime: eobt, estimatedLandingTime: 0 } },
      };
      expect(selects(within3h, estimated, flightAt(eobt))).toBe(true);
      expect(selects(within3h, estimated, flightAt(eobt) - 1)).toBe(false);
      const none = { current: { times: { estimatedLandingTime: SCHEDULED + 9 * HOUR } } };
      expect(selects(within3h, none, flightAt(SCHEDULED))).toBe(true);
      expect(selects(within3h, none, flightAt(SCHEDULED) - 1)).toBe(false);
      expect(selects(within3h, { current: null }, flightAt(SCHEDULED))).toBe(true);
    });

    it("arrivals: actual landing, else estimated landing, else scheduled", () => {
      const ata = SCHEDULED + HOUR;
      const eta = SCHEDULED + 30 * MINUTE;
      const flight = { direction: "A" } as const;
      const both = {
        flight,
        current: { times: { actualLandingTime: ata, estimatedLandingTime: eta } },
      };
      expect(selects(within3h, both, flightAt(ata))).toBe(true);
      expect(selects(within3h, both, flightAt(ata) - 1)).toBe(false);
      const estimated = {
        flight,
        current: { times: { estimatedLandingTime: eta, actualOffBlockTime: 0 } },
      };
      expect(selects(within3h, estimated, flightAt(eta))).toBe(true);
      expect(selects(within3h, estimated, flightAt(eta) - 1)).toBe(false);
      const none = { flight, current: { times: { publicEstimatedOffBlockTime: 0 } } };
      expect(selects(within3h, none, flightAt(SCHEDULED))).toBe(true);
      expect(selects(within3h, none, flightAt(SCHEDULED) - 1)).toBe(false);
    });

    it("unknown direction: the schedule", () => {
      const unknown = {
        flight: { direction: undefined },
        current: { times: { actualOffBlockTime: 0 } },
      };
      expect(selects(within3h, unknown, flightAt(SCHEDULED))).toBe(true);
      expect(selects(within3h, unknown, flightAt(SCHEDULED) - 1)).toBe(false);
    });

    it("flights already past their time still match", () => {
      expect(selects(within3h, {}, SCHEDULED + 10 * HOUR)).toBe(true);
    });

    it("no best known time: no match", () => {
      expect(selects(within3h, { flight: { scheduled: undefined }, current: null }, 0)).toBe(false);
      const arrival = {
        flight: { direction: "A", scheduled: undefined },
        current: { gate: "D7" },
      } as const;
      expect(selects(within3h, arrival, 0)).toBe(false);
    });
  });

  it("options combine: every option given must hold", () => {
    const s = select("time", {
      fields: ["publicEstimatedOffBlockTime"],
      delayAtLeastMinutes: 15,
      actions: ["changed"],
    });
    expect(selects(s, timeChange("publicEstimatedOffBlockTime", 20))).toBe(true);
    expect(selects(s, timeChange("expectedTimeBoarding", 20))).toBe(false);
    expect(selects(s, timeChange("publicEstimatedOffBlockTime", 10))).toBe(false);
    expect(
      selects(s, { ...timeChange("publicEstimatedOffBlockTime", 20), action: "assigned" }),
    ).toBe(false);
  });

  describe("first matching selector", () => {
    const soon = select("gate", { withinMs: HOUR, name: "gate-soon" });
    const any = select("gate", { name: "gate-any" });
    const pier = select("pier");

    it("is the one reported", () => {
      expect(picked([pier, soon, any], {}, SCHEDULED)).toBe(soon);
      expect(picked([pier, soon, any], {}, SCHEDULED - 2 * HOUR)).toBe(any);
      expect(picked([any, soon], {}, SCHEDULED)).toBe(any);
    });
    it("none matching: no match", () => {
      expect(picked([pier, soon], {}, SCHEDULED - 2 * HOUR)).toBeNull();
    });
    it("no change filter: every change, with no selector", () => {
      const matches = new RuleSet([rule("r")]).match(
        [changeEvent({ kind: "checkin", field: "checkinAllocations" })],
        0,
      );
      expect(matches).toHaveLength(1);
      expect(matches[0]?.selector).toBeUndefined();
      expect("selector" in (matches[0] ?? {})).toBe(false);
    });
  });
});
