/**
 * The selection semantics of `GET /flights` as one pure predicate. Where the
 * contract leaves the meaning open this file decides it (see docs/simulator.md):
 *
 * - `scheduleDate`, `fromScheduleDate`, `toScheduleDate` all constrain the flight's
 *   schedule date (AND); the default "today" was already filled in by the parser.
 * - `includeDelays` also admits a flight scheduled BEFORE the selected dates whose
 *   actual/estimated time (landing for arrivals, off-block for departures) falls on them.
 * - `scheduleTime` keeps flights whose local time of day is at or after HH:mm (for a
 *   flight admitted by `includeDelays`, its moved time counts).
 * - `fromDateTime`/`toDateTime` bound the local wall-clock reading of
 *   `searchDateTimeField` (default `scheduleDateTime`), inclusive at second precision;
 *   a flight without that field is not selected.
 * - `route` codes may be IATA or ICAO; ICAO codes are translated with the airport
 *   table, and a flight matches when any of its route destinations matches.
 */
import type { Flight } from "../../api/types.js";
import type { FlightFacts } from "./flight-facts.js";
import type { FlightQuery } from "./flight-query.js";

/** What the predicate needs besides the query. */
export interface FlightFilterContext {
  facts: FlightFacts;
  /** ICAO airport code → IATA code. */
  icaoToIata: ReadonlyMap<string, string>;
}

/** Compiles a query into a predicate over flight records. */
export function compileFlightFilter(
  query: FlightQuery,
  context: FlightFilterContext,
): (flight: Flight) => boolean {
  const { facts } = context;
  const dateSelected = (date: string): boolean =>
    (query.scheduleDate === undefined || date === query.scheduleDate) &&
    (query.fromScheduleDate === undefined || date >= query.fromScheduleDate) &&
    (query.toScheduleDate === undefined || date <= query.toScheduleDate);
  const hasDateSelection =
    query.scheduleDate !== undefined ||
    query.fromScheduleDate !== undefined ||
    query.toScheduleDate !== undefined;
  const lowestDate = maxDefined(query.scheduleDate, query.fromScheduleDate);
  const fromTime = query.scheduleTime === undefined ? undefined : `${query.scheduleTime}:00`;
  const routeCodes = query.route ? routeSet(query.route, context.icaoToIata) : undefined;

  return (flight) => {
    // Local time of day that `scheduleTime` is compared with.
    let timeOfDay = facts.scheduleTime(flight);
    if (hasDateSelection) {
      const date = facts.scheduleDate(flight);
      if (date === undefined) return false;
      if (!dateSelected(date)) {
        if (!query.includeDelays || lowestDate === undefined || date >= lowestDate) return false;
        const moved = facts.movedLocal(flight);
        if (moved === undefined || !dateSelected(moved.slice(0, 10))) return false;
        timeOfDay = moved.slice(11, 19);
      }
    }
    if (fromTime !== undefined && (timeOfDay === undefined || timeOfDay < fromTime)) return false;
    if (query.fromDateTime !== undefined || query.toDateTime !== undefined) {
      const local = facts.local(flight, query.searchDateTimeField);
      if (local === undefined) return false;
      if (query.fromDateTime !== undefined && local < query.fromDateTime) return false;
      if (query.toDateTime !== undefined && local > query.toDateTime) return false;
    }
    if (query.flightName !== undefined && flight.flightName !== query.flightName) return false;
    if (query.flightDirection !== undefined && flight.flightDirection !== query.flightDirection) {
      return false;
    }
    if (
      query.airline !== undefined &&
      flight.prefixIATA !== query.airline &&
      flight.prefixICAO !== query.airline
    ) {
      return false;
    }
    if (query.airlineCode !== undefined && flight.airlineCode !== query.airlineCode) return false;
    if (
      query.isOperationalFlight !== undefined &&
      flight.isOperationalFlight !== query.isOperationalFlight
    ) {
      return false;
    }
    if (routeCodes !== undefined) {
      const destinations = flight.route?.destinations ?? [];
      if (!destinations.some((code) => routeCodes.has(code))) return false;
    }
    return true;
  };
}

/** The codes a route filter accepts: each as given, plus the IATA code of an ICAO one. */
function routeSet(codes: readonly string[], icaoToIata: ReadonlyMap<string, string>): Set<string> {
  const out = new Set<string>();
  for (const code of codes) {
    out.add(code);
    const iata = code.length === 4 ? icaoToIata.get(code) : undefined;
    if (iata !== undefined) out.add(iata);
  }
  return out;
}

function maxDefined(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

/**
 * Local wall-clock `[from, to]` selection of `/flights/ids`: flights whose
 * `scheduleDateTime` reads, in airport-local time, within the bounds (inclusive).
 */
export function compileIdsFilter(
  fromDateTime: string,
  toDateTime: string,
  facts: FlightFacts,
): (flight: Flight) => boolean {
  return (flight) => {
    const local = facts.local(flight, "scheduleDateTime");
    return local !== undefined && local >= fromDateTime && local <= toDateTime;
  };
}
