/**
 * Folds codeshare records into their operating flight. The upstream lists every
 * marketing flight number as a record of its own (own id, same `mainFlight`), so one
 * physical flight must become one observation carrying all its flight numbers —
 * otherwise one gate change would alert once per codeshare.
 */
import type { Flight } from "../api/types.js";
import { parseApiDateTime, toLocalDate } from "../time/local-time.js";
import { type FlightIdentity, type SnapshotFields, snapshotFields } from "./flight-snapshot.js";

/** One physical flight as seen in one batch of records. */
export interface ObservedFlight {
  identity: FlightIdentity;
  /** Newest `lastUpdatedAt` among its records, epoch ms (0 when none had one). */
  version: number;
  fields: SnapshotFields;
  /** Whether the fields come from the operating record (not only codeshares). */
  fromOperating: boolean;
}

/** Key of the physical flight a record belongs to, or undefined when it has no identity. */
export function physicalFlightKey(flight: Flight, zone: string): string | undefined {
  const main = flight.mainFlight ?? flight.flightName ?? flight.id;
  if (!main) return undefined;
  const date = scheduleDateOf(flight, zone) ?? "?";
  return `${flight.flightDirection ?? "?"}:${date}:${main}`;
}

function scheduleDateOf(flight: Flight, zone: string): string | undefined {
  if (flight.scheduleDate) return flight.scheduleDate;
  const ms = flight.scheduleDateTime ? parseApiDateTime(flight.scheduleDateTime, zone) : undefined;
  return ms === undefined ? undefined : toLocalDate(ms, zone);
}

/**
 * Whether a record is the operating one of its physical flight: its own flight name
 * is the main flight. `isOperationalFlight` is no guide: captured real responses mark
 * codeshare records (DL9507 with mainFlight KL0588) operational too, so it is only
 * consulted when a record lacks the names to decide by.
 */
export function isOperatingRecord(flight: Flight): boolean {
  if (flight.mainFlight && flight.flightName) return flight.mainFlight === flight.flightName;
  return flight.isOperationalFlight !== false;
}

/**
 * Groups records by physical flight. Fields come from the operating record when the
 * batch has it, else from the most recently updated codeshare record (the upstream
 * copies operational fields onto codeshares). Records without any identity are skipped.
 */
export function foldCodeshares(records: Iterable<Flight>, zone: string): ObservedFlight[] {
  const groups = new Map<string, Flight[]>();
  for (const record of records) {
    const key = physicalFlightKey(record, zone);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  const out: ObservedFlight[] = [];
  for (const [key, group] of groups) out.push(observe(key, group, zone));
  return out;
}

function observe(key: string, group: Flight[], zone: string): ObservedFlight {
  let version = 0;
  let newest: Flight | undefined;
  let newestVersion = -1;
  let operating: Flight | undefined;
  const names = new Set<string>();
  for (const record of group) {
    const updated = record.lastUpdatedAt ? (parseApiDateTime(record.lastUpdatedAt, zone) ?? 0) : 0;
    if (updated > version) version = updated;
    if (updated > newestVersion) {
      newest = record;
      newestVersion = updated;
    }
    if (isOperatingRecord(record) && !operating) operating = record;
    if (record.flightName) names.add(record.flightName);
    for (const partner of record.codeshares?.codeshares ?? []) names.add(partner);
  }
  const source = operating ?? newest ?? (group[0] as Flight);
  const mainFlight = source.mainFlight ?? source.flightName ?? (source.id as string);
  names.delete(mainFlight);
  const scheduled = source.scheduleDateTime
    ? parseApiDateTime(source.scheduleDateTime, zone)
    : undefined;
  const identity: FlightIdentity = {
    key,
    id: source.id ?? "",
    mainFlight,
    flightNames: [mainFlight, ...[...names].sort()],
  };
  if (source.flightDirection) identity.direction = source.flightDirection;
  const scheduleDate = scheduleDateOf(source, zone);
  if (scheduleDate) identity.scheduleDate = scheduleDate;
  if (scheduled !== undefined) identity.scheduled = scheduled;
  return {
    identity,
    version,
    fields: snapshotFields(source, zone),
    fromOperating: operating !== undefined,
  };
}
