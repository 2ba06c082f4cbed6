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
  // What `{ id, ...change, flight, version }` builds (same keys, same order) at half the
  // cost: Object.assign copies a plain object's own properties as a spread does.
  const event = Object.assign({ id }, change) as ChangeEvent;
  event.flight = flight;
  event.version = version;
  if (current) event.current = current;
  return event;
}
