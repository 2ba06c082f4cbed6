/**
 * The differ: a pure function from (last known snapshot, new observation) to typed,
 * semantic changes and the next snapshot. A field the observation lacks is unknown,
 * never a change; a field seen for the first time is an assignment; an observation
 * older than the snapshot is stale and changes nothing.
 */
import { formatApiDateTime } from "../time/local-time.js";
import type { Change, ChangeKind } from "./change.js";
import type { ObservedFlight } from "./codeshare-fold.js";
import {
  type CheckinSummary,
  type FlightSnapshot,
  mergeFields,
  type SnapshotFields,
  TIME_FIELDS,
} from "./flight-snapshot.js";

/** Result of diffing one observation. */
export interface DiffResult {
  /** The snapshot to store next (may equal the previous one). */
  snapshot: FlightSnapshot;
  changes: Change[];
  /** The observation was older than the snapshot and ignored. */
  stale: boolean;
}

type ScalarField = "gate" | "pier" | "terminal" | "aircraftType" | "registration" | "serviceType";
const SCALARS: ReadonlyArray<[ScalarField, ChangeKind, string]> = [
  ["gate", "gate", "gate"],
  ["pier", "pier", "pier"],
  ["terminal", "terminal", "terminal"],
  ["aircraftType", "aircraftType", "aircraftType"],
  ["registration", "registration", "aircraftRegistration"],
  ["serviceType", "serviceType", "serviceType"],
];

type SetField = "belts" | "codeshares" | "route";
const SETS: ReadonlyArray<[SetField, ChangeKind, string]> = [
  ["belts", "belt", "baggageClaim"],
  ["codeshares", "codeshares", "codeshares"],
  ["route", "route", "route"],
];

const MINUTE = 60_000;

/** Diffs an observation against the last known snapshot (undefined = never seen). */
export function diffFlight(
  previous: FlightSnapshot | undefined,
  observed: ObservedFlight,
  zone: string,
): DiffResult {
  if (!previous) {
    return {
      snapshot: { ...observed.identity, version: observed.version, fields: observed.fields },
      changes: [{ kind: "flight", field: "flight", action: "added" }],
      stale: false,
    };
  }
  // Version 0 means the records carried no lastUpdatedAt: unordered, so not stale.
  if (observed.version > 0 && observed.version < previous.version) {
    return { snapshot: previous, changes: [], stale: true };
  }
  const changes = diffFields(previous.fields, observed.fields, previous.scheduled, zone);
  // The operating record is the authority on identity; codeshare-only sightings
  // keep what was known. Built field by field: this is the differ's hot path.
  const source = observed.fromOperating ? observed.identity : previous;
  const snapshot: FlightSnapshot = {
    key: previous.key,
    id: source.id || previous.id,
    mainFlight: previous.mainFlight,
    flightNames: unionNames(previous, observed.identity.flightNames),
    version: Math.max(previous.version, observed.version),
    fields: mergeFields(previous.fields, observed.fields),
  };
  const direction = source.direction ?? previous.direction;
  if (direction) snapshot.direction = direction;
  const scheduleDate = source.scheduleDate ?? previous.scheduleDate;
  if (scheduleDate) snapshot.scheduleDate = scheduleDate;
  const scheduled = source.scheduled ?? previous.scheduled;
  if (scheduled !== undefined) snapshot.scheduled = scheduled;
  return { snapshot, changes, stale: false };
}

/** Every flight number known for the flight: once sold under a number, it keeps matching. */
function unionNames(previous: FlightSnapshot, seen: readonly string[]): string[] {
  if (seen.every((name) => previous.flightNames.includes(name))) return previous.flightNames;
  const names = new Set([...previous.flightNames, ...seen]);
  names.delete(previous.mainFlight);
  return [previous.mainFlight, ...[...names].sort()];
}

/** The change reported when a known flight is no longer listed upstream. */
export function removedChange(): Change {
  return { kind: "flight", field: "flight", action: "removed" };
}

/** Changes between known fields and observed ones; absent observed fields are skipped. */
export function diffFields(
  known: SnapshotFields,
  observed: SnapshotFields,
  scheduled: number | undefined,
  zone: string,
): Change[] {
  const changes: Change[] = [];
  for (const [name, kind, field] of SCALARS) {
    const now = observed[name];
    const was = known[name];
    if (now === undefined || now === was) continue;
    changes.push(valueChange(kind, field, was, now));
  }
  diffStates(known.states, observed.states, changes);
  diffTimes(known, observed, scheduled, zone, changes);
  for (const [name, kind, field] of SETS) {
    const now = observed[name];
    const was = known[name];
    if (now === undefined || sameList(was, now)) continue;
    changes.push(valueChange(kind, field, was, now));
  }
  if (observed.checkin && !sameCheckin(known.checkin, observed.checkin)) {
    changes.push(valueChange("checkin", "checkinAllocations", known.checkin, observed.checkin));
  }
  return changes;
}

function valueChange<T extends string | number | string[] | CheckinSummary>(
  kind: ChangeKind,
  field: string,
  was: T | undefined,
  now: T,
): Change {
  const change: Change = { kind, field, action: was === undefined ? "assigned" : "changed" };
  if (was !== undefined) change.old = was;
  change.new = now;
  return change;
}

function diffStates(was: string[] | undefined, now: string[] | undefined, out: Change[]): void {
  if (!now || sameList(was, now)) return;
  const before = new Set(was ?? []);
  const after = new Set(now);
  for (const state of now) {
    if (!before.has(state)) out.push(stateChange(state, "added", was, now));
  }
  for (const state of was ?? []) {
    if (!after.has(state)) out.push(stateChange(state, "withdrawn", was, now));
  }
}

function stateChange(
  state: string,
  action: "added" | "withdrawn",
  was: string[] | undefined,
  now: string[],
): Change {
  const change: Change = { kind: "state", field: "publicFlightState", action, state, new: now };
  if (was) change.old = was;
  return change;
}

function diffTimes(
  known: SnapshotFields,
  observed: SnapshotFields,
  scheduled: number | undefined,
  zone: string,
  out: Change[],
): void {
  if (!observed.times) return;
  for (const field of TIME_FIELDS) {
    const now = observed.times[field];
    const was = known.times?.[field];
    if (now === undefined || now === was) continue;
    const change: Change = {
      kind: "time",
      field,
      action: was === undefined ? "assigned" : "changed",
      new: formatApiDateTime(now, zone),
    };
    if (was !== undefined) {
      change.old = formatApiDateTime(was, zone);
      change.shiftMinutes = Math.round((now - was) / MINUTE);
    }
    if (scheduled !== undefined) change.delayMinutes = Math.round((now - scheduled) / MINUTE);
    out.push(change);
  }
}

function sameList(
  a: readonly (string | number)[] | undefined,
  b: readonly (string | number)[],
): boolean {
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameCheckin(a: CheckinSummary | undefined, b: CheckinSummary): boolean {
  return (
    a !== undefined &&
    a.opens === b.opens &&
    a.closes === b.closes &&
    sameList(a.rows, b.rows) &&
    sameList(a.desks, b.desks)
  );
}
