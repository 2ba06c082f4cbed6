/**
 * The cast of an acceptance timeline: flights written the way the upstream writes
 * them (a departure or an arrival, its codeshares as records of their own), with
 * times relative to when the timeline is built, so that "in 2 hours" and "within 3h"
 * rules hold whatever the hour the tests run at.
 */
import type { Flight } from "../../src/api/types.js";
import { parseDuration } from "../../src/time/duration.js";
import { formatApiDateTime, toLocalDate, toLocalDateTime } from "../../src/time/local-time.js";

/** The airport's zone in every timeline. */
export const ZONE = "Europe/Amsterdam";

/** How a flight of the cast looks at the start. */
export interface CastFlight {
  /** The operating flight number, e.g. `KL1395`. */
  name: string;
  direction: "D" | "A";
  /** Scheduled this long after now (a duration such as `2h`), default `2h`. */
  in?: string;
  /** Numbers it is also sold under: records of their own whose `mainFlight` is `name`. */
  codeshares?: string[];
  gate?: string;
  /** Default: the gate's letter. */
  pier?: string;
  /** Destination (departure) or origin (arrival) IATA code, default `WAW`. */
  airport?: string;
  states?: string[];
  serviceType?: string;
  /** Arrivals: baggage belt. */
  belt?: string;
}

/** A departure `name` (see CastFlight). */
export function departure(name: string, fields: Omit<CastFlight, "name" | "direction"> = {}) {
  return { name, direction: "D", ...fields } satisfies CastFlight;
}

/** An arrival `name` (see CastFlight). */
export function arrival(name: string, fields: Omit<CastFlight, "name" | "direction"> = {}) {
  return { name, direction: "A", ...fields } satisfies CastFlight;
}

const PREFIX = /^([A-Z0-9]{2})(\d{1,4})$/;
const ICAO: Record<string, string> = { KL: "KLM", DL: "DAL", AF: "AFR", HV: "TRA", U2: "EZY" };

/** The upstream records of a cast flight, scheduled relative to `nowMs`: operating first, then codeshares. */
export function castRecords(flight: CastFlight, nowMs: number): Flight[] {
  const scheduled = nowMs + parseDuration(flight.in ?? "2h", "in");
  // Whole minutes, as the upstream schedules.
  const at = scheduled - (scheduled % 60_000);
  const local = toLocalDateTime(at, ZONE);
  const names = [flight.name, ...(flight.codeshares ?? [])];
  const operating: Flight = {
    ...identity(flight.name),
    flightDirection: flight.direction,
    mainFlight: flight.name,
    isOperationalFlight: true,
    scheduleDateTime: formatApiDateTime(at, ZONE),
    scheduleDate: toLocalDate(at, ZONE),
    scheduleTime: `${local.slice(11, 16)}:00`,
    route: { destinations: [flight.airport ?? "WAW"], eu: "S", visa: false },
    serviceType: flight.serviceType ?? "J",
    publicFlightState: { flightStates: flight.states ?? ["SCH"] },
    schemaVersion: "4",
    terminal: 1,
    ...(flight.codeshares ? { codeshares: { codeshares: names.slice(1) } } : {}),
    ...(flight.gate ? { gate: flight.gate, pier: flight.pier ?? flight.gate.slice(0, 1) } : {}),
    ...(flight.belt ? { baggageClaim: { belts: [flight.belt] } } : {}),
  };
  const codeshares = (flight.codeshares ?? []).map(
    (name): Flight => ({ ...operating, ...identity(name), isOperationalFlight: false }),
  );
  return [operating, ...codeshares];
}

function identity(
  name: string,
): Pick<Flight, "flightName" | "flightNumber" | "prefixIATA" | "prefixICAO"> {
  const match = PREFIX.exec(name);
  if (!match) throw new Error(`cast: flight number ${name} is not like KL1395`);
  const [, prefix = "", number = "0"] = match;
  return {
    flightName: name,
    flightNumber: Number(number),
    prefixIATA: prefix,
    prefixICAO: ICAO[prefix] ?? `${prefix}X`,
  };
}

/** The instant `offset` (a duration, `-` allowed) after a record's schedule, written as the upstream does. */
export function afterSchedule(record: Flight, offset: string): string {
  const negative = offset.startsWith("-");
  const ms = parseDuration(negative ? offset.slice(1) : offset, "offset");
  const scheduled = Date.parse(record.scheduleDateTime ?? "");
  return formatApiDateTime(scheduled + (negative ? -ms : ms), ZONE);
}
