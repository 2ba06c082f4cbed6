import { describe, expect, it } from "vitest";
import {
  hasStrayBrace,
  renderTemplate,
  unknownPlaceholders,
} from "../../src/dispatch/alert-template.js";
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
