/**
 * Turns a parsed JSON body into typed records. A wrong envelope fails the whole
 * response; a wrong record fails only itself and is reported, so one bad flight
 * cannot hide the other nineteen on its page.
 */
import { z } from "zod";
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

/** The fields that say which flight a record is: the inputs of its physical flight's key. */
export type MalformedFlightIdentity = Pick<
  Flight,
  "id" | "flightName" | "mainFlight" | "flightDirection" | "scheduleDate" | "scheduleDateTime"
>;

/** A record that was skipped because it breaks the contract. */
export interface MalformedRecord {
  /** Position of the record in its page's array (zero-based). */
  index: number;
  /** The record's `id`, when it is a string or a safe integer (a larger number is already rounded). */
  id?: string;
  /**
   * The top-level field of the first problem (`route` for `route.visa: …`), or
   * `record` when the record as a whole is wrong (not an object, nested too deep).
   * Always one of the collection's fields or `record`: a closed set, fit for a
   * metric label.
   */
  field: string;
  /** What is wrong, one entry per field: `route.visa: expected boolean`. */
  problems: string[];
  /**
   * Flights only: the identifying fields, when each of them is valid itself (absent
   * ones stay absent), so the record's flight is known even though it was skipped.
   */
  identity?: MalformedFlightIdentity;
}

/** Records of one page that passed validation, and reports of those that did not. */
export interface ParsedItems<T> {
  items: T[];
  malformed: MalformedRecord[];
  /** Items taken from `reuse` instead of being validated again. */
  reused?: number;
}

/**
 * Result of parsing a body: the value, or why the body as a whole is unusable (with
 * the report of the record, when a single record was what broke it).
 */
export type BodyResult<T> =
  | { ok: true; value: T }
  | { ok: false; problem: string; record?: MalformedRecord };

const RECORD_SCHEMAS: { [C in Collection]: z.ZodType<CollectionItems[C]> } = {
  flights: flightSchema,
  airlines: airlineSchema,
  aircraftTypes: aircraftTypeSchema,
  destinations: destinationSchema,
};

/** Top-level fields of each collection's records: what `MalformedRecord.field` may name. */
const RECORD_FIELDS: { [C in Collection]: ReadonlySet<string> } = {
  flights: new Set(Object.keys(flightSchema.shape)),
  airlines: new Set(Object.keys(airlineSchema.shape)),
  aircraftTypes: new Set(Object.keys(aircraftTypeSchema.shape)),
  destinations: new Set(Object.keys(destinationSchema.shape)),
};

/** A flight's identifying fields, each checked as the full schema checks it; others dropped. */
const flightIdentitySchema = z.object({
  id: flightSchema.shape.id,
  flightName: flightSchema.shape.flightName,
  mainFlight: flightSchema.shape.mainFlight,
  flightDirection: flightSchema.shape.flightDirection,
  scheduleDate: flightSchema.shape.scheduleDate,
  scheduleDateTime: flightSchema.shape.scheduleDateTime,
});

/**
 * Reads a collection envelope (`{"flights": [...]}`; the envelope field is named
 * like the collection). `undefined` (a 204) is an empty page.
 */
export function parseCollectionBody<C extends Collection>(
  collection: C,
  body: unknown,
  reuse?: ReadonlyMap<string, Flight>,
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
  const known = collection === "flights" ? reuse : undefined;
  let reused = 0;
  list.forEach((raw, index) => {
    // A flight record read before with the same stamp was validated then: the one
    // kept from that read stands for it (an incremental poll's overlap reads the same
    // records again and again).
    const kept = known === undefined ? undefined : sameVersion(known, raw);
    if (kept !== undefined) {
      items.push(kept as CollectionItems[C]);
      reused++;
      return;
    }
    const checked = checkRecord(schema, raw);
    if (checked.ok) items.push(checked.value);
    else malformed.push(malformedReport(collection, index, raw, checked));
  });
  return { ok: true, value: reused > 0 ? { items, malformed, reused } : { items, malformed } };
}

/** The record kept in `known` under `raw`'s id, when `raw` carries the same `lastUpdatedAt` text. */
function sameVersion(known: ReadonlyMap<string, Flight>, raw: unknown): Flight | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const { id, lastUpdatedAt } = raw as { id?: unknown; lastUpdatedAt?: unknown };
  if (typeof id !== "string" || typeof lastUpdatedAt !== "string") return undefined;
  const kept = known.get(id);
  return kept !== undefined && kept.lastUpdatedAt === lastUpdatedAt ? kept : undefined;
}

/** Reads a single record (a 204 or any malformation fails the whole response). */
export function parseRecordBody<C extends Collection>(
  collection: C,
  body: unknown,
): BodyResult<CollectionItems[C]> {
  if (body === undefined) return { ok: false, problem: "expected a record, got no content" };
  const checked = checkRecord(RECORD_SCHEMAS[collection], body);
  if (checked.ok) return checked;
  return {
    ok: false,
    problem: checked.problems.join("; "),
    record: malformedReport(collection, 0, body, checked),
  };
}

/** Reads the bare id array of `/flights/ids`; a 204 is an empty list. */
export function parseFlightIdsBody(body: unknown): BodyResult<string[]> {
  if (body === undefined) return { ok: true, value: [] };
  // Nulls are not stripped here: a null id is a broken list, not an absent value.
  const result = flightIdListSchema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: result.error.issues.map(formatIssue).join("; ") };
}

/** Why a record failed: its problems, the first one's top-level field, the stripped record. */
interface RecordFailure {
  ok: false;
  problems: string[];
  /** Top-level field of the first problem; undefined when the record as a whole is wrong. */
  field?: string;
  /** The record without nulls, when it was an object shallow enough to strip. */
  stripped?: object;
}

function checkRecord<T>(
  schema: z.ZodType<T>,
  raw: unknown,
): { ok: true; value: T } | RecordFailure {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: [`expected a record object, got ${describe(raw)}`] };
  }
  const stripped = stripNulls(raw);
  if (stripped === TOO_DEEP) {
    return { ok: false, problems: [`nested deeper than ${MAX_RECORD_DEPTH} levels`] };
  }
  const result = schema.safeParse(stripped);
  if (result.success) return { ok: true, value: result.data };
  const top = result.error.issues[0]?.path[0];
  return {
    ok: false,
    problems: result.error.issues.map(formatIssue),
    ...(typeof top === "string" ? { field: top } : {}),
    stripped: stripped as object,
  };
}

function malformedReport(
  collection: Collection,
  index: number,
  raw: unknown,
  failure: RecordFailure,
): MalformedRecord {
  const field =
    failure.field !== undefined && RECORD_FIELDS[collection].has(failure.field)
      ? failure.field
      : "record";
  const report: MalformedRecord = { index, field, problems: failure.problems };
  const id = idOf(raw);
  if (id !== undefined) report.id = id;
  if (collection === "flights" && failure.stripped !== undefined) {
    const identity = flightIdentitySchema.safeParse(failure.stripped);
    if (identity.success) report.identity = withoutUndefined(identity.data);
  }
  return report;
}

/** zod leaves an absent optional field as an own `undefined`: drop those. */
function withoutUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as T;
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
