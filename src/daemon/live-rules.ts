/**
 * The rules a running process keeps live: loaded at start (failing on any problem) and
 * reloaded on SIGHUP or a change, keeping the last good set when a reload has problems.
 */
import { formatRuleProblem } from "../errors.js";
import type { OutboundPolicy } from "../outbound/outbound-policy.js";
import { RuleSet } from "../rules/match/rule-matcher.js";
import { loadRuleDir } from "../rules/read/rule-loader.js";
import { RuleWatcher } from "../rules/read/rule-watcher.js";
import type { RuleVariables } from "../rules/read/variable-substitution.js";

/** Who hears of (re)loads: a line per load, a line per problem. */
export interface RuleNews {
  info(line: string): void;
  problem(line: string): void;
}

/** Loads the rules of `dir` and keeps them live. */
export async function startLiveRules(
  dir: string,
  vars: RuleVariables,
  zone: string,
  outbound: OutboundPolicy,
  say: RuleNews,
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
