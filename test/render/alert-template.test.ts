import { describe, expect, it } from "vitest";
import {
  hasStrayBrace,
  renderTemplate,
  unknownPlaceholders,
} from "../../src/render/alert-template.js";
import { rule } from "../rules/rule-builder.js";
import { alertOf } from "../support/alert-builder.js";

const ZONE = "Europe/Amsterdam";

const alert = alertOf({ ruleId: "anna", labels: { booking: "X7Q2LM" } });

describe("alert templates", () => {
  it("fills every placeholder", () => {
    const r = { ...rule("anna"), description: "Anna's flight" };
    expect(
      renderTemplate(
        "{flight} ({flights}) {direction} to {route} on {date} at {time}: {changes} [{rule}: {description}, {label.booking}{label.none}] {{literal}}",
        alert,
        r,
        ZONE,
      ),
    ).toBe(
      "KL1001 (KL1001, DL9341) departure to WAW on 2026-11-21 at 10:25: gate D7 → D9 [anna: Anna's flight, X7Q2LM] {literal}",
    );
    expect(renderTemplate("{summary}", alert, r, ZONE)).toBe(
      "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9",
    );
  });

  it("names the flight by the number the rule knows it by (a codeshare on a ticket)", () => {
    const r = rule("anna", { flights: { flights: ["DL9341"] } });
    expect(renderTemplate("{flight}|{flights}|{summary}", alert, r, ZONE)).toBe(
      "DL9341|DL9341, KL1001|DL9341 (KL1001) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9",
    );
    // A rule that names no number (ops, integrations) keeps the operating number first.
    const ops = rule("ops", { flights: { piers: ["D"] } });
    expect(renderTemplate("{flight}|{flights}", alert, ops, ZONE)).toBe("KL1001|KL1001, DL9341");
  });

  it("words changes as of the alert: the gate of a boarding call, a cancelled flight", () => {
    const boarding = alertOf({
      current: { route: ["WAW"], gate: "D9", states: ["CNX"] },
      changes: [
        { kind: "state", field: "publicFlightState", action: "added", state: "BRD", eventIds: [] },
        { kind: "state", field: "publicFlightState", action: "added", state: "CNX", eventIds: [] },
      ],
    });
    expect(renderTemplate("{changes}", boarding, rule("anna"), ZONE)).toBe(
      "now boarding at gate D9; now cancelled",
    );
    expect(renderTemplate("{summary}", boarding, rule("anna"), ZONE)).toContain(
      "to WAW, was to depart Sat 21 Nov 10:25: ",
    );
  });

  it("renders a repeated placeholder alike and Object's own names as unknown", () => {
    expect(
      renderTemplate("{changes}|{ changes }|{constructor}|{toString}", alert, rule("anna"), ZONE),
    ).toBe("gate D7 → D9|gate D7 → D9||");
  });

  it("finds unknown placeholders and stray braces", () => {
    expect(unknownPlaceholders("{flihgt} {flight} {label.x} {label.} { date }")).toEqual([
      "flihgt",
      "label.",
    ]);
    expect(hasStrayBrace("{flight} {{ok}}")).toBe(false);
    expect(hasStrayBrace("{flight} {")).toBe(true);
    expect(hasStrayBrace("} {flight}")).toBe(true);
  });
});
