/**
 * The operations of `flightwatch api`, loaded when one runs (api-command.ts is the
 * definition that `--help` needs). Options become a typed query, the client does the
 * work, data goes to stdout through a sink that notices a reader going away.
 */
import { checkBaseUrl } from "../api/client-options.js";
import type { Collection } from "../api/contract.js";
import { FlightApiClient } from "../api/flight-api-client.js";
import type { Page } from "../api/paged-walk.js";
import type { CollectionQueries, FlightsQuery } from "../api/query-params.js";
import { clientOptionsFromEnv } from "../config/client-settings.js";
import { ConfigError, InvalidParamError } from "../errors.js";
import { airportZone, parseApiDateTime } from "../time/local-time.js";
import { VERSION } from "../version.js";
import type { CommonOptions, ListOptions } from "./api-command.js";
import { StdoutSink } from "./stdout-sink.js";

/** `api flight <id>`: one flight by its id. */
export function flight(id: string, opts: CommonOptions): Promise<void> {
  return run(opts, async (client, out) => {
    await out.write(
      `${JSON.stringify(await client.flightById(id, { signal: out.signal }), null, 2)}\n`,
    );
  });
}

/** `api flight-ids`: ids of the flights scheduled in a range. */
export function flightIds(opts: ListOptions): Promise<void> {
  return run(opts, async (client, out) => {
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
  });
}

/** `api airline <code>`: one airline by IATA or ICAO code. */
export function airline(code: string, opts: CommonOptions): Promise<void> {
  return run(opts, async (client, out) => {
    await out.write(
      `${JSON.stringify(await client.getAirlinesByCode(code, { signal: out.signal }), null, 2)}\n`,
    );
  });
}

/** `api destination <iata>`: one destination by IATA code. */
export function destination(iata: string, opts: CommonOptions): Promise<void> {
  return run(opts, async (client, out) => {
    await out.write(
      `${JSON.stringify(await client.getDestinationsByCode(iata, { signal: out.signal }), null, 2)}\n`,
    );
  });
}

/** A paged collection's subcommand: one page, or every page with `--page-all`. */
export function list(collection: Collection, opts: ListOptions): Promise<void> {
  return run(opts, (client, out) => listPages(client, collection, opts, out));
}

async function listPages(
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
