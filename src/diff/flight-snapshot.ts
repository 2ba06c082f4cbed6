/**
 * The compact, normalised view of one physical flight that diffs need: what is kept
 * in Redis between polls. Times are epoch milliseconds (so `+0100` and `+01:00` for
 * one instant are equal), sets are sorted (so reordered arrays are equal), and a
 * field the upstream omitted is simply not there — "unknown", never "removed".
 */
import { FLIGHT_DATE_TIME_FIELDS, type Flight, type FlightDateTimeField } from "../api/types.js";
import { parseApiDateTime } from "../time/local-time.js";

/** A time field whose changes are reported: any but the schedule and `lastUpdatedAt`. */
export type TimeField = Exclude<FlightDateTimeField, "scheduleDateTime" | "lastUpdatedAt">;

/** The reported time fields, in the contract's order. */
export const TIME_FIELDS: readonly TimeField[] = FLIGHT_DATE_TIME_FIELDS.filter(
  (field): field is TimeField => field !== "scheduleDateTime" && field !== "lastUpdatedAt",
);

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
  times?: Partial<Record<TimeField, number>>;
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
}

/** What is stored per physical flight between polls. */
export interface FlightSnapshot extends FlightIdentity {
  /** Newest `lastUpdatedAt` seen for any of its records, epoch ms. */
  version: number;
  fields: SnapshotFields;
}

const sortedStrings = (values: readonly unknown[] | undefined): string[] | undefined => {
  if (!values || values.length === 0) return undefined;
  if (isSortedSet(values)) return values.slice();
  const out = values.filter((v): v is string => typeof v === "string" && v !== "");
  return out.length > 0 ? [...new Set(out)].sort() : undefined;
};

/** Already non-empty strings in strictly ascending order (the common case): no sort needed. */
function isSortedSet(values: readonly unknown[]): values is string[] {
  let prev = "";
  for (const v of values) {
    if (typeof v !== "string" || v === "" || v <= prev) return false;
    prev = v;
  }
  return true;
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

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
  const times: Partial<Record<TimeField, number>> = {};
  let anyTime = false;
  for (const field of TIME_FIELDS) {
    const value = flight[field];
    const ms = typeof value === "string" ? parseApiDateTime(value, zone) : undefined;
    if (ms !== undefined) {
      times[field] = ms;
      anyTime = true;
    }
  }
  if (anyTime) fields.times = times;
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

function checkinSummary(flight: Flight, zone: string): CheckinSummary | undefined {
  const allocations = flight.checkinAllocations?.checkinAllocations;
  if (!allocations || allocations.length === 0) return undefined;
  let opens: number | undefined;
  let closes: number | undefined;
  const rows = new Set<string>();
  const desks = new Set<number>();
  for (const allocation of allocations) {
    const start = allocation.startTime ? parseApiDateTime(allocation.startTime, zone) : undefined;
    const end = allocation.endTime ? parseApiDateTime(allocation.endTime, zone) : undefined;
    if (start !== undefined && (opens === undefined || start < opens)) opens = start;
    if (end !== undefined && (closes === undefined || end > closes)) closes = end;
    for (const row of allocation.rows?.rows ?? []) {
      if (row.position) rows.add(row.position);
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
  const merged: SnapshotFields = { ...known, ...observed };
  if (known.times || observed.times) merged.times = { ...known.times, ...observed.times };
  return merged;
}
