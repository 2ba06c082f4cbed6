// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the syntax under test
import { describe, expect, it } from "vitest";
import { isDaemonVariable } from "../../../src/config/config-variables.js";
import {
  type RuleVariables,
  substituteVariables,
} from "../../../src/rules/read/variable-substitution.js";

/** As a vars file would define them, with the daemon's names refused as the CLI does. */
const vars: RuleVariables = {
  values: { HOST: "example.com", EMPTY: "", PORT: "8080", RULE_TEAM: "ops" },
  reserved: isDaemonVariable,
};

const values = (text: string) => {
  const result = substituteVariables(text, vars);
  return result.ok ? result.value : result.problems;
};

describe("substituteVariables", () => {
  it.each([
    ["plain text", "plain text"],
    ["https://${HOST}/x", "https://example.com/x"],
    ["${HOST}:${PORT}", "example.com:8080"],
    ["${RULE_TEAM}", "ops"],
    ["${RULE_MISSING:-fallback}", "fallback"],
    ["${EMPTY:-fallback}", "fallback"],
    ["${HOST:-fallback}", "example.com"],
    ["${RULE_MISSING:-}", ""],
    ["${RULE_MISSING:-a b:c}", "a b:c"],
    ["$$", "$"],
    ["$${HOST}", "${HOST}"],
    ["$${FLIGHT_API_TOKEN}", "${FLIGHT_API_TOKEN}"],
    ["costs $5", "costs $5"],
    ["end $", "end $"],
    ["$HOST", "$HOST"],
  ])("%s → %s", (text, value) => {
    expect(values(text)).toBe(value);
  });

  it("says which variables a value read", () => {
    expect(substituteVariables("${HOST}/${RULE_X:-x}/$${PORT}", vars)).toEqual({
      ok: true,
      value: "example.com/x/${PORT}",
      names: ["HOST", "RULE_X"],
    });
  });

  it("names a rule variable that is not set, with the hint of docs/rules.md", () => {
    expect(values("${RULE_ANNA_EMAIL}")).toEqual([
      {
        message: "rule variable `RULE_ANNA_EMAIL` is not set",
        hint: "set it, or write ${RULE_ANNA_EMAIL:-default}",
      },
    ]);
  });

  it("says when a variable is empty", () => {
    expect(values("${EMPTY}")).toMatchObject([{ message: "rule variable `EMPTY` is empty" }]);
  });

  it("refuses a name that is neither a vars-file name nor RULE_…, even with a default", () => {
    const problem = {
      message: "`${HOME_DIR}` is not a rule variable",
      hint: "define it in the --vars-file, or name it RULE_HOME_DIR in the environment",
    };
    expect(values("${HOME_DIR}")).toEqual([problem]);
    expect(values("${HOME_DIR:-/home}")).toEqual([problem]);
  });

  it.each([
    ["FLIGHT_API_TOKEN"],
    ["REDIS_URL"],
    ["SMTP_URL"],
    ["FLIGHT_API_APP_KEY"],
    ["FLIGHTWATCH_CONFIG"],
    ["FLIGHTWATCH_ANYTHING"],
    ["NODE_OPTIONS"],
    ["redis_url"],
  ])("refuses the daemon's own %s, even when defined as a rule variable", (name) => {
    const defined: RuleVariables = { ...vars, values: { [name]: "hunter2-secret" } };
    for (const text of [`\${${name}}`, `\${${name}:-x}`]) {
      const result = substituteVariables(`tok ${text}`, defined);
      expect(result).toEqual({
        ok: false,
        problems: [
          {
            message: `\`\${${name}}\` is a flightwatch setting, which rule files may not read`,
            hint: expect.stringContaining("RULE_"),
          },
        ],
      });
    }
  });

  it("reports every problem of a value", () => {
    const result = substituteVariables("${RULE_A}/${B}/${REDIS_URL}", vars);
    expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
      "rule variable `RULE_A` is not set",
      "`${B}` is not a rule variable",
      "`${REDIS_URL}` is a flightwatch setting, which rule files may not read",
    ]);
  });

  it.each([["${HOST"], ["${}"], ["${1A}"], ["${HO ST}"], ["${HOST:default}"], ["${HOST-x}"]])(
    "refuses the malformed %s",
    (text) => {
      const result = substituteVariables(text, vars);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems[0]?.hint).toContain("${NAME:-default}");
    },
  );
});
