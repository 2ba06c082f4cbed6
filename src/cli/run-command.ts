/**
 * `flightwatch run` and `flightwatch demo`: the flags, read into the configuration
 * (every problem at once, exit 2) and handed to `runDaemon`, which runs the daemon of
 * the role until SIGTERM/SIGINT. `demo` is `run` against the built-in simulator with a
 * fast clock and the live view. This file is the definition (what `--help` shows);
 * the work is run-action.ts.
 */
import type { Command } from "commander";
import { addSimulatorOptions } from "./simulator-flags.js";
import { VARS_FILE_HELP } from "./vars-file.js";

/** The work of `run` and `demo`, loaded when one runs (`--help` loads only this file). */
const action = () => import("./run-action.js");

/** Flags of `run` (and `demo`) as commander hands them over. */
export interface RunFlags {
  role?: string;
  config?: string;
  varsFile?: string;
  simulator?: boolean;
  speed?: string;
  seed?: string;
  /** Simulated start (with --simulator), airport-local. */
  start?: string;
  rules?: string;
  console?: boolean;
  dashboard?: boolean;
  consumer?: string;
  /** `demo --plain`: log lines instead of the live view. */
  plain?: boolean;
}

const RUN_EXAMPLES = `
Examples:
  $ npm start
      the zero-configuration demo: the built-in simulator, the example rules, notifications on the console
  $ FLIGHT_API_BASE_URL=https://api.example/public-flights/v4 FLIGHT_API_TOKEN=… REDIS_URL=redis://redis:6379 flightwatch run
      the daemon against the live service: health on :8080/healthz, metrics on :8080/metrics
  $ flightwatch run --role worker
      one more delivery worker for a deployment that shares this Redis (and FLIGHTWATCH_PREFIX)
  $ flightwatch run --config /etc/flightwatch.yaml
      the same variables from a YAML file (the environment wins over it)

\`flightwatch config\` shows the effective configuration (secrets masked) and every problem in it and in
the rule files; \`flightwatch config --check-connections\` also checks Redis and the upstream.
See docs/operations.md.`;

/** Adds `run` and `demo`. */
export function registerRunCommands(program: Command): void {
  const run = program
    .command("run")
    .description("run the daemon: poll, detect, match rules and deliver, until SIGTERM")
    .option(
      "--role <role>",
      "poller (poll, detect, match, enqueue), worker (deliver) or all",
      "all",
    )
    .option("--config <file>", "read variables from this YAML file (default FLIGHTWATCH_CONFIG)")
    .option("--vars-file <file>", VARS_FILE_HELP)
    .option(
      "--simulator",
      "poll the built-in simulator, started in this process (no account needed)",
    );
  addSimulatorOptions(run)
    .option("--rules <dir>", "rule files (overrides FLIGHTWATCH_RULES; default ./rules)")
    .option(
      "--console",
      "print every notification on the console instead of sending it (a dry run)",
    )
    .option(
      "--dashboard",
      "serve the queue dashboard (Bull Board) at /queues on HTTP_PORT; needs DASHBOARD_TOKEN",
    )
    .option("--consumer <name>", "consumer name, stable across restarts (default: host name)")
    .addHelpText("after", RUN_EXAMPLES)
    .action(async (flags: RunFlags) => {
      process.exitCode = await (await action()).runDaemonCommand(flags, process.env);
    });
  program
    .command("demo")
    .description(
      "the daemon against the built-in simulator at 120× speed, with a live view in the terminal",
    )
    .option("--speed <x>", "simulated seconds per second", "120")
    .option("--seed <n>", "simulator data seed", "1")
    .option("--rules <dir>", "rule files (default ./rules, with rules/demo.env's values)")
    .option("--plain", "log lines instead of the live view (also when the output is no terminal)")
    .option(
      "--vars-file <file>",
      `${VARS_FILE_HELP} (default rules/demo.env with the example rules)`,
    )
    .action(async (flags: RunFlags) => {
      const varsFile = flags.varsFile ?? (flags.rules === undefined ? "rules/demo.env" : undefined);
      process.exitCode = await (await action()).runDaemonCommand(
        {
          ...flags,
          ...(varsFile !== undefined ? { varsFile } : {}),
          simulator: true,
          console: true,
          demo: !flags.plain,
        },
        process.env,
      );
    });
}
