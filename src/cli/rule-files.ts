/**
 * Where the rule files are and how the commands that run rules keep them live: shared
 * by `rules`, `watch` and `run`, so no command file imports another.
 */
import { formatRuleProblem } from "../errors.js";
import type { OutboundPolicy } from "../outbound/outbound-policy.js";
import { loadRuleDir } from "../rules/rule-loader.js";
import { RuleSet } from "../rules/rule-matcher.js";
import { RuleWatcher } from "../rules/rule-watcher.js";
import type { RuleVariables } from "../rules/variable-substitution.js";

/** Default rules directory when neither an argument nor FLIGHTWATCH_RULES gives one. */
export const DEFAULT_RULES_DIR = "rules";

/** The rules directory: the argument, else FLIGHTWATCH_RULES, else `rules`. */
export function rulesDir(arg: string | undefined, env: Record<string, string | undefined>): string {
  return arg ?? (env.FLIGHTWATCH_RULES?.trim() || DEFAULT_RULES_DIR);
}

/** Loads the rules (failing on any problem) and reloads them on change, keeping the last good set. */
export async function startRuleWatcher(
  dir: string,
  vars: RuleVariables,
  zone: string,
  outbound: OutboundPolicy,
  say: { info: (line: string) => void; problem: (line: string) => void } = {
    info: (line) => process.stderr.write(`flightwatch: ${line}\n`),
    problem: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<RuleWatcher<RuleSet>> {
  return RuleWatcher.start({
    dir,
    load: (d) => loadRuleDir(d, { vars, zone, outbound }),
    build: (list) => new RuleSet(list, { zone }),
    onReload: ({ rules, files }) => {
      say.info(
        `${rules} rule${rules === 1 ? "" : "s"} live from ${files.length} file${files.length === 1 ? "" : "s"} in ${dir}`,
      );
    },
    onProblems: (problems) => {
      for (const problem of problems) say.problem(formatRuleProblem(problem));
      say.problem(
        `flightwatch: rule files in ${dir}/ not reloaded (${problems.length} problem${problems.length === 1 ? "" : "s"}); the last good set stays live`,
      );
    },
  });
}
