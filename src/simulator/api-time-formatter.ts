/**
 * A fast stand-in for `formatApiDateTime` (identical output, proven by a property
 * test). The generator formats ~10 timestamps per record; `formatApiDateTime` asks
 * Intl for the zone offset on every call (~10 µs), which alone would blow the
 * startup budget. Offsets only change at DST transitions, so this caches them per
 * UTC hour, and only for hours whose first and last millisecond share an offset;
 * any hour containing a transition is computed exactly on every call.
 */
import { offsetMinutes } from "../time/local-time.js";

/** Formats epoch ms as `yyyy-MM-dd'T'HH:mm:ss.SSS+01:00` in one zone. */
export type ApiTimeFormat = (instantMs: number) => string;

/** Offset of the zone at an instant, in minutes, with a per-hour cache. */
export type OffsetLookup = (instantMs: number) => number;

const HOUR_MS = 3_600_000;
/** Bounds the cache for very long runs; an entry per simulated hour. */
const MAX_CACHED_HOURS = 200_000;

/** Cached offset lookup for one zone. */
export function cachedOffsets(zone: string): OffsetLookup {
  const byHour = new Map<number, number>();
  return (instantMs) => {
    const hour = Math.floor(instantMs / HOUR_MS);
    const cached = byHour.get(hour);
    if (cached !== undefined) return cached;
    const first = offsetMinutes(hour * HOUR_MS, zone);
    const last = offsetMinutes(hour * HOUR_MS + HOUR_MS - 1, zone);
    if (first !== last) return offsetMinutes(instantMs, zone);
    if (byHour.size >= MAX_CACHED_HOURS) byHour.clear();
    byHour.set(hour, first);
    return first;
  };
}

const DAY_MS = 86_400_000;
const TWO = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));

/** `+01:00` style suffix of an offset in minutes. */
function offsetSuffix(offset: number): string {
  const abs = Math.abs(offset);
  return `${offset < 0 ? "-" : "+"}${TWO[Math.floor(abs / 60)] ?? "00"}:${TWO[abs % 60] ?? "00"}`;
}

/**
 * A formatter for one zone, output identical to `formatApiDateTime(ms, zone)`. Builds
 * strings from cached day prefixes and padded-number tables: no Date per call.
 */
export function apiTimeFormatter(zone: string, offsets = cachedOffsets(zone)): ApiTimeFormat {
  const dayPrefixes = new Map<number, string>();
  const suffixes = new Map<number, string>();
  return (instantMs) => {
    const offset = offsets(instantMs);
    const wall = instantMs + offset * 60_000;
    const day = Math.floor(wall / DAY_MS);
    let prefix = dayPrefixes.get(day);
    if (prefix === undefined) {
      prefix = `${new Date(day * DAY_MS).toISOString().slice(0, 10)}T`;
      if (dayPrefixes.size >= 10_000) dayPrefixes.clear();
      dayPrefixes.set(day, prefix);
    }
    let suffix = suffixes.get(offset);
    if (suffix === undefined) {
      suffix = offsetSuffix(offset);
      suffixes.set(offset, suffix);
    }
    let rest = wall - day * DAY_MS;
    const ms = rest % 1000;
    rest = (rest - ms) / 1000;
    const sec = rest % 60;
    rest = (rest - sec) / 60;
    const min = rest % 60;
    const hour = (rest - min) / 60;
    return `${prefix}${TWO[hour]}:${TWO[min]}:${TWO[sec]}.${THREE[ms]}${suffix}`;
  };
}
