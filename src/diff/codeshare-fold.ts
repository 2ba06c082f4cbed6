/**
 * Folds codeshare records into their operating flight. The upstream lists every
 * marketing flight number as a record of its own (own id, same `mainFlight`), so one
 * physical flight must become one observation carrying all its flight numbers —
 * otherwise one gate change would alert once per codeshare.
 */
import type { Flight } from "../api/types.js";
import { parseApiDateTime, toLocalDate } from "../time/local-time.js";
import { type FlightIdentity, type SnapshotFields, snapshotFields } from "./flight-snapshot.js";
import { sortFirst } from "./sort-strings.js";

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
  // A flight of one record (most are) maps to the record itself, one of several to an
  // array of them: no array per flight that has no codeshare records.
  const groups = new Map<string, Flight | Flight[]>();
  for (const record of records) {
    const key = physicalFlightKey(record, zone);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, record);
    else if (Array.isArray(group)) group.push(record);
    else groups.set(key, [group, record]);
  }
  const out: ObservedFlight[] = [];
  // forEach rather than for-of: no [key, value] entry array per flight.
  groups.forEach((group, key) => {
    if (Array.isArray(group)) {
      out.push(observe(key, group, zone));
    } else {
      // A record has a key only when it has a name or an id, so it is never an array.
      single[0] = group;
      out.push(observe(key, single as Flight[], zone));
    }
  });
  single[0] = undefined;
  return out;
}

/** The group of a flight of one record, reused (`observe` keeps no reference to a group). */
// Stryker disable next-line ArrayDeclaration: its one entry is written before it is read
const single: [Flight | undefined] = [undefined];

function observe(key: string, group: Flight[], zone: string): ObservedFlight {
  let version = 0;
  let newest: Flight | undefined;
  // Stryker disable next-line UnaryOperator: with +1, a group without stamps has no newest and falls back to its first record, which -1 picks too
  let newestVersion = -1;
  let operating: Flight | undefined;
  // Codeshare records usually repeat the operating record's stamp: parse it once.
  let lastStamp: string | undefined;
  let lastUpdated = 0;
  for (const record of group) {
    const stamp = record.lastUpdatedAt;
    let updated = 0;
    // Stryker disable next-line ConditionalExpression: "true": an absent stamp parses to nothing, which is 0 as well ("false" is killed)
    if (stamp) {
      // Stryker disable next-line ConditionalExpression: "true": a cache; parsing again gives the same instant ("false" is killed)
      if (stamp !== lastStamp) {
        lastStamp = stamp;
        lastUpdated = parseApiDateTime(stamp, zone) ?? 0;
      }
      updated = lastUpdated;
    }
    // Stryker disable next-line EqualityOperator: ">=": taking an equal stamp again changes nothing (the other ways are killed)
    if (updated > version) version = updated;
    if (updated > newestVersion) {
      newest = record;
      newestVersion = updated;
    }
    if (!operating && isOperatingRecord(record)) operating = record;
  }
  const source = operating ?? newest ?? (group[0] as Flight);
  const mainFlight = source.mainFlight ?? source.flightName ?? (source.id as string);
  const scheduled = source.scheduleDateTime
    ? parseApiDateTime(source.scheduleDateTime, zone)
    : undefined;
  const id = source.id ?? "";
  const flightNames = flightNamesOf(group, mainFlight);
  const direction = source.flightDirection;
  const scheduleDate = scheduleDateOf(source, zone);
  let identity: FlightIdentity;
  // Stryker disable next-line ConditionalExpression: without this fast path, the code below builds the same identity ("true" is killed)
  if (direction && scheduleDate && scheduled !== undefined) {
    // The usual case, as one literal (cheaper than growing the object property by property).
    identity = { key, id, mainFlight, flightNames, direction, scheduleDate, scheduled };
  } else {
    identity = { key, id, mainFlight, flightNames };
    if (direction) identity.direction = direction;
    if (scheduleDate) identity.scheduleDate = scheduleDate;
    if (scheduled !== undefined) identity.scheduled = scheduled;
  }
  copyCarrier(source, identity);
  return {
    identity,
    version,
    fields: snapshotFields(source, zone),
    fromOperating: operating !== undefined,
  };
}

/** Copies the operating carrier and operational flag of a record onto an identity. */
function copyCarrier(source: Flight, identity: FlightIdentity): void {
  const iata = source.prefixIATA;
  if (typeof iata === "string" && iata !== "") identity.prefixIATA = iata.toUpperCase();
  const icao = source.prefixICAO;
  if (typeof icao === "string" && icao !== "") identity.prefixICAO = icao.toUpperCase();
  if (typeof source.isOperationalFlight === "boolean") {
    identity.operational = source.isOperationalFlight;
  }
}

/**
 * Every flight number of a group, the main flight first and the others sorted and
 * unique: the names of its records and the partners they list. Hot (once per flight
 * per poll), so well-formed records take a plain array instead of a Set; anything
 * else (a non-string name, a non-array list) takes the general path.
 */
export function flightNamesOf(group: readonly Flight[], mainFlight: string): string[] {
  // `scratch` is filled from index 0 and only `n` entries count: setting its length to
  // 0 instead would drop its backing store, and every call would allocate a new one.
  const names = scratch;
  let n = 0;
  for (const record of group) {
    const name = record.flightName;
    if (name) {
      // Stryker disable next-line ConditionalExpression,StringLiteral: the ways into the general path give the same names (the property test compares both); those that skip it wrongly are killed
      if (typeof name !== "string") return flightNamesBySet(group, mainFlight);
      names[n++] = name;
    }
    const partners = record.codeshares?.codeshares;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: the ways into the general path give the same names (the property test compares both); those that skip it wrongly are killed
    if (partners === undefined || partners === null) continue;
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: the ways into the general path give the same names (the property test compares both); those that skip it wrongly are killed
    if (!Array.isArray(partners)) return flightNamesBySet(group, mainFlight);
    // Stryker disable next-line EqualityOperator,UpdateOperator: "<=" reads no string past the end, and the ways into the general path give the same names (the property test compares both); those that skip it wrongly are killed
    for (let i = 0; i < partners.length; i++) {
      const partner: unknown = partners[i];
      // Stryker disable next-line ConditionalExpression,StringLiteral: the ways into the general path give the same names (the property test compares both); those that skip it wrongly are killed
      if (typeof partner !== "string") return flightNamesBySet(group, mainFlight);
      names[n++] = partner;
    }
  }
  sortFirst(names, n);
  let unique = 0;
  for (let i = 0; i < n; i++) {
    const name = names[i] as string;
    // Stryker disable next-line ConditionalExpression: "i === 0" forced false: names[-1] is undefined, which no name equals (the other ways are killed)
    if (name !== mainFlight && (i === 0 || name !== names[i - 1])) names[unique++] = name;
  }
  // Built at its final size: growing `[mainFlight]` by push allocates room for 17.
  // Stryker disable next-line ConditionalExpression: "false": a shortcut; the loop below builds the same list ("true" is killed)
  if (unique === 0) return [mainFlight];
  // Stryker disable next-line ConditionalExpression: "false": a shortcut; the loop below builds the same list ("true" is killed)
  if (unique === 1) return [mainFlight, names[0] as string];
  // Stryker disable next-line ConditionalExpression: "false": a shortcut; the loop below builds the same list ("true" is killed)
  if (unique === 2) return [mainFlight, names[0] as string, names[1] as string];
  const out = [mainFlight];
  for (let i = 0; i < unique; i++) out.push(names[i] as string);
  return out;
}

/** Reused by `flightNamesOf` (never re-entered): one flight's names need no array of their own. */
// Stryker disable next-line ArrayDeclaration: entries are written before they are read
const scratch: string[] = [];

/**
 * The general path of `flightNamesOf`, for records whose names are not all strings;
 * also the reference its fast path is tested against.
 */
export function flightNamesBySet(group: readonly Flight[], mainFlight: string): string[] {
  const names = new Set<string>();
  for (const record of group) {
    if (record.flightName) names.add(record.flightName);
    for (const partner of record.codeshares?.codeshares ?? []) names.add(partner);
  }
  names.delete(mainFlight);
  return [mainFlight, ...[...names].sort()];
}
