/** The example rule files in rules/ load cleanly with rules/demo.env, as `npm start` runs them. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadRuleDir } from "../../src/rules/rule-loader.js";
import { ZONE } from "./rule-text.js";

/** `NAME=value` lines of rules/demo.env. */
function demoEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync("rules/demo.env", "utf8").split("\n")) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) env[m[1] as string] = m[2] as string;
  }
  return env;
}

describe("the example rules", () => {
  it("are valid with rules/demo.env", async () => {
    const load = await loadRuleDir("rules", { env: demoEnv(), zone: ZONE });
    expect(load.problems).toEqual([]);
    expect(load.files.length).toBeGreaterThanOrEqual(3);
    expect(load.rules.length).toBeGreaterThanOrEqual(3);
  });

  it("without it, fail only for the variables they need", async () => {
    const load = await loadRuleDir("rules", { env: {}, zone: ZONE });
    for (const problem of load.problems) {
      expect(problem.message).toMatch(/^environment variable `[A-Z_]+` is not set$/);
      expect(Object.keys(demoEnv())).toContain(/`([A-Z_]+)`/.exec(problem.message)?.[1]);
    }
  });
});
