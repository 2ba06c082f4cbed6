/**
 * `flightwatch watch`: the flags, read into the same configuration as `run`'s and
 * handed to `runDaemon` with the detect-only role (every change event as one JSON line
 * on stdout) — or, with `--rules`, the decide role (alerts on stdout) or the whole
 * pipeline — and watch's face (src/daemon/watch-face.ts). This file is the definition
 * (what `--help` shows); the work is watch-action.ts.
 */
import type { Command } from "commander";
import { SIMULATOR_PREFIX } from "../store/redis-keys.js";
import { addSimulatorOptions } from "./simulator-flags.js";
import { VARS_FILE_HELP } from "./vars-file.js";

/** The work of `watch`, loaded when it runs (`--help` loads only this file). */
const action = () => import("./watch-action.js");

/** Flags of `watch` as commander hands them over. */
export interface WatchFlags {
  simulator?: boolean;
  speed?: string;
  seed?: string;
  /** Simulated start (with --simulator), airport-local. */
  start?: string;
  interval?: string;
  overlap?: string;
  reconcile?: string;
  group?: string;
  dispatchGroup?: string;
  consumer?: string;
  poll?: boolean;
  quiet?: boolean;
  varsFile?: string;
  /** `--rules` alone is `true`: the default directory. */
  rules?: string | boolean;
  /** `--no-deliver` makes it false: print the alerts instead of delivering them. */
  deliver?: boolean;
  /** Print every notification on the console instead of sending it. */
  console?: boolean;
}

const EXAMPLES = `
Examples:
  $ flightwatch watch --simulator
      watch the built-in simulator (no account needed); a change event per line
  $ flightwatch watch --simulator --speed 10 --rules --vars-file rules/demo.env --console
      the example rules against the simulator, as a dry run: each notification and where it would go
  $ SMTP_URL=smtp://127.0.0.1:1025 EMAIL_FROM=alerts@example.com flightwatch watch --rules
      deliver for real (Slack, email, webhooks); \`flightwatch deliveries\` shows what happened
  $ flightwatch watch --simulator --speed 60 --interval 2s | jq -c '{flight: .flight.flightNames[0], kind, old, new}'
      an hour of airport per minute, condensed with jq
  $ FLIGHT_API_BASE_URL=https://api.example/public-flights/v4 FLIGHT_API_TOKEN=… flightwatch watch
      the live service

Environment: FLIGHT_API_BASE_URL, FLIGHT_API_TOKEN or FLIGHT_API_APP_ID + FLIGHT_API_APP_KEY,
AIRPORT_TIMEZONE, REDIS_URL (default redis://127.0.0.1:6379), FLIGHTWATCH_PREFIX,
POLL_INTERVAL (30s; 2s with --simulator), POLL_OVERLAP (60s, the most), POLL_OVERLAP_MIN (1s),
RECONCILE_INTERVAL (1h),
HORIZON_PAST_DAYS (1), HORIZON_FUTURE_DAYS (2), SNAPSHOT_TTL (3d), OUTBOX_RETENTION (7d),
with --rules: SMTP_URL, EMAIL_FROM, DELIVERY_STALL_TIMEOUT (30s).
Several watchers may share one Redis: exactly one poll runs per interval among them.
With --simulator and no FLIGHTWATCH_PREFIX, data goes under a prefix of its own
(${SIMULATOR_PREFIX}-…), removed at the stop (the simulated airport is new each time).
Warnings and errors are log lines on stderr (LOG_LEVEL, default warn for watch).
See docs/detection.md and docs/delivery.md.`;

/** Adds the `watch` subcommand. */
export function registerWatchCommand(program: Command): void {
  const watch = program
    .command("watch")
    .description(
      "detect flight changes and print each change event as a JSON line (or, with --rules, each alert)",
    )
    .option("--simulator", "watch the built-in simulator, started in this process");
  addSimulatorOptions(watch)
    .option("--interval <duration>", "time between polls (overrides POLL_INTERVAL)")
    .option(
      "--overlap <duration>",
      "the most incremental windows reach back; they follow the stamp lag observed (overrides POLL_OVERLAP)",
    )
    .option(
      "--reconcile <duration>",
      "full re-read interval, 0 = never (overrides RECONCILE_INTERVAL)",
    )
    .option(
      "--group <name>",
      "consumer group of what is printed (events, or alerts with --rules): watchers in one group share them",
      "watch",
    )
    .option(
      "--dispatch-group <name>",
      "with --rules: the dispatcher's group on the outbox; processes in one group share the work and must run the same rules",
      "dispatch",
    )
    .option("--consumer <name>", "consumer name, stable across restarts (default: host name)")
    .option(
      "--rules [dir]",
      "match changes against the rule files in dir (default: FLIGHTWATCH_RULES or ./rules) and deliver the alerts through their channels instead of printing the events",
    )
    .option(
      "--no-deliver",
      "with --rules: print each alert (JSON when piped) instead of delivering it through its channels",
    )
    .option(
      "--console",
      "with --rules: print every notification on the console instead of sending it to Slack, email or webhooks (a dry run)",
    )
    .option("--vars-file <file>", VARS_FILE_HELP)
    .option("--no-poll", "only print events; polling is left to other processes")
    .option("--quiet", "no poll summaries on stderr")
    .addHelpText("after", EXAMPLES)
    .action(async (flags: WatchFlags) => {
      process.exitCode = await (await action()).runWatchCommand(flags, process.env);
    });
}
