/**
 * Parses and validates the query of `GET /flights` and `GET /flights/ids` into a
 * FlightQuery, applying the contract's alias rule (camel case wins, except that
 * `includedelays` wins over `includeDelays`) and its defaults. Unknown parameters
 * are ignored; a repeated parameter counts with its first value.
 */
import {
  FLIGHT_DIRECTIONS,
  FLIGHT_IDS_MAX_RANGE_MS,
  type FlightDirection,
  LIMITS,
  ROUTE_CODE_PATTERN,
  SCHEDULE_TIME_PATTERN,
  SEARCH_DATE_TIME_FIELDS,
  type SearchDateTimeField,
  type SortTerm,
} from "../../api/contract.js";
import {
  fail,
  ok,
  pickAlias,
  type QueryResult,
  readBoolean,
  readDate,
  readInt32,
  readLength,
  readLocalDateTime,
  readPage,
  readSort,
  wallClockMs,
} from "./query-params.js";

/** A validated `/flights` query. All given filters apply together (AND). */
export interface FlightQuery {
  /** Exact schedule date; the default "today" is filled in unless a range is given. */
  scheduleDate?: string;
  fromScheduleDate?: string;
  toScheduleDate?: string;
  /** `HH:mm`: only flights scheduled at or after this local time of day. */
  scheduleTime?: string;
  flightName?: string;
  flightDirection?: FlightDirection;
  /** Airline prefix, matched against prefixIATA or prefixICAO. */
  airline?: string;
  airlineCode?: number;
  /** Airport codes (IATA or ICAO), upper-cased, of which any route destination must match one. */
  route?: string[];
  includeDelays: boolean;
  /** Local wall-clock bounds, inclusive, on `searchDateTimeField`. */
  fromDateTime?: string;
  toDateTime?: string;
  searchDateTimeField: SearchDateTimeField;
  isOperationalFlight?: boolean;
  sort: SortTerm[];
  page: number;
}

/** A validated `/flights/ids` query: local wall-clock bounds, both inclusive. */
export interface FlightIdsQuery {
  fromDateTime: string;
  toDateTime: string;
}

const DIRECTIONS: readonly string[] = FLIGHT_DIRECTIONS;
const SEARCH_FIELDS: readonly string[] = SEARCH_DATE_TIME_FIELDS;

/**
 * Parses a `/flights` query. `today` is the airport-local date used when no
 * schedule-date selection is given: `scheduleDate` defaults to today only when
 * none of `fromScheduleDate`, `toScheduleDate`, `fromDateTime`, `toDateTime` is sent.
 */
export function parseFlightQuery(params: URLSearchParams, today: string): QueryResult<FlightQuery> {
  const page = readPage(params);
  if (!page.ok) return page;
  const sort = readSort("flights", params);
  if (!sort.ok) return sort;
  const query: FlightQuery = {
    includeDelays: false,
    searchDateTimeField: "scheduleDateTime",
    sort: sort.value,
    page: page.value,
  };

  const scheduleDate = pickAlias(params, "scheduleDate", "scheduledate");
  if (scheduleDate) {
    const r = readDate(scheduleDate.param, scheduleDate.text);
    if (!r.ok) return r;
    query.scheduleDate = r.value;
  }
  for (const name of ["fromScheduleDate", "toScheduleDate"] as const) {
    const text = params.get(name);
    if (text === null) continue;
    const r = readDate(name, text);
    if (!r.ok) return r;
    query[name] = r.value;
  }
  if (
    query.fromScheduleDate &&
    query.toScheduleDate &&
    query.fromScheduleDate > query.toScheduleDate
  ) {
    return fail("fromScheduleDate", "fromScheduleDate is after toScheduleDate");
  }
  for (const name of ["fromDateTime", "toDateTime"] as const) {
    const text = params.get(name);
    if (text === null) continue;
    const r = readLocalDateTime(name, text);
    if (!r.ok) return r;
    query[name] = r.value;
  }
  if (query.fromDateTime && query.toDateTime && query.fromDateTime > query.toDateTime) {
    return fail("fromDateTime", "fromDateTime is after toDateTime");
  }
  const field = params.get("searchDateTimeField");
  if (field !== null) {
    if (!SEARCH_FIELDS.includes(field)) {
      return fail("searchDateTimeField", `"${field}" is not one of ${SEARCH_FIELDS.join(", ")}`);
    }
    query.searchDateTimeField = field as SearchDateTimeField;
  }
  const ranged =
    query.fromScheduleDate ?? query.toScheduleDate ?? query.fromDateTime ?? query.toDateTime;
  if (query.scheduleDate === undefined && ranged === undefined) query.scheduleDate = today;

  const scheduleTime = params.get("scheduleTime");
  if (scheduleTime !== null) {
    const valid =
      SCHEDULE_TIME_PATTERN.test(scheduleTime) &&
      Number(scheduleTime.slice(0, 2)) <= 23 &&
      Number(scheduleTime.slice(3, 5)) <= 59;
    if (!valid) return fail("scheduleTime", `"${scheduleTime}" is not a time in the form HH:mm`);
    query.scheduleTime = scheduleTime;
  }

  const flightName = pickAlias(params, "flightName", "flightname");
  if (flightName) {
    const r = readLength(flightName.param, flightName.text, LIMITS.flightName);
    if (!r.ok) return r;
    query.flightName = r.value;
  }

  const direction = pickAlias(params, "flightDirection", "flightdirection");
  if (direction) {
    if (!DIRECTIONS.includes(direction.text)) {
      return fail(direction.param, `"${direction.text}" is not one of ${DIRECTIONS.join(", ")}`);
    }
    query.flightDirection = direction.text as FlightDirection;
  }

  const airline = params.get("airline");
  const airlineCode = params.get("airlineCode");
  if (airline !== null && airlineCode !== null) {
    return fail("airline", "only one of airline and airlineCode may be used per request");
  }
  if (airline !== null) {
    const r = readLength("airline", airline, LIMITS.airline);
    if (!r.ok) return r;
    query.airline = r.value;
  }
  if (airlineCode !== null) {
    const r = readInt32("airlineCode", airlineCode);
    if (!r.ok) return r;
    query.airlineCode = r.value;
  }

  const route = params.get("route");
  if (route !== null) {
    const codes = route.split(",");
    const bad = codes.find((c) => !ROUTE_CODE_PATTERN.test(c));
    if (bad !== undefined) {
      return fail("route", `"${bad}" is not an IATA (3) or ICAO (4) airport code`);
    }
    // Codes are accepted in any case; records and the airport table hold them in upper case.
    query.route = codes.map((c) => c.toUpperCase());
  }

  const delays = pickAlias(params, "includeDelays", "includedelays", true);
  if (delays) {
    const r = readBoolean(delays.param, delays.text);
    if (!r.ok) return r;
    query.includeDelays = r.value;
  }

  const operational = params.get("isOperationalFlight");
  if (operational !== null) {
    const r = readBoolean("isOperationalFlight", operational);
    if (!r.ok) return r;
    query.isOperationalFlight = r.value;
  }
  return ok(query);
}

/**
 * Parses a `/flights/ids` query: both bounds required, `from` not after `to`, and a
 * span of at most three days measured on the wall clock (the bounds carry no zone,
 * so a span across a DST change is still counted in local hours).
 */
export function parseFlightIdsQuery(params: URLSearchParams): QueryResult<FlightIdsQuery> {
  const bounds: Partial<FlightIdsQuery> = {};
  for (const name of ["fromDateTime", "toDateTime"] as const) {
    const text = params.get(name);
    if (text === null) return fail(name, "is required");
    const r = readLocalDateTime(name, text);
    if (!r.ok) return r;
    bounds[name] = r.value;
  }
  const { fromDateTime, toDateTime } = bounds as FlightIdsQuery;
  const span = wallClockMs(toDateTime) - wallClockMs(fromDateTime);
  if (span < 0) return fail("fromDateTime", "fromDateTime is after toDateTime");
  if (span > FLIGHT_IDS_MAX_RANGE_MS) {
    return fail("toDateTime", "the range between fromDateTime and toDateTime exceeds three days");
  }
  return ok({ fromDateTime, toDateTime });
}
