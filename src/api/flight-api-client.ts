/**
 * Typed client of the Flight Information Service Public Read API v4: one method per
 * contract operation, plus walks over every page or every item of a collection.
 * Parameters are validated before anything is sent; HTTP, retries and credentials
 * are the transport's business, record validation the body parser's.
 */
import { inspect } from "node:util";
import { ErrorCode, InvalidParamError, UpstreamError } from "../errors.js";
import {
  type FlightApiClientOptions,
  type MalformedReport,
  type ResolvedClientOptions,
  resolveClientOptions,
} from "./client-options.js";
import type { Collection } from "./contract.js";
import { HttpTransport } from "./http-transport.js";
import { parseLinkHeader } from "./link-header.js";
import { COLLECTION_ENDPOINTS, type OperationId } from "./operation-id.js";
import { checkedNextLink, type Page, walkPages } from "./paged-walk.js";
import {
  type AircraftTypesQuery,
  type AirlinesQuery,
  airlineByCodePath,
  buildCollectionQuery,
  buildFlightIdsQuery,
  type CollectionQueries,
  type DestinationsQuery,
  destinationByCodePath,
  type FlightIdsQuery,
  type FlightsQuery,
  flightByIdPath,
  type QueryPairs,
} from "./query-params.js";
import {
  type BodyResult,
  type CollectionItems,
  parseCollectionBody,
  parseFlightIdsBody,
  parseRecordBody,
} from "./response-body.js";
import type { AircraftType, Airline, Destination, Flight } from "./types.js";

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request, and any wait before a retry. */
  signal?: AbortSignal;
}

/** Options of a page walk. */
export interface PageWalkOptions extends CallOptions {
  /**
   * Flight records already validated, by id: a `/flights` record with the same id and
   * the same `lastUpdatedAt` (as sent) is taken from here instead of being validated
   * again (see parseCollectionBody).
   */
  reuse?: ReadonlyMap<string, Flight>;
}

/** Per-call options of reads that can skip a malformed record. */
export interface RecordCallOptions extends CallOptions {
  /**
   * Receives each record this call skipped (an item walk) or refused (a single
   * record), in addition to the client's `onMalformed`, which hears every one.
   */
  onMalformed?: (report: MalformedReport) => void;
}

/** Options of an item walk. */
export type ItemWalkOptions = RecordCallOptions;

/** Query of a walk: the collection's query without `page`, since a walk starts at page 0. */
export type WalkQuery<C extends Collection> = Omit<CollectionQueries[C], "page">;

/** Client of the Flight API v4; see the module comment. Call `close()` when done. */
export class FlightApiClient {
  readonly #options: ResolvedClientOptions;
  readonly #transport: HttpTransport;
  readonly #origin: string;

  constructor(options: FlightApiClientOptions) {
    this.#options = resolveClientOptions(options);
    this.#transport = new HttpTransport(this.#options, options);
    this.#origin = new URL(this.#options.baseUrl).origin;
  }

  /** Base URL requests go to (no trailing slash). */
  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  /** IANA zone of the API's local date-times. */
  get airportTimezone(): string {
    return this.#options.airportTimezone;
  }

  /**
   * `GET /flights/{id}`. Throws NotFoundError (FW_ERR_NOT_FOUND) when there is no
   * such flight, and FW_ERR_UPSTREAM_MALFORMED (reported to `onMalformed` first) when
   * the record breaks the contract.
   */
  async flightById(id: string, options?: RecordCallOptions): Promise<Flight> {
    return this.#record("flightById", "flights", flightByIdPath(id), options);
  }

  /** `GET /flights/ids`: ids of flights scheduled in an inclusive range of at most three days. */
  async flightByIds(query: FlightIdsQuery, options?: CallOptions): Promise<string[]> {
    const url = this.#url(
      "/flights/ids",
      buildFlightIdsQuery(query, this.#options.airportTimezone),
    );
    const res = await this.#transport.get({
      operation: "flightByIds",
      url,
      notFoundIsAnswer: false,
      signal: options?.signal,
    });
    return this.#unwrap("flightByIds", url, res.status, parseFlightIdsBody(res.body));
  }

  /** `GET /flights`: one page (page 0 unless `query.page` says otherwise). */
  async getFlights(query?: FlightsQuery, options?: CallOptions): Promise<Page<Flight>> {
    return this.getPage("flights", query, options);
  }

  /** `GET /airlines`: one page. */
  async getAirlines(query?: AirlinesQuery, options?: CallOptions): Promise<Page<Airline>> {
    return this.getPage("airlines", query, options);
  }

  /** `GET /airlines/{airline}`. Throws NotFoundError when there is no such airline. */
  async getAirlinesByCode(airline: string, options?: RecordCallOptions): Promise<Airline> {
    return this.#record("getAirlinesByCode", "airlines", airlineByCodePath(airline), options);
  }

  /** `GET /aircrafttypes`: one page. */
  async getAircraftTypes(
    query?: AircraftTypesQuery,
    options?: CallOptions,
  ): Promise<Page<AircraftType>> {
    return this.getPage("aircraftTypes", query, options);
  }

  /** `GET /destinations`: one page. */
  async getDestinations(
    query?: DestinationsQuery,
    options?: CallOptions,
  ): Promise<Page<Destination>> {
    return this.getPage("destinations", query, options);
  }

  /** `GET /destinations/{iata}`. Throws NotFoundError when there is no such destination. */
  async getDestinationsByCode(iata: string, options?: RecordCallOptions): Promise<Destination> {
    return this.#record(
      "getDestinationsByCode",
      "destinations",
      destinationByCodePath(iata),
      options,
    );
  }

  /** One page of any collection. */
  async getPage<C extends Collection>(
    collection: C,
    query?: CollectionQueries[C],
    options?: CallOptions,
  ): Promise<Page<CollectionItems[C]>> {
    const pairs = buildCollectionQuery(collection, query, this.#options.airportTimezone);
    const url = this.#url(COLLECTION_ENDPOINTS[collection].path, pairs);
    return this.#fetchPage(collection, url, 0, options?.signal, undefined);
  }

  /**
   * Every page of a collection, from page 0 along the `next` links. Each page
   * carries its items, skipped-record reports, status, links and URL.
   */
  async *pages<C extends Collection>(
    collection: C,
    query?: WalkQuery<C>,
    options?: PageWalkOptions,
  ): AsyncGenerator<Page<CollectionItems[C]>, void, undefined> {
    if ((query as { page?: unknown } | undefined)?.page !== undefined) {
      throw new InvalidParamError(
        "page",
        "a walk starts at page 0 and follows the next links; use getPage for a single page",
      );
    }
    const pairs = buildCollectionQuery(
      collection,
      { ...query, page: 0 } as CollectionQueries[C],
      this.#options.airportTimezone,
    );
    const firstUrl = this.#url(COLLECTION_ENDPOINTS[collection].path, pairs);
    yield* walkPages(
      firstUrl,
      (url, index) => this.#fetchPage(collection, url, index, options?.signal, options?.reuse),
      { operation: COLLECTION_ENDPOINTS[collection].operation, maxPages: this.#options.maxPages },
    );
  }

  /**
   * Every item of a collection, page after page; skipped records go to the call's
   * `onMalformed` (and, as from every read, to the client's).
   */
  async *items<C extends Collection>(
    collection: C,
    query?: WalkQuery<C>,
    options?: ItemWalkOptions,
  ): AsyncGenerator<CollectionItems[C], void, undefined> {
    const report = options?.onMalformed;
    for await (const page of this.pages(collection, query, options)) {
      if (report) for (const record of page.malformed) report({ ...record, url: page.url });
      yield* page.items;
    }
  }

  /** Closes pooled connections; the client is unusable afterwards. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  [inspect.custom](): string {
    return `FlightApiClient { baseUrl: '${this.#options.baseUrl}', auth: '${this.#transport.auth}' }`;
  }

  toJSON(): { baseUrl: string; auth: string } {
    return { baseUrl: this.#options.baseUrl, auth: this.#transport.auth };
  }

  #url(path: string, pairs: QueryPairs): string {
    const query = new URLSearchParams(pairs).toString();
    return `${this.#options.baseUrl}${path}${query === "" ? "" : `?${query}`}`;
  }

  async #fetchPage<C extends Collection>(
    collection: C,
    url: string,
    index: number,
    signal: AbortSignal | undefined,
    reuse: ReadonlyMap<string, Flight> | undefined,
  ): Promise<Page<CollectionItems[C]>> {
    const { operation } = COLLECTION_ENDPOINTS[collection];
    const res = await this.#transport.get({ operation, url, notFoundIsAnswer: false, signal });
    const { items, malformed, reused } = this.#unwrap(
      operation,
      url,
      res.status,
      parseCollectionBody(collection, res.body, reuse),
    );
    for (const record of malformed) this.#observe({ ...record, url });
    const links = parseLinkHeader(res.headers.link, url);
    const next = checkedNextLink(links, this.#origin, { operation, url });
    const date = headerDate(res.headers.date);
    return {
      index,
      url,
      status: res.status,
      items,
      malformed,
      links,
      next,
      ...(date === undefined ? {} : { date }),
      ...(reused ? { reused } : {}),
    };
  }

  async #record<C extends Collection>(
    operation: OperationId,
    collection: C,
    path: string,
    options: RecordCallOptions | undefined,
  ): Promise<CollectionItems[C]> {
    const url = this.#url(path, []);
    const res = await this.#transport.get({
      operation,
      url,
      notFoundIsAnswer: true,
      signal: options?.signal,
    });
    const parsed = parseRecordBody(collection, res.body);
    if (!parsed.ok && parsed.record) {
      const report = { ...parsed.record, url };
      this.#observe(report);
      options?.onMalformed?.(report);
    }
    return this.#unwrap(operation, url, res.status, parsed);
  }

  /** Tells the client's observer of a skipped record; what it throws is ignored. */
  #observe(report: MalformedReport): void {
    try {
      this.#options.onMalformed?.(report);
    } catch {
      // An observer must never change the outcome of a read.
    }
  }

  #unwrap<T>(operation: OperationId, url: string, status: number, result: BodyResult<T>): T {
    if (result.ok) return result.value;
    throw new UpstreamError(
      ErrorCode.UPSTREAM_MALFORMED,
      this.#transport.redact(
        `${operation}: the body of GET ${url} is not what the contract describes: ${result.problem}`,
      ),
      { operation, url, status },
    );
  }
}

/** Epoch ms of an HTTP `Date` header (IMF-fixdate), or undefined when absent or unreadable. */
function headerDate(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}
