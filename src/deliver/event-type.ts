/**
 * The type of a webhook event (CloudEvents `type`, the plain JSON `type`): what the
 * alert means, for receivers that route on it. An alert often carries several kinds
 * of change at once — a real cancellation replaces the state list (`["BRD"]` →
 * `["CNX"]`: CNX added, BRD withdrawn), a gate move comes with its pier — so the type is
 * that of its most significant change, by one fixed precedence; `data.changes` still
 * lists every change. The precedence is public (docs/delivery.md, schemas/).
 */
import type { Change, ChangeKind } from "../diff/change.js";

/** Every event type a change can have, most significant first: the precedence. */
export const EVENT_TYPES = [
  "flight.cancelled",
  "flight.diverted",
  "flight.uncancelled",
  "flight.removed",
  "flight.added",
  "flight.gate.changed",
  "flight.time.changed",
  "flight.state.changed",
  "flight.terminal.changed",
  "flight.pier.changed",
  "flight.belt.changed",
  "flight.checkin.changed",
  "flight.route.changed",
  "flight.aircraft_type.changed",
  "flight.registration.changed",
  "flight.service_type.changed",
  "flight.codeshares.changed",
] as const;

/** An event type a change can have. */
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The type of an alert without any change. Never sent (an alert carries at least one
 * change); earlier versions used it for alerts whose changes were of different types.
 */
export const GENERAL_EVENT_TYPE = "flight.changed";

/** The type of a reminder (docs/rules.md, "Reminders"): a moment of the flight is near. */
export const REMINDER_EVENT_TYPE = "flight.reminder";

/** The type of a test event (`flightwatch channels test`): no flight changed. */
export const TEST_EVENT_TYPE = "flightwatch.test";

/** Event type per change kind; `state` and `flight` depend on the change (see `changeEventType`). */
const KIND_TYPES: Readonly<Record<Exclude<ChangeKind, "state" | "flight">, EventType>> = {
  gate: "flight.gate.changed",
  pier: "flight.pier.changed",
  terminal: "flight.terminal.changed",
  time: "flight.time.changed",
  belt: "flight.belt.changed",
  checkin: "flight.checkin.changed",
  codeshares: "flight.codeshares.changed",
  aircraftType: "flight.aircraft_type.changed",
  registration: "flight.registration.changed",
  route: "flight.route.changed",
  serviceType: "flight.service_type.changed",
};

const RANK: ReadonlyMap<string, number> = new Map(EVENT_TYPES.map((type, i) => [type, i]));

/**
 * The event type of one change. Cancellation, its withdrawal and diversion get types
 * of their own because receivers route on them; an un-cancel is `flight.uncancelled`,
 * so a `flight.cancelled` handler never sees an event that means the opposite.
 */
export function changeEventType(change: Change): EventType {
  if (change.kind === "flight")
    return change.action === "removed" ? "flight.removed" : "flight.added";
  if (change.kind === "state") {
    if (change.state === "CNX") {
      return change.action === "withdrawn" ? "flight.uncancelled" : "flight.cancelled";
    }
    if (change.action === "added" && change.state === "DIV") return "flight.diverted";
    return "flight.state.changed";
  }
  return KIND_TYPES[change.kind];
}

/** The event type of an alert: the type of its most significant change (`EVENT_TYPES` order). */
export function alertEventType(changes: readonly Change[]): EventType | typeof GENERAL_EVENT_TYPE {
  let best: EventType | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  for (const change of changes) {
    const type = changeEventType(change);
    const rank = RANK.get(type) ?? Number.POSITIVE_INFINITY;
    // Stryker disable next-line EqualityOperator: an equal rank is the same type, so taking the later change gives the same type
    if (rank < bestRank) {
      best = type;
      bestRank = rank;
    }
  }
  return best ?? GENERAL_EVENT_TYPE;
}
