/**
 * The differ: a pure function from (last known snapshot, new observation) to typed,
 * semantic changes and the next snapshot. A field the observation lacks is unknown,
 * never a change; a field seen for the first time is an assignment; an observation
 * older than the snapshot is stale and changes nothing.
 */
import { formatApiDateTime } from "../time/local-time.js";
import type { Change, ChangeKind, ChangeValue } from "./change.js";
import type { ObservedFlight } from "./codeshare-fold.js";
import {
  type CheckinSummary,
  type FlightIdentity,
  type FlightSnapshot,
  mergeFields,
  type SnapshotFields,
  type SnapshotTimes,
  type TimeField,
} from "./flight-snapshot.js";

/** Result of diffing one observation. */
export interface DiffResult {
  /** The snapshot to store next (may equal the previous one). */
  snapshot: FlightSnapshot;
  changes: Change[];
  /** The observation was older than the snapshot and ignored. */
  stale: boolean;
}

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
  const id = source.id || previous.id;
  const flightNames = unionNames(previous, observed.identity.flightNames);
  const version = Math.max(previous.version, observed.version);
  const fields = mergeFields(previous.fields, observed.fields);
  // Stryker disable next-line LogicalOperator: the direction is part of the key: a record of the flight has the one it is known by
  const direction = source.direction ?? previous.direction;
  // Stryker disable next-line LogicalOperator: the schedule date is part of the key: a record of the flight has the one it is known by
  const scheduleDate = source.scheduleDate ?? previous.scheduleDate;
  const scheduled = source.scheduled ?? previous.scheduled;
  // Stryker disable next-line ConditionalExpression,BlockStatement: without this fast path, the code below builds the same snapshot ("true" is killed)
  if (direction && scheduleDate && scheduled !== undefined) {
    // The usual case, as one literal: adding properties one by one would grow the
    // object's property store on every diff.
    const snapshot: FlightSnapshot = {
      key: previous.key,
      id,
      mainFlight: previous.mainFlight,
      flightNames,
      version,
      fields,
      direction,
      scheduleDate,
      scheduled,
    };
    carryCarrier(source, previous, snapshot);
    return { snapshot, changes, stale: false };
  }
  const snapshot: FlightSnapshot = {
    key: previous.key,
    id,
    mainFlight: previous.mainFlight,
    flightNames,
    version,
    fields,
  };
  if (direction) snapshot.direction = direction;
  if (scheduleDate) snapshot.scheduleDate = scheduleDate;
  if (scheduled !== undefined) snapshot.scheduled = scheduled;
  carryCarrier(source, previous, snapshot);
  return { snapshot, changes, stale: false };
}

/** Carrier codes and operational flag: from the authoritative source, else as known. */
function carryCarrier(source: FlightIdentity, previous: FlightIdentity, to: FlightIdentity): void {
  const iata = source.prefixIATA ?? previous.prefixIATA;
  if (iata !== undefined) to.prefixIATA = iata;
  const icao = source.prefixICAO ?? previous.prefixICAO;
  if (icao !== undefined) to.prefixICAO = icao;
  const operational = source.operational ?? previous.operational;
  if (operational !== undefined) to.operational = operational;
}

/** Every flight number known for the flight: once sold under a number, it keeps matching. */
function unionNames(previous: FlightSnapshot, seen: readonly string[]): string[] {
  // Stryker disable next-line ConditionalExpression: "false": a shortcut; the union of names already known is the same list ("true" is killed)
  if (containsAll(previous.flightNames, seen)) return previous.flightNames;
  const names = new Set([...previous.flightNames, ...seen]);
  names.delete(previous.mainFlight);
  return [previous.mainFlight, ...[...names].sort()];
}

// Stryker disable all: a shortcut for unionNames; answering "no" where it should say "yes" only builds the same list (those answering a wrong "yes" are killed)
function containsAll(names: readonly string[], seen: readonly string[]): boolean {
  outer: for (let i = 0; i < seen.length; i++) {
    for (let j = 0; j < names.length; j++) if (names[j] === seen[i]) continue outer;
    return false;
  }
  return true;
}
// Stryker restore all

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
  foundCount = 0;
  // Field by field rather than a loop over a table of names: each comparison then
  // reads one known property, which keeps this hot path cheap.
  diffScalar("gate", "gate", known.gate, observed.gate);
  diffScalar("pier", "pier", known.pier, observed.pier);
  diffScalar("terminal", "terminal", known.terminal, observed.terminal);
  diffScalar("aircraftType", "aircraftType", known.aircraftType, observed.aircraftType);
  diffScalar("registration", "aircraftRegistration", known.registration, observed.registration);
  diffScalar("serviceType", "serviceType", known.serviceType, observed.serviceType);
  diffStates(known.states, observed.states);
  diffTimes(known, observed, scheduled, zone);
  diffList("belt", "baggageClaim", known.belts, observed.belts);
  diffList("codeshares", "codeshares", known.codeshares, observed.codeshares);
  diffList("route", "route", known.route, observed.route);
  if (observed.checkin && !sameCheckin(known.checkin, observed.checkin)) {
    emit(valueChange("checkin", "checkinAllocations", known.checkin, observed.checkin));
  }
  return takeFound();
}

/**
 * The changes `diffFields` finds, collected here rather than in an array of its own:
 * an empty array grown by `push` allocates room for 16, where a flight has one or two.
 * `diffFields` is synchronous and never re-entered, so one collector serves every call.
 */
// Stryker disable next-line ArrayDeclaration: every element is written before it is read
const found: Change[] = [];
/** How many of `found` this call found (its length only grows: `length = 0` would free it). */
let foundCount = 0;

function emit(change: Change): void {
  found[foundCount++] = change;
}

/** This call's changes as an array of their own, allocated at its final size. */
function takeFound(): Change[] {
  const n = foundCount;
  foundCount = 0;
  // Stryker disable next-line ConditionalExpression: "false": a shortcut; the slice below gives the same array ("true" is killed)
  if (n === 0) return [];
  // Stryker disable next-line ConditionalExpression: "false": a shortcut; the slice below gives the same array ("true" is killed)
  if (n === 1) return [found[0] as Change];
  // Stryker disable next-line ConditionalExpression: "false": a shortcut; the slice below gives the same array ("true" is killed)
  if (n === 2) return [found[0] as Change, found[1] as Change];
  return found.slice(0, n);
}

function diffScalar(
  kind: ChangeKind,
  field: string,
  was: string | number | undefined,
  now: string | number | undefined,
): void {
  if (now === undefined || now === was) return;
  emit(valueChange(kind, field, was, now));
}

function diffList(
  kind: ChangeKind,
  field: string,
  was: string[] | undefined,
  now: string[] | undefined,
): void {
  if (now === undefined || sameList(was, now)) return;
  emit(valueChange(kind, field, was, now));
}

function valueChange(
  kind: ChangeKind,
  field: string,
  was: ChangeValue | undefined,
  now: ChangeValue,
): Change {
  const change: Change = { kind, field, action: was === undefined ? "assigned" : "changed" };
  if (was !== undefined) change.old = was;
  change.new = now;
  return change;
}

function diffStates(was: string[] | undefined, now: string[] | undefined): void {
  if (!now || sameList(was, now)) return;
  const before = was ?? [];
  for (const state of now) {
    if (!has(before, state)) emit(stateChange(state, "added", was, now));
  }
  for (const state of before) {
    if (!has(now, state)) emit(stateChange(state, "withdrawn", was, now));
  }
}

/** Membership as a Set would answer it; a scan for the few states a flight has. */
function has(list: readonly string[], value: string): boolean {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: both ways answer the same
  return list.length <= 16 ? list.includes(value) : new Set(list).has(value);
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
): void {
  const now = observed.times;
  if (!now) return;
  const was: SnapshotTimes = known.times ?? NO_TIMES;
  // In `TIME_FIELDS` order, each field by name (see `UNROLLED_TIME_FIELDS`): a property
  // read by a variable key costs several times one read by name.
  const s = scheduled;
  diffTime("estimatedLandingTime", was.estimatedLandingTime, now.estimatedLandingTime, s, zone);
  diffTime("actualLandingTime", was.actualLandingTime, now.actualLandingTime, s, zone);
  diffTime(
    "publicEstimatedOffBlockTime",
    was.publicEstimatedOffBlockTime,
    now.publicEstimatedOffBlockTime,
    s,
    zone,
  );
  diffTime("actualOffBlockTime", was.actualOffBlockTime, now.actualOffBlockTime, s, zone);
  diffTime("expectedTimeBoarding", was.expectedTimeBoarding, now.expectedTimeBoarding, s, zone);
  diffTime(
    "expectedTimeGateClosing",
    was.expectedTimeGateClosing,
    now.expectedTimeGateClosing,
    s,
    zone,
  );
  diffTime("expectedTimeGateOpen", was.expectedTimeGateOpen, now.expectedTimeGateOpen, s, zone);
  diffTime("expectedTimeOnBelt", was.expectedTimeOnBelt, now.expectedTimeOnBelt, s, zone);
}

/** Times of a snapshot that has none (read only). */
const NO_TIMES: SnapshotTimes = Object.freeze({});

function diffTime(
  field: TimeField,
  was: number | undefined,
  now: number | undefined,
  scheduled: number | undefined,
  zone: string,
): void {
  if (now === undefined || now === was) return;
  const change: Change = {
    kind: "time",
    field,
    action: was === undefined ? "assigned" : "changed",
    new: formatTime(now, zone),
  };
  if (was !== undefined) {
    change.old = formatTime(was, zone);
    change.shiftMinutes = Math.round((now - was) / MINUTE);
  }
  if (scheduled !== undefined) change.delayMinutes = Math.round((now - scheduled) / MINUTE);
  emit(change);
}

/**
 * `formatApiDateTime`, remembered: a time that moves is written as the new value of one
 * change and as the old value of the next, and flights share times, so most instants
 * the differ writes it has written before. Bounded: cleared when full.
 */
function formatTime(instantMs: number, zone: string): string {
  // Stryker disable next-line ConditionalExpression: "true" only clears the cache on every call; "false" fails the test "writes times in the zone it is given" (checked by hand)
  if (zone !== formattedZone) {
    formatted.clear();
    formattedZone = zone;
  }
  let text = formatted.get(instantMs);
  // Stryker disable next-line ConditionalExpression: "true": formatting again gives the same text ("false" is killed)
  if (text === undefined) {
    text = formatApiDateTime(instantMs, zone);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: when a bounded cache is cleared changes its size, not its answers
    if (formatted.size >= FORMATTED_LIMIT) formatted.clear();
    formatted.set(instantMs, text);
  }
  return text;
}

const FORMATTED_LIMIT = 10_000;
const formatted = new Map<number, string>();
// Stryker disable next-line StringLiteral: no zone is named so; any such name makes the first call clear an empty cache
let formattedZone = "";

function sameList(
  a: readonly (string | number)[] | undefined,
  b: readonly (string | number)[],
): boolean {
  if (!a || a.length !== b.length) return false;
  // Stryker disable next-line EqualityOperator: "<=" steps past the end, comparing undefined with undefined (the other ways are killed)
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
