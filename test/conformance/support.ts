/**
 * Helpers of the conformance suite: Link parsing (independent of the client's
 * parser, so the two can check each other), page walks, data discovery, and
 * order checks that know how the contract's field types compare.
 */
import { expect } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { parseApiDateTime, toLocalDateTime } from "../../src/time/local-time.js";
import type { ConformanceTarget, Reply } from "./target.js";

/** `rel` → URL of a Link header value. */
export function links(header: string | string[] | undefined): Record<string, string> {
  const text = Array.isArray(header) ? header.join(", ") : (header ?? "");
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/<([^>]*)>\s*;[^,]*?rel="?([a-z ]+)"?/gi)) {
    for (const rel of (m[2] ?? "").toLowerCase().split(" ")) {
      if (rel && !(rel in out)) out[rel] = m[1] ?? "";
    }
  }
  return out;
}

/** The records of a collection reply: [] for 204, the envelope's array for 200. */
export function recordsOf<T = Record<string, unknown>>(reply: Reply, envelope: string): T[] {
  if (reply.status === 204) return [];
  expect(reply.status, `reason: ${String(reply.headers["x-simulator-reason"] ?? "-")}`).toBe(200);
  const body = JSON.parse(reply.text) as Record<string, unknown>;
  const items = body[envelope];
  expect(Array.isArray(items), `envelope field ${envelope}`).toBe(true);
  return items as T[];
}

/** One page of a walk. */
export interface WalkedPage<T> {
  url: string;
  reply: Reply;
  records: T[];
  links: Record<string, string>;
}

/** Follows `next` links from `path`, at most `maxPages` pages. */
export async function walk<T = Flight>(
  target: ConformanceTarget,
  path: string,
  envelope = "flights",
  maxPages = 1000,
): Promise<WalkedPage<T>[]> {
  const pages: WalkedPage<T>[] = [];
  let url: string | undefined = path.startsWith("http") ? path : `${target.base}${path}`;
  while (url && pages.length < maxPages) {
    const reply = await target.get(url);
    if (reply.status === 204) break;
    const page: WalkedPage<T> = {
      url,
      reply,
      records: recordsOf<T>(reply, envelope),
      links: links(reply.headers.link),
    };
    pages.push(page);
    url = page.links.next;
  }
  return pages;
}

/** Records of the first `maxPages` pages of a walk. */
export async function collect<T = Flight>(
  target: ConformanceTarget,
  path: string,
  envelope = "flights",
  maxPages = 3,
): Promise<T[]> {
  return (await walk<T>(target, path, envelope, maxPages)).flatMap((p) => p.records);
}

/**
 * Records of the first two pages and the last page (via its `last` link), in that
 * order: a subsequence of the whole result, so order checks on it hold for the whole,
 * while it spans from the lowest to the highest values.
 */
export async function collectEnds<T = Record<string, unknown>>(
  target: ConformanceTarget,
  path: string,
  envelope: string,
): Promise<T[]> {
  const pages = await walk<T>(target, path, envelope, 2);
  const records = pages.flatMap((p) => p.records);
  const last = pages[0]?.links.last;
  if (last !== undefined && pages.length === 2 && pages[1]?.links.next !== undefined) {
    records.push(...recordsOf<T>(await target.get(last), envelope));
  }
  return records;
}

/** A sample of the service's flights for today (default query), to derive test parameters from. */
export async function sampleFlights(target: ConformanceTarget): Promise<Flight[]> {
  const flights = await collect(target, "/flights", "flights", 3);
  expect(flights.length, "the service has flights today").toBeGreaterThan(0);
  return flights;
}

/** Airport-local `yyyy-MM-dd'T'HH:mm:ss` of a record date-time. */
export function localOf(value: unknown, zone: string): string | undefined {
  if (typeof value !== "string") return undefined;
  const ms = parseApiDateTime(value, zone);
  return ms === undefined ? undefined : toLocalDateTime(ms, zone);
}

/** Shifts a local date-time by whole seconds, on the wall clock. */
export function shiftLocal(local: string, seconds: number): string {
  return new Date(Date.parse(`${local}Z`) + seconds * 1000).toISOString().slice(0, 19);
}

const DATE_TIME_SORT_FIELDS = new Set([
  "estimatedLandingTime",
  "actualLandingTime",
  "publicEstimatedOffBlockTime",
  "actualOffBlockTime",
  "expectedTimeBoarding",
  "expectedTimeGateClosing",
  "expectedTimeGateOpen",
  "expectedTimeOnBelt",
  "scheduleDateTime",
  "lastUpdatedAt",
]);

/** The value a sort field compares by: instants for date-times, nested names for dotted fields. */
export function sortValue(
  record: Record<string, unknown>,
  field: string,
  zone: string,
): string | number | undefined {
  let value: unknown = record;
  for (const part of field.split(".")) {
    value =
      value !== null && typeof value === "object"
        ? (value as Record<string, unknown>)[part]
        : undefined;
  }
  if (DATE_TIME_SORT_FIELDS.has(field)) {
    return typeof value === "string" ? parseApiDateTime(value, zone) : undefined;
  }
  if (field === "id" && typeof value === "string") return value.padStart(30, "0");
  return typeof value === "string" || typeof value === "number" ? value : undefined;
}

/**
 * Asserts that records are ordered by `terms`. Records lacking a compared value are
 * not checked against their neighbours (the contract does not say where absent
 * values sort). Strings compare by code unit on the simulator; a real service may
 * use a collation, so there a locale order is accepted too.
 */
export function expectOrdered(
  records: Record<string, unknown>[],
  terms: { field: string; descending: boolean }[],
  zone: string,
  strictStrings: boolean,
): void {
  const compare = (a: string | number, b: string | number, locale: boolean): number => {
    if (locale && typeof a === "string" && typeof b === "string") return a.localeCompare(b, "en");
    return a < b ? -1 : a > b ? 1 : 0;
  };
  const inOrder = (locale: boolean): string | undefined => {
    for (let i = 1; i < records.length; i++) {
      const prev = records[i - 1] as Record<string, unknown>;
      const next = records[i] as Record<string, unknown>;
      for (const term of terms) {
        const a = sortValue(prev, term.field, zone);
        const b = sortValue(next, term.field, zone);
        if (a === undefined || b === undefined) break;
        const c = compare(a, b, locale) * (term.descending ? -1 : 1);
        if (c < 0) break;
        if (c > 0)
          return `records ${i - 1} and ${i} out of order on ${term.field}: ${String(a)} then ${String(b)}`;
      }
    }
    return undefined;
  };
  const strict = inOrder(false);
  if (strict === undefined || strictStrings) {
    expect(strict).toBeUndefined();
    return;
  }
  expect(inOrder(true)).toBeUndefined();
}
