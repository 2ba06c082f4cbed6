/**
 * Reading flights from the upstream without losing any while they change.
 *
 * Incremental reads (`readChangedSince`) page by keyset, not by page number: the
 * query asks for `lastUpdatedAt` from a cursor, sorted by `lastUpdatedAt`, and after
 * each page it starts again at page 0 from the second of the last record read. A
 * record updated meanwhile moves to the end of the order instead of shifting the
 * records after it under a page boundary, so nothing is skipped (NOTES: paging while
 * data changes); and no query goes deeper than a few pages, so the 500-page cap is
 * never reached. Two cases make no progress by restarting and follow `next` links
 * instead: more than a page of records in one second, and the repeated autumn hour,
 * where the local wall-clock bound also matches up to an hour of older records.
 * Once a followed page gets past the cursor's second, the read starts again from the
 * newest second read, as after a first page. A followed walk skips a record only
 * when one it had already read leaves the order behind it (the records after it
 * shift back under a page boundary); a record that leaves by being updated comes
 * back with a newer stamp later in the read. Only then is the walked span (from
 * the cursor's second to the first record of the page that left it) read again on
 * its own, until it shows nothing new: a crowd of records in one second is read
 * once, not once and again.
 *
 * Full reads (`readHorizon`) walk each schedule date sorted by schedule time and id,
 * an order no update disturbs; a date whose walk would pass the page cap is split
 * into halves of its wall-clock day until each fits. A removal does disturb it (the
 * records after it shift back, and one slides under a page boundary unread), so
 * each date is then checked against the upstream's list of its ids (`/flights/ids`,
 * one request) and any record the walk missed is read by id: a reconciliation must
 * not take a skipped flight for a removed one.
 */

import type { FlightApiClient } from "../api/flight-api-client.js";
import type { Page } from "../api/paged-walk.js";
import type { FlightsQuery } from "../api/query-params.js";
import type { MalformedRecord } from "../api/response-body.js";
import type { Flight } from "../api/types.js";
import { describeError, ErrorCode, FlightwatchError } from "../errors.js";
import { parseApiDateTime } from "../time/local-time.js";
import { horizonDates, type ScheduleHorizon } from "./horizon.js";

/** What a read found. */
export interface ReadResult {
  /** Records by upstream id, the newest version of each. */
  records: Map<string, Flight>;
  /** Page requests made (retries of one request not counted). */
  requests: number;
  /** Records skipped because they broke the contract (each time one was read). */
  malformed: MalformedRecord[];
  /** Newest `lastUpdatedAt` seen, epoch ms (0 when none). */
  newest: number;
  /** Records taken from `ReadOptions.reuse` (not validated again). */
  reused?: number;
  /** Spans this read walked along `next` links (for the next read's `walked`). */
  walked?: WalkedSpan[];
  /**
   * The upstream's clock at its first answer (the earliest `Date` header of the
   * read, epoch ms), when it sent one: every record visible then was read.
   */
  answeredAt?: number;
}

/** Options of a read. */
export interface ReadOptions {
  signal?: AbortSignal;
  /** Receives each page's records as read (for progress and tests). */
  onPage?: (records: readonly Flight[]) => void;
  /** Wall clock for the open end of incremental windows (default Date.now). */
  now?: () => number;
  /**
   * Records of an earlier read, by id: incremental reads take one of these for a
   * record with the same id and stamp instead of validating it again.
   */
  reuse?: ReadonlyMap<string, Flight>;
  /**
   * Spans an earlier read walked along `next` links: one is read again when a record
   * it had read turns up in this read in a newer version (it left that walk's order
   * later than the walk could see, e.g. with a lagging stamp).
   */
  walked?: readonly WalkedSpan[];
}

const SECOND = 1000;
const DAY = 86_400_000;
/** Sort of incremental reads: a total order on (lastUpdatedAt, id). */
const CHANGE_SORT = "+lastUpdatedAt,+id";
/** Sort of full reads: an order no update disturbs. */
const SCHEDULE_SORT = "+scheduleDateTime,+id";
/** Re-reads of a span that links could skip before its result is accepted as complete. */
const TIE_REREADS = 3;

/**
 * A span of seconds walked along `next` links within a schedule-date scope, and the
 * stamp of each record as that walk first read it.
 */
export interface WalkedSpan {
  scope: FlightsQuery;
  fromSecond: number;
  toSecond: number;
  read: ReadonlyMap<string, number>;
}

/** An empty result to read into. */
export function emptyReadResult(): ReadResult {
  return { records: new Map(), requests: 0, malformed: [], newest: 0 };
}

/**
 * Every record of the horizon whose `lastUpdatedAt` is at or after `sinceMs`
 * (at second precision, so a little more). See the module comment.
 */
export async function readChangedSince(
  client: FlightApiClient,
  horizon: ScheduleHorizon,
  sinceMs: number,
  options: ReadOptions = {},
  into: ReadResult = emptyReadResult(),
): Promise<ReadResult> {
  try {
    const part = emptyReadResult();
    await readChangedInScope(client, horizon, sinceMs, options, part);
    merge(into, part, client.airportTimezone);
  } catch (err) {
    // Only a crowded second followed by links can reach the page cap: read the
    // horizon's dates one by one, which divides the crowd.
    if (!isPageLimit(err) || horizon.from === horizon.to) throw err;
    for (const date of horizonDates(horizon)) {
      await readChangedSince(
        client,
        { from: date, to: date },
        sinceMs,
        { ...options, walked: [] },
        into,
      );
    }
  }
  await rereadMoved(client, options.walked ?? [], into, options);
  return into;
}

async function readChangedInScope(
  client: FlightApiClient,
  horizon: ScheduleHorizon,
  sinceMs: number,
  options: ReadOptions,
  into: ReadResult,
): Promise<void> {
  const zone = client.airportTimezone;
  const now = options.now ?? Date.now;
  const scope = { fromScheduleDate: horizon.from, toScheduleDate: horizon.to };
  let cursor = floorSecond(sinceMs);
  const linked: WalkedSpan[] = [];
  for (;;) {
    const query = changeQuery(scope, cursor, Math.max(now(), cursor) + DAY);
    const pages = client.pages("flights", query, { signal: options.signal, reuse: options.reuse });
    const read = new Map<string, number>();
    let done = true;
    try {
      for await (const page of pages) {
        const { oldest: first, newest: last } = take(into, page, zone, options, read);
        // Nothing lies between the cursor and the first record read: the walk is
        // really from that record's second (a crowd there is then followed along
        // links, not read again from its start).
        if (page.index === 0 && first !== undefined) {
          cursor = Math.max(cursor, floorSecond(first));
        }
        const past = last !== undefined && floorSecond(last) > cursor;
        // Links were followed. A record that slid back under one of their page
        // boundaries sorts before the first record of the page after it: at or
        // before the cursor's second on every page that made no progress, and up
        // to this page's first record on this one.
        if (page.index > 0 && (past || !page.next)) {
          const upTo = past && first !== undefined ? Math.max(cursor, floorSecond(first)) : cursor;
          linked.push({ scope, fromSecond: cursor, toSecond: upTo, read });
        }
        if (!page.next) break;
        if (past) {
          // Everything before the newest second read is read (the span above
          // covered what links could skip): start again from that second.
          cursor = floorSecond(last);
          done = false;
          break;
        }
        // No progress (more than a page in one second, or older records of the
        // repeated autumn hour): follow this query's own next link.
      }
    } finally {
      await pages.return();
    }
    if (done) break;
  }
  // A record slides under a boundary of a followed walk only when one the walk had
  // read leaves the order behind it; one updated meanwhile is read again, newer,
  // later in this read (or, with a lagging stamp, in the next: see `walked`), or
  // broken. Only such a span is read again. One removed upstream (or moved off the
  // horizon) does not come back: that rare case waits for the reconciliation.
  await rereadMoved(client, linked, into, options);
  into.walked = linked;
}

/** Reads again each span a record of which has left its walk's order since. */
async function rereadMoved(
  client: FlightApiClient,
  spans: readonly WalkedSpan[],
  into: ReadResult,
  options: ReadOptions,
): Promise<void> {
  const zone = client.airportTimezone;
  for (const span of spans) {
    if (movedSince(span.read, into, zone)) {
      await rereadSpan(client, span.scope, span.fromSecond, span.toSecond, into, zone, options);
    }
  }
}

/**
 * Whether a record read as in `read` is now held in a newer version (it moved in the
 * order), or turned up broken (it left the records a read keeps).
 */
function movedSince(read: ReadonlyMap<string, number>, into: ReadResult, zone: string): boolean {
  for (const [id, stamp] of read) {
    const held = into.records.get(id);
    if (held !== undefined && stampOf(held, zone) > stamp) return true;
  }
  return into.malformed.some((m) => m.id !== undefined && read.has(m.id));
}

/** Every record of every date in the horizon, whatever its `lastUpdatedAt`. */
export async function readHorizon(
  client: FlightApiClient,
  horizon: ScheduleHorizon,
  options: ReadOptions = {},
  into: ReadResult = emptyReadResult(),
): Promise<ReadResult> {
  for (const date of horizonDates(horizon)) {
    const part = emptyReadResult();
    await readWallClockRange(client, date, `${date}T00:00:00`, `${date}T23:59:59`, options, part);
    await readUnwalked(client, date, part, options);
    merge(into, part, client.airportTimezone);
  }
  return into;
}

/**
 * Completes the walk of one date against the upstream's list of the date's ids:
 * each listed record the walk did not return is read by id. A flight removed
 * while the date was walked shifts the records after it back under a page
 * boundary, and the walk skips one; a reconciliation would report it removed.
 */
async function readUnwalked(
  client: FlightApiClient,
  date: string,
  into: ReadResult,
  options: ReadOptions,
): Promise<void> {
  const ids = await client.flightByIds(
    { fromDateTime: `${date}T00:00:00`, toDateTime: `${date}T23:59:59` },
    { signal: options.signal },
  );
  into.requests++;
  for (const id of ids) {
    if (into.records.has(id)) continue;
    into.requests++;
    let record: Flight;
    let reported = false;
    try {
      record = await client.flightById(id, {
        signal: options.signal,
        onMalformed: (report) => {
          reported = true;
          into.malformed.push(report);
        },
      });
    } catch (err) {
      // Gone since it was listed; or broken (reported through `onMalformed`), and
      // then the read is not complete.
      if (isCode(err, ErrorCode.NOT_FOUND)) continue;
      if (!isCode(err, ErrorCode.UPSTREAM_MALFORMED)) throw err;
      // A body that is not a record at all (not JSON, no content) was not reported:
      // it still leaves the read incomplete.
      if (!reported) {
        into.malformed.push({ index: 0, id, field: "record", problems: [describeError(err)] });
      }
      continue;
    }
    if (record.scheduleDate === undefined || record.scheduleDate === date) {
      keep(into, record, client.airportTimezone);
      options.onPage?.([record]);
    }
  }
}

async function readWallClockRange(
  client: FlightApiClient,
  date: string,
  from: string,
  to: string,
  options: ReadOptions,
  into: ReadResult,
): Promise<void> {
  const whole = from === `${date}T00:00:00` && to === `${date}T23:59:59`;
  const query: FlightsQuery = {
    fromScheduleDate: date,
    toScheduleDate: date,
    sort: SCHEDULE_SORT,
    ...(whole
      ? {}
      : { searchDateTimeField: "scheduleDateTime", fromDateTime: from, toDateTime: to }),
  };
  // Pages are buffered and kept only when the whole range was read: a range that
  // has to be split is read again in halves, and must not count twice.
  const part = emptyReadResult();
  try {
    await walk(client, query, part, client.airportTimezone, options);
  } catch (err) {
    if (!isPageLimit(err)) throw err;
    const fromMs = Date.parse(`${from}Z`);
    const toMs = Date.parse(`${to}Z`);
    if (toMs - fromMs < 2 * SECOND) throw err;
    const mid = fromMs + Math.floor((toMs - fromMs) / 2 / SECOND) * SECOND;
    into.requests += part.requests;
    await readWallClockRange(client, date, from, wallClock(mid), options, into);
    await readWallClockRange(client, date, wallClock(mid + SECOND), to, options, into);
    return;
  }
  merge(into, part, client.airportTimezone);
}

/** Walks every page of a query along its `next` links. */
async function walk(
  client: FlightApiClient,
  query: FlightsQuery,
  into: ReadResult,
  zone: string,
  options: ReadOptions,
): Promise<void> {
  for await (const page of client.pages("flights", query, {
    signal: options.signal,
    reuse: options.reuse,
  })) {
    take(into, page, zone, options);
  }
}

/**
 * Reads the seconds from `fromSecond` to `toSecond` (both included) until a read
 * shows nothing not seen before.
 */
async function rereadSpan(
  client: FlightApiClient,
  scope: FlightsQuery,
  fromSecond: number,
  toSecond: number,
  into: ReadResult,
  zone: string,
  options: ReadOptions,
): Promise<void> {
  const query = changeQuery(scope, fromSecond, toSecond + SECOND - 1);
  for (let i = 0; i < TIE_REREADS; i++) {
    const before = versionsOf(into, zone);
    const pass = emptyReadResult();
    await walk(client, query, pass, zone, options);
    merge(into, pass, zone);
    if (versionsOf(into, zone) === before) return;
  }
}

/** A cheap fingerprint of what a result holds: count and sum of versions. */
function versionsOf(result: ReadResult, zone: string): string {
  let sum = 0;
  for (const record of result.records.values()) sum += stampOf(record, zone) % 1_000_003;
  return `${result.records.size}:${sum}`;
}

function changeQuery(scope: FlightsQuery, fromMs: number, toMs: number): FlightsQuery {
  return {
    ...scope,
    sort: CHANGE_SORT,
    searchDateTimeField: "lastUpdatedAt",
    // Both ends as instants: the client converts them together, widening the local
    // bounds across the repeated autumn hour (see localWindow).
    fromDateTime: fromMs,
    toDateTime: toMs,
  };
}

/**
 * Keeps a page's records (noting in `read` the stamp each had when first read);
 * returns the oldest and newest `lastUpdatedAt` on it.
 */
function take(
  into: ReadResult,
  page: Page<Flight>,
  zone: string,
  options: ReadOptions,
  read?: Map<string, number>,
): { oldest: number | undefined; newest: number | undefined } {
  into.requests++;
  into.malformed.push(...page.malformed);
  if (page.date !== undefined) noteAnswer(into, page.date);
  if (page.reused) into.reused = (into.reused ?? 0) + page.reused;
  let oldest: number | undefined;
  let newest: number | undefined;
  const records = page.items;
  for (const record of records) {
    const stamp = keep(into, record, zone);
    if (read !== undefined && record.id !== undefined && !read.has(record.id)) {
      read.set(record.id, stamp);
    }
    if (stamp > 0) {
      if (oldest === undefined || stamp < oldest) oldest = stamp;
      if (newest === undefined || stamp > newest) newest = stamp;
    }
  }
  options.onPage?.(records);
  return { oldest, newest };
}

/** Keeps a record unless a newer version of it is kept; returns its stamp (0 when none). */
function keep(into: ReadResult, record: Flight, zone: string): number {
  const stamp = stampOf(record, zone);
  const id = record.id;
  if (id === undefined) return stamp;
  if (stamp > into.newest) into.newest = stamp;
  const known = into.records.get(id);
  if (!known || stampOf(known, zone) <= stamp) into.records.set(id, record);
  return stamp;
}

/** Keeps the earliest answer time of a read. */
function noteAnswer(into: ReadResult, at: number): void {
  if (into.answeredAt === undefined || at < into.answeredAt) into.answeredAt = at;
}

function merge(into: ReadResult, part: ReadResult, zone: string): void {
  into.requests += part.requests;
  if (part.answeredAt !== undefined) noteAnswer(into, part.answeredAt);
  if (part.reused) into.reused = (into.reused ?? 0) + part.reused;
  if (part.walked?.length) into.walked = [...(into.walked ?? []), ...part.walked];
  into.malformed.push(...part.malformed);
  if (part.newest > into.newest) into.newest = part.newest;
  for (const record of part.records.values()) keep(into, record, zone);
}

/** Epoch ms of a record's `lastUpdatedAt` (0 when absent). Records carry an offset. */
function stampOf(record: Flight, zone: string): number {
  return record.lastUpdatedAt ? (parseApiDateTime(record.lastUpdatedAt, zone) ?? 0) : 0;
}

const floorSecond = (ms: number): number => Math.floor(ms / SECOND) * SECOND;

/** `yyyy-MM-ddTHH:mm:ss` of a wall-clock reading kept as if it were UTC. */
const wallClock = (ms: number): string => new Date(ms).toISOString().slice(0, 19);

function isCode(err: unknown, code: ErrorCode): boolean {
  return err instanceof FlightwatchError && err.code === code;
}

const isPageLimit = (err: unknown): boolean => isCode(err, ErrorCode.UPSTREAM_PAGE_LIMIT);
