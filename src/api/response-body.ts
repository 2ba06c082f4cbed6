/**
 * Turns a parsed JSON body into typed records. A wrong envelope fails the whole
 * response; a wrong record fails only itself and is reported, so one bad flight
 * cannot hide the other nineteen on its page.
 */
import type { z } from "zod";
import type { Collection } from "./contract.js";
import {
  aircraftTypeSchema,
  airlineSchema,
  destinationSchema,
  flightIdListSchema,
  flightSchema,
} from "./record-schemas.js";
import { MAX_RECORD_DEPTH, stripNulls, TOO_DEEP } from "./strip-nulls.js";
import type { AircraftType, Airline, Destination, Flight } from "./types.js";

/** Record type of each paged collection. */
export interface CollectionItems {
  flights: Flight;
  airlines: Airline;
  aircraftTypes: AircraftType;
  destinations: Destination;
}

/** A record that was skipped because it breaks the contract. */
export interface MalformedRecord {
  /** Position of the record in its page's array (zero-based). */
  index: number;
  /** The record's `id`, when it is a string or a safe integer (a larger number is already rounded). */
  id?: string;
  /** What is wrong, one entry per field: `route.visa: expected boolean`. */
  problems: string[];
}

/** Records of one page that passed validation, and reports of those that did not. */
export interface ParsedItems<T> {
  items: T[];
  malformed: MalformedRecord[];
}

/** Result of parsing a body: the value, or why the body as a whole is unusable. */
export type BodyResult<T> = { ok: true; value: T } | { ok: false; problem: string };

const RECORD_SCHEMAS: { [C in Collection]: z.ZodType<CollectionItems[C]> } = {
  flights: flightSchema,
  airlines: airlineSchema,
  aircraftTypes: aircraftTypeSchema,
  destinations: destinationSchema,
};

/**
 * Reads a collection envelope (`{"flights": [...]}`; the envelope field is named
 * like the collection). `undefined` (a 204) is an empty page.
 */
export function parseCollectionBody<C extends Collection>(
  collection: C,
  body: unknown,
): BodyResult<ParsedItems<CollectionItems[C]>> {
  if (body === undefined) return { ok: true, value: { items: [], malformed: [] } };
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, problem: `expected an object with a "${collection}" array` };
  }
  const list: unknown = (body as Record<string, unknown>)[collection];
  if (!Array.isArray(list)) {
    const got = list === undefined || list === null ? "it is missing" : `got ${describe(list)}`;
    return { ok: false, problem: `expected a "${collection}" array, ${got}` };
  }
  const schema = RECORD_SCHEMAS[collection];
  const items: CollectionItems[C][] = [];
  const malformed: MalformedRecord[] = [];
  list.forEach((raw, index) => {
    const checked = checkRecord(schema, raw);
    if (checked.ok) {
      items.push(checked.value);
      return;
    }
    const id = idOf(raw);
    malformed.push(
      id === undefined
        ? { index, problems: checked.problems }
        : { index, id, problems: checked.problems },
    );
  });
  return { ok: true, value: { items, malformed } };
}

/** Reads a single record (a 204 or any malformation fails the whole response). */
export function parseRecordBody<C extends Collection>(
  collection: C,
  body: unknown,
): BodyResult<CollectionItems[C]> {
  if (body === undefined) return { ok: false, problem: "expected a record, got no content" };
  const checked = checkRecord(RECORD_SCHEMAS[collection], body);
  return checked.ok ? checked : { ok: false, problem: checked.problems.join("; ") };
}

/** Reads the bare id array of `/flights/ids`; a 204 is an empty list. */
export function parseFlightIdsBody(body: unknown): BodyResult<string[]> {
  if (body === undefined) return { ok: true, value: [] };
  // Nulls are not stripped here: a null id is a broken list, not an absent value.
  const result = flightIdListSchema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: result.error.issues.map(formatIssue).join("; ") };
}

function checkRecord<T>(
  schema: z.ZodType<T>,
  raw: unknown,
): { ok: true; value: T } | { ok: false; problems: string[] } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: [`expected a record object, got ${describe(raw)}`] };
  }
  const stripped = stripNulls(raw);
  if (stripped === TOO_DEEP) {
    return { ok: false, problems: [`nested deeper than ${MAX_RECORD_DEPTH} levels`] };
  }
  const result = schema.safeParse(stripped);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.map(formatIssue) };
}

function formatIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join(".");
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}

function idOf(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const id: unknown = (raw as Record<string, unknown>).id;
  // JSON.parse has already rounded a numeric id past 2^53: reporting it would name
  // another flight, so such an id is left out.
  return typeof id === "string" || Number.isSafeInteger(id) ? String(id) : undefined;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
