/**
 * `flightwatch rules check|test`: validate rule files, and show which rules a change
 * matches and what each channel would receive, without sending anything (the
 * equivalent of Alertmanager's `routes test`).
 *
 * This file is the definition only (what `--help` shows); the work is rules-action.ts,
 * loaded when a subcommand runs.
 */
import type { Command } from "commander";
import { VARS_FILE_HELP } from "./vars-file.js";

const EXAMPLES = `
Examples:
  $ flightwatch rules check --vars-file rules/demo.env
      validate every .yaml/.yml/.json file in rules/ (or FLIGHTWATCH_RULES); exit 1 on any problem
      (the example rules take their \${…} values from rules/demo.env)
  $ flightwatch watch --simulator | head -1 > change.json
  $ flightwatch rules test --vars-file rules/demo.env --event change.json
      which rules does a real change match, and what would each channel receive?
  $ flightwatch rules test --before before.json --after after.json --now 2026-11-21T09:00
      the same for a flight record before and after (codeshare records may be given as a list)

Rule files read rule variables as \${NAME}: the names of --vars-file, and RULE_… in the
environment; never flightwatch's own settings. Secrets are masked in what rules test prints.
AIRPORT_TIMEZONE (default Europe/Amsterdam) places dates and --now. See docs/rules.md.`;

/** Flags of `rules check`. */
export interface CheckFlags {
  varsFile?: string;
}

/** Flags of `rules test`. */
export interface TestFlags {
  varsFile?: string;
  event?: string;
  before?: string;
  after?: string;
  now?: string;
  json?: boolean;
}

/** The subcommands' work, loaded when one runs. */
const actions = () => import("./rules-action.js");

/** Adds the `rules` subcommand and its `check` and `test` subcommands. */
export function registerRulesCommand(program: Command): void {
  const rules = program
    .command("rules")
    .description("check rule files, and test which rules a change matches")
    .addHelpText("after", EXAMPLES);
  rules
    .command("check")
    .description("validate rule files; print every problem with file, line and column")
    .argument("[dir]", "rules directory (default: FLIGHTWATCH_RULES or ./rules)")
    .option("--vars-file <file>", VARS_FILE_HELP)
    .action(async (dir: string | undefined, flags: CheckFlags) => {
      process.exitCode = await (await actions()).runRulesCheck(dir, flags, process.env);
    });
  rules
    .command("test")
    .description(
      "show which rules match a change and what each channel would receive; sends nothing",
    )
    .argument("[dir]", "rules directory (default: FLIGHTWATCH_RULES or ./rules)")
    .option(
      "--event <file>",
      "change event(s) as `watch` prints them (JSON, array or lines; - = stdin)",
    )
    .option("--before <file>", "flight record(s) before the change (API JSON)")
    .option("--after <file>", "flight record(s) after the change (API JSON)")
    .option(
      "--now <time>",
      "moment of matching, airport-local (2026-11-21T09:00) or ISO (default: now)",
    )
    .option("--json", "print the matches and alerts as JSON")
    .option("--vars-file <file>", VARS_FILE_HELP)
    .action(async (dir: string | undefined, flags: TestFlags) => {
      process.exitCode = await (await actions()).runRulesTest(dir, flags, process.env);
    });
}
