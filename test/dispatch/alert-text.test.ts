import { describe, expect, it } from "vitest";
import { describeAlert, describeChange, describeFlight } from "../../src/dispatch/alert-text.js";
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
});
