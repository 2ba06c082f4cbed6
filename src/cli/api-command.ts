/**
 * `flightwatch api`: call any Flight API v4 operation from the shell and print JSON.
 * Wiring only: options become a typed query, the client does the work. Data goes
 * to stdout, everything else (skipped records, hints, errors) to stderr, so the
 * output can be piped into `jq` as it is.
 *
 * Exit codes: 0 success (also when the reader of stdout goes away, as with `| head`);
 * 1 upstream failure; 2 invalid parameter, configuration or usage; 3 not found
 * (single-record operations).
 */
import { type Command, Option } from "commander";
import { checkBaseUrl } from "../api/client-options.js";
import { type Collection, FLIGHT_DIRECTIONS, SEARCH_DATE_TIME_FIELDS } from "../api/contract.js";
import { FlightApiClient } from "../api/flight-api-client.js";
import type { Page } from "../api/paged-walk.js";
import type { CollectionQueries, FlightsQuery } from "../api/query-params.js";
import { clientOptionsFromEnv } from "../config/client-settings.js";
import { ConfigError, InvalidParamError } from "../errors.js";
import { airportZone, parseApiDateTime } from "../time/local-time.js";
import { VERSION } from "../version.js";
import { StdoutSink } from "./stdout-sink.js";

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

interface CommonOptions {
  baseUrl?: string;
  airportTimezone?: string;
  maxAttempts?: string;
}

interface ListOptions extends CommonOptions {
  page?: string;
  pageAll?: boolean;
  ndjson?: boolean;
  sort?: string;
  [param: string]: unknown;
}

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
  ).action((id: string, opts: CommonOptions) =>
    run(opts, async (client, out) => {
      await out.write(
        `${JSON.stringify(await client.flightById(id, { signal: out.signal }), null, 2)}\n`,
      );
    }),
  );

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
  ).action((opts: ListOptions) =>
    run(opts, async (client, out) => {
      const ids = await client.flightByIds(
        {
          fromDateTime: dateTimeOption(opts, "fromDateTime", "from") ?? missing("fromDateTime"),
          toDateTime: dateTimeOption(opts, "toDateTime", "to") ?? missing("toDateTime"),
        },
        { signal: out.signal },
      );
      await out.write(
        opts.ndjson
          ? ids.map((id) => `${JSON.stringify(id)}\n`).join("")
          : `${JSON.stringify(ids, null, 2)}\n`,
      );
    }),
  );

  listCommand(api, "airlines", "airlines", "GET /airlines: airlines");
  common(
    api
      .command("airline <code>")
      .description("GET /airlines/{airline}: one airline by IATA or ICAO code"),
  ).action((code: string, opts: CommonOptions) =>
    run(opts, async (client, out) => {
      await out.write(
        `${JSON.stringify(await client.getAirlinesByCode(code, { signal: out.signal }), null, 2)}\n`,
      );
    }),
  );
  listCommand(api, "aircraft-types", "aircraftTypes", "GET /aircrafttypes: aircraft types")
    .option("--iata-main <code>", "main IATA type code, exactly 3 characters")
    .option("--iata-sub <code>", "sub IATA type code, exactly 3 characters");
  listCommand(api, "destinations", "destinations", "GET /destinations: destinations");
  common(
    api
      .command("destination <iata>")
      .description("GET /destinations/{iata}: one destination by IATA code"),
  ).action((iata: string, opts: CommonOptions) =>
    run(opts, async (client, out) => {
      await out.write(
        `${JSON.stringify(await client.getDestinationsByCode(iata, { signal: out.signal }), null, 2)}\n`,
      );
    }),
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
  cmd.action((opts: ListOptions) =>
    run(opts, (client, out) => list(client, collection, opts, out)),
  );
  return cmd;
}

async function list(
  client: FlightApiClient,
  collection: Collection,
  opts: ListOptions,
  out: StdoutSink,
): Promise<void> {
  const query = queryFrom(collection, opts);
  if (opts.pageAll && opts.page !== undefined) {
    throw new InvalidParamError("page", "use either --page or --page-all, not both");
  }
  if (!opts.pageAll) {
    const page = await client.getPage(
      collection,
      { ...query, ...(opts.page === undefined ? {} : { page: integer(opts.page, "page") }) },
      { signal: out.signal },
    );
    reportMalformed(page);
    await out.write(opts.ndjson ? ndjson(page.items) : `${JSON.stringify(page.items, null, 2)}\n`);
    if (page.next)
      process.stderr.write(`flightwatch api: more pages follow; use --page N or --page-all\n`);
    return;
  }
  const all: unknown[] = [];
  // The sink's signal stops the walk, in-flight request included, once the reader is gone.
  for await (const page of client.pages(collection, query, { signal: out.signal })) {
    reportMalformed(page);
    if (opts.ndjson) await out.write(ndjson(page.items));
    else all.push(...page.items);
  }
  // A JSON array is printed whole, so a failed walk never leaves half an array on stdout.
  if (!opts.ndjson) await out.write(`${JSON.stringify(all, null, 2)}\n`);
}

/** The collection's query from the options, with numbers and booleans converted. */
function queryFrom<C extends Collection>(collection: C, opts: ListOptions): CollectionQueries[C] {
  const query: Record<string, unknown> = {};
  if (opts.sort !== undefined) query.sort = opts.sort;
  if (collection === "aircraftTypes") {
    if (opts.iataMain !== undefined) query.iataMain = opts.iataMain;
    if (opts.iataSub !== undefined) query.iataSub = opts.iataSub;
  }
  if (collection === "flights") {
    const names: (keyof FlightsQuery)[] = [
      "scheduleDate",
      "scheduleTime",
      "flightName",
      "flightDirection",
      "airline",
      "route",
      "searchDateTimeField",
      "fromScheduleDate",
      "toScheduleDate",
    ];
    for (const name of names) if (opts[name] !== undefined) query[name] = opts[name];
    if (opts.airlineCode !== undefined)
      query.airlineCode = integer(String(opts.airlineCode), "airlineCode");
    if (opts.includeDelays) query.includeDelays = true;
    if (opts.isOperationalFlight !== undefined)
      query.isOperationalFlight = opts.isOperationalFlight === "true";
    const from = dateTimeOption(opts, "fromDateTime", "from");
    const to = dateTimeOption(opts, "toDateTime", "to");
    if (from !== undefined) query.fromDateTime = from;
    if (to !== undefined) query.toDateTime = to;
  }
  return query as CollectionQueries[C];
}

/**
 * A date-time option: airport-local text is passed on as it is; text with an offset
 * (`2026-11-21T09:00:00Z`) is an instant, converted to local time by the client.
 */
function dateTimeOption(
  opts: ListOptions,
  name: string,
  alias: string,
): string | number | undefined {
  const long = opts[name] as string | undefined;
  const short = opts[alias] as string | undefined;
  if (long !== undefined && short !== undefined && long !== short) {
    throw new InvalidParamError(
      name,
      `given twice (--${alias} is an alias), with different values`,
    );
  }
  const value = long ?? short;
  if (value === undefined || !/(Z|[+-]\d{2}:?\d{2})$/.test(value)) return value;
  return parseApiDateTime(value, "UTC") ?? value;
}

function missing(name: string): never {
  throw new InvalidParamError(name, "is required by /flights/ids");
}

function integer(text: string, param: string): number {
  if (!/^\d+$/.test(text))
    throw new InvalidParamError(param, `expected a non-negative integer, got "${text}"`);
  return Number(text);
}

function clientFrom(opts: CommonOptions): FlightApiClient {
  const env: Record<string, string | undefined> = { ...process.env };
  if (opts.baseUrl !== undefined)
    env.FLIGHT_API_BASE_URL = checkBaseUrl(opts.baseUrl, "--base-url");
  if (opts.airportTimezone !== undefined) {
    try {
      airportZone(opts.airportTimezone);
    } catch {
      throw new ConfigError(
        "--airport-timezone",
        `"${opts.airportTimezone}" is not an IANA time zone`,
      );
    }
    env.AIRPORT_TIMEZONE = opts.airportTimezone;
  }
  const options = clientOptionsFromEnv(env);
  if (opts.maxAttempts !== undefined) {
    if (!/^\d+$/.test(opts.maxAttempts) || Number(opts.maxAttempts) < 1) {
      throw new ConfigError(
        "--max-attempts",
        `expected a positive integer, got "${opts.maxAttempts}"`,
      );
    }
    options.maxAttempts = Number(opts.maxAttempts);
  }
  return new FlightApiClient({ ...options, userAgent: `flightwatch/${VERSION}` });
}

/**
 * Runs one operation with a client it closes afterwards. A failure propagates to
 * `main()`, which prints it on one line and picks the exit code for every subcommand.
 */
async function run(
  opts: CommonOptions,
  work: (client: FlightApiClient, out: StdoutSink) => Promise<void>,
): Promise<void> {
  const client = clientFrom(opts);
  const out = new StdoutSink();
  try {
    await work(client, out);
  } catch (err) {
    // The reader went away (`| head -3`): what is left has nowhere to go; not a failure.
    if (!out.closed) throw err;
  } finally {
    out.release();
    await client.close();
  }
}

function reportMalformed(page: Page<unknown>): void {
  for (const m of page.malformed) {
    const id = m.id === undefined ? "" : ` (id ${m.id})`;
    process.stderr.write(
      `flightwatch api: skipped malformed record #${m.index}${id} of ${page.url}: ${m.problems.join("; ")}\n`,
    );
  }
}

function ndjson(items: readonly unknown[]): string {
  return items.map((item) => `${JSON.stringify(item)}\n`).join("");
}
