/**
 * Validation of single query-parameter values as the contract types them (int32,
 * boolean, date, local date-time, sort). Each reader returns the value or a
 * QueryProblem naming the parameter; the server turns a problem into a 400 with an
 * empty body and the reason in a diagnostic header.
 */
import {
  type Collection,
  DATE_PATTERN,
  DEFAULT_SORT,
  LOCAL_DATE_TIME_PATTERN,
  PAGE_MAX,
  parseSort,
  type SortTerm,
} from "../../api/contract.js";

/** Why a request's parameters were refused. */
export interface QueryProblem {
  /** The parameter as the request spelled it. */
  param: string;
  reason: string;
}

/** Either a parsed value or the problem that prevented it. */
export type QueryResult<T> = { ok: true; value: T } | { ok: false; problem: QueryProblem };

/** Wraps a value as a successful result. */
export const ok = <T>(value: T): QueryResult<T> => ({ ok: true, value });

/** Builds a failed result naming the parameter. */
export const fail = <T>(param: string, reason: string): QueryResult<T> => ({
  ok: false,
  problem: { param, reason },
});

const INT_RE = /^-?\d+$/;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** Reads an int32 (`-12`, `42`); anything else (`1.5`, `1e3`, ` 7`, empty) is a problem. */
export function readInt32(param: string, text: string): QueryResult<number> {
  if (!INT_RE.test(text)) return fail(param, `"${text}" is not an integer`);
  const n = Number(text);
  if (n < INT32_MIN || n > INT32_MAX) return fail(param, `"${text}" is outside int32`);
  return ok(n);
}

/**
 * Reads `true`/`false`. Other spellings (`1`, `yes`, `True`) the upstream may or may
 * not take are refused, so a client that works here sends what works there too.
 */
export function readBoolean(param: string, text: string): QueryResult<boolean> {
  if (text === "true") return ok(true);
  if (text === "false") return ok(false);
  return fail(param, `"${text}" is not true or false`);
}

/** True when `yyyy-MM-dd` names a real calendar day (no 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  if (!DATE_PATTERN.test(text)) return false;
  const [y, m, d] = text.split("-").map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Reads a `yyyy-MM-dd` date. */
export function readDate(param: string, text: string): QueryResult<string> {
  return isCalendarDate(text)
    ? ok(text)
    : fail(param, `"${text}" is not a date in the form yyyy-MM-dd`);
}

/** Reads an airport-local `yyyy-MM-dd'T'HH:mm:ss` (no offset, no fraction). */
export function readLocalDateTime(param: string, text: string): QueryResult<string> {
  const valid =
    LOCAL_DATE_TIME_PATTERN.test(text) &&
    isCalendarDate(text.slice(0, 10)) &&
    Number(text.slice(11, 13)) <= 23 &&
    Number(text.slice(14, 16)) <= 59 &&
    Number(text.slice(17, 19)) <= 59;
  return valid
    ? ok(text)
    : fail(param, `"${text}" is not a local date-time in the form yyyy-MM-dd'T'HH:mm:ss`);
}

/** Milliseconds of a local date-time read as if it were UTC: wall-clock arithmetic. */
export function wallClockMs(localDateTime: string): number {
  return Date.parse(`${localDateTime}Z`);
}

/** Reads `page`: an integer from 0 to PAGE_MAX; absent means 0. */
export function readPage(params: URLSearchParams): QueryResult<number> {
  const text = params.get("page");
  if (text === null) return ok(0);
  const n = readInt32("page", text);
  if (!n.ok) return n;
  if (n.value < 0 || n.value > PAGE_MAX) {
    return fail("page", `${n.value} is outside 0..${PAGE_MAX}`);
  }
  return n;
}

/** Reads `sort` for a collection; absent means the collection's default sort. */
export function readSort(collection: Collection, params: URLSearchParams): QueryResult<SortTerm[]> {
  const text = params.get("sort") ?? DEFAULT_SORT[collection];
  const parsed = parseSort(collection, text);
  return parsed.ok ? ok(parsed.terms) : fail("sort", parsed.reason);
}

/** Reads a string whose length must lie within `limits`. */
export function readLength(
  param: string,
  text: string,
  limits: { min: number; max: number },
): QueryResult<string> {
  if (text.length < limits.min || text.length > limits.max) {
    const want = limits.min === limits.max ? `${limits.min}` : `${limits.min} to ${limits.max}`;
    return fail(param, `"${text}" must have length ${want}`);
  }
  return ok(text);
}

/**
 * The spelling of an aliased parameter that wins when a request sends both: the
 * camel case one, unless `lowerWins` (the contract's `includedelays` exception).
 * Returns undefined when neither is present.
 */
export function pickAlias(
  params: URLSearchParams,
  camel: string,
  lower: string,
  lowerWins = false,
): { param: string; text: string } | undefined {
  const order = lowerWins ? [lower, camel] : [camel, lower];
  for (const name of order) {
    const text = params.get(name);
    if (text !== null) return { param: name, text };
  }
  return undefined;
}
