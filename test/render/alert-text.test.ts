import { describe, expect, it } from "vitest";
import {
  clipText,
  describeAlert,
  describeChange,
  describeFlight,
  flightNamesFrom,
  ruleFlightName,
} from "../../src/render/alert-text.js";
import { rule } from "../rules/rule-builder.js";
import { alertOf, alertChange as change, kl1001 } from "../support/alert-builder.js";

const ZONE = "Europe/Amsterdam";

describe("alert text", () => {
  it("names the flight with its codeshares, route and local schedule", () => {
    const flight = kl1001();
    expect(describeFlight(flight, ["WAW"], ZONE)).toBe(
      "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25",
    );
    expect(
      describeFlight({ ...flight, direction: "A", flightNames: ["KL1001"] }, ["LHR"], ZONE),
    ).toBe("KL1001 from LHR, arrives Sat 21 Nov 10:25");
  });

  it("words each kind of change", () => {
    expect(
      describeChange(change({ kind: "gate", field: "gate", old: "D7", new: "D9" }), ZONE),
    ).toBe("gate D7 → D9");
    expect(
      describeChange(change({ kind: "gate", field: "gate", action: "assigned", new: "D7" }), ZONE),
    ).toBe("gate D7");
    expect(
      describeChange(
        change({ kind: "state", field: "publicFlightState", action: "added", state: "BRD" }),
        ZONE,
      ),
    ).toBe("now boarding");
    expect(
      describeChange(
        change({ kind: "state", field: "publicFlightState", action: "withdrawn", state: "CNX" }),
        ZONE,
      ),
    ).toBe("no longer cancelled");
    expect(
      describeChange(
        change({
          kind: "time",
          field: "publicEstimatedOffBlockTime",
          old: "2026-11-21T10:25:00.000+01:00",
          new: "2026-11-21T10:50:00.000+01:00",
          delayMinutes: 25,
        }),
        ZONE,
      ),
    ).toBe("estimated departure 10:25 → 10:50 (25 min late)");
    expect(
      describeChange(
        change({
          kind: "time",
          field: "expectedTimeBoarding",
          old: "2026-11-21T09:45:00.000+01:00",
          new: "2026-11-21T10:18:00.000+01:00",
          shiftMinutes: 33,
          delayMinutes: -7,
        }),
        ZONE,
      ),
    ).toBe("boarding 09:45 → 10:18 (33 min later)");
    expect(
      describeChange(change({ kind: "belt", field: "baggageClaim", new: ["11", "12"] }), ZONE),
    ).toBe("belt 11, 12");
    expect(
      describeChange(
        change({ kind: "gate", field: "gate", old: "D9", new: "D7", correction: true }),
        ZONE,
      ),
    ).toBe("gate D9 → D7 (correction)");
    expect(
      describeChange(change({ kind: "flight", field: "flight", action: "removed" }), ZONE),
    ).toBe("flight removed");
  });

  it("puts the flight and every change on one line", () => {
    const alert = alertOf({
      id: "x",
      ruleId: "r",
      flight: kl1001({ flightNames: ["KL1001"] }),
      changes: [
        change({ kind: "gate", field: "gate", old: "D7", new: "D9" }),
        change({ kind: "state", field: "publicFlightState", action: "added", state: "GCL" }),
      ],
    });
    expect(describeAlert(alert, ZONE)).toBe(
      "KL1001 to WAW, departs Sat 21 Nov 10:25: gate D7 → D9; now gate closing",
    );
  });

  it("names the gate where boarding and the other gate states happen, when it is known", () => {
    const state = (code: string, action: "added" | "withdrawn" = "added") =>
      change({ kind: "state", field: "publicFlightState", action, state: code });
    const atD9 = { current: { gate: "D9", states: ["BRD"] } };
    expect(describeChange(state("BRD"), ZONE, atD9)).toBe("now boarding at gate D9");
    expect(describeChange(state("GTO"), ZONE, atD9)).toBe("gate D9 now open");
    expect(describeChange(state("GCL"), ZONE, atD9)).toBe("gate D9 now closing");
    expect(describeChange(state("GTD"), ZONE, atD9)).toBe("gate D9 now closed");
    // Not a gate state, a withdrawal, or no gate known: as before.
    expect(describeChange(state("DEP"), ZONE, atD9)).toBe("now departed");
    expect(describeChange(state("BRD", "withdrawn"), ZONE, atD9)).toBe("no longer boarding");
    expect(describeChange(state("BRD"), ZONE, { current: { states: ["BRD"] } })).toBe(
      "now boarding",
    );
    expect(describeChange(state("toString"), ZONE, atD9)).toBe("now toString");
    const boarding = alertOf({ current: { route: ["WAW"], gate: "D9" }, changes: [state("BRD")] });
    expect(describeAlert(boarding, ZONE)).toBe(
      "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: now boarding at gate D9",
    );
  });

  it("does not say a cancelled flight departs at its time", () => {
    const cancelled = alertOf({
      current: { route: ["WAW"], gate: "D9", states: ["CNX"] },
      changes: [
        change({ kind: "state", field: "publicFlightState", action: "added", state: "CNX" }),
      ],
    });
    expect(describeAlert(cancelled, ZONE)).toBe(
      "KL1001 (DL9341) to WAW, was to depart Sat 21 Nov 10:25: now cancelled",
    );
    const flight = kl1001();
    const arrival = { ...flight, direction: "A" as const, flightNames: ["KL1001"] };
    expect(describeFlight(flight, ["WAW"], ZONE, { current: { states: ["TOM"] } })).toBe(
      "KL1001 (DL9341) to WAW, was to depart Sat 21 Nov 10:25",
    );
    expect(describeFlight(arrival, ["LHR"], ZONE, { current: { states: ["DIV", "EXP"] } })).toBe(
      "KL1001 from LHR, was to arrive Sat 21 Nov 10:25",
    );
    // Un-cancelled, or only delayed: it departs again.
    expect(describeFlight(flight, ["WAW"], ZONE, { current: { states: ["DEL", "SCH"] } })).toBe(
      "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25",
    );
  });

  it("names the flight by the number a rule knows it by: a codeshare first when it matched by one", () => {
    // The upstream spells numbers its way (KL0601); rules hold the normal form (KL601).
    const flight = kl1001({ flightNames: ["KL1001", "AF5512", "DL9341"] });
    const by = (...numbers: string[]) => rule("r", { flights: { flights: numbers } });
    expect(ruleFlightName(flight, by("DL9341"))).toBe("DL9341");
    expect(ruleFlightName(kl1001({ flightNames: ["KL1001", "DL09341"] }), by("DL9341"))).toBe(
      "DL09341",
    );
    // The rule's order decides between numbers it names; the operating one is a number too.
    expect(ruleFlightName(flight, by("AF5512", "DL9341"))).toBe("AF5512");
    expect(ruleFlightName(flight, by("KL1001", "DL9341"))).toBe("KL1001");
    expect(ruleFlightName(flight, rule("ops", { flights: { piers: ["D"] } }))).toBeUndefined();
    expect(ruleFlightName(flight, by("KL9999"))).toBeUndefined();

    expect(flightNamesFrom(flight, "DL9341")).toEqual(["DL9341", "KL1001", "AF5512"]);
    expect(flightNamesFrom(flight)).toEqual(["KL1001", "AF5512", "DL9341"]);
    expect(flightNamesFrom(flight, "XX1")).toEqual(["KL1001", "AF5512", "DL9341"]);
    expect(describeFlight(flight, ["WAW"], ZONE, { flightName: "DL9341" })).toBe(
      "DL9341 (KL1001, AF5512) to WAW, departs Sat 21 Nov 10:25",
    );
    expect(describeAlert(alertOf({ flight }), ZONE, { flightName: "DL9341" })).toBe(
      "DL9341 (KL1001, AF5512) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9",
    );
  });

  it("cuts each upstream value to maxValueChars when asked, keeping the other side of a change", () => {
    expect(clipText("D7", 5)).toBe("D7");
    expect(clipText("ABCDEFG", 5)).toBe("ABCD…");
    expect(clipText("ABC😀DE", 5)).toBe("ABC…"); // never half a surrogate pair
    expect(clipText("ABCDEFG", undefined)).toBe("ABCDEFG");
    const huge = "G".repeat(200_000);
    const options = { maxValueChars: 10, current: { gate: huge } };
    expect(
      describeChange(change({ kind: "gate", field: "gate", old: huge, new: "D9" }), ZONE, options),
    ).toBe("gate GGGGGGGGG… → D9");
    expect(
      describeChange(
        change({ kind: "state", field: "publicFlightState", action: "added", state: "BRD" }),
        ZONE,
        options,
      ),
    ).toBe("now boarding at gate GGGGGGGGG…");
    const flight = kl1001({ mainFlight: huge, flightNames: [huge, "DL9341"] });
    expect(describeFlight(flight, [huge], ZONE, options)).toBe(
      "GGGGGGGGG… (DL9341) to GGGGGGGGG…, departs Sat 21 Nov 10:25",
    );
    // Not asked: not cut (Slack and webhooks keep their own limits).
    expect(describeChange(change({ kind: "gate", field: "gate", new: huge }), ZONE)).toHaveLength(
      200_005,
    );
  });
});
