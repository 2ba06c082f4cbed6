/**
 * A subscription's flight as flightwatch last saw it: its snapshot in Redis (the one
 * the differ compares each poll with), found by the subscription's number and date —
 * the operating number directly from the flight keys of that date, a codeshare among
 * the numbers the snapshots of that date are sold under — and its facts in words.
 */

import type { FlightSnapshot, TimeField } from "../diff/flight-snapshot.js";
import { describeFlight, localTime } from "../render/alert-text.js";
import { type Language, phrasesOf } from "../render/language.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { DetectionStore } from "../store/detection-store.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import { toLocalDate } from "../time/local-time.js";
import type { PageWords } from "./page-words.js";

/**
 * The snapshot of flight `flight` (normal form, any number it is sold under) on schedule
 * date `date`; undefined when flightwatch has not seen it (not yet within its horizon).
 */
export async function findSnapshot(
  redis: RedisConnection,
  keys: RedisKeys,
  flight: string,
  date: string,
): Promise<FlightSnapshot | undefined> {
  // Reads only: the store's WATCH is for polls, which this never runs.
  const store = new DetectionStore(redis, keys);
  const ofDate = await store.indexedKeys(date, date);
  // `D:2026-11-21:KL1001`: the operating number is in the key.
  const operating = ofDate.filter(
    (key) => normaliseFlightNumber(key.split(":").slice(2).join(":")) === flight,
  );
  const direct = [...(await store.loadSnapshots(operating)).values()];
  if (direct.length > 0) return earliest(direct);
  const all = [...(await store.loadSnapshots(ofDate)).values()];
  return earliest(
    all.filter((s) => s.flightNames.some((name) => normaliseFlightNumber(name) === flight)),
  );
}

function earliest(snapshots: FlightSnapshot[]): FlightSnapshot | undefined {
  return snapshots.sort((a, b) => (a.scheduled ?? 0) - (b.scheduled ?? 0))[0];
}

/** One line of the status page. */
export interface StatusFact {
  label: string;
  value: string;
}

/** What the status page says of a snapshot: a headline and the facts, in `language`. */
export function flightFacts(
  snapshot: FlightSnapshot,
  subscribedAs: string,
  zone: string,
  language: Language,
  w: PageWords,
): { headline: string; facts: StatusFact[]; updated: string } {
  const p = phrasesOf(language);
  const f = snapshot.fields;
  // The number on the passenger's ticket first, as their emails name it.
  const lead = snapshot.flightNames.find((n) => normaliseFlightNumber(n) === subscribedAs);
  const headline = describeFlight(snapshot, f.route, zone, {
    language,
    current: f,
    ...(lead !== undefined ? { flightName: lead } : {}),
  });
  const facts: StatusFact[] = [];
  if (f.states && f.states.length > 0) {
    facts.push({
      label: w.stateLabel,
      value: capital(f.states.map((s) => p.states[s] ?? s).join(", ")),
    });
  }
  if (snapshot.scheduled !== undefined) {
    // The date is the page's own (and the headline's): the time alone, unless it differs.
    const sameDay = snapshot.scheduleDate === toLocalDate(snapshot.scheduled, zone);
    facts.push({
      label: w.scheduled,
      value: localTime(snapshot.scheduled, zone, !sameDay, language),
    });
  }
  for (const [field, ms] of Object.entries(f.times ?? {}) as [TimeField, number][]) {
    facts.push({
      label: capital(p.times[field] ?? field),
      value: timeValue(ms, snapshot, zone, language, AGAINST_SCHEDULE.has(field)),
    });
  }
  if (f.gate !== undefined) {
    facts.push({
      label: w.gateLabel,
      value: f.pier ? `${f.gate} (${p.fields.pier} ${f.pier})` : f.gate,
    });
  }
  if (f.terminal !== undefined) facts.push({ label: w.terminalLabel, value: String(f.terminal) });
  if (f.belts && f.belts.length > 0) facts.push({ label: w.beltLabel, value: f.belts.join(", ") });
  if (f.checkin && (f.checkin.rows.length > 0 || f.checkin.desks.length > 0)) {
    const parts: string[] = [];
    if (f.checkin.rows.length > 0) parts.push(`${p.rows} ${f.checkin.rows.join(", ")}`);
    if (f.checkin.desks.length > 0) parts.push(`${p.desks} ${deskRange(f.checkin.desks)}`);
    facts.push({ label: w.checkinLabel, value: parts.join(" · ") });
  }
  return { headline, facts, updated: localTime(snapshot.version, zone, true, language) };
}

/** The times that stand for the scheduled one: they are shown with how late or early they are. */
const AGAINST_SCHEDULE: ReadonlySet<TimeField> = new Set([
  "publicEstimatedOffBlockTime",
  "actualOffBlockTime",
  "estimatedLandingTime",
  "actualLandingTime",
]);

/** A time, with the date when it is not the schedule's day, and (`late`) how late or early it is. */
function timeValue(
  ms: number,
  s: FlightSnapshot,
  zone: string,
  language: Language,
  late: boolean,
): string {
  const p = phrasesOf(language);
  const day = (at: number) => toLocalDate(at, zone);
  const sameDay = s.scheduled === undefined || day(ms) === day(s.scheduled);
  const time = localTime(ms, zone, !sameDay, language);
  if (s.scheduled === undefined || !late) return time;
  const minutes = Math.round((ms - s.scheduled) / 60_000);
  return `${time} (${minutes > 0 ? p.late(minutes) : minutes < 0 ? p.early(-minutes) : p.onTime})`;
}

/** `301–305, 310`: runs of desk numbers. */
function deskRange(desks: readonly number[]): string {
  const runs: string[] = [];
  let start = desks[0];
  let prev = start;
  for (const d of [...desks.slice(1), Number.NaN]) {
    if (start === undefined || prev === undefined) break;
    if (d === prev + 1) {
      prev = d;
      continue;
    }
    runs.push(start === prev ? String(start) : `${start}–${prev}`);
    start = d;
    prev = d;
  }
  return runs.join(", ");
}

const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
