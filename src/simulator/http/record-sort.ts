/**
 * Sorting of collection records by a parsed sort expression. Strings compare by
 * code unit (deterministic, locale-free), numbers and date-times numerically
 * (date-times by instant, whatever offset they were written with). A record
 * without the field sorts after every record with it, in either direction. Ties
 * keep a stable order: flights by id, reference records by their stored order.
 */
import type { SortTerm } from "../../api/contract.js";
import { FLIGHT_DATE_TIME_FIELDS, type Flight } from "../../api/types.js";
import type { FlightFacts } from "./flight-facts.js";

/** A sortable value; undefined means "absent". */
export type SortKey = string | number | undefined;

const DATE_TIME_FIELDS: ReadonlySet<string> = new Set(FLIGHT_DATE_TIME_FIELDS);
const ID_WIDTH = 24;

/**
 * Returns a new array of `records` sorted by `terms`, reading each field's key once
 * per record. `tieKey` (optional) orders records equal on every term.
 */
export function sortRecords<T>(
  records: readonly T[],
  terms: readonly SortTerm[],
  keyOf: (record: T, field: string) => SortKey,
  tieKey?: (record: T) => SortKey,
): T[] {
  const rows = records.map((record, index) => ({
    record,
    index,
    keys: terms.map((t) => keyOf(record, t.field)),
    tie: tieKey?.(record),
  }));
  rows.sort((a, b) => {
    for (let i = 0; i < terms.length; i++) {
      const c = compareKeys(a.keys[i], b.keys[i], terms[i]?.descending ?? false);
      if (c !== 0) return c;
    }
    return compareKeys(a.tie, b.tie, false) || a.index - b.index;
  });
  return rows.map((row) => row.record);
}

function compareKeys(a: SortKey, b: SortKey, descending: boolean): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const c = a < b ? -1 : a > b ? 1 : 0;
  return descending ? -c : c;
}

/** Key of a digits-only id that orders numerically (ids exceed 2^53, so no Number). */
function idKey(id: unknown): SortKey {
  return typeof id === "string" ? id.padStart(ID_WIDTH, "0") : undefined;
}

/** Sort key of a flight field, as `/flights` sorts it. */
export function flightSortKey(facts: FlightFacts): (flight: Flight, field: string) => SortKey {
  return (flight, field) => {
    if (DATE_TIME_FIELDS.has(field)) return facts.instant(flight, field);
    switch (field) {
      case "scheduleDate":
        return facts.scheduleDate(flight);
      case "scheduleTime":
        return facts.scheduleTime(flight);
      case "id":
        return idKey(flight.id);
      default:
        return primitiveKey(flight[field]);
    }
  };
}

/** Tie-break key of flights: the id, numerically. */
export const flightTieKey = (flight: Flight): SortKey => idKey(flight.id);

/** Sort key of a reference record field; dotted names (`publicName.dutch`) read nested fields. */
export function referenceSortKey(record: Record<string, unknown>, field: string): SortKey {
  let value: unknown = record;
  for (const part of field.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return primitiveKey(value);
}

function primitiveKey(value: unknown): SortKey {
  if (typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return undefined;
}
