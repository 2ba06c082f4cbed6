/**
 * Typed parameters of every operation and their validation. Each builder either
 * returns exactly what goes on the wire (camel-case names only, in a fixed order)
 * or throws an InvalidParamError naming the parameter as the API spells it, before
 * anything is sent. All limits come from `contract.ts`.
 */
import { InvalidParamError } from "../errors.js";
import { localWindow, toLocalDateTime } from "../time/local-time.js";
import {
  type Collection,
  FLIGHT_DIRECTIONS,
  FLIGHT_ID_PATTERN,
  FLIGHT_IDS_MAX_RANGE_MS,
  type FlightDirection,
  LIMITS,
  PAGE_MAX,
  parseSort,
  ROUTE_CODE_PATTERN,
  SEARCH_DATE_TIME_FIELDS,
  type SearchDateTimeField,
} from "./contract.js";
import { COLLECTION_ENDPOINTS } from "./operation-id.js";
import { isApiDate, isApiLocalDateTime, isApiTime } from "./param-formats.js";

/**
 * An airport-local date-time: `yyyy-MM-dd'T'HH:mm:ss` as the API takes it, or an
 * instant (Date or epoch ms) that is converted to the airport's wall clock. When both
 * bounds of a window are instants they are converted together (`localWindow`): across
 * the autumn change the local bounds widen to cover both passes of the repeated hour,
 * so the answer may hold records outside the instants asked for, and callers that
 * need exactness filter by the records' own timestamps.
 */
export type LocalDateTimeInput = string | Date | number;

/** Query of `getFlights` (`GET /flights`). */
export interface FlightsQuery {
  /** `yyyy-MM-dd`; the upstream defaults to today. */
  scheduleDate?: string;
  /** `HH:mm`: flights scheduled from this time. */
  scheduleTime?: string;
  /** 5 to 8 characters, e.g. `KL1234`. */
  flightName?: string;
  flightDirection?: FlightDirection;
  /** 2- or 3-character airline prefix; not together with `airlineCode`. */
  airline?: string;
  /** NVLS airline code; not together with `airline`. */
  airlineCode?: number;
  /** Airport codes, comma-separated text or a list. */
  route?: string | readonly string[];
  includeDelays?: boolean;
  /** 0 to 499. */
  page?: number;
  /** E.g. `+scheduleDate,-scheduleTime`. */
  sort?: string;
  fromDateTime?: LocalDateTimeInput;
  toDateTime?: LocalDateTimeInput;
  searchDateTimeField?: SearchDateTimeField;
  fromScheduleDate?: string;
  toScheduleDate?: string;
  isOperationalFlight?: boolean;
}

/** Query of `flightByIds` (`GET /flights/ids`): an inclusive range of at most three days. */
export interface FlightIdsQuery {
  fromDateTime: LocalDateTimeInput;
  toDateTime: LocalDateTimeInput;
}

/** Query of `getAirlines`. */
export interface AirlinesQuery {
  page?: number;
  sort?: string;
}

/** Query of `getAircraftTypes`. */
export interface AircraftTypesQuery {
  /** Exactly 3 characters. */
  iataMain?: string;
  /** Exactly 3 characters. */
  iataSub?: string;
  page?: number;
  sort?: string;
}

/** Query of `getDestinations`. */
export interface DestinationsQuery {
  page?: number;
  sort?: string;
}

/** Query type of each paged collection. */
export interface CollectionQueries {
  flights: FlightsQuery;
  airlines: AirlinesQuery;
  aircraftTypes: AircraftTypesQuery;
  destinations: DestinationsQuery;
}

/** Query parameters in send order, values not yet URL-encoded. */
export type QueryPairs = [name: string, value: string][];

type Converter = (value: unknown, name: string, zone: string) => string;

const fail = (name: string, message: string): never => {
  throw new InvalidParamError(name, message);
};

const text =
  (check: (s: string) => boolean, expected: string): Converter =>
  (value, name) => {
    if (typeof value !== "string") return fail(name, `expected a string (${expected})`);
    if (!check(value)) return fail(name, `"${value}" is not ${expected}`);
    return value;
  };

const length = (limits: { min: number; max: number }): Converter =>
  text(
    (s) => s.length >= limits.min && s.length <= limits.max,
    limits.min === limits.max
      ? `exactly ${limits.min} characters long`
      : `${limits.min} to ${limits.max} characters long`,
  );

const oneOf = (allowed: readonly string[]): Converter =>
  text((s) => allowed.includes(s), `one of ${allowed.join(", ")}`);

const date = text(isApiDate, "a date yyyy-MM-dd");

const bool: Converter = (value, name) =>
  typeof value === "boolean" ? String(value) : fail(name, "expected true or false");

const page: Converter = (value, name) =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= PAGE_MAX
    ? String(value)
    : fail(name, `expected an integer from 0 to ${PAGE_MAX}, got ${String(value)}`);

const sortOf =
  (collection: Collection): Converter =>
  (value, name) => {
    if (typeof value !== "string") return fail(name, "expected a string such as +field,-field");
    const parsed = parseSort(collection, value);
    return parsed.ok ? value : fail(name, parsed.reason);
  };

const INT32_MAX = 2 ** 31 - 1;

const airlineCode: Converter = (value, name) =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= INT32_MAX
    ? String(value)
    : fail(name, `expected a non-negative integer (NVLS code), got ${String(value)}`);

const route: Converter = (value, name) => {
  const codes = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(codes) || codes.length === 0) {
    return fail(name, "expected one or more airport codes, comma-separated");
  }
  // No trimming: the upstream gets exactly what was asked, so " LHR" is refused, not fixed.
  for (const code of codes) {
    if (typeof code !== "string" || !ROUTE_CODE_PATTERN.test(code)) {
      return fail(
        name,
        `expected 3- or 4-character airport codes separated by single commas, got "${String(value)}"`,
      );
    }
  }
  return codes.join(",");
};

/** Airport-local `yyyy-MM-dd'T'HH:mm:ss` of a LocalDateTimeInput, or an InvalidParamError. */
export function toLocalDateTimeParam(value: unknown, name: string, zone: string): string {
  if (typeof value === "string") {
    return isApiLocalDateTime(value)
      ? value
      : fail(name, `"${value}" is not a local date-time yyyy-MM-dd'T'HH:mm:ss (no offset)`);
  }
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== "number" || !Number.isFinite(ms)) {
    return fail(name, "expected a local date-time text, a valid Date or epoch milliseconds");
  }
  // Past the Date range (±8.64e15 ms) or year 9999 the conversion yields no real date.
  const local = Number.isNaN(new Date(ms).getTime()) ? "" : toLocalDateTime(ms, zone);
  return isApiLocalDateTime(local)
    ? local
    : fail(name, `${ms} ms since the epoch is not a date the API can take`);
}

/** Epoch ms of an instant input (Date or number), or undefined for local text and the rest. */
function instantOf(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  return typeof value === "number" ? value : undefined;
}

/**
 * Converts a `fromDateTime`/`toDateTime` pair of instants together. Converting each
 * end on its own breaks on the autumn day: 00:30Z..01:10Z becomes 02:30..02:10 local,
 * an inverted window. `localWindow` widens the local bounds to cover both passes of
 * the repeated hour instead. Anything else is left for the per-parameter converters.
 */
function withInstantWindow(given: Record<string, unknown>, zone: string): Record<string, unknown> {
  const fromMs = instantOf(given.fromDateTime);
  const toMs = instantOf(given.toDateTime);
  if (fromMs === undefined || toMs === undefined) return given;
  const from = toLocalDateTimeParam(fromMs, "fromDateTime", zone);
  const to = toLocalDateTimeParam(toMs, "toDateTime", zone);
  if (toMs < fromMs)
    fail(
      "toDateTime",
      `${new Date(toMs).toISOString()} is before fromDateTime ${new Date(fromMs).toISOString()}`,
    );
  const window = localWindow(fromMs, toMs, zone);
  // Widening can cross the year-9999 edge that each end alone stayed within.
  return {
    ...given,
    fromDateTime: isApiLocalDateTime(window.from) ? window.from : from,
    toDateTime: isApiLocalDateTime(window.to) ? window.to : to,
  };
}

/** Epoch ms of a local date-time or date text read as UTC: its place on the wall clock. */
const wallMs = (local: string): number =>
  Date.parse(`${local.length === 10 ? `${local}T00:00:00` : local}Z`);

/** Fails naming `toName` when both bounds were sent and `to` is before `from`. */
function checkOrder(pairs: QueryPairs, fromName: string, toName: string): void {
  const from = pairs.find(([n]) => n === fromName)?.[1];
  const to = pairs.find(([n]) => n === toName)?.[1];
  if (from !== undefined && to !== undefined && wallMs(to) < wallMs(from)) {
    fail(toName, `${to} is before ${fromName} ${from}`);
  }
}

const PAGE_AND_SORT = (collection: Collection): Record<string, Converter> => ({
  page,
  sort: sortOf(collection),
});

// Key order is wire order, so equal queries always produce equal URLs.
const QUERY_SPECS: Record<Collection, Record<string, Converter>> = {
  flights: {
    scheduleDate: date,
    scheduleTime: text(isApiTime, "a time HH:mm"),
    flightName: length(LIMITS.flightName),
    flightDirection: oneOf(FLIGHT_DIRECTIONS),
    airline: length(LIMITS.airline),
    airlineCode,
    route,
    includeDelays: bool,
    fromDateTime: toLocalDateTimeParam,
    toDateTime: toLocalDateTimeParam,
    searchDateTimeField: oneOf(SEARCH_DATE_TIME_FIELDS),
    fromScheduleDate: date,
    toScheduleDate: date,
    isOperationalFlight: bool,
    ...PAGE_AND_SORT("flights"),
  },
  airlines: PAGE_AND_SORT("airlines"),
  aircraftTypes: {
    iataMain: length(LIMITS.iataMain),
    iataSub: length(LIMITS.iataSub),
    ...PAGE_AND_SORT("aircraftTypes"),
  },
  destinations: PAGE_AND_SORT("destinations"),
};

function convertAll(
  operation: string,
  spec: Record<string, Converter>,
  query: object | undefined,
  zone: string,
): QueryPairs {
  const given = withInstantWindow((query ?? {}) as Record<string, unknown>, zone);
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || Object.hasOwn(spec, name)) continue;
    const camel = Object.keys(spec).find((k) => k.toLowerCase() === name.toLowerCase());
    fail(
      name,
      camel
        ? `the client sends only the camel-case spelling; use \`${camel}\``
        : `not a parameter of ${operation}; allowed: ${Object.keys(spec).join(", ")}`,
    );
  }
  const pairs: QueryPairs = [];
  for (const [name, convert] of Object.entries(spec)) {
    const value = given[name];
    if (value !== undefined) pairs.push([name, convert(value, name, zone)]);
  }
  return pairs;
}

/** Validates a collection query and returns its wire parameters. */
export function buildCollectionQuery<C extends Collection>(
  collection: C,
  query: CollectionQueries[C] | undefined,
  zone: string,
): QueryPairs {
  const pairs = convertAll(
    COLLECTION_ENDPOINTS[collection].operation,
    QUERY_SPECS[collection],
    query,
    zone,
  );
  if (collection === "flights") {
    const names = new Set(pairs.map(([name]) => name));
    if (names.has("airline") && names.has("airlineCode")) {
      fail("airline", "only one of `airline` and `airlineCode` may be used per request");
    }
    checkOrder(pairs, "fromDateTime", "toDateTime");
    checkOrder(pairs, "fromScheduleDate", "toScheduleDate");
  }
  return pairs;
}

/** Validates a `/flights/ids` query: both bounds, `from` ≤ `to`, at most 72 wall-clock hours apart. */
export function buildFlightIdsQuery(query: FlightIdsQuery, zone: string): QueryPairs {
  const spec = { fromDateTime: toLocalDateTimeParam, toDateTime: toLocalDateTimeParam };
  const pairs = convertAll("flightByIds", spec, query, zone);
  for (const name of ["fromDateTime", "toDateTime"]) {
    if (!pairs.some(([n]) => n === name)) fail(name, "is required by /flights/ids");
  }
  checkOrder(pairs, "fromDateTime", "toDateTime");
  const from = pairs[0]?.[1] ?? "";
  const to = pairs[1]?.[1] ?? "";
  // The bounds are airport-local wall-clock strings, so the limit is their wall-clock
  // span (as the simulator measures it): 72 h on the clock face, whatever DST does.
  if (wallMs(to) - wallMs(from) > FLIGHT_IDS_MAX_RANGE_MS) {
    fail("toDateTime", `the range ${from} to ${to} is longer than three days on the wall clock`);
  }
  return pairs;
}

const CODE_RE = /^[A-Za-z0-9]+$/;

/** Path of `flightById`; the id must be a digits-only string. */
export function flightByIdPath(id: unknown): string {
  if (typeof id !== "string") {
    return fail("id", "expected a string (flight ids exceed 2^53; never pass them as numbers)");
  }
  if (!FLIGHT_ID_PATTERN.test(id)) return fail("id", `"${id}" is not digits only`);
  return `/flights/${id}`;
}

/** Path of `getAirlinesByCode`: a 2- or 3-character IATA or ICAO code. */
export function airlineByCodePath(airline: unknown): string {
  const code = length(LIMITS.airline)(airline, "airline", "UTC");
  if (!CODE_RE.test(code)) return fail("airline", `"${code}" is not an IATA or ICAO code`);
  return `/airlines/${code}`;
}

/** Path of `getDestinationsByCode`: a 3-character IATA code. */
export function destinationByCodePath(iata: unknown): string {
  const code = length(LIMITS.destinationIata)(iata, "iata", "UTC");
  if (!CODE_RE.test(code)) return fail("iata", `"${code}" is not an IATA code`);
  return `/destinations/${code}`;
}
