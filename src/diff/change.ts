/**
 * Semantic change events: what the differ reports and every later stage consumes.
 * Each event names one field of one physical flight with its old and new value, and
 * has a deterministic id, so the same change seen twice is the same event.
 */
import { eventId } from "./event-id.js";
import type { CheckinSummary, FlightIdentity, SnapshotFields } from "./flight-snapshot.js";

/** Kinds of change, one per reported field group. */
export const CHANGE_KINDS = [
  "flight",
  "gate",
  "pier",
  "terminal",
  "state",
  "time",
  "belt",
  "checkin",
  "codeshares",
  "aircraftType",
  "registration",
  "route",
  "serviceType",
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * What happened: a value appeared (`assigned`), was replaced (`changed`), a state or
 * a flight was `added` / `withdrawn` / `removed`.
 */
export type ChangeAction = "assigned" | "changed" | "added" | "withdrawn" | "removed";

/** A value before or after a change; times are API-format strings with an offset. */
export type ChangeValue = string | number | string[] | CheckinSummary;

/** One semantic change of one field. */
export interface Change {
  kind: ChangeKind;
  /** Upstream field name (`gate`, `publicFlightState`, `estimatedLandingTime`, …). */
  field: string;
  action: ChangeAction;
  old?: ChangeValue;
  new?: ChangeValue;
  /** For `state`: the state code added or withdrawn (`BRD`, `CNX`, …). */
  state?: string;
  /** For `time`: minutes the time moved since the last known value (new − old). */
  shiftMinutes?: number;
  /** For `time`: minutes the new time lies after the schedule (negative = early). */
  delayMinutes?: number;
}

/** A change of one physical flight, with its identity and the version it was seen at. */
export interface ChangeEvent extends Change {
  /** Deterministic: same flight, field, values and version → same id. */
  id: string;
  flight: FlightIdentity;
  /** `lastUpdatedAt` (epoch ms) of the observation that showed the change. */
  version: number;
  /**
   * The flight's known fields after this observation (for a removal: the last known),
   * so later stages can filter and render without reading the snapshot again.
   */
  current?: SnapshotFields;
}

/** Builds the event for a change, with its deterministic id (see `eventId`). */
export function toChangeEvent(
  change: Change,
  flight: FlightIdentity,
  version: number,
  current?: SnapshotFields,
): ChangeEvent {
  const id = eventId(
    flight.key,
    change.field,
    change.action,
    change.state,
    change.old,
    change.new,
    version,
  );
  return eventOf(id, change, flight, version, current);
}

/**
 * What `{ id, ...change, flight, version, current? }` builds: the same keys in the same
 * order. The shapes the differ makes are written as one literal each, which allocates
 * the event at its final size (about a tenth of the time of copying the properties one
 * by one, and 60 % of the memory); any other change is copied by `Object.assign`, which
 * copies a plain object's own properties as a spread does.
 */
function eventOf(
  id: string,
  change: Change,
  flight: FlightIdentity,
  version: number,
  current: SnapshotFields | undefined,
): ChangeEvent {
  const c = change;
  // Stryker disable next-line ConditionalExpression,BlockStatement: a fast path; without it Object.assign below builds the same event ("true" is killed)
  if (keysAre(c, OLD_NEW)) {
    return current
      ? {
          id,
          kind: c.kind,
          field: c.field,
          action: c.action,
          old: c.old,
          new: c.new,
          flight,
          version,
          current,
        }
      : {
          id,
          kind: c.kind,
          field: c.field,
          action: c.action,
          old: c.old,
          new: c.new,
          flight,
          version,
        };
  }
  // Stryker disable next-line ConditionalExpression,BlockStatement: a fast path; without it Object.assign below builds the same event ("true" is killed)
  if (keysAre(c, NEW_OLD_SHIFT_DELAY)) {
    return current
      ? {
          id,
          kind: c.kind,
          field: c.field,
          action: c.action,
          new: c.new,
          old: c.old,
          shiftMinutes: c.shiftMinutes,
          delayMinutes: c.delayMinutes,
          flight,
          version,
          current,
        }
      : {
          id,
          kind: c.kind,
          field: c.field,
          action: c.action,
          new: c.new,
          old: c.old,
          shiftMinutes: c.shiftMinutes,
          delayMinutes: c.delayMinutes,
          flight,
          version,
        };
  }
  // Stryker disable next-line ConditionalExpression,BlockStatement: a fast path; without it Object.assign below builds the same event ("true" is killed)
  if (keysAre(c, STATE_NEW_OLD)) {
    return current
      ? {
          id,
          kind: c.kind,
          field: c.field,
          action: c.action,
          state: c.state,
          new: c.new,
          old: c.old,
          flight,
          version,
          current,
        }
      : {
          id,
          kind: c.kind,
          field: c.field,
          action: c.action,
          state: c.state,
          new: c.new,
          old: c.old,
          flight,
          version,
        };
  }
  // Stryker disable next-line ConditionalExpression,BlockStatement: a fast path; without it Object.assign below builds the same event ("true" is killed)
  if (keysAre(c, NEW)) {
    return current
      ? { id, kind: c.kind, field: c.field, action: c.action, new: c.new, flight, version, current }
      : { id, kind: c.kind, field: c.field, action: c.action, new: c.new, flight, version };
  }
  // Stryker disable next-line ConditionalExpression,BlockStatement: a fast path; without it Object.assign below builds the same event ("true" is killed)
  if (keysAre(c, BARE)) {
    return current
      ? { id, kind: c.kind, field: c.field, action: c.action, flight, version, current }
      : { id, kind: c.kind, field: c.field, action: c.action, flight, version };
  }
  const event = Object.assign({ id }, change) as ChangeEvent;
  event.flight = flight;
  event.version = version;
  if (current) event.current = current;
  return event;
}

// The shapes of the fast paths: a mutant of one only sends its changes down the general path.
// Stryker disable ArrayDeclaration,StringLiteral: see above
/** A value change (`changed`): what `valueChange` makes. */
const OLD_NEW = ["kind", "field", "action", "old", "new"];
/** A time that moved, with a schedule: what `diffTime` makes. */
const NEW_OLD_SHIFT_DELAY = [
  "kind",
  "field",
  "action",
  "new",
  "old",
  "shiftMinutes",
  "delayMinutes",
];
/** A state added or withdrawn where states were known: what `stateChange` makes. */
const STATE_NEW_OLD = ["kind", "field", "action", "state", "new", "old"];
/** A value seen for the first time (`assigned`). */
const NEW = ["kind", "field", "action", "new"];
/** A flight added or removed. */
const BARE = ["kind", "field", "action"];
// Stryker restore ArrayDeclaration,StringLiteral

/**
 * Whether the enumerable string keys of `change` (own, then any inherited, as for-in
 * lists them) are exactly `keys`, in order: then a literal with those keys is what a
 * spread would build. Reads the keys from the object's map, so allocates nothing.
 */
// Stryker disable BlockStatement,ConditionalExpression,UpdateOperator,BooleanLiteral: answering "no" for a shape only takes the general path, which builds the same event; those answering a wrong "yes" are killed
function keysAre(change: Change, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in change) if (key !== keys[i++]) return false;
  return i === keys.length;
  // Stryker restore BlockStatement,ConditionalExpression,UpdateOperator,BooleanLiteral
}
