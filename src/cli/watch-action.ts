/**
 * The work of `flightwatch watch` (its definition is watch-command.ts): the flags read
 * into `run`'s configuration — a flag's problem names the flag — and handed to
 * `runDaemon` with the role they choose and watch's face.
 */
import { type DaemonConfig, effectiveEnv, readDaemonConfig } from "../config/daemon-config.js";
import { readRuleVariables } from "../config/rule-variables.js";
import { runDaemon } from "../daemon/run-daemon.js";
import { watchFace } from "../daemon/watch-face.js";
import { ConfigError, renameSettings } from "../errors.js";
import { simulatorSettings } from "./embedded-simulator.js";
import type { WatchFlags } from "./watch-command.js";

/** Runs `watch` until SIGINT/SIGTERM (or the reader of stdout goes away). */
export async function runWatchCommand(
  flags: WatchFlags,
  env: Record<string, string | undefined>,
): Promise<number> {
  const ruleVars = readRuleVariables(env, flags.varsFile);
  const overrides: Record<string, string> = {};
  // A flag's problem names the flag, not the variable it overrides.
  const flagOf: Record<string, string> = {};
  const fromFlag = (name: string, flag: string, value: string | undefined): void => {
    if (value === undefined) return;
    overrides[name] = value;
    flagOf[name] = flag;
  };
  fromFlag("POLL_INTERVAL", "--interval", flags.interval);
  fromFlag("POLL_OVERLAP", "--overlap", flags.overlap);
  fromFlag("RECONCILE_INTERVAL", "--reconcile", flags.reconcile);
  const rules = flags.rules !== undefined && flags.rules !== false;
  if (typeof flags.rules === "string") overrides.FLIGHTWATCH_RULES = flags.rules;
  // No HTTP port unless asked for: several watchers may run on one machine.
  const defaults: Record<string, string> = {
    HTTP_PORT: "off",
    ...(flags.simulator ? { POLL_INTERVAL: "2s" } : {}),
  };
  const sources = {
    env: { ...env, ...overrides },
    options: { simulator: Boolean(flags.simulator), defaults },
  };
  let config: DaemonConfig;
  try {
    config = readDaemonConfig(sources.env, sources.options);
  } catch (err) {
    throw err instanceof ConfigError ? renameSettings(err, flagOf) : err;
  }
  const vars = effectiveEnv(sources.env, sources.options).env;
  const groups = {
    print: checkName("--group", flags.group ?? "watch"),
    dispatch: checkName("--dispatch-group", flags.dispatchGroup ?? "dispatch"),
  };
  const consumer =
    flags.consumer === undefined ? undefined : checkName("--consumer", flags.consumer);
  const simulator = flags.simulator ? simulatorSettings(flags, config.zone) : undefined;
  const consoleOnly = Boolean(flags.console);
  return runDaemon({
    config,
    vars,
    ruleVars,
    // Change events; alerts with --rules --no-deliver; the whole pipeline with --rules.
    role: !rules ? "detect" : flags.deliver === false ? "decide" : "all",
    ...(flags.poll === false ? { without: ["poll"] } : {}),
    groups,
    ...(simulator ? { simulator } : {}),
    consoleOnly,
    ...(consumer !== undefined ? { consumer } : {}),
    face: watchFace({
      ...(flags.quiet ? { quiet: true } : {}),
      consoleOnly,
      ...(vars.LOG_LEVEL !== undefined ? { logLevel: config.log.level } : {}),
    }),
  });
}

function checkName(flag: string, value: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(value)) {
    throw new ConfigError(
      flag,
      `"${value}" is not a usable name (1–64 of letters, digits, _ . : -)`,
    );
  }
  return value;
}
