/** The example rule files in rules/ load cleanly with rules/demo.env, as `npm start` runs them. */
import { describe, expect, it } from "vitest";
import { readRuleVariables } from "../../src/config/rule-variables.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import { loadRuleDir } from "../../src/rules/read/rule-loader.js";
import { changeEvent } from "./event-builder.js";
import { ZONE } from "./read/rule-text.js";

/** The rule variables of `--vars-file rules/demo.env`, in an empty environment. */
const demoVars = () => readRuleVariables({}, "rules/demo.env");

describe("the example rules", () => {
  it("are valid with rules/demo.env", async () => {
    const load = await loadRuleDir("rules", { vars: demoVars(), zone: ZONE });
    expect(load.problems).toEqual([]);
    expect(load.files.length).toBeGreaterThanOrEqual(3);
    expect(load.rules.length).toBeGreaterThanOrEqual(3);
  });

  it("without it, fail only for the variables they need", async () => {
    const load = await loadRuleDir("rules", { vars: readRuleVariables({}), zone: ZONE });
    expect(load.problems.length).toBeGreaterThan(0);
    for (const problem of load.problems) {
      expect(problem.message).toMatch(/^rule variable `RULE_[A-Z_]+` is not set$/);
      expect(Object.keys(demoVars().values)).toContain(/`([A-Z_]+)`/.exec(problem.message)?.[1]);
    }
  });

  it("tell Anna of a cancellation during boarding, not that boarding stopped", async () => {
    const load = await loadRuleDir("rules", { vars: demoVars(), zone: ZONE });
    const rules = new RuleSet(load.rules, { zone: ZONE });
    // What the upstream sends when it cancels a boarding flight: ["BRD"] → ["CNX"].
    const flight = { key: "D:2026-11-21:KL1001", mainFlight: "KL1001", flightNames: ["KL1001"] };
    const current = { states: ["CNX"], route: ["WAW"] };
    const state = {
      kind: "state",
      field: "publicFlightState",
      old: undefined,
      new: undefined,
    } as const;
    const events = [
      changeEvent({ ...state, action: "withdrawn", state: "BRD", flight, current }),
      changeEvent({ ...state, action: "added", state: "CNX", flight, current }),
    ] as const;
    const anna = rules.match(events, Date.parse("2026-11-21T08:00:00Z"));
    expect(
      anna.filter((m) => m.rule.id === "anna-kl1001").map((m) => [m.event.state, m.event.action]),
    ).toEqual([["CNX", "added"]]);
  });
});
