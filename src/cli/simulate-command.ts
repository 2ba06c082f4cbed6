/**
 * `flightwatch simulate`: run the built-in Flight API v4 simulator until SIGINT or
 * SIGTERM.
 *
 * This file is the definition only (what `--help` shows); starting the simulator is
 * simulate-action.ts, loaded when the command runs.
 */
import type { Command } from "commander";

/** Flags of `simulate` as commander hands them over (all strings, or booleans for switches). */
export interface SimulateFlags {
  port?: string;
  host?: string;
  pageSize?: string;
  seed?: string;
  flightsPerDay?: string;
  speed?: string;
  changeRate?: string;
  start?: string;
  zone?: string;
  live?: boolean;
  codesharesOperational?: boolean;
  token?: string[];
  appId?: string;
  appKey?: string;
  auth?: boolean;
  admin?: boolean;
  requireResourceVersion?: boolean;
  requireAccept?: boolean;
  fault5xx?: string;
  fault5xxStatuses?: string;
  fault429?: string;
  retryAfter?: string;
  latency?: string;
  jitter?: string;
  truncate?: string;
  drop?: string;
  stampLag?: string;
  faultSeed?: string;
  logRequests?: boolean;
}

/**
 * 4010, not 8080: `flightwatch run` serves health and metrics on 8080 (HTTP_PORT), and
 * the README runs the two side by side.
 */
export const DEFAULT_PORT = 4010;

const EXAMPLES = `
Examples:
  $ flightwatch simulate
      serve on http://127.0.0.1:${DEFAULT_PORT} with a fresh token, live data of today
  $ flightwatch simulate --port 0 --token dev-token --seed 7
      any free port, a fixed token and a reproducible data set
  $ flightwatch simulate --speed 60 --change-rate 3 --admin
      an hour per minute, three times the usual disruption, admin interface on
  $ flightwatch simulate --fault-5xx 0.1 --fault-429 0.05 --retry-after 2 \\
      --latency 50ms --jitter 20ms --truncate 0.01 --drop 0.01 --stamp-lag 5s
      a misbehaving upstream, to exercise a client's retries and overlap windows
  $ flightwatch simulate --start 2026-10-25T01:30:00 --speed 10
      the autumn DST change, airport-local start time
  $ flightwatch simulate --no-auth --no-live --page-size 5
      no credentials, data frozen as generated, small pages

Environment: AIRPORT_TIMEZONE (default zone), FLIGHT_API_TOKEN (default token),
FLIGHT_API_APP_ID + FLIGHT_API_APP_KEY (an accepted app_id/app_key pair).
Point the daemon or \`flightwatch api\` at the printed FLIGHT_API_BASE_URL and token.
Admin interface (--admin): GET /_admin/state, GET|PUT|PATCH /_admin/faults,
POST /_admin/actions, POST /_admin/scheduled, POST /_admin/clock; see docs/simulator.md.`;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Adds the `simulate` subcommand. */
export function registerSimulateCommand(program: Command): void {
  program
    .command("simulate")
    .description("run the built-in Flight API v4 simulator (Ctrl-C stops it)")
    .option("--port <n>", "port to listen on; 0 picks a free one", String(DEFAULT_PORT))
    .option("--host <address>", "interface to listen on", "127.0.0.1")
    .option("--page-size <n>", "items per page of every collection", "20")
    .option("--seed <n>", "seed of the generated data (same seed, same data)", "1")
    .option("--flights-per-day <n>", "flight records per local day, codeshares included", "1400")
    .option("--speed <x>", "simulated seconds per real second", "1")
    .option(
      "--change-rate <x>",
      "multiplier on delays, gate/belt changes, disruptions (0 = punctual)",
      "1",
    )
    .option(
      "--start <date-time>",
      "simulated start, airport-local yyyy-MM-ddTHH:mm[:ss] or with offset (default: now)",
    )
    .option("--zone <iana>", "airport time zone (default: AIRPORT_TIMEZONE or Europe/Amsterdam)")
    .option("--no-live", "serve the data as generated: no evolution while running")
    .option(
      "--codeshares-operational",
      "mark codeshare records isOperationalFlight=true, as captured real data does",
    )
    .option(
      "--token <token>",
      "bearer token to accept; repeat for several (default: FLIGHT_API_TOKEN or a generated one)",
      collect,
    )
    .option("--app-id <id>", "app_id of an accepted app_id/app_key pair (with --app-key)")
    .option("--app-key <key>", "app_key of an accepted app_id/app_key pair (with --app-id)")
    .option("--no-auth", "accept requests without credentials")
    .option("--admin", "serve the admin interface under /_admin (faults, actions, clock)")
    .option("--require-resource-version", "refuse requests without ResourceVersion: v4 (403)")
    .option("--no-require-accept", "let requests without an Accept header through (default: 406)")
    .option("--fault-5xx <rate>", "share of requests answered 500/502/503, 0..1")
    .option("--fault-5xx-statuses <list>", "statuses a 5xx fault picks from", "500,502,503")
    .option("--fault-429 <rate>", "share of requests answered 429, 0..1")
    .option("--retry-after <seconds>", "Retry-After seconds sent with a 429", "1")
    .option("--latency <duration>", "delay before every response, e.g. 50ms")
    .option("--jitter <duration>", "extra random delay up to this, e.g. 20ms")
    .option(
      "--truncate <rate>",
      "share of 200 bodies cut mid-JSON before the connection closes, 0..1",
    )
    .option("--drop <rate>", "share of connections destroyed before any response, 0..1")
    .option("--stamp-lag <duration>", "stamp lastUpdatedAt this far in the past, e.g. 5s")
    .option("--fault-seed <n>", "seed of the fault decisions (default: --seed)")
    .option("--log-requests", "print one line per API request to stderr")
    .addHelpText("after", EXAMPLES)
    .action(async (flags: SimulateFlags) =>
      (await import("./simulate-action.js")).runSimulateCommand(flags, process.env),
    );
}
