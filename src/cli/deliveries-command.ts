/**
 * `flightwatch deliveries`: what delivery did — recent attempts, dead letters,
 * disabled endpoints, queue depths — and the repairs: `retry` sends dead letters
 * again under their notification ids, `enable` re-enables an endpoint disabled by a
 * 410 Gone, `replay` sends a window's deliveries again under new ids. Reads the same
 * Redis (`REDIS_URL`, `FLIGHTWATCH_PREFIX`) as the daemon and says which prefix it read;
 * the daemon's workers do the sending.
 *
 * This file is the definition only (what `--help` shows); the work is
 * deliveries-action.ts, loaded when a subcommand runs.
 */
import type { Command } from "commander";

const EXAMPLES = `
Examples:
  $ flightwatch deliveries
      the newest delivery attempts, the dead letters and any disabled endpoint
  $ flightwatch deliveries --json | jq '.deadLetters[].reason'
  $ flightwatch deliveries retry msg_3kq5cz0y1b6x2m4n7p8r9s0tua
      send one dead letter again (same notification id: receivers can deduplicate)
  $ flightwatch deliveries retry --all
  $ flightwatch deliveries enable ep_4f1c2a9b0e7d
      after fixing a webhook receiver that answered 410 Gone
  $ flightwatch deliveries replay --since 2h --rule partner-feed --dry-run
      what the last two hours sent through rule partner-feed (and its dead letters)
  $ flightwatch deliveries replay --since 2026-11-21T08:00 --until 2026-11-21T10:30 --flight KL1001
      send again, under new ids marked as replays, what a receiver lost in an outage
`;

/** Flags of `deliveries`. */
export interface ListFlags {
  limit?: string;
  json?: boolean;
}

/** Flags of `deliveries retry`. */
export interface RetryFlags {
  all?: boolean;
}

/** Flags of `deliveries replay`. */
export interface ReplayFlags {
  since: string;
  until?: string;
  rule?: string;
  flight?: string;
  dryRun?: boolean;
}

/** The subcommands' work, loaded when one runs. */
const actions = () => import("./deliveries-action.js");

/** Adds `deliveries`, `deliveries retry` and `deliveries enable` to the program. */
export function registerDeliveriesCommand(program: Command): void {
  const deliveries = program
    .command("deliveries")
    .description(
      "list recent deliveries, dead letters and disabled endpoints (REDIS_URL, FLIGHTWATCH_PREFIX)",
    )
    .option("--limit <n>", "how many recent attempts and dead letters to show", "20")
    .option("--json", "one JSON object instead of text")
    .addHelpText("after", EXAMPLES)
    .action(async (flags: ListFlags) => (await actions()).listDeliveries(flags));

  deliveries
    .command("retry")
    .description(
      "send dead letters (or delivered notifications still kept) again, under the same notification ids",
    )
    .argument("[ids...]", "notification ids (msg_…) as `deliveries` lists them")
    .option("--all", "every dead letter")
    .action(async (ids: string[], flags: RetryFlags) =>
      (await actions()).retryDeliveries(ids, flags),
    );

  deliveries
    .command("replay")
    .description(
      "send again what was delivered or dead-lettered in a window, under new ids marked as replays",
    )
    .requiredOption(
      "--since <time>",
      "from: airport-local (2026-11-21T08:00), ISO with an offset, or a duration ago (2h)",
    )
    .option("--until <time>", "to (default: now), written as --since")
    .option("--rule <id>", "only this rule's notifications (sub:<id> for a subscription)")
    .option("--flight <number>", "only those about this flight number (operating or codeshare)")
    .option("--dry-run", "list what would be sent again; send nothing")
    .action(async (flags: ReplayFlags) => (await actions()).replayDeliveries(flags));
  deliveries
    .command("enable")
    .description("re-enable an endpoint that a 410 Gone disabled (then `deliveries retry --all`)")
    .argument("<endpoint>", "endpoint id (ep_…) as `deliveries` lists it")
    .action(async (endpoint: string) => (await actions()).enableEndpoint(endpoint));
}
