/**
 * Semantic change events: what the differ reports and every later stage consumes.
 * Each event names one field of one physical flight with its old and new value, and
 * has a deterministic id, so the same change seen twice is the same event.
 */
import { createHash } from "node:crypto";
import type { CheckinSummary, FlightIdentity } from "./flight-snapshot.js";

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
}

/** Builds the event for a change, with its deterministic id. */
export function toChangeEvent(
  change: Change,
  flight: FlightIdentity,
  version: number,
): ChangeEvent {
  const basis = JSON.stringify([
    flight.key,
    change.field,
    change.action,
    change.state ?? null,
    change.old ?? null,
    change.new ?? null,
    version,
  ]);
  const id = createHash("sha256").update(basis).digest("base64url").slice(0, 22);
  return { id, ...change, flight, version };
}
