/**
 * The compact, normalised view of one physical flight that diffs need: what is kept
 * in Redis between polls. Times are epoch milliseconds (so `+0100` and `+01:00` for
 * one instant are equal), sets are sorted (so reordered arrays are equal), and a
 * field the upstream omitted is simply not there — "unknown", never "removed".
 */
import { FLIGHT_DATE_TIME_FIELDS, type Flight, type FlightDateTimeField } from "../api/types.js";
import { parseApiDateTime } from "../time/local-time.js";
import { sortStrings } from "./sort-strings.js";

/** A time field whose changes are reported: any but the schedule and `lastUpdatedAt`. */
export type TimeField = Exclude<FlightDateTimeField, "scheduleDateTime" | "lastUpdatedAt">;

/** The reported time fields, in the contract's order. */
export const TIME_FIELDS: readonly TimeField[] = FLIGHT_DATE_TIME_FIELDS.filter(
  (field): field is TimeField => field !== "scheduleDateTime" && field !== "lastUpdatedAt",
);

/** Time fields of a snapshot, epoch ms; an absent field is unknown. */
export type SnapshotTimes = Partial<Record<TimeField, number>>;

/**
 * The time fields that `readTimes` and `coversTimes` name one by one: a property
 * written or read by name is several times cheaper than by a variable key, and these
 * run for every flight of every poll. Must be `TIME_FIELDS`, in its order: the lines
 * below fail to compile when the contract's fields change, and a test checks the order.
 */
export const UNROLLED_TIME_FIELDS = [
  "estimatedLandingTime",
  "actualLandingTime",
  "publicEstimatedOffBlockTime",
  "actualOffBlockTime",
  "expectedTimeBoarding",
  "expectedTimeGateClosing",
  "expectedTimeGateOpen",
  "expectedTimeOnBelt",
] as const;
type Unrolled = (typeof UNROLLED_TIME_FIELDS)[number];
const unrolledIsComplete: [TimeField] extends [Unrolled]
  ? [Unrolled] extends [TimeField]
    ? true
    : never
  : never =
  // Stryker disable next-line BooleanLiteral: a check of types; the value is never read
  true;
void unrolledIsComplete;

/** Check-in summary: what a passenger or desk planner notices. */
export interface CheckinSummary {
  /** Earliest allocation start, epoch ms. */
  opens?: number;
  /** Latest allocation end, epoch ms. */
  closes?: number;
  /** Row positions, sorted. */
  rows: string[];
  /** Desk positions, sorted numerically. */
  desks: number[];
}

/** Fields whose changes are reported, all optional ("absent" = unknown). */
export interface SnapshotFields {
  gate?: string;
  pier?: string;
  terminal?: number;
  /** Public flight states, sorted. */
  states?: string[];
  times?: SnapshotTimes;
  /** Baggage belts, sorted. */
  belts?: string[];
  checkin?: CheckinSummary;
  /** Codeshare flight names the operating record lists, sorted. */
  codeshares?: string[];
  /** `iataMain/iataSub`, either part possibly empty. */
  aircraftType?: string;
  registration?: string;
  /** Route destinations, sorted (a reordered list is not a change). */
  route?: string[];
  serviceType?: string;
}

/** Identity of a physical flight: one snapshot per key. */
export interface FlightIdentity {
  /** `D:2026-11-21:KL1234` — direction, local schedule date and main flight. */
  key: string;
  /** Upstream id of the operating record (or the only record seen). */
  id: string;
  mainFlight: string;
  direction?: "A" | "D";
  scheduleDate?: string;
  /** Scheduled instant, epoch ms. */
  scheduled?: number;
  /** Every flight number this physical flight is sold under, operating first. */
  flightNames: string[];
  /** Operating airline's IATA code (`prefixIATA`), when the records give it. */
  prefixIATA?: string;
  /** Operating airline's ICAO code (`prefixICAO`), when the records give it. */
  prefixICAO?: string;
  /** `isOperationalFlight` of the operating record, when given. */
  operational?: boolean;
}

/** What is stored per physical flight between polls. */
export interface FlightSnapshot extends FlightIdentity {
  /** Newest `lastUpdatedAt` seen for any of its records, epoch ms. */
  version: number;
  fields: SnapshotFields;
}

const sortedStrings = (values: readonly unknown[] | undefined): string[] | undefined => {
  if (!values || values.length === 0) return undefined;
  // Stryker disable next-line ConditionalExpression: a fast path; the general path below gives the same list
  if (isSortedSet(values)) return values.slice();
  const out = values.filter((v): v is string => typeof v === "string" && v !== "");
  if (out.length === 0) return undefined;
  sortStrings(out);
  let unique = 1;
  for (let i = 1; i < out.length; i++) {
    if (out[i] !== out[unique - 1]) out[unique++] = out[i] as string;
  }
  out.length = unique;
  return out;
};

/** Already non-empty strings in strictly ascending order (the common case): no sort needed. */
// Stryker disable BlockStatement,StringLiteral,BooleanLiteral: a "no" only takes the general path of sortedStrings, which gives the same list; those making a wrong "yes" are killed
function isSortedSet(values: readonly unknown[]): values is string[] {
  let prev = "";
  for (const v of values) {
    if (typeof v !== "string" || v === "" || v <= prev) return false;
    prev = v;
  }
  return true;
}
// Stryker restore BlockStatement,StringLiteral,BooleanLiteral

const text = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  // Stryker disable next-line ConditionalExpression,StringLiteral: "false" and the emptied string let an empty text through, which every caller drops as it drops none ("true" is killed)
  return trimmed === "" ? undefined : trimmed;
};

/** Extracts the diffable fields of one record. */
export function snapshotFields(flight: Flight, zone: string): SnapshotFields {
  const fields: SnapshotFields = {};
  const gate = text(flight.gate);
  if (gate) fields.gate = gate;
  const pier = text(flight.pier);
  if (pier) fields.pier = pier;
  if (typeof flight.terminal === "number") fields.terminal = flight.terminal;
  const states = sortedStrings(flight.publicFlightState?.flightStates);
  if (states) fields.states = states;
  const times = readTimes(flight, zone);
  if (times) fields.times = times;
  const belts = sortedStrings(flight.baggageClaim?.belts);
  if (belts) fields.belts = belts;
  const checkin = checkinSummary(flight, zone);
  if (checkin) fields.checkin = checkin;
  const codeshares = sortedStrings(flight.codeshares?.codeshares);
  if (codeshares) fields.codeshares = codeshares;
  const main = text(flight.aircraftType?.iataMain);
  const sub = text(flight.aircraftType?.iataSub);
  if (main || sub) fields.aircraftType = `${main ?? ""}/${sub ?? ""}`;
  const registration = text(flight.aircraftRegistration);
  if (registration) fields.registration = registration;
  const route = sortedStrings(flight.route?.destinations);
  if (route) fields.route = route;
  const serviceType = text(flight.serviceType);
  if (serviceType) fields.serviceType = serviceType;
  return fields;
}

/** The record's parsable time fields, in `TIME_FIELDS` order, or undefined when none. */
function readTimes(flight: Flight, zone: string): SnapshotTimes | undefined {
  const times: SnapshotTimes = {};
  let any = false;
  let ms = instant(flight.estimatedLandingTime, zone);
  if (ms !== undefined) {
    times.estimatedLandingTime = ms;
    any = true;
  }
  ms = instant(flight.actualLandingTime, zone);
  if (ms !== undefined) {
    times.actualLandingTime = ms;
    any = true;
  }
  ms = instant(flight.publicEstimatedOffBlockTime, zone);
  if (ms !== undefined) {
    times.publicEstimatedOffBlockTime = ms;
    any = true;
  }
  ms = instant(flight.actualOffBlockTime, zone);
  if (ms !== undefined) {
    times.actualOffBlockTime = ms;
    any = true;
  }
  ms = instant(flight.expectedTimeBoarding, zone);
  if (ms !== undefined) {
    times.expectedTimeBoarding = ms;
    any = true;
  }
  ms = instant(flight.expectedTimeGateClosing, zone);
  if (ms !== undefined) {
    times.expectedTimeGateClosing = ms;
    any = true;
  }
  ms = instant(flight.expectedTimeGateOpen, zone);
  if (ms !== undefined) {
    times.expectedTimeGateOpen = ms;
    any = true;
  }
  ms = instant(flight.expectedTimeOnBelt, zone);
  if (ms !== undefined) {
    times.expectedTimeOnBelt = ms;
    any = true;
  }
  return any ? times : undefined;
}

const instant = (value: unknown, zone: string): number | undefined =>
  typeof value === "string" ? parseApiDateTime(value, zone) : undefined;

function checkinSummary(flight: Flight, zone: string): CheckinSummary | undefined {
  const allocations = flight.checkinAllocations?.checkinAllocations;
  // Stryker disable next-line ConditionalExpression: "false" sums up no allocation to nothing below as well (the other way is killed)
  if (!allocations || allocations.length === 0) return undefined;
  let opens: number | undefined;
  let closes: number | undefined;
  const rows = new Set<string>();
  const desks = new Set<number>();
  for (const allocation of allocations) {
    const start = allocation.startTime ? parseApiDateTime(allocation.startTime, zone) : undefined;
    const end = allocation.endTime ? parseApiDateTime(allocation.endTime, zone) : undefined;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: "start !== undefined" forced true (undefined is never below opens) and "<=" (an equal start) change nothing; the other ways are killed
    if (start !== undefined && (opens === undefined || start < opens)) opens = start;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: "end !== undefined" forced true (undefined is never above closes) and ">=" (an equal end) change nothing; the other ways are killed
    if (end !== undefined && (closes === undefined || end > closes)) closes = end;
    // Stryker disable next-line ArrayDeclaration: an entry of another shape has no position and no desks
    for (const row of allocation.rows?.rows ?? []) {
      if (row.position) rows.add(row.position);
      // Stryker disable next-line ArrayDeclaration: an entry of another shape has no position
      for (const desk of row.desks?.desks ?? []) {
        if (typeof desk.position === "number") desks.add(desk.position);
      }
    }
  }
  if (opens === undefined && closes === undefined && rows.size === 0 && desks.size === 0) {
    return undefined;
  }
  const summary: CheckinSummary = {
    rows: [...rows].sort(),
    desks: [...desks].sort((a, b) => a - b),
  };
  if (opens !== undefined) summary.opens = opens;
  if (closes !== undefined) summary.closes = closes;
  return summary;
}

/**
 * Overlays newly observed fields on the last known ones: a present field replaces,
 * an absent one keeps what was known. Time fields merge one by one.
 */
export function mergeFields(known: SnapshotFields, observed: SnapshotFields): SnapshotFields {
  // Nearly always the upstream sends the same fields as last time: then the overlay
  // is the observation itself, and copying both objects is the differ's largest cost.
  if (coversFields(known, observed)) return observed;
  const merged: SnapshotFields = { ...known, ...observed };
  if (known.times || observed.times) merged.times = { ...known.times, ...observed.times };
  return merged;
}

/**
 * Whether overlaying `observed` on `known` (as `mergeFields` does) gives `observed`:
 * each property of `known` is a defined field that `observed` has too, times included.
 * Counts the properties rather than looking each one up by a variable key (slow), so
 * a property of a kind not listed here (an undefined value, an unknown field) fails it.
 */
function coversFields(known: SnapshotFields, observed: SnapshotFields): boolean {
  let properties = 0;
  for (const _ in known) properties++;
  const covered =
    // Stryker disable next-line ArithmeticOperator: a wrong count only turns the shortcut down (the property test checks a wrong "yes")
    both(known.gate, observed.gate) +
    both(known.pier, observed.pier) +
    both(known.terminal, observed.terminal) +
    both(known.states, observed.states) +
    both(known.times, observed.times) +
    both(known.belts, observed.belts) +
    both(known.checkin, observed.checkin) +
    both(known.codeshares, observed.codeshares) +
    both(known.aircraftType, observed.aircraftType) +
    both(known.registration, observed.registration) +
    both(known.route, observed.route) +
    both(known.serviceType, observed.serviceType);
  if (covered !== properties) return false;
  return known.times === undefined || coversTimes(known.times, observed.times as SnapshotTimes);
}

/** `coversFields` for the time fields. */
function coversTimes(known: SnapshotTimes, observed: SnapshotTimes): boolean {
  let properties = 0;
  for (const _ in known) properties++;
  const covered =
    // Stryker disable next-line ArithmeticOperator: a wrong count only turns the shortcut down (the property test checks a wrong "yes")
    both(known.estimatedLandingTime, observed.estimatedLandingTime) +
    both(known.actualLandingTime, observed.actualLandingTime) +
    both(known.publicEstimatedOffBlockTime, observed.publicEstimatedOffBlockTime) +
    both(known.actualOffBlockTime, observed.actualOffBlockTime) +
    both(known.expectedTimeBoarding, observed.expectedTimeBoarding) +
    both(known.expectedTimeGateClosing, observed.expectedTimeGateClosing) +
    both(known.expectedTimeGateOpen, observed.expectedTimeGateOpen) +
    both(known.expectedTimeOnBelt, observed.expectedTimeOnBelt);
  return covered === properties;
}

/** 0 when the known value is absent, 1 when both are present, NaN (never equal) when only the known one is. */
const both = (known: unknown, observed: unknown): number =>
  known === undefined ? 0 : observed === undefined ? Number.NaN : 1;

/** The identity part of a snapshot (what change events carry). */
export function identityOf(snapshot: FlightSnapshot): FlightIdentity {
  const identity: FlightIdentity = {
    key: snapshot.key,
    id: snapshot.id,
    mainFlight: snapshot.mainFlight,
    flightNames: snapshot.flightNames,
  };
  if (snapshot.direction) identity.direction = snapshot.direction;
  if (snapshot.scheduleDate) identity.scheduleDate = snapshot.scheduleDate;
  if (snapshot.scheduled !== undefined) identity.scheduled = snapshot.scheduled;
  if (snapshot.prefixIATA !== undefined) identity.prefixIATA = snapshot.prefixIATA;
  if (snapshot.prefixICAO !== undefined) identity.prefixICAO = snapshot.prefixICAO;
  if (snapshot.operational !== undefined) identity.operational = snapshot.operational;
  return identity;
}
