/**
 * Airport-local wall-clock time. The upstream takes `fromDateTime`/`toDateTime` as
 * local times without an offset (`yyyy-MM-dd'T'HH:mm:ss`) while record timestamps
 * carry one (`+01:00` or `+0100`). These helpers convert between the two with the
 * airport's IANA zone, correctly across both DST changes: in spring one local hour
 * never happens, in autumn one happens twice.
 */
import { IANAZone } from "luxon";
import { ConfigError } from "../errors.js";

/** Default airport zone (`AIRPORT_TIMEZONE`). */
export const DEFAULT_AIRPORT_TIMEZONE = "Europe/Amsterdam";

const zoneCache = new Map<string, IANAZone>();

/** Returns the zone, or throws a ConfigError naming `AIRPORT_TIMEZONE`. */
export function airportZone(name: string): IANAZone {
  let zone = zoneCache.get(name);
  if (!zone) {
    if (!IANAZone.isValidZone(name)) {
      throw new ConfigError(
        "AIRPORT_TIMEZONE",
        `"${name}" is not an IANA time zone (expected e.g. "Europe/Amsterdam")`,
      );
    }
    zone = IANAZone.create(name);
    zoneCache.set(name, zone);
  }
  return zone;
}

const BUCKET_MS = 15 * 60_000;
const offsetCache = new Map<string, Map<number, number>>();
const OFFSET_CACHE_LIMIT = 100_000;

/**
 * Offset of the zone from UTC at an instant, in minutes. Offsets are cached per
 * 15-minute bucket (Intl look-ups cost microseconds, and the differ needs many);
 * a bucket with a transition inside is never cached, so the answer stays exact.
 */
export function offsetMinutes(instantMs: number, zoneName: string): number {
  const bucket = Math.floor(instantMs / BUCKET_MS);
  // Callers ask about nearby instants in a row: the last cached bucket answers first.
  if (bucket === last.bucket && zoneName === last.zone) return last.offset;
  let cache = offsetCache.get(zoneName);
  if (!cache) {
    cache = new Map();
    offsetCache.set(zoneName, cache);
  }
  const cached = cache.get(bucket);
  if (cached !== undefined) {
    remember(zoneName, bucket, cached);
    return cached;
  }
  const zone = airportZone(zoneName);
  const offset = zone.offset(instantMs);
  const start = bucket * BUCKET_MS;
  if (zone.offset(start) === offset && zone.offset(start + BUCKET_MS - 1) === offset) {
    if (cache.size >= OFFSET_CACHE_LIMIT) cache.clear();
    cache.set(bucket, offset);
    remember(zoneName, bucket, offset);
  }
  return offset;
}

/** The last bucket `offsetMinutes` found cacheable (no transition inside). */
const last = { zone: "", bucket: Number.NaN, offset: 0 };

function remember(zone: string, bucket: number, offset: number): void {
  last.zone = zone;
  last.bucket = bucket;
  last.offset = offset;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** Wall-clock fields of an instant in a zone, as a UTC-based Date for easy reading. */
function wallClock(instantMs: number, zoneName: string): Date {
  return new Date(instantMs + offsetMinutes(instantMs, zoneName) * 60_000);
}

/** Local `yyyy-MM-dd'T'HH:mm:ss` of an instant (milliseconds dropped). */
export function toLocalDateTime(instantMs: number, zoneName: string): string {
  return wallClockText(wallClock(instantMs, zoneName));
}

function wallClockText(w: Date): string {
  return (
    `${w.getUTCFullYear()}-${pad2(w.getUTCMonth() + 1)}-${pad2(w.getUTCDate())}` +
    `T${pad2(w.getUTCHours())}:${pad2(w.getUTCMinutes())}:${pad2(w.getUTCSeconds())}`
  );
}

/** Local `yyyy-MM-dd` of an instant. */
export function toLocalDate(instantMs: number, zoneName: string): string {
  return toLocalDateTime(instantMs, zoneName).slice(0, 10);
}

/** Formats epoch ms as the API does, in one zone (see `formatApiDateTime`). */
export type ApiTimeFormat = (instantMs: number) => string;

const DAY_MS = 86_400_000;
const TWO = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
const dayPrefixCache = new Map<number, string>();
const suffixCache = new Map<number, string>();

/**
 * Formats an instant as the API does: `yyyy-MM-dd'T'HH:mm:ss.SSS+01:00` in the zone.
 * Hot in the simulator (ten stamps a record) and the differ: whole milliseconds in
 * years 1970–9999 with a whole-minute offset (every real timestamp) are written in one
 * `String.fromCharCode` call — one flat string, no concatenation — and anything else
 * (e.g. Monrovia's −00:44:30 until 1972) by `formatGeneral`, the general path.
 */
export function formatApiDateTime(instantMs: number, zoneName: string): string {
  const offset = offsetMinutes(instantMs, zoneName);
  const wall = instantMs + offset * 60_000;
  const day = Math.floor(wall / DAY_MS);
  if (
    !Number.isInteger(wall) ||
    !Number.isInteger(offset) ||
    day < 0 ||
    day > LAST_FAST_DAY ||
    Math.abs(offset) >= 6000
  ) {
    return formatGeneral(instantMs, offset);
  }
  civilFromDays(day);
  // Everything below is a small non-negative integer: `| 0` keeps the arithmetic in
  // int32, where `%` is an instruction rather than a call to fmod.
  const year = civil.year;
  const month = civil.month;
  const dayOfMonth = civil.dayOfMonth;
  let rest = (wall - day * DAY_MS) | 0;
  const ms = rest % 1000;
  rest = ((rest - ms) / 1000) | 0;
  const sec = rest % 60;
  rest = ((rest - sec) / 60) | 0;
  const min = rest % 60;
  const hour = ((rest - min) / 60) | 0;
  const abs = Math.abs(offset) | 0;
  const offsetMin = abs % 60;
  const offsetHour = ((abs - offsetMin) / 60) | 0;
  return String.fromCharCode(
    ZERO + ((year / 1000) | 0),
    ZERO + (((year / 100) | 0) % 10),
    ZERO + (((year / 10) | 0) % 10),
    ZERO + (year % 10),
    DASH,
    ZERO + ((month / 10) | 0),
    ZERO + (month % 10),
    DASH,
    ZERO + ((dayOfMonth / 10) | 0),
    ZERO + (dayOfMonth % 10),
    T,
    ZERO + ((hour / 10) | 0),
    ZERO + (hour % 10),
    COLON,
    ZERO + ((min / 10) | 0),
    ZERO + (min % 10),
    COLON,
    ZERO + ((sec / 10) | 0),
    ZERO + (sec % 10),
    DOT,
    ZERO + ((ms / 100) | 0),
    ZERO + (((ms / 10) | 0) % 10),
    ZERO + (ms % 10),
    offset < 0 ? DASH : PLUS,
    ZERO + ((offsetHour / 10) | 0),
    ZERO + (offsetHour % 10),
    COLON,
    ZERO + ((offsetMin / 10) | 0),
    ZERO + (offsetMin % 10),
  );
}

const ZERO = 48;
const DASH = 45;
const PLUS = 43;
const COLON = 58;
const DOT = 46;
const T = 84;
/** Day number of 9999-12-31, the last day `formatApiDateTime` writes itself. */
const LAST_FAST_DAY = 2_932_896;

/** The date `civilFromDays` found last (one shared result: no object per call). */
const civil = { year: 0, month: 0, dayOfMonth: 0 };

/**
 * The proleptic Gregorian date of a day number (0 to LAST_FAST_DAY) into
 * `civil`: Howard Hinnant's `civil_from_days`, the inverse of `daysFromCivil`.
 */
function civilFromDays(days: number): void {
  // All quantities are non-negative and below 2^31 for days ≤ LAST_FAST_DAY: `| 0` floors.
  const z = (days + 719_468) | 0;
  const era = (z / 146_097) | 0;
  const dayOfEra = z - era * 146_097;
  const yearOfEra =
    ((dayOfEra - ((dayOfEra / 1460) | 0) + ((dayOfEra / 36_524) | 0) - ((dayOfEra / 146_096) | 0)) /
      365) |
    0;
  const dayOfYear = dayOfEra - (365 * yearOfEra + ((yearOfEra / 4) | 0) - ((yearOfEra / 100) | 0));
  const mp = ((5 * dayOfYear + 2) / 153) | 0;
  const month = mp < 10 ? mp + 3 : mp - 9;
  civil.year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  civil.month = month;
  civil.dayOfMonth = dayOfYear - (((153 * mp + 2) / 5) | 0) + 1;
}

/** `formatApiDateTime` for any instant, from cached day prefixes and padded-number tables. */
function formatGeneral(instantMs: number, offset: number): string {
  const wall = instantMs + offset * 60_000;
  const day = Math.floor(wall / DAY_MS);
  let prefix = dayPrefixCache.get(day);
  if (prefix === undefined) {
    prefix = `${new Date(day * DAY_MS).toISOString().slice(0, 10)}T`;
    if (dayPrefixCache.size >= 100_000) dayPrefixCache.clear();
    dayPrefixCache.set(day, prefix);
  }
  let suffix = suffixCache.get(offset);
  if (suffix === undefined) {
    const abs = Math.abs(offset);
    suffix = `${offset < 0 ? "-" : "+"}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
    suffixCache.set(offset, suffix);
  }
  let rest = wall - day * DAY_MS;
  const ms = rest % 1000;
  rest = (rest - ms) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const min = rest % 60;
  const hour = (rest - min) / 60;
  return `${prefix}${TWO[hour]}:${TWO[min]}:${TWO[sec]}.${THREE[ms]}${suffix}`;
}

/** A formatter bound to one zone, for code that formats many instants. */
export function apiTimeFormatter(zoneName: string): ApiTimeFormat {
  airportZone(zoneName);
  return (instantMs) => formatApiDateTime(instantMs, zoneName);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Epoch ms of wall-clock fields read as UTC, or undefined when a field is out of
 * range: `Date.UTC` would roll 2026-13-45 over into a plausible 2027-02-14, and a
 * corrupt timestamp must never pass for a real time (the differ would report it).
 */
function utcOfFields(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number | undefined {
  if (!(month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59)) {
    return undefined;
  }
  if (day > daysInMonth(year, month)) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  return Number.isNaN(utc) ? undefined : utc;
}

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** How to read a local time the clock shows twice (autumn): its first or second occurrence. */
export type Occurrence = "earlier" | "later";

/**
 * Instant of a local `yyyy-MM-dd'T'HH:mm[:ss[.SSS]]` in the zone. A time shown twice
 * resolves to the `earlier` (default) or `later` occurrence; a time that never happens
 * (spring gap) resolves to the instant the clock jumps forward to, as an appointment
 * at 02:30 on the spring day really happens at 03:00. Returns undefined when unparsable.
 */
export function fromLocalDateTime(
  local: string,
  zoneName: string,
  occurrence: Occurrence = "earlier",
): number | undefined {
  const m = LOCAL_RE.exec(local);
  if (!m) return undefined;
  const asUtc = utcOfFields(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
    Number((m[7] ?? "0").padEnd(3, "0").slice(0, 3)),
  );
  if (asUtc === undefined) return undefined;
  // Offsets in force a day either side cover any transition near this wall time.
  const candidates = new Set<number>();
  for (const probe of [asUtc - 86_400_000, asUtc, asUtc + 86_400_000]) {
    candidates.add(asUtc - offsetMinutes(probe, zoneName) * 60_000);
  }
  const matches = [...candidates]
    .filter((t) => t + offsetMinutes(t, zoneName) * 60_000 === asUtc)
    .sort((a, b) => a - b);
  if (matches.length > 0) {
    return occurrence === "earlier" ? matches[0] : matches[matches.length - 1];
  }
  // In the gap: the wall time read with the offset before the jump lands after it.
  const before = offsetMinutes(asUtc - 86_400_000, zoneName);
  const after = offsetMinutes(asUtc + 86_400_000, zoneName);
  const jumpAt = findTransition(asUtc - before * 60_000 - 3_600_000 * 3, asUtc, zoneName);
  return jumpAt ?? asUtc - Math.min(before, after) * 60_000;
}

/** First instant in (lo, hi] whose offset differs from the offset at lo, or undefined. */
function findTransition(lo: number, hi: number, zoneName: string): number | undefined {
  const start = offsetMinutes(lo, zoneName);
  if (offsetMinutes(hi, zoneName) === start) return undefined;
  let a = lo;
  let b = hi;
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2);
    if (offsetMinutes(mid, zoneName) === start) a = mid;
    else b = mid;
  }
  return b;
}

/** A window of local wall-clock bounds, inclusive, second precision. */
export interface LocalWindow {
  from: string;
  to: string;
}

/**
 * The tightest local `[from, to]` (second precision, inclusive) whose instants cover
 * every instant in `[fromMs, toMs]`. When the window crosses the autumn change the
 * local clock runs back an hour inside it, so the bounds widen to cover both passes
 * of the repeated hour; in spring the missing hour simply never appears.
 * Such a local window may cover some instants outside the given one: callers that
 * need exactness filter by the records' own timestamps.
 */
export function localWindow(fromMs: number, toMs: number, zoneName: string): LocalWindow {
  if (toMs < fromMs) throw new RangeError("localWindow: toMs is before fromMs");
  let lowLocal = toLocalDateTime(fromMs, zoneName);
  let highLocal = localCeil(toMs, zoneName);
  // Local time is monotonic between offset transitions: at each one inside the
  // window the clock shows its highest just before the jump and its lowest just after.
  let cursor = fromMs;
  for (;;) {
    const jump = findTransition(cursor, toMs, zoneName);
    if (jump === undefined) break;
    const beforeLocal = localCeil(jump - 1, zoneName);
    const afterLocal = toLocalDateTime(jump, zoneName);
    if (beforeLocal > highLocal) highLocal = beforeLocal;
    if (afterLocal < lowLocal) lowLocal = afterLocal;
    cursor = jump;
  }
  return { from: lowLocal, to: highLocal };
}

/** Local time of an instant with its wall clock rounded up to the whole second. */
function localCeil(instantMs: number, zoneName: string): string {
  const wall = instantMs + offsetMinutes(instantMs, zoneName) * 60_000;
  return toLocalDateTime(Math.ceil(wall / 1000) * 1000, "UTC");
}

const INSTANT_RE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Epoch milliseconds of a record timestamp such as `2026-03-29T10:00:00.000+02:00`,
 * `...+0200` or `...Z`. A timestamp without an offset is read as airport-local time
 * in `zoneName`. Returns undefined when the text is not a timestamp.
 */
export function parseApiDateTime(text: string, zoneName: string): number | undefined {
  const fast = parseCanonical(text);
  if (fast !== undefined) return fast;
  const m = INSTANT_RE.exec(text);
  if (!m) return undefined;
  const offsetText = m[8];
  if (offsetText === undefined) return fromLocalDateTime(text, zoneName);
  const asUtc = utcOfFields(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
    Number((m[7] ?? "0").padEnd(3, "0").slice(0, 3)),
  );
  if (asUtc === undefined) return undefined;
  if (offsetText === "Z") return asUtc;
  const digits = offsetText.replace(":", "");
  const sign = digits[0] === "-" ? -1 : 1;
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  return asUtc - sign * minutes * 60_000;
}

/**
 * Fast path for the shape nearly every record uses, `yyyy-MM-ddTHH:mm:ss.SSS` followed
 * by `+hh:mm`, `+hhmm` or `Z`: reads digits by position instead of a regex (the differ
 * parses several timestamps per record) and computes the day number arithmetically
 * instead of through `Date.UTC`. Returns undefined for any other shape; years before
 * 1970 take the general `utcOfFields` path, so its reading of them stays the one answer.
 */
function parseCanonical(text: string): number | undefined {
  const len = text.length;
  if (len !== 24 && len !== 28 && len !== 29) return undefined;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46 // .
  ) {
    return undefined;
  }
  let offset = 0;
  if (len === 24) {
    if (text.charCodeAt(23) !== 90) return undefined; // Z
  } else {
    const signChar = text.charCodeAt(23);
    const sign = signChar === 43 ? 1 : signChar === 45 ? -1 : 0; // + or -
    if (sign === 0) return undefined;
    const colon = len === 29;
    if (colon && text.charCodeAt(26) !== 58) return undefined;
    const hh = two(text, 24);
    const mm = two(text, colon ? 27 : 26);
    if (hh < 0 || mm < 0) return undefined;
    offset = sign * (hh * 60 + mm);
  }
  const century = two(text, 0);
  const yy = two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  const hour = two(text, 11);
  const minute = two(text, 14);
  const second = two(text, 17);
  const msHigh = two(text, 20);
  const msLow = text.charCodeAt(22) - 48;
  // A negative part means a non-digit; out-of-range parts are rejected as utcOfFields does.
  if ((century | yy | day | hour | minute | second | msHigh) < 0 || msLow < 0 || msLow > 9) {
    return undefined;
  }
  const year = century * 100 + yy;
  let utc: number | undefined;
  if (year >= 1970) {
    if (!(month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59)) {
      return undefined;
    }
    if (day > daysInMonth(year, month)) return undefined;
    utc =
      daysFromCivil(year, month, day) * DAY_MS +
      hour * 3_600_000 +
      minute * 60_000 +
      second * 1000 +
      msHigh * 10 +
      msLow;
  } else {
    utc = utcOfFields(year, month, day, hour, minute, second, msHigh * 10 + msLow);
  }
  return utc === undefined ? undefined : utc - offset * 60_000;
}

/** The two-digit number at `i` of `text`, or -1 when either character is not a digit. */
function two(text: string, i: number): number {
  const a = text.charCodeAt(i) - 48;
  const b = text.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return DAYS_IN_MONTH[month - 1] ?? 0;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (year ≥ 0, month 1–12), as
 * `Date.UTC` counts them: Howard Hinnant's `days_from_civil`, exported for its tests.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
