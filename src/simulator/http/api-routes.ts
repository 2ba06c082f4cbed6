/**
 * The eight operations of the Public Read API v4 over a FlightStore, as a function
 * from (path, query) to a response. No HTTP here: the server handles methods,
 * headers, credentials and faults, and writes what this returns.
 */
import { API_BASE_PATH, FLIGHT_ID_PATTERN, LIMITS, type SortTerm } from "../../api/contract.js";
import type { Flight } from "../../api/types.js";
import { fromLocalDateTime, toLocalDate } from "../../time/local-time.js";
import type { FlightStore } from "../flight-store.js";
import { icaoToIataMap } from "./airport-codes.js";
import { FlightFacts } from "./flight-facts.js";
import { compileFlightFilter, compileIdsFilter } from "./flight-filter.js";
import { type FlightQuery, parseFlightIdsQuery, parseFlightQuery } from "./flight-query.js";
import { linkHeader, pageOf } from "./paging.js";
import { QueryCache } from "./query-cache.js";
import type { QueryProblem } from "./query-params.js";
import { flightSortKey, flightTieKey, referenceSortKey, sortRecords } from "./record-sort.js";
import {
  parseReferenceQuery,
  type ReferenceCollection,
  type ReferenceQuery,
} from "./reference-query.js";
import { StampIndex } from "./stamp-index.js";

/** What to answer. Error responses have no body; `reason` explains a 400 for diagnostics. */
export interface ApiResponse {
  status: number;
  /** JSON text; absent for an empty body. */
  body?: string;
  link?: string;
  reason?: string;
}

/** Options of the API operations. */
export interface ApiRoutesOptions {
  store: FlightStore;
  /** Items per page of every paged collection (default 20, as the live service). */
  pageSize?: number;
}

type RefRecord = Record<string, unknown>;

const NOT_FOUND: ApiResponse = { status: 404 };
const NO_CONTENT: ApiResponse = { status: 204 };

/** Path segments below the API base of each collection, and their envelope field. */
const REFERENCE_PATHS: Record<string, { collection: ReferenceCollection; envelope: string }> = {
  airlines: { collection: "airlines", envelope: "airlines" },
  aircrafttypes: { collection: "aircraftTypes", envelope: "aircraftTypes" },
  destinations: { collection: "destinations", envelope: "destinations" },
};

const badRequest = (problem: QueryProblem): ApiResponse => ({
  status: 400,
  reason: `invalid parameter ${problem.param}: ${problem.reason}`,
});

/** Whether a sort is by `lastUpdatedAt` ascending, then (if at all) by id ascending. */
function stampThenId(sort: readonly SortTerm[]): boolean {
  const [first, second, ...rest] = sort;
  return (
    first?.field === "lastUpdatedAt" &&
    !first.descending &&
    rest.length === 0 &&
    (second === undefined || (second.field === "id" && !second.descending))
  );
}

/** Answers API requests from a store; caches sorted results per store version. */
export class ApiRoutes {
  readonly pageSize: number;
  private readonly store: FlightStore;
  private readonly facts: FlightFacts;
  private readonly flightCache = new QueryCache<Flight>();
  private readonly referenceCache = new QueryCache<RefRecord>();
  private icaoSource: unknown;
  private icaoMap = new Map<string, string>();
  private stamps: StampIndex | undefined;

  constructor(options: ApiRoutesOptions) {
    this.store = options.store;
    this.pageSize = options.pageSize ?? 20;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) {
      throw new RangeError(`pageSize must be a positive integer, got ${this.pageSize}`);
    }
    this.facts = new FlightFacts(options.store.zone);
  }

  /**
   * Answers `GET {API_BASE_PATH}{subPath}?{params}`. `origin` (`http://host:port`)
   * makes the Link URLs absolute. Returns undefined when the path is no operation.
   */
  handle(subPath: string, params: URLSearchParams, origin: string): ApiResponse | undefined {
    const op = operationOf(subPath);
    if (op === undefined) return undefined;
    const base = `${origin}${API_BASE_PATH}/${op.head}`;
    if (op.name === "getFlights") return this.flights(params, base);
    if (op.name === "flightByIds") return this.flightIds(params);
    const ref = REFERENCE_PATHS[op.head];
    if (op.arg === undefined) {
      return ref ? this.referenceList(ref.collection, ref.envelope, params, base) : undefined;
    }
    let arg: string;
    try {
      arg = decodeURIComponent(op.arg);
    } catch {
      return { status: 400, reason: "path segment is not valid percent-encoding" };
    }
    if (op.name === "flightById") return this.flightById(arg);
    if (op.name === "getAirlinesByCode") return this.airlineByCode(arg);
    return this.destinationByCode(arg);
  }

  private flights(params: URLSearchParams, base: string): ApiResponse {
    const today = toLocalDate(this.store.clock.now(), this.store.zone);
    const parsed = parseFlightQuery(params, today);
    if (!parsed.ok) return badRequest(parsed.problem);
    const query = parsed.value;
    const key = JSON.stringify({ ...query, page: undefined });
    const result = this.flightCache.get(this.store.version, key, () => this.selectFlights(query));
    return this.page(result, "flights", query.page, params, base);
  }

  private selectFlights(query: FlightQuery): Flight[] {
    const match = compileFlightFilter(query, {
      facts: this.facts,
      icaoToIata: this.icaoToIata(),
    });
    const { flights, byStamp } = this.candidates(query);
    const selected: Flight[] = [];
    for (const flight of flights) if (match(flight)) selected.push(flight);
    // An incremental poll's order, over records already in stamp order: only records
    // of the same instant need ordering (by id), not the whole window.
    if (byStamp && stampThenId(query.sort)) return this.idsWithinInstants(selected);
    return sortRecords(selected, query.sort, flightSortKey(this.facts), flightTieKey);
  }

  /** Records in stamp order, those of one instant put in id order (as sortRecords would). */
  private idsWithinInstants(records: Flight[]): Flight[] {
    const ms = (f: Flight): number | undefined => this.facts.instant(f, "lastUpdatedAt");
    const byId = (a: Flight, b: Flight): number => {
      const x = flightTieKey(a) ?? "";
      const y = flightTieKey(b) ?? "";
      return x < y ? -1 : x > y ? 1 : 0;
    };
    const out: Flight[] = [];
    for (let i = 0; i < records.length; ) {
      let j = i + 1;
      const at = ms(records[i] as Flight);
      while (j < records.length && ms(records[j] as Flight) === at) j++;
      const run = records.slice(i, j);
      if (run.length > 1) run.sort(byId);
      out.push(...run);
      i = j;
    }
    return out;
  }

  /**
   * The records a query can select: from a `lastUpdatedAt` bound (an incremental
   * poll), those stamped at or after the earliest instant that reads as it (a second
   * earlier, to spare rounding); otherwise every record. The filter decides.
   */
  private candidates(query: FlightQuery): { flights: Iterable<Flight>; byStamp: boolean } {
    const all = { flights: this.store.all(), byStamp: false };
    if (query.searchDateTimeField !== "lastUpdatedAt" || query.fromDateTime === undefined) {
      return all;
    }
    const from = fromLocalDateTime(query.fromDateTime, this.store.zone, "earlier");
    if (from === undefined) return all;
    this.stamps ??= new StampIndex(this.store);
    const flights: Flight[] = [];
    for (const id of this.stamps.idsFrom(from - 1000)) {
      const flight = this.store.get(id);
      if (flight !== undefined) flights.push(flight);
    }
    return { flights, byStamp: true };
  }

  private flightIds(params: URLSearchParams): ApiResponse {
    const parsed = parseFlightIdsQuery(params);
    if (!parsed.ok) return badRequest(parsed.problem);
    const { fromDateTime, toDateTime } = parsed.value;
    const match = compileIdsFilter(fromDateTime, toDateTime, this.facts);
    const selected: Flight[] = [];
    for (const flight of this.store.all()) if (match(flight)) selected.push(flight);
    const sorted = sortRecords(
      selected,
      [{ field: "scheduleDateTime", descending: false }],
      flightSortKey(this.facts),
      flightTieKey,
    );
    return { status: 200, body: JSON.stringify(sorted.map((f) => f.id)) };
  }

  private flightById(id: string): ApiResponse {
    if (!FLIGHT_ID_PATTERN.test(id)) {
      return { status: 400, reason: `invalid path parameter id: "${id}" is not digits only` };
    }
    const flight = this.store.get(id);
    return flight ? { status: 200, body: JSON.stringify(flight) } : NOT_FOUND;
  }

  private airlineByCode(code: string): ApiResponse {
    const { min, max } = LIMITS.airline;
    if (code.length < min || code.length > max) {
      return {
        status: 400,
        reason: `invalid path parameter airline: "${code}" must have length ${min} to ${max}`,
      };
    }
    const airline = this.store.reference.airlines.find((a) => a.iata === code || a.icao === code);
    return airline ? { status: 200, body: JSON.stringify(airline) } : NOT_FOUND;
  }

  private destinationByCode(iata: string): ApiResponse {
    if (iata.length !== LIMITS.destinationIata.min) {
      return { status: 400, reason: `invalid path parameter iata: "${iata}" must have length 3` };
    }
    const destination = this.store.reference.destinations.find((d) => d.iata === iata);
    return destination ? { status: 200, body: JSON.stringify(destination) } : NOT_FOUND;
  }

  private referenceList(
    collection: ReferenceCollection,
    envelope: string,
    params: URLSearchParams,
    base: string,
  ): ApiResponse {
    const parsed = parseReferenceQuery(collection, params);
    if (!parsed.ok) return badRequest(parsed.problem);
    const query = parsed.value;
    const records = this.store.reference[collection] as RefRecord[];
    const key = `${collection}|${records.length}|${JSON.stringify({ ...query, page: undefined })}`;
    const result = this.referenceCache.get(this.store.reference, key, () =>
      sortRecords(filterReference(records, query), query.sort, referenceSortKey),
    );
    return this.page(result, envelope, query.page, params, base);
  }

  private page<T>(
    result: { records: T[]; pages: Map<number, string> },
    envelope: string,
    pageNumber: number,
    params: URLSearchParams,
    base: string,
  ): ApiResponse {
    const page = pageOf(result.records, pageNumber, this.pageSize);
    if (!page) return NO_CONTENT;
    let body = result.pages.get(pageNumber);
    if (body === undefined) {
      body = JSON.stringify({ [envelope]: page.items });
      result.pages.set(pageNumber, body);
    }
    return { status: 200, body, link: linkHeader(base, params, pageNumber, page.lastPage) };
  }

  private icaoToIata(): ReadonlyMap<string, string> {
    const destinations = this.store.reference.destinations;
    if (destinations !== this.icaoSource) {
      this.icaoMap = icaoToIataMap(destinations);
      this.icaoSource = destinations;
    }
    return this.icaoMap;
  }
}

/** An operation of the contract, identified from a path below the API base. */
export interface Operation {
  /** Operation id as the contract names it, e.g. `getFlights`. */
  name: string;
  /** First path segment (`flights`, `airlines`, …). */
  head: string;
  /** Raw (still percent-encoded) path parameter of a single-record operation. */
  arg?: string;
}

const LIST_OPERATIONS: Record<string, string> = {
  flights: "getFlights",
  airlines: "getAirlines",
  aircrafttypes: "getAircraftTypes",
  destinations: "getDestinations",
};
const RECORD_OPERATIONS: Record<string, string> = {
  flights: "flightById",
  airlines: "getAirlinesByCode",
  destinations: "getDestinationsByCode",
};

/** The operation a path below the API base (`/flights/123`) names, or undefined. */
export function operationOf(subPath: string): Operation | undefined {
  const segments = subPath.split("/");
  // subPath starts with "/", so segments[0] is "".
  if (segments[0] !== "" || segments.length < 2 || segments.length > 3) return undefined;
  const [, head = "", arg] = segments;
  if (arg === undefined) {
    const name = LIST_OPERATIONS[head];
    return name ? { name, head } : undefined;
  }
  if (head === "flights" && arg === "ids") return { name: "flightByIds", head };
  const name = RECORD_OPERATIONS[head];
  return name && arg !== "" ? { name, head, arg } : undefined;
}

function filterReference(records: RefRecord[], query: ReferenceQuery): RefRecord[] {
  const { iataMain, iataSub } = query;
  if (iataMain === undefined && iataSub === undefined) return records;
  return records.filter(
    (r) =>
      (iataMain === undefined || r.iataMain === iataMain) &&
      (iataSub === undefined || r.iataSub === iataSub),
  );
}
