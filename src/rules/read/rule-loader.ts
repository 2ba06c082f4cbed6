/**
 * Loads the rules directory: every `.yaml`, `.yml` and `.json` file in it (not its
 * subdirectories), in name order, validated and normalised into Rules (docs/rules.md).
 * Every problem of every file is reported with its position; rule ids must be unique
 * over all files.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { sep } from "node:path";
import { RuleInvalidError, type RuleProblem } from "../../errors.js";
import type { OutboundPolicy } from "../../outbound/outbound-policy.js";
import type { Rule, SourcePosition } from "../rule.js";
import {
  DUPLICATE_HINT,
  duplicateMessage,
  readRuleFile,
  sortProblems,
} from "./rule-file-reader.js";
import { RuleInterner } from "./rule-interner.js";
import type { RuleVariables } from "./variable-substitution.js";

/** What loading rules needs. */
export interface RuleLoadOptions {
  /** What `${NAME}` may read (variable-substitution.ts). */
  vars: RuleVariables;
  /** Airport IANA time zone for dates in schedule bounds (e.g. "Europe/Amsterdam"). */
  zone: string;
  /**
   * Internal destinations channel URLs may name (OUTBOUND_ALLOW); none when absent, so
   * a URL on loopback, a private network … is a problem of its rule.
   */
  outbound?: OutboundPolicy;
}

/** The outcome of loading: valid rules, and every problem found. */
export interface RuleLoad {
  /** Enabled rules only, file order (files sorted by name). */
  rules: Rule[];
  /** Every problem, in file then position order; empty = valid. */
  problems: RuleProblem[];
  /** The files read (paths as dir + name, as given). */
  files: string[];
  /** Ids of rules with `enabled: false`. */
  disabled: string[];
  /** Rule variables whose values went into a credential (an endpoint URL, a signing secret). */
  secretVariables: string[];
}

const RULE_FILE_RE = /\.(?:ya?ml|json)$/i;
const DIR_HINT = "create it, or set FLIGHTWATCH_RULES to the directory holding the rule files";

/** Reads every .yaml/.yml/.json in dir (not subdirs), sorted by name. */
export async function loadRuleDir(dir: string, options: RuleLoadOptions): Promise<RuleLoad> {
  const load: RuleLoad = { rules: [], problems: [], files: [], disabled: [], secretVariables: [] };
  let names: string[];
  try {
    names = await ruleFileNames(dir);
  } catch (err) {
    load.problems.push(fileProblem(dir, dirMessage(dir, err), DIR_HINT));
    return load;
  }
  if (names.length === 0) {
    load.problems.push(fileProblem(dir, `no rule files (.yaml, .yml, .json) in ${dir}`, DIR_HINT));
    return load;
  }
  const prefix = dir.endsWith("/") || dir.endsWith(sep) ? dir : `${dir}${sep}`;
  load.files = names.map((name) => `${prefix}${name}`);
  const texts = await Promise.all(
    load.files.map((file) => readFile(file, "utf8").catch((err: unknown) => err as Error)),
  );
  const firstAt = new Map<string, SourcePosition>();
  // One for the directory: rules written alike share their parts across files too.
  const interner = new RuleInterner();
  load.files.forEach((file, i) => {
    const text = texts[i];
    if (typeof text !== "string") {
      load.problems.push(fileProblem(file, `cannot read the file: ${errorText(text)}`));
      return;
    }
    const read = readRuleFile(text, file, options, interner);
    const problems = read.problems;
    for (const name of read.secretVariables) {
      if (!load.secretVariables.includes(name)) load.secretVariables.push(name);
    }
    // Duplicates within the file were found by readRuleFile; here, those across files.
    const late = new Set<string>();
    const here = new Set<string>();
    for (const { id, source, path } of read.ids) {
      if (here.has(id)) continue;
      here.add(id);
      const first = firstAt.get(id);
      if (first === undefined) firstAt.set(id, source);
      else {
        problems.push({
          ...source,
          path,
          message: duplicateMessage(id, first),
          hint: DUPLICATE_HINT,
        });
        late.add(id);
      }
    }
    load.problems.push(...(late.size > 0 ? sortProblems(problems) : problems));
    for (const rule of read.rules) if (!late.has(rule.id)) load.rules.push(rule);
    load.disabled.push(...read.disabled.filter((id) => !late.has(id)));
  });
  return load;
}

/**
 * Parses and validates one file's text (for tests, `rules test`, subscriptions). Files
 * read with one `interner` share the parts they write alike (see RuleInterner).
 */
export function parseRuleFile(
  text: string,
  file: string,
  options: RuleLoadOptions,
  interner?: RuleInterner,
): RuleLoad {
  const read = readRuleFile(text, file, options, interner);
  return {
    rules: read.rules,
    problems: read.problems,
    files: [file],
    disabled: read.disabled,
    secretVariables: read.secretVariables,
  };
}

/** Like loadRuleDir but throws RuleInvalidError (src/errors.ts) when there is any problem. */
export async function loadRulesOrThrow(dir: string, options: RuleLoadOptions): Promise<Rule[]> {
  const load = await loadRuleDir(dir, options);
  if (load.problems.length > 0) throw new RuleInvalidError(load.problems);
  return load.rules;
}

/** Names of the rule files in `dir`, sorted; throws when the directory cannot be read. */
async function ruleFileNames(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names: string[] = [];
  for (const entry of entries) {
    if (!RULE_FILE_RE.test(entry.name)) continue;
    // A symlink counts when it points to a file (a mounted config map is all symlinks).
    const isFile =
      entry.isFile() ||
      (entry.isSymbolicLink() &&
        (await stat(`${dir}${sep}${entry.name}`).then(
          (s) => s.isFile(),
          () => false,
        )));
    if (isFile) names.push(entry.name);
  }
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function fileProblem(file: string, message: string, hint?: string): RuleProblem {
  const problem: RuleProblem = { file, line: 0, column: 0, path: "", message };
  if (hint !== undefined) problem.hint = hint;
  return problem;
}

function dirMessage(dir: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return `the rules directory ${dir} does not exist`;
  if (code === "ENOTDIR") return `${dir} is not a directory`;
  return `cannot read the rules directory ${dir}: ${errorText(err)}`;
}

function errorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${code} (${message})` : message;
}
