/**
 * Alerts as one line of plain text for people: what `watch` prints and what `rules
 * test` shows a channel would receive. Times are shown in the airport's local time.
 * Pure; the channels' own rich formats (Slack blocks, HTML mail) build on the same
 * wording.
 */
import type { ChangeValue } from "../diff/change.js";
import type { CheckinSummary, FlightIdentity } from "../diff/flight-snapshot.js";
import { parseApiDateTime, toLocalDateTime } from "../time/local-time.js";
import type { Alert, AlertChange } from "./alert.js";

/** Public flight states in words (NOTES.md, "Flight states"). */
export const STATE_NAMES: Readonly<Record<string, string>> = {
  SCH: "scheduled",
  DEL: "delayed",
  WIL: "wait in lounge",
  GTO: "gate open",
  BRD: "boarding",
  GCH: "gate change",
  GCL: "gate closing",
  GTD: "gate closed",
  DEP: "departed",
  CNX: "cancelled",
  TOM: "moved to tomorrow",
  AIR: "airborne",
  EXP: "expected landing changed",
  FIR: "in national airspace",
  LND: "landed",
  FIB: "first bag on belt soon",
  ARR: "baggage handled",
  DIV: "diverted",
};

/** Time fields in words. */
const TIME_NAMES: Readonly<Record<string, string>> = {
  estimatedLandingTime: "estimated landing",
  actualLandingTime: "landed at",
  publicEstimatedOffBlockTime: "estimated departure",
  actualOffBlockTime: "departed at",
  expectedTimeBoarding: "boarding",
  expectedTimeGateClosing: "gate closing",
  expectedTimeGateOpen: "gate open",
  expectedTimeOnBelt: "bags on belt",
};

const FIELD_NAMES: Readonly<Record<string, string>> = {
  gate: "gate",
  pier: "pier",
  terminal: "terminal",
  baggageClaim: "belt",
  checkinAllocations: "check-in",
  codeshares: "codeshares",
  aircraftType: "aircraft",
  aircraftRegistration: "registration",
  route: "route",
  serviceType: "service type",
};

/** `KL1395 to WAW, departs Sat 21 Nov 10:25` — the flight an alert is about. */
export function describeFlight(
  flight: FlightIdentity,
  route: readonly string[] | undefined,
  zone: string,
): string {
  const names = flight.flightNames.length > 1 ? ` (${flight.flightNames.slice(1).join(", ")})` : "";
  const places = route && route.length > 0 ? route.join(", ") : undefined;
  const way =
    flight.direction === "A"
      ? `${places ? ` from ${places}` : ""}, arrives`
      : `${places ? ` to ${places}` : ""}, departs`;
  const when = flight.scheduled === undefined ? "" : ` ${localTime(flight.scheduled, zone, true)}`;
  return `${flight.mainFlight}${names}${way}${when}`;
}

/** One change in words: `gate D7 → D9`, `now boarding`, `estimated departure 10:25 → 10:50 (+25 min)`. */
export function describeChange(change: AlertChange, zone: string): string {
  const text = changeText(change, zone);
  return change.correction ? `${text} (correction)` : text;
}

/** A change as a label and a value (`gate` and `D7 → D9`), for tables and Slack fields. */
export interface ChangeParts {
  label: string;
  value: string;
}

/** One change as label and value: `status` / `now boarding`; corrections marked. */
export function changeParts(change: AlertChange, zone: string): ChangeParts {
  const parts = rawParts(change, zone);
  return change.correction ? { ...parts, value: `${parts.value} (correction)` } : parts;
}

function changeText(change: AlertChange, zone: string): string {
  if (change.kind === "flight")
    return change.action === "removed" ? "flight removed" : "new flight";
  const { label, value } = rawParts(change, zone);
  return change.kind === "state" ? value : `${label} ${value}`;
}

function rawParts(change: AlertChange, zone: string): ChangeParts {
  if (change.kind === "flight")
    return { label: "flight", value: change.action === "removed" ? "removed" : "new" };
  if (change.kind === "state") {
    const name = STATE_NAMES[change.state ?? ""] ?? change.state ?? "state";
    return {
      label: "status",
      value: change.action === "withdrawn" ? `no longer ${name}` : `now ${name}`,
    };
  }
  if (change.kind === "time") {
    const label = TIME_NAMES[change.field] ?? change.field;
    const to = timeText(change.new, zone);
    const note = timeNote(change);
    return {
      label,
      value:
        change.old === undefined ? `${to}${note}` : `${timeText(change.old, zone)} → ${to}${note}`,
    };
  }
  const label = FIELD_NAMES[change.field] ?? change.field;
  const to = valueText(change.new);
  return { label, value: change.old === undefined ? to : `${valueText(change.old)} → ${to}` };
}

/** Off-block and landing times: measured against the schedule, which they refer to. */
const SCHEDULE_TIMES = new Set([
  "publicEstimatedOffBlockTime",
  "actualOffBlockTime",
  "estimatedLandingTime",
  "actualLandingTime",
]);

/**
 * ` (25 min late)` for departure and landing times; ` (33 min later)` for the others
 * (boarding, gate times, belt), whose distance from the schedule means nothing to people.
 */
function timeNote(change: AlertChange): string {
  if (SCHEDULE_TIMES.has(change.field)) {
    const d = change.delayMinutes;
    if (d === undefined || d === 0) return d === 0 ? " (on time)" : "";
    return d > 0 ? ` (${d} min late)` : ` (${-d} min early)`;
  }
  const s = change.shiftMinutes;
  if (s === undefined || s === 0) return "";
  return s > 0 ? ` (${s} min later)` : ` (${-s} min earlier)`;
}

/** The whole alert on one line: flight, then each change. */
export function describeAlert(alert: Alert, zone: string): string {
  const flight = describeFlight(alert.flight, alert.current?.route, zone);
  return `${flight}: ${alert.changes.map((c) => describeChange(c, zone)).join("; ")}`;
}

function timeText(value: ChangeValue | undefined, zone: string): string {
  if (typeof value !== "string") return valueText(value);
  const ms = parseApiDateTime(value, zone);
  return ms === undefined ? value : localTime(ms, zone, false);
}

/** `10:25`, or `Sat 21 Nov 10:25` with the date, in the airport's zone. */
export function localTime(ms: number, zone: string, withDate: boolean): string {
  const local = toLocalDateTime(ms, zone);
  const hm = local.slice(11, 16);
  if (!withDate) return hm;
  const [y, m, d] = local.slice(0, 10).split("-").map(Number) as [number, number, number];
  const names = dateNames();
  const day = names.weekdays[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
  return `${day} ${d} ${names.months[m - 1]} ${hm}`;
}

/** en-GB short weekday (Sunday first) and month names, as Intl writes them. */
interface DateNames {
  weekdays: readonly string[];
  months: readonly string[];
}

let cachedNames: DateNames | undefined;

/**
 * The names once, from Intl itself (so ICU's spelling, e.g. `Sept`, is kept): building
 * two formatters per call cost ~170 µs, most of the time of a webhook or email render.
 */
function dateNames(): DateNames {
  if (cachedNames) return cachedNames;
  const weekday = new Intl.DateTimeFormat("en-GB", { weekday: "short", timeZone: "UTC" });
  const month = new Intl.DateTimeFormat("en-GB", { month: "short", timeZone: "UTC" });
  // 2023-01-01 was a Sunday.
  cachedNames = {
    weekdays: Array.from({ length: 7 }, (_, i) => weekday.format(Date.UTC(2023, 0, 1 + i))),
    months: Array.from({ length: 12 }, (_, i) => month.format(Date.UTC(2023, i, 1))),
  };
  return cachedNames;
}

function valueText(value: ChangeValue | undefined): string {
  if (value === undefined) return "—";
  if (Array.isArray(value)) return value.length > 0 ? value.join(", ") : "—";
  if (typeof value === "object") return checkinText(value);
  return String(value);
}

function checkinText(c: CheckinSummary): string {
  const parts: string[] = [];
  if (c.rows.length > 0) parts.push(`rows ${c.rows.join(", ")}`);
  if (c.desks.length > 0) {
    const first = c.desks[0];
    const last = c.desks[c.desks.length - 1];
    parts.push(first === last ? `desk ${first}` : `desks ${first}–${last}`);
  }
  return parts.length > 0 ? parts.join(" ") : "—";
}
