/**
 * The rule variables of a process — what `${NAME}` in rule files may read (docs/rules.md,
 * "Variables"): every name the `--vars-file` defines, and every `RULE_…` variable of the
 * environment (which wins over the file's value for the same name). Nothing else: the
 * daemon's settings and the rest of the environment stay out of reach of rule files —
 * a name in the vars file is the file's value, never the environment's, or a rule author
 * who can edit the file (it often lives beside the rules) could list
 * `AWS_SECRET_ACCESS_KEY` in it and read the real one. A vars file defining one of the daemon's own variables is
 * refused, naming the file, line and variable. The file never changes the process
 * environment: it feeds rules, not the daemon.
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { ConfigError, ConfigProblems } from "../errors.js";
import { RULE_VARIABLE_PREFIX, type RuleVariables } from "../rules/read/variable-substitution.js";
import { isDaemonVariable, isSecretName } from "./config-variables.js";

/** Reads the rule variables from the environment and, when given, a vars file. */
export function readRuleVariables(
  env: Readonly<Record<string, string | undefined>>,
  varsFile?: string,
): RuleVariables {
  const values: Record<string, string> =
    varsFile === undefined ? {} : { ...readVarsFile(varsFile) };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(RULE_VARIABLE_PREFIX) || value === undefined) continue;
    // The environment's RULE_ names win over the file; empty counts as unset, as everywhere.
    if (value !== "" || values[name] === undefined) values[name] = value;
  }
  return { values, reserved: isDaemonVariable };
}

/**
 * The values of rule variables that are credentials, for a masker: those named like
 * one (isSecretName) and those given (the variables a rule put into a URL or secret).
 */
export function ruleVariableSecrets(
  vars: RuleVariables,
  secretNames: Iterable<string> = [],
): string[] {
  const names = new Set(secretNames);
  return Object.entries(vars.values)
    .filter(([name, value]) => value !== "" && (names.has(name) || isSecretName(name)))
    .map(([, value]) => value);
}

/** The `NAME=value` pairs of a vars file; the daemon's own names are problems. */
function readVarsFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(
      "--vars-file",
      `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  // Node's own parser: what process.loadEnvFile and `node --env-file` read.
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (value !== undefined) values[name] = value;
  }
  const problems = new ConfigProblems();
  for (const name of Object.keys(values)) {
    if (!isDaemonVariable(name)) continue;
    problems.add(
      `${file}${lineOf(text, name)} ${name}`,
      "is a variable of flightwatch itself, which rule files may not read; set it in the environment or the --config file, and give rules variables of their own (see docs/rules.md)",
    );
  }
  problems.throwIfAny();
  return values;
}

/** `:line` of the last line assigning `name` (the one that counts), or nothing. */
function lineOf(text: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const assign = new RegExp(`^[ \\t]*(?:export[ \\t]+)?${escaped}[ \\t]*=`, "gm");
  let offset: number | undefined;
  for (const m of text.matchAll(assign)) offset = m.index;
  if (offset === undefined) return "";
  return `:${text.slice(0, offset).split("\n").length}`;
}
