/**
 * The work of `flightwatch run` and `demo` (their definition is run-command.ts): the
 * flags read into the configuration, every problem at once (exit 2), and handed to
 * `runDaemon` with `run`'s face or the demo's live view.
 */
import { configSourcesFor, effectiveEnv, readDaemonConfig } from "../config/daemon-config.js";
import { readRuleVariables } from "../config/rule-variables.js";
import { runDaemon } from "../daemon/run-daemon.js";
import { demoFace } from "../demo/demo-face.js";
import { simulatorSettings } from "./embedded-simulator.js";
import { integer, SEED_MAX, SEED_MIN } from "./flag-values.js";
import type { RunFlags } from "./run-command.js";

/** Runs the daemon until a signal; resolves to the exit code. */
export async function runDaemonCommand(
  flags: RunFlags & { demo?: boolean },
  env: Record<string, string | undefined>,
): Promise<number> {
  const sources = configSourcesFor(flags, env);
  const config = readDaemonConfig(sources.env, sources.options);
  const ruleVars = readRuleVariables(env, flags.varsFile);
  const simulator = flags.simulator ? simulatorSettings(flags, config.zone) : undefined;
  // Checked before anything starts, as every other setting is.
  integer("--seed", flags.seed ?? "1", SEED_MIN, SEED_MAX);
  const live = flags.demo === true && process.stdout.isTTY === true;
  const consoleOnly = Boolean(flags.console);
  return runDaemon({
    config,
    vars: effectiveEnv(sources.env, sources.options).env,
    ruleVars,
    ...(simulator ? { simulator } : {}),
    consoleOnly,
    ...(flags.consumer !== undefined ? { consumer: flags.consumer } : {}),
    // In a dry run the console shows each alert already: its log lines are detail.
    face: live ? demoFace(simulator?.speed ?? 1) : { quietAlerts: consoleOnly },
  });
}
