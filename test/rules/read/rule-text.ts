/**
 * Loads rule-file text for tests: `problemsOf(yaml)` gives the problems, `oneRule(yaml)`
 * the single valid rule (failing the test with the problems when there are any).
 */
import { expect } from "vitest";
import { isDaemonVariable } from "../../../src/config/config-variables.js";
import type { RuleProblem } from "../../../src/errors.js";
import type { OutboundPolicy } from "../../../src/outbound/outbound-policy.js";
import { parseRuleFile, type RuleLoad } from "../../../src/rules/read/rule-loader.js";
import type { Rule } from "../../../src/rules/rule.js";

/** The zone every loader test reads dates in. */
export const ZONE = "Europe/Amsterdam";

/**
 * Loads `text` as file `file` with the rule variables `vars` (as a vars file would
 * define them), refusing the daemon's own names as the CLI does, and the outbound
 * policy `outbound` (by default: nothing internal).
 */
export function load(
  text: string,
  vars: Record<string, string> = {},
  file = "t.yaml",
  outbound?: OutboundPolicy,
): RuleLoad {
  return parseRuleFile(text, file, {
    vars: { values: vars, reserved: isDaemonVariable },
    zone: ZONE,
    ...(outbound ? { outbound } : {}),
  });
}

/** The problems of `text`. */
export function problemsOf(
  text: string,
  env: Record<string, string> = {},
  file = "t.yaml",
): RuleProblem[] {
  return load(text, env, file).problems;
}

/** The one problem of `text` (fails when there are none or several). */
export function problemOf(
  text: string,
  env: Record<string, string> = {},
  file = "t.yaml",
): RuleProblem {
  const problems = problemsOf(text, env, file);
  expect(problems).toHaveLength(1);
  return problems[0] as RuleProblem;
}

/** The one valid rule of `text` (fails with the problems otherwise). */
export function oneRule(text: string, env: Record<string, string> = {}, file = "t.yaml"): Rule {
  const result = load(text, env, file);
  expect(result.problems).toEqual([]);
  expect(result.rules).toHaveLength(1);
  return result.rules[0] as Rule;
}

/** A file with one rule: `id: r`, a console channel, and `body` (indented rule keys). */
export function ruleWith(body: string): string {
  return `rules:\n  - id: r\n    channels: [{ type: console }]\n${body
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => `    ${l}`)
    .join("\n")}\n`;
}
