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
  let cache = offsetCache.get(zoneName);
  if (!cache) {
    cache = new Map();
    offsetCache.set(zoneName, cache);
  }
  const cached = cache.get(bucket);
  if (cached !== undefined) return cached;
  const zone = airportZone(zoneName);
  const offset = zone.offset(instantMs);
  const start = bucket * BUCKET_MS;
  if (zone.offset(start) === offset && zone.offset(start + BUCKET_MS - 1) === offset) {
    if (cache.size >= OFFSET_CACHE_LIMIT) cache.clear();
    cache.set(bucket, offset);
  }
  return offset;
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
 * Hot in the simulator (ten stamps a record) and the differ, so it builds the text
 * from cached day prefixes and padded-number tables instead of a Date per call.
 */
export function formatApiDateTime(instantMs: number, zoneName: string): string {
  const offset = offsetMinutes(instantMs, zoneName);
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
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (DAYS_IN_MONTH[month - 1] ?? 0) + (leap ? 1 : 0)) return undefined;
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

/** Digit at `i` of `text`, or NaN. */
function digit(text: string, i: number): number {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : Number.NaN;
}

function num(text: string, i: number, len: number): number {
  let n = 0;
  for (let k = 0; k < len; k++) n = n * 10 + digit(text, i + k);
  return n;
}

/**
 * Fast path for the shape nearly every record uses, `yyyy-MM-ddTHH:mm:ss.SSS` followed
 * by `+hh:mm`, `+hhmm` or `Z`: reads digits by position instead of a regex (the differ
 * parses ten timestamps per record). Returns undefined for any other shape.
 */
function parseCanonical(text: string): number | undefined {
  const len = text.length;
  if (len !== 24 && len !== 28 && len !== 29) return undefined;
  if (text[4] !== "-" || text[7] !== "-" || text[10] !== "T" || text[13] !== ":") return undefined;
  if (text[16] !== ":" || text[19] !== ".") return undefined;
  let offset = 0;
  if (len === 24) {
    if (text[23] !== "Z") return undefined;
  } else {
    const sign = text[23] === "+" ? 1 : text[23] === "-" ? -1 : 0;
    if (sign === 0) return undefined;
    const colon = len === 29;
    if (colon && text[26] !== ":") return undefined;
    offset = sign * (num(text, 24, 2) * 60 + num(text, colon ? 27 : 26, 2));
  }
  const ms = utcOfFields(
    num(text, 0, 4),
    num(text, 5, 2),
    num(text, 8, 2),
    num(text, 11, 2),
    num(text, 14, 2),
    num(text, 17, 2),
    num(text, 20, 3),
  );
  return ms === undefined || Number.isNaN(offset) ? undefined : ms - offset * 60_000;
}
