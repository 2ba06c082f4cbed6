/**
 * `flightwatch watch`: change detection alone. Polls the upstream (or the built-in
 * simulator with `--simulator`), keeps snapshots in Redis, and prints every change
 * event as one JSON line on stdout; poll summaries and problems go to stderr.
 */
import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { clientOptionsFromEnv, type FlightApiClientOptions } from "../api/client-options.js";
import { detectorSettingsFromEnv, redisSettingsFromEnv } from "../detect/detect-config.js";
import type { PollReport } from "../detect/detector.js";
import { startWatch } from "../detect/watch.js";
import { ConfigError, describeError } from "../errors.js";
import { type RunningSimulator, startSimulator } from "../simulator/http/start-simulator.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import { integer, number, SEED_MAX, SEED_MIN } from "./flag-values.js";

/** Flags of `watch` as commander hands them over. */
export interface WatchFlags {
  simulator?: boolean;
  speed?: string;
  seed?: string;
  interval?: string;
  overlap?: string;
  reconcile?: string;
  group?: string;
  consumer?: string;
  poll?: boolean;
  quiet?: boolean;
}

/** Prefix of `watch --simulator` when FLIGHTWATCH_PREFIX is not set; cleared at every start. */
export const SIMULATOR_PREFIX = "flightwatch-demo";

const EXAMPLES = `
Examples:
  $ flightwatch watch --simulator
      watch the built-in simulator (no account needed); a change event per line
  $ flightwatch watch --simulator --speed 60 --interval 2s | jq -c '{flight: .flight.flightNames[0], kind, old, new}'
      an hour of airport per minute, condensed with jq
  $ FLIGHT_API_BASE_URL=https://api.example/public-flights/v4 FLIGHT_API_TOKEN=… flightwatch watch
      the live service

Environment: FLIGHT_API_BASE_URL, FLIGHT_API_TOKEN or FLIGHT_API_APP_ID + FLIGHT_API_APP_KEY,
AIRPORT_TIMEZONE, REDIS_URL (default redis://127.0.0.1:6379), FLIGHTWATCH_PREFIX,
POLL_INTERVAL (30s; 2s with --simulator), POLL_OVERLAP (60s), RECONCILE_INTERVAL (15m),
HORIZON_PAST_DAYS (1), HORIZON_FUTURE_DAYS (2), SNAPSHOT_TTL (3d), OUTBOX_RETENTION (7d).
Several watchers may share one Redis: exactly one poll runs per interval among them.
With --simulator and no FLIGHTWATCH_PREFIX, data goes under the prefix ${SIMULATOR_PREFIX},
cleared at every start (the simulated airport is new each time).
See docs/detection.md.`;

/** Adds the `watch` subcommand. */
export function registerWatchCommand(program: Command): void {
  program
    .command("watch")
    .description("detect flight changes and print each change event as a JSON line")
    .option("--simulator", "watch the built-in simulator, started in this process")
    .option(
      "--speed <x>",
      "simulator clock speed, simulated seconds per second (with --simulator)",
      "1",
    )
    .option("--seed <n>", "simulator data seed (with --simulator)", "1")
    .option("--interval <duration>", "time between polls (overrides POLL_INTERVAL)")
    .option(
      "--overlap <duration>",
      "how far incremental windows reach back (overrides POLL_OVERLAP)",
    )
    .option(
      "--reconcile <duration>",
      "full re-read interval, 0 = never (overrides RECONCILE_INTERVAL)",
    )
    .option("--group <name>", "outbox consumer group: watchers in one group share events", "watch")
    .option("--consumer <name>", "consumer name, stable across restarts (default: host name)")
    .option("--no-poll", "only print events; polling is left to other processes")
    .option("--quiet", "no poll summaries on stderr")
    .addHelpText("after", EXAMPLES)
    .action(async (flags: WatchFlags) => {
      await runWatchCommand(flags, process.env);
    });
}

/** Runs `watch` until SIGINT/SIGTERM. */
export async function runWatchCommand(
  flags: WatchFlags,
  env: Record<string, string | undefined>,
): Promise<void> {
  const overrides: Record<string, string> = {};
  if (flags.interval !== undefined) overrides.POLL_INTERVAL = flags.interval;
  else if (flags.simulator && !env.POLL_INTERVAL) overrides.POLL_INTERVAL = "2s";
  if (flags.overlap !== undefined) overrides.POLL_OVERLAP = flags.overlap;
  if (flags.reconcile !== undefined) overrides.RECONCILE_INTERVAL = flags.reconcile;
  const settings = detectorSettingsFromEnv(env, overrides);
  const redis = redisSettingsFromEnv(env);
  // The embedded simulator is a new airport at every start: unless told otherwise,
  // keep its data apart from a real installation's and start from a clean slate.
  const fresh = Boolean(flags.simulator) && !env.FLIGHTWATCH_PREFIX?.trim();
  if (fresh) redis.prefix = SIMULATOR_PREFIX;
  const group = checkName("--group", flags.group ?? "watch");
  const consumer =
    flags.consumer === undefined ? undefined : checkName("--consumer", flags.consumer);

  let sim: RunningSimulator | undefined;
  let client: FlightApiClientOptions;
  let now: (() => number) | undefined;
  if (flags.simulator) {
    const zone = env.AIRPORT_TIMEZONE || DEFAULT_AIRPORT_TIMEZONE;
    const token = randomUUID();
    sim = await startSimulator({
      seed: integer("--seed", flags.seed ?? "1", SEED_MIN, SEED_MAX),
      speed: number("--speed", flags.speed ?? "1", (x) => x > 0, "a number > 0"),
      zone,
      tokens: [token],
    });
    client = { baseUrl: sim.baseUrl, token, airportTimezone: zone };
    const clock = sim.simulator.clock;
    now = () => clock.now();
    process.stderr.write(`flightwatch: watching the built-in simulator at ${sim.baseUrl}\n`);
  } else {
    client = clientOptionsFromEnv(env);
  }

  const stopSignal = new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  let polls = 0;
  try {
    const watcher = await startWatch({
      client,
      redis,
      settings,
      group,
      ...(consumer ? { consumer } : {}),
      ...(now ? { now } : {}),
      noPoll: flags.poll === false,
      fresh,
      onEvent: (event) => writeLine(`${JSON.stringify(event)}\n`),
      onPoll: (report) => {
        polls++;
        if (!flags.quiet) process.stderr.write(`${describePoll(polls, report)}\n`);
      },
      onError: (err) => {
        process.stderr.write(`flightwatch: ${describeError(err)}\n`);
      },
    });
    await Promise.race([stopSignal, watcher.done]);
    await watcher.stop();
  } finally {
    await sim?.close();
  }
}

/** Writes to stdout, waiting when the pipe is full (an event is acknowledged after). */
function writeLine(line: string): Promise<void> | undefined {
  if (process.stdout.write(line)) return undefined;
  return new Promise((resolve) => process.stdout.once("drain", () => resolve()));
}

/** One line about a poll, for stderr. */
export function describePoll(n: number, report: PollReport): string {
  const head = `poll ${n}`;
  switch (report.outcome) {
    case "skipped":
      return `${head}: backing off after failures`;
    case "conflict":
      return `${head}: another poll committed first; nothing written`;
    case "failed": {
      const behind = report.behindMs ? ` (${Math.round(report.behindMs / 1000)} s behind)` : "";
      const why = report.error ? describeError(report.error) : "unknown error";
      return `${head} ${report.mode ?? ""} failed after ${report.durationMs} ms${behind}: ${why}`;
    }
    default:
      return `${head} ${report.mode}: ${report.requests} requests, ${report.records} records, ${report.flights} flights, ${report.events.length} events, ${report.durationMs} ms`;
  }
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
