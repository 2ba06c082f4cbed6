/**
 * Alerts as one line of plain text for people: what `watch` prints and what `rules
 * test` shows a channel would receive. Times are shown in the airport's local time.
 * Pure; the channels' own rich formats (Slack blocks, HTML mail) build on the same
 * wording.
 */
import type { ChangeValue } from "../diff/change.js";
import type { CheckinSummary, FlightIdentity, SnapshotFields } from "../diff/flight-snapshot.js";
import type { Alert, AlertChange } from "../dispatch/alert.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { filterFlightNumbers } from "../rules/match/flight-filter.js";
import type { Rule } from "../rules/rule.js";
import { parseApiDateTime, toLocalDateTime } from "../time/local-time.js";
import { type Language, type Phrases, phrasesOf } from "./language.js";

/** What besides a change or a flight its words may draw on. */
export interface TextOptions {
  /**
   * The flight's fields as of the alert (`Alert.current`): they name the gate of "now
   * boarding at gate D9" and tell a cancelled flight ("was to depart").
   */
  current?: SnapshotFields;
  /**
   * The number to name the flight by, first: the one the passenger's rule matched it by
   * (`ruleFlightName`), the codeshare on their ticket. Default: the operating number.
   */
  flightName?: string;
  /**
   * Each value from the upstream (a gate, a flight number, a route, a state code) is
   * cut to this many characters, ending in `…`: the upstream bounds none of them, and a
   * 200,000-character gate must not make a 200 KB subject. Default: not cut.
   */
  maxValueChars?: number;
  /** The language of the words (values from the upstream stay as they are). Default English. */
  language?: Language;
}

/** `text` cut to at most `max` characters, ending in `…`, never inside a surrogate pair. */
export function clipText(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  if (max < 1) return "";
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * The flight's own spelling of the number a rule knows it by: the first of the numbers
 * the rule's flight filter names (its own `flight`, in the rule's order) that the flight
 * is sold under — the number it matched by, as matching compares the same normal forms.
 * Undefined for a rule that names no flight number (an ops or integration rule).
 */
export function ruleFlightName(flight: FlightIdentity, rule: Rule): string | undefined {
  const numbers = filterFlightNumbers(rule.flights);
  if (numbers === undefined) return undefined;
  const names = [flight.mainFlight, ...flight.flightNames];
  for (const number of numbers) {
    const name = names.find((n) => normaliseFlightNumber(n) === number);
    if (name !== undefined) return name;
  }
  return undefined;
}

/**
 * Every number the flight is sold under, `lead` first (when it is one of them), then
 * the operating number and the codeshares in their order.
 */
export function flightNamesFrom(flight: FlightIdentity, lead?: string): string[] {
  const first = lead !== undefined && flight.flightNames.includes(lead) ? lead : flight.mainFlight;
  const names = [first];
  if (first !== flight.mainFlight) names.push(flight.mainFlight);
  for (const name of flight.flightNames) if (!names.includes(name)) names.push(name);
  return names;
}

/** Public flight states in words, in English (NOTES.md, "Flight states"). */
export const STATE_NAMES: Readonly<Record<string, string>> = phrasesOf("en").states;

/**
 * States after which the schedule no longer holds: the flight will not leave (or, for an
 * arrival, land here) at that time, whatever it said.
 */
const VOIDING_STATES: Readonly<Record<"A" | "D", readonly string[]>> = {
  D: ["CNX", "TOM"],
  A: ["CNX", "TOM", "DIV"],
};

/**
 * `KL1395 to WAW, departs Sat 21 Nov 10:25` — the flight an alert is about; `was to
 * depart` once it is cancelled or moved to tomorrow (`options.current`), so a
 * cancellation does not read as if the flight still left at its time.
 */
export function describeFlight(
  flight: FlightIdentity,
  route: readonly string[] | undefined,
  zone: string,
  options: TextOptions = {},
): string {
  const max = options.maxValueChars;
  const p = phrasesOf(options.language);
  const [lead, ...others] = flightNamesFrom(flight, options.flightName);
  const names = others.length > 0 ? ` (${clipText(others.join(", "), max)})` : "";
  const places = route && route.length > 0 ? clipText(route.join(", "), max) : undefined;
  const arrival = flight.direction === "A";
  const states = options.current?.states ?? [];
  const voided = VOIDING_STATES[arrival ? "A" : "D"].some((s) => states.includes(s));
  const way = arrival
    ? `${places ? ` ${p.from} ${places}` : ""}, ${voided ? p.wasToArrive : p.arrives}`
    : `${places ? ` ${p.to} ${places}` : ""}, ${voided ? p.wasToDepart : p.departs}`;
  const when =
    flight.scheduled === undefined
      ? ""
      : ` ${localTime(flight.scheduled, zone, true, options.language)}`;
  return `${clipText(lead ?? flight.mainFlight, max)}${names}${way}${when}`;
}

/** One change in words: `gate D7 → D9`, `now boarding at gate D9`, `estimated departure 10:25 → 10:50 (+25 min)`. */
export function describeChange(
  change: AlertChange,
  zone: string,
  options: TextOptions = {},
): string {
  const text = changeText(change, zone, options);
  return change.correction ? `${text} (${phrasesOf(options.language).correction})` : text;
}

/** A change as a label and a value (`gate` and `D7 → D9`), for tables and Slack fields. */
export interface ChangeParts {
  label: string;
  value: string;
}

/** One change as label and value: `status` / `now boarding`; corrections marked. */
export function changeParts(
  change: AlertChange,
  zone: string,
  options: TextOptions = {},
): ChangeParts {
  const parts = rawParts(change, zone, options);
  return change.correction
    ? { ...parts, value: `${parts.value} (${phrasesOf(options.language).correction})` }
    : parts;
}

function changeText(change: AlertChange, zone: string, options: TextOptions): string {
  const p = phrasesOf(options.language);
  if (change.kind === "flight") return change.action === "removed" ? p.flightRemoved : p.newFlight;
  const { label, value } = rawParts(change, zone, options);
  return change.kind === "state" ? value : `${label} ${value}`;
}

/** A word of a table for a key from the upstream (hasOwn: `toString` is not Object's). */
const wordOf = (table: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

function rawParts(change: AlertChange, zone: string, options: TextOptions): ChangeParts {
  const p = phrasesOf(options.language);
  if (change.kind === "flight")
    return { label: p.flight, value: change.action === "removed" ? p.removed : p.new };
  const max = options.maxValueChars;
  if (change.kind === "state") {
    const code = change.state ?? "";
    const name = wordOf(p.states, code) ?? (clipText(code, max) || p.status);
    if (change.action === "withdrawn") return { label: p.status, value: p.noLonger(name) };
    // The states that happen at a gate, in words naming it: a passenger needs to know which.
    const gate = options.current?.gate;
    const atGate =
      gate === undefined || !Object.hasOwn(p.atGate, code) ? undefined : p.atGate[code];
    return {
      label: p.status,
      value: atGate && gate ? atGate(clipText(gate, max)) : p.now(name),
    };
  }
  if (change.kind === "time") {
    const label = wordOf(p.times, change.field) ?? change.field;
    const to = clipText(timeText(change.new, zone), max);
    const from = change.old === undefined ? "" : `${clipText(timeText(change.old, zone), max)} → `;
    return { label, value: `${from}${to}${timeNote(change, p)}` };
  }
  const label = wordOf(p.fields, change.field) ?? change.field;
  // Each side cut on its own, so a long old value never hides the new one.
  const to = clipText(valueText(change.new, p), max);
  const from = change.old === undefined ? "" : `${clipText(valueText(change.old, p), max)} → `;
  return { label, value: `${from}${to}` };
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
function timeNote(change: AlertChange, p: Phrases): string {
  if (SCHEDULE_TIMES.has(change.field)) {
    const d = change.delayMinutes;
    if (d === undefined || d === 0) return d === 0 ? ` (${p.onTime})` : "";
    return d > 0 ? ` (${p.late(d)})` : ` (${p.early(-d)})`;
  }
  const s = change.shiftMinutes;
  if (s === undefined || s === 0) return "";
  return s > 0 ? ` (${p.later(s)})` : ` (${p.earlier(-s)})`;
}

/**
 * The whole alert on one line: flight, then each change, both as of `alert.current`
 * (unless `options` says otherwise).
 */
export function describeAlert(alert: Alert, zone: string, options: TextOptions = {}): string {
  if (alert.reminder !== undefined) return describeReminder(alert, zone, options);
  const text: TextOptions = { ...options, current: options.current ?? alert.current };
  const flight = describeFlight(alert.flight, text.current?.route, zone, text);
  const described = `${flight}: ${alert.changes.map((c) => describeChange(c, zone, text)).join("; ")}`;
  return alert.test ? `${phrasesOf(text.language).test} ${described}` : described;
}

/**
 * A reminder in one sentence, with the moment's local time: `Boarding for KL1395 starts
 * in 30 min at gate D7 (10:40)`. Empty for an alert that is no reminder.
 */
export function describeReminder(alert: Alert, zone: string, options: TextOptions = {}): string {
  const reminder = alert.reminder;
  if (reminder === undefined) return "";
  const p = phrasesOf(options.language);
  const max = options.maxValueChars;
  const [lead] = flightNamesFrom(alert.flight, options.flightName);
  const gateValue = (options.current ?? alert.current)?.gate;
  const gate = gateValue === undefined ? undefined : clipText(gateValue, max);
  const sentence = p.reminders[reminder.before](
    clipText(lead ?? alert.flight.mainFlight, max),
    p.duration(reminder.inMinutes),
    gate,
  );
  return `${sentence} (${localTime(reminder.at, zone, false, options.language)})`;
}

function timeText(value: ChangeValue | undefined, zone: string): string {
  if (typeof value !== "string") return valueText(value, phrasesOf("en"));
  const ms = parseApiDateTime(value, zone);
  return ms === undefined ? value : localTime(ms, zone, false);
}

/** `10:25`, or `Sat 21 Nov 10:25` (`za 21 nov 10:25`) with the date, in the airport's zone. */
export function localTime(
  ms: number,
  zone: string,
  withDate: boolean,
  language?: Language,
): string {
  const local = toLocalDateTime(ms, zone);
  const hm = local.slice(11, 16);
  if (!withDate) return hm;
  const [y, m, d] = local.slice(0, 10).split("-").map(Number) as [number, number, number];
  const names = dateNames(phrasesOf(language).locale);
  const day = names.weekdays[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
  return `${day} ${d} ${names.months[m - 1]} ${hm}`;
}

/** A locale's short weekday (Sunday first) and month names, as Intl writes them. */
interface DateNames {
  weekdays: readonly string[];
  months: readonly string[];
}

const cachedNames = new Map<string, DateNames>();

/**
 * The names once, from Intl itself (so ICU's spelling, e.g. `Sept`, is kept): building
 * two formatters per call cost ~170 µs, most of the time of a webhook or email render.
 */
function dateNames(locale: string): DateNames {
  const cached = cachedNames.get(locale);
  if (cached) return cached;
  const weekday = new Intl.DateTimeFormat(locale, { weekday: "short", timeZone: "UTC" });
  const month = new Intl.DateTimeFormat(locale, { month: "short", timeZone: "UTC" });
  // 2023-01-01 was a Sunday. Dutch abbreviations end in a period (`nov.`): left off.
  const names = {
    weekdays: Array.from({ length: 7 }, (_, i) =>
      weekday.format(Date.UTC(2023, 0, 1 + i)).replace(/\.$/, ""),
    ),
    months: Array.from({ length: 12 }, (_, i) =>
      month.format(Date.UTC(2023, i, 1)).replace(/\.$/, ""),
    ),
  };
  cachedNames.set(locale, names);
  return names;
}

function valueText(value: ChangeValue | undefined, p: Phrases): string {
  if (value === undefined) return "—";
  if (Array.isArray(value)) return value.length > 0 ? value.join(", ") : "—";
  if (typeof value === "object") return checkinText(value, p);
  return String(value);
}

function checkinText(c: CheckinSummary, p: Phrases): string {
  const parts: string[] = [];
  if (c.rows.length > 0) parts.push(`${p.rows} ${c.rows.join(", ")}`);
  if (c.desks.length > 0) {
    const first = c.desks[0];
    const last = c.desks[c.desks.length - 1];
    parts.push(first === last ? `${p.desk} ${first}` : `${p.desks} ${first}–${last}`);
  }
  return parts.length > 0 ? parts.join(" ") : "—";
}
