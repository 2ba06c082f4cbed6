/**
 * `flightwatch api`: call any Flight API v4 operation from the shell and print JSON.
 * Wiring only: options become a typed query, the client does the work. Data goes
 * to stdout, everything else (skipped records, hints, errors) to stderr, so the
 * output can be piped into `jq` as it is.
 *
 * Exit codes: 0 success (also when the reader of stdout goes away, as with `| head`);
 * 1 upstream failure; 2 invalid parameter, configuration or usage; 3 not found
 * (single-record operations).
 *
 * This file is the definition only (what `--help` shows); the operations are
 * api-action.ts, loaded when one runs, so that `flightwatch --help` loads no HTTP client.
 */
import { type Command, Option } from "commander";
import { type Collection, FLIGHT_DIRECTIONS, SEARCH_DATE_TIME_FIELDS } from "../api/contract.js";

/** Example lines per subcommand; `api --help` shows them all. */
const EXAMPLES: Record<string, string[]> = {
  flights: [
    "flights --flight-direction D --page-all",
    "flights --schedule-date 2026-11-21 --airline KL --page-all --ndjson",
    "flights --from-date-time 2026-11-21T06:00:00 --to-date-time 2026-11-21T09:00:00 \\\n" +
      "      --search-date-time-field lastUpdatedAt --sort -lastUpdatedAt --page 2",
  ],
  flight: ["flight 123456789012345678"],
  "flight-ids": ["flight-ids --from 2026-11-21T00:00:00 --to 2026-11-22T00:00:00"],
  airlines: ["airlines --page-all", "airlines --sort -publicName --page 1"],
  airline: ["airline KL", "airline KLM"],
  "aircraft-types": ["aircraft-types --iata-main 73H"],
  destinations: ["destinations", "destinations --page-all --ndjson"],
  destination: ["destination AMS"],
};

const FOOTER = `
Configuration: FLIGHT_API_BASE_URL (or --base-url), FLIGHT_API_TOKEN or
FLIGHT_API_APP_ID + FLIGHT_API_APP_KEY, AIRPORT_TIMEZONE (default Europe/Amsterdam),
FLIGHT_API_TIMEOUT, FLIGHT_API_CONNECT_TIMEOUT, FLIGHT_API_REQUEST_TIMEOUT,
FLIGHT_API_MAX_BODY, FLIGHT_API_MAX_ATTEMPTS.
Output: JSON on stdout; skipped malformed records, hints and errors on stderr.
Exit codes: 0 ok, 1 upstream failure, 2 invalid parameter/configuration/usage, 3 not found.`;

function examples(names: string[]): string {
  const lines = names
    .flatMap((name) => EXAMPLES[name] ?? [])
    .map((l) => `  $ flightwatch api ${l}`);
  return `\nExamples:\n${lines.join("\n")}\n${FOOTER}`;
}

/** Options every operation takes. */
export interface CommonOptions {
  baseUrl?: string;
  airportTimezone?: string;
  maxAttempts?: string;
}

/** Options of a paged collection's subcommand, and of `flight-ids`. */
export interface ListOptions extends CommonOptions {
  page?: string;
  pageAll?: boolean;
  ndjson?: boolean;
  sort?: string;
  [param: string]: unknown;
}

/** The operations, loaded when one runs. */
const operations = () => import("./api-action.js");

/** Adds the `api` subcommand and one subcommand per operation. */
export function registerApiCommand(program: Command): void {
  const api = program
    .command("api")
    .description("call a Flight API v4 operation and print JSON")
    .addHelpText("after", examples(Object.keys(EXAMPLES)));

  listCommand(
    api,
    "flights",
    "flights",
    "GET /flights: flights of one schedule date (default today)",
  )
    .option("--schedule-date <yyyy-MM-dd>", "schedule date (default: today, the API's choice)")
    .option("--schedule-time <HH:mm>", "flights scheduled from this time")
    .option("--flight-name <name>", "flight number as printed, 5 to 8 characters (e.g. KL1234)")
    .addOption(
      new Option("--flight-direction <A|D>", "A arrivals, D departures").choices(FLIGHT_DIRECTIONS),
    )
    .option("--airline <prefix>", "2- or 3-character airline prefix (not with --airline-code)")
    .option("--airline-code <nvls>", "NVLS airline code (not with --airline)")
    .option("--route <codes>", "airport codes, comma-separated (e.g. LHR,CDG)")
    .option("--include-delays", "also flights of earlier dates delayed onto this one")
    .option(
      "--from-date-time <local>",
      "lower bound, airport-local yyyy-MM-ddTHH:mm:ss (or an instant with offset)",
    )
    .option("--to-date-time <local>", "upper bound, inclusive, same forms")
    .addOption(new Option("--from <local>", "alias of --from-date-time").hideHelp())
    .addOption(new Option("--to <local>", "alias of --to-date-time").hideHelp())
    .addOption(
      new Option("--search-date-time-field <field>", "date-time field the bounds apply to").choices(
        SEARCH_DATE_TIME_FIELDS,
      ),
    )
    .option("--from-schedule-date <yyyy-MM-dd>", "lower bound of a schedule-date range")
    .option("--to-schedule-date <yyyy-MM-dd>", "upper bound of a schedule-date range")
    .addOption(
      new Option("--is-operational-flight <bool>", "operational (true) or not (false)").choices([
        "true",
        "false",
      ]),
    );

  common(
    api.command("flight <id>").description("GET /flights/{id}: one flight by its id (digits)"),
  ).action(async (id: string, opts: CommonOptions) => (await operations()).flight(id, opts));

  common(
    api
      .command("flight-ids")
      .description("GET /flights/ids: ids of flights scheduled in a range of at most three days")
      .option(
        "--from-date-time <local>",
        "lower bound, airport-local yyyy-MM-ddTHH:mm:ss (or an instant with offset)",
      )
      .option("--to-date-time <local>", "upper bound, inclusive, same forms")
      .option("--from <local>", "alias of --from-date-time")
      .option("--to <local>", "alias of --to-date-time")
      .option("--ndjson", "one id per line"),
  ).action(async (opts: ListOptions) => (await operations()).flightIds(opts));

  listCommand(api, "airlines", "airlines", "GET /airlines: airlines");
  common(
    api
      .command("airline <code>")
      .description("GET /airlines/{airline}: one airline by IATA or ICAO code"),
  ).action(async (code: string, opts: CommonOptions) => (await operations()).airline(code, opts));
  listCommand(api, "aircraft-types", "aircraftTypes", "GET /aircrafttypes: aircraft types")
    .option("--iata-main <code>", "main IATA type code, exactly 3 characters")
    .option("--iata-sub <code>", "sub IATA type code, exactly 3 characters");
  listCommand(api, "destinations", "destinations", "GET /destinations: destinations");
  common(
    api
      .command("destination <iata>")
      .description("GET /destinations/{iata}: one destination by IATA code"),
  ).action(async (iata: string, opts: CommonOptions) =>
    (await operations()).destination(iata, opts),
  );
}

/** Options every operation takes. */
function common(cmd: Command): Command {
  return cmd
    .option("--base-url <url>", "API base URL (overrides FLIGHT_API_BASE_URL)")
    .option(
      "--airport-timezone <zone>",
      "IANA zone of local date-times (overrides AIRPORT_TIMEZONE)",
    )
    .option("--max-attempts <n>", "attempts per request, retries included (default 4)")
    .addHelpText("after", examples([cmd.name()]));
}

/** A paged collection's subcommand; its own options are added by the caller. */
function listCommand(
  api: Command,
  name: string,
  collection: Collection,
  description: string,
): Command {
  const cmd = common(api.command(name).description(description))
    .option("--page <n>", "zero-based page to read (0 to 499; default 0)")
    .option("--page-all", "read every page by following the next links")
    .option("--ndjson", "one JSON item per line (streams with --page-all)")
    .option(
      "--sort <fields>",
      "sort fields, comma-separated, each prefixed + or - (e.g. -scheduleTime)",
    );
  cmd.action(async (opts: ListOptions) => (await operations()).list(collection, opts));
  return cmd;
}
