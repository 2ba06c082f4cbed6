/** The rule variables of a process: vars-file names and RULE_… from the environment, nothing else. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFIG_VARIABLE_NAMES } from "../../src/config/config-variables.js";
import { readRuleVariables, ruleVariableSecrets } from "../../src/config/rule-variables.js";
import { ConfigError, ConfigProblemsError } from "../../src/errors.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fw-rule-vars-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A vars file holding `text`. */
async function varsFile(text: string): Promise<string> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.env`);
  await writeFile(file, text);
  return file;
}

/** The problems a vars file is refused with, as `setting: message` lines. */
function refusals(file: string): string[] {
  try {
    readRuleVariables({}, file);
  } catch (err) {
    if (err instanceof ConfigProblemsError) return err.problems.map((p) => p.message);
    if (err instanceof ConfigError) return [err.message];
    throw err;
  }
  return [];
}

describe("readRuleVariables", () => {
  it("takes RULE_… names from the environment, and no other", () => {
    const vars = readRuleVariables({
      RULE_OPS_EMAIL: "ops@example.com",
      HOME_DIR: "/home/ops",
      FLIGHT_API_TOKEN: "t0ken-value",
      rule_lower: "x",
    });
    expect(vars.values).toEqual({ RULE_OPS_EMAIL: "ops@example.com" });
  });

  it("takes every name of the vars file, a RULE_ name's environment value winning when set", async () => {
    const file = await varsFile(
      "OPS_TEAM=from-file\nDESK=desk\nRULE_TEAM=from-file\nRULE_EMPTY_IN_ENV=kept\n",
    );
    const env = { RULE_TEAM: "from-env", RULE_EMPTY_IN_ENV: "", RULE_X: "x", RULE_Y: "" };
    expect(readRuleVariables(env, file).values).toEqual({
      OPS_TEAM: "from-file",
      DESK: "desk",
      RULE_TEAM: "from-env",
      RULE_EMPTY_IN_ENV: "kept",
      RULE_X: "x",
      RULE_Y: "",
    });
  });

  it("never reads a name without the prefix from the environment, even one the vars file lists", async () => {
    // Else a rule author who can edit the file could read any secret of the machine.
    const file = await varsFile("AWS_SECRET_ACCESS_KEY=dummy\n");
    const env = { AWS_SECRET_ACCESS_KEY: "AKIA-the-real-one" };
    expect(readRuleVariables(env, file).values).toEqual({ AWS_SECRET_ACCESS_KEY: "dummy" });
  });

  it("leaves the process environment alone: the file feeds rules, not the daemon", async () => {
    const file = await varsFile("FW_TEST_ONLY_IN_FILE=1\n");
    readRuleVariables({}, file);
    expect(process.env.FW_TEST_ONLY_IN_FILE).toBeUndefined();
  });

  it("refuses the daemon's settings in the vars file, naming file, line and variable", async () => {
    const file = await varsFile(
      "# partner\nOPS_TEAM=ops\nFLIGHT_API_TOKEN=abc\n\nexport REDIS_URL=redis://:pw@host\nsmtp_url=smtp://x\n",
    );
    expect(refusals(file)).toEqual([
      `${file}:3 FLIGHT_API_TOKEN: is a variable of flightwatch itself, which rule files may not read; set it in the environment or the --config file, and give rules variables of their own (see docs/rules.md)`,
      expect.stringMatching(
        new RegExp(`^${file}:5 REDIS_URL: is a variable of flightwatch itself`),
      ),
      expect.stringMatching(new RegExp(`^${file}:6 smtp_url: is a variable of flightwatch itself`)),
    ]);
  });

  it.each([
    ...[...CONFIG_VARIABLE_NAMES].map((name) => [name]),
    ["FLIGHTWATCH_CONFIG"],
    ["FLIGHTWATCH_CRASH_AT"],
    ["FLIGHTWATCH_FUTURE_SETTING"],
    ["NODE_OPTIONS"],
    ["PATH"],
  ])("refuses %s in a vars file", async (name) => {
    expect(refusals(await varsFile(`${name}=x\n`))).toHaveLength(1);
  });

  it("names the flag when the file cannot be read", () => {
    expect(() => readRuleVariables({}, join(dir, "missing.env"))).toThrow(
      /^--vars-file: cannot read .*missing\.env \(ENOENT\)$/,
    );
  });

  it("refuses the daemon's names at use too", () => {
    const vars = readRuleVariables({ RULE_A: "a" });
    expect(vars.reserved?.("FLIGHT_API_TOKEN")).toBe(true);
    expect(vars.reserved?.("flightwatch_prefix")).toBe(true);
    expect(vars.reserved?.("RULE_A")).toBe(false);
  });
});

describe("ruleVariableSecrets", () => {
  it("are the values of variables named like credentials, and of those given", async () => {
    const file = await varsFile("PARTNER_PATH=abcdefgh-path\nOPS_TEAM=ops\n");
    const vars = readRuleVariables(
      {
        RULE_PARTNER_SECRET: "whsec_abc",
        RULE_OPS_TOKEN: "tok",
        RULE_SIGNING_KEY: "key",
        RULE_DB_PASSWORD: "pw",
        RULE_HOOK_WEBHOOK_URL: "https://x",
        RULE_KEYBOARD: "qwerty",
        RULE_EMPTY_TOKEN: "",
      },
      file,
    );
    expect(ruleVariableSecrets(vars).sort()).toEqual([
      "https://x",
      "key",
      "pw",
      "tok",
      "whsec_abc",
    ]);
    expect(ruleVariableSecrets(vars, ["PARTNER_PATH"])).toContain("abcdefgh-path");
    expect(ruleVariableSecrets(vars, ["PARTNER_PATH"])).not.toContain("ops");
  });
});
