/**
 * `flightwatch config`: the effective configuration (secrets masked, the source of
 * each value) and everything `run` would refuse with the same flags — every problem in
 * the variables, and every problem in the rule files it would load (file:line:col) —
 * and with `--check-connections`, whether Redis, the upstream and the SMTP server
 * answer with the credentials given. Exit 2 on any problem, so `config` passing means
 * `run` starts.
 *
 * This file is the definition only (what `--help` shows); the check is
 * config-action.ts, loaded when it runs.
 */
import type { Command } from "commander";
import type { ConfigFlags } from "../config/daemon-config.js";
import { VARS_FILE_HELP } from "./vars-file.js";

/** Flags of `config`. */
export interface ConfigCommandFlags extends ConfigFlags {
  varsFile?: string;
  json?: boolean;
  checkConnections?: boolean;
}

/** Adds `config`. */
export function registerConfigCommand(program: Command): void {
  program
    .command("config")
    .description(
      "print the effective configuration (secrets masked), check it and the rule files as run would; exit 2 on any problem",
    )
    .option("--role <role>", "check as for this role", "all")
    .option("--config <file>", "read variables from this YAML file (default FLIGHTWATCH_CONFIG)")
    .option("--vars-file <file>", VARS_FILE_HELP)
    .option("--simulator", "check as for --simulator (no upstream variables needed)")
    .option("--rules <dir>", "as for run --rules (overrides FLIGHTWATCH_RULES)")
    .option("--dashboard", "as for run --dashboard")
    .option(
      "--check-connections",
      "also check that Redis, the upstream and the SMTP server answer with the credentials given (one PING, one GET /airlines, one SMTP login)",
    )
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      `
Examples:
  $ flightwatch config
      every variable, its value and source; problems in the variables and in the rule files
  $ flightwatch config --check-connections
      and whether Redis (REDIS_URL), the upstream (FLIGHT_API_BASE_URL and its credentials)
      and the SMTP server (SMTP_URL, over TLS when it has credentials) answer
  $ flightwatch config --simulator --vars-file rules/demo.env
      what \`npm start\` would run with`,
    )
    .action(async (flags: ConfigCommandFlags) => {
      process.exitCode = await (await import("./config-action.js")).runConfig(flags, process.env);
    });
}
