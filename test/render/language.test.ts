import { describe, expect, it } from "vitest";
import { emailMessage } from "../../src/deliver/email-message.js";
import { renderTemplate } from "../../src/render/alert-template.js";
import { describeAlert, describeChange, describeFlight } from "../../src/render/alert-text.js";
import { LANGUAGES, phrasesOf } from "../../src/render/language.js";
import { parseRuleFile } from "../../src/rules/read/rule-loader.js";
import { alert, emailChannel, FROM, notificationOf, ruleWith } from "../deliver/email-fixtures.js";
import { alertOf, alertChange as change, kl1001 } from "../support/alert-builder.js";

const ZONE = "Europe/Amsterdam";
const nl = { language: "nl" } as const;

describe("notifications in Dutch", () => {
  it("name the flight, its route and its local schedule in Dutch, values as the upstream gives them", () => {
    expect(describeFlight(kl1001(), ["WAW"], ZONE, nl)).toBe(
      "KL1001 (DL9341) naar WAW, vertrekt za 21 nov 10:25",
    );
    expect(
      describeFlight({ ...kl1001(), direction: "A", flightNames: ["KL1001"] }, ["LHR"], ZONE, nl),
    ).toBe("KL1001 uit LHR, landt za 21 nov 10:25");
    expect(describeFlight(kl1001(), ["WAW"], ZONE, { ...nl, current: { states: ["CNX"] } })).toBe(
      "KL1001 (DL9341) naar WAW, zou vertrekken za 21 nov 10:25",
    );
  });

  it("word each kind of change in Dutch", () => {
    const say = (c: Parameters<typeof change>[0], current = {}) =>
      describeChange(change(c), ZONE, { ...nl, current });
    expect(say({ kind: "gate", field: "gate", old: "D7", new: "D9" })).toBe("gate D7 → D9");
    expect(say({ kind: "belt", field: "baggageClaim", old: ["11"], new: ["14"] })).toBe(
      "bagageband 11 → 14",
    );
    expect(
      say(
        { kind: "state", field: "publicFlightState", action: "added", state: "BRD" },
        { gate: "D9" },
      ),
    ).toBe("instappen bij gate D9");
    expect(say({ kind: "state", field: "publicFlightState", action: "added", state: "CNX" })).toBe(
      "nu geannuleerd",
    );
    expect(
      say({ kind: "state", field: "publicFlightState", action: "withdrawn", state: "CNX" }),
    ).toBe("niet meer geannuleerd");
    expect(
      say({
        kind: "time",
        field: "publicEstimatedOffBlockTime",
        old: "2026-11-21T10:25:00.000+01:00",
        new: "2026-11-21T10:50:00.000+01:00",
        delayMinutes: 25,
      }),
    ).toBe("verwacht vertrek 10:25 → 10:50 (25 min vertraagd)");
    expect(
      describeChange(
        { ...change({ kind: "gate", field: "gate", old: "D9", new: "D7" }), correction: true },
        ZONE,
        nl,
      ),
    ).toBe("gate D9 → D7 (correctie)");
  });

  it("have a Dutch word for everything there is an English one for", () => {
    const en = phrasesOf("en");
    for (const language of LANGUAGES) {
      const p = phrasesOf(language);
      for (const table of ["states", "times", "fields", "atGate"] as const) {
        expect(Object.keys(p[table]).sort(), `${language} ${table}`).toEqual(
          Object.keys(en[table]).sort(),
        );
      }
    }
  });

  it("are asked for with `language: nl` in a rule file, and only a known language is taken", () => {
    const read = (language: string) =>
      parseRuleFile(
        `rules:\n  - id: anna\n    language: ${language}\n    channels: [{ type: console }]\n`,
        "anna.yaml",
        { vars: { values: {} }, zone: ZONE },
      );
    expect(read("nl").rules[0]?.language).toBe("nl");
    const refused = read("fr");
    expect(refused.rules).toEqual([]);
    expect(refused.problems[0]).toMatchObject({
      line: 3,
      path: "rules[0].language",
      message: "`fr` is not a language notifications are written in",
      hint: "write one of en, nl",
    });
  });

  it("make an email in Dutch: its subject's changes, text, headings and unsubscribe link", () => {
    const channel = emailChannel(["anna@example.com"], {
      unsubscribeUrl: "https://app.example.com/u?to={recipient}",
    });
    const r = { ...ruleWith(channel), language: "nl" as const };
    const message = emailMessage(
      notificationOf(alert("a1"), channel),
      channel,
      r,
      ZONE,
      FROM,
      "anna@example.com",
    );
    expect(message.subject).toBe("KL1001 2026-11-21: gate D7 → D9");
    expect(message.text).toContain("naar WAW, vertrekt za 21 nov 10:25: gate D7 → D9");
    expect(message.text).toContain("Wijzigingen:\n- gate D7 → D9");
    expect(message.text).toContain("Afmelden: https://app.example.com/u?to=anna%40example.com");
    expect(message.html).toContain(">Afmelden</a>");
    const a = alertOf({ flight: kl1001(), current: { route: ["WAW"] }, changes: [] });
    expect(renderTemplate("{direction}", a, r, ZONE)).toBe("vertrek");
    expect(describeAlert(a, ZONE, nl)).toBe("KL1001 (DL9341) naar WAW, vertrekt za 21 nov 10:25: ");
  });
});
