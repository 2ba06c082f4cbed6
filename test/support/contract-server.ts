/**
 * A minimal Flight API v4 server for the client's integration tests: a real
 * node:http server on 127.0.0.1, port 0, that follows the contract where the client
 * can tell (paging with absolute Link URLs that carry the request's filters, 204
 * beyond the last page, Bearer or app-key auth, 404 on unknown records) and can be
 * scripted to misbehave one request at a time. It is not the simulator: no clock,
 * no changes, no sorting.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FlightApiClientOptions } from "../../src/api/client-options.js";
import { API_BASE_PATH, FLIGHT_IDS_MAX_RANGE_MS } from "../../src/api/contract.js";
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import type { AircraftType, Airline, Destination, Flight } from "../../src/api/types.js";
import { UpstreamError } from "../../src/errors.js";
import { fromLocalDateTime, parseApiDateTime } from "../../src/time/local-time.js";

/** A scripted misbehaviour for one request. */
export type Fault =
  /** Answer with this status (and optional headers/body) instead of the real response. */
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: string }
  /** Destroy the connection without answering. */
  | { kind: "reset" }
  /** Never answer (the client's headers timeout must fire). */
  | { kind: "hang" }
  /** Send headers and half of the body, then stall (the body timeout must fire). */
  | { kind: "stall-body" }
  /** Send the real body cut in half and end the response normally. */
  | { kind: "truncate" }
  /** Announce the full Content-Length, send half of the body, then drop the connection. */
  | { kind: "cut" }
  /** Send the real status and headers with this body instead. */
  | { kind: "body"; body: string }
  /** Send the real response with this Link header instead (empty string: none). */
  | { kind: "link"; link: string }
  /**
   * Send this status and headers, then the real body one byte every `everyMs` (default
   * 1 s), for ever: never silent long enough for a body timeout to fire.
   */
  | { kind: "trickle"; status?: number; everyMs?: number }
  /**
   * Send this status (default 200) and a body of flight-like JSON that never ends (or
   * stops after about `bytes`), as fast as the client takes it; with `announce`, a
   * Content-Length of that many bytes.
   */
  | { kind: "endless"; status?: number; announce?: number; bytes?: number };

/** A request as the server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, exactly as received. */
  url: string;
  headers: IncomingHttpHeaders;
}

/** Options of a contract server. */
export interface ContractServerOptions {
  flights?: Flight[];
  airlines?: Airline[];
  aircraftTypes?: AircraftType[];
  destinations?: Destination[];
  /** Items per page (default 20), or the size of each page in turn (the last size repeats). */
  pageSize?: number | readonly number[];
  /** When set, requests must carry these credentials or get 401. */
  auth?: { token: string } | { appId: string; appKey: string };
  /** Also link a `next` from the last page (whose successor then answers 204). */
  nextOnLastPage?: boolean;
  /** Faults consumed one per request, in order (push more at any time). */
  faults?: Fault[];
  /** A fault chosen per request; consulted when the queue is empty. */
  faultFor?: (req: RecordedRequest) => Fault | undefined;
}

/** A running contract server. */
export interface ContractServer {
  /** Base URL of the API, e.g. `http://127.0.0.1:41234/public/public-flights/v4`. */
  baseUrl: string;
  origin: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** The fault queue; push to script the next requests. */
  faults: Fault[];
  /** Body bytes written by `trickle` and `endless` faults, all requests together. */
  readonly streamedBytes: number;
  /** Responses whose connection closed before the response was complete (the client gave up). */
  readonly cutOff: number;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body?: unknown;
  link?: string;
}

const ZONE = "Europe/Amsterdam";

/** Starts a contract server on 127.0.0.1, port 0. */
export async function startContractServer(
  options: ContractServerOptions = {},
): Promise<ContractServer> {
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = options.faults ?? [];
  const counts = { streamedBytes: 0, cutOff: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    res.on("close", () => {
      if (!res.writableFinished) counts.cutOff++;
    });
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
    };
    requests.push(recorded);
    const fault = faults.shift() ?? options.faultFor?.(recorded);
    if (fault?.kind === "reset") {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "hang") return;
    if (fault?.kind === "trickle") {
      const body = Buffer.from(JSON.stringify(route(recorded, options).body ?? {}));
      res.writeHead(fault.status ?? 200, { "Content-Type": "application/json" });
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed) {
          clearInterval(timer);
          timers.delete(timer);
          return;
        }
        // Round and round: never ends, never falls silent.
        res.write(body.subarray(at % body.length, (at % body.length) + 1));
        at++;
        counts.streamedBytes++;
      }, fault.everyMs ?? 1000);
      timers.add(timer);
      return;
    }
    if (fault?.kind === "endless") {
      streamEndless(res, fault, counts);
      return;
    }
    if (fault?.kind === "status") {
      res.writeHead(fault.status, fault.headers ?? {});
      res.end(fault.body ?? "");
      return;
    }
    const answer = route(recorded, options);
    send(res, answer, fault);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}${API_BASE_PATH}`,
    origin,
    requests,
    faults,
    get streamedBytes() {
      return counts.streamedBytes;
    },
    get cutOff() {
      return counts.cutOff;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** 64 KB of flight records, comma-separated, to repeat for ever. */
const FILLER = Buffer.from(
  `${Array.from({ length: 400 }, (_, i) =>
    JSON.stringify({
      id: String(100_000_000_000_000_000n + BigInt(i)),
      flightName: "KL1234",
      flightDirection: "D",
      gate: "D7",
      route: { destinations: ["LHR"] },
    }),
  )
    .join(",")
    .padEnd(64 * 1024, " ")},`,
);

function streamEndless(
  res: ServerResponse,
  fault: Extract<Fault, { kind: "endless" }>,
  counts: { streamedBytes: number },
): void {
  res.writeHead(fault.status ?? 200, {
    "Content-Type": "application/json",
    ...(fault.announce === undefined ? {} : { "Content-Length": String(fault.announce) }),
  });
  res.write('{"flights":[');
  // As fast as the client reads, no faster: backpressure keeps the server's memory flat.
  let sent = 0;
  const pump = (): void => {
    while (!res.destroyed) {
      if (fault.bytes !== undefined && sent + FILLER.length > fault.bytes) {
        // The last record's trailing comma closed by a record: still valid JSON.
        res.end('{"id":"1"}]}');
        return;
      }
      sent += FILLER.length;
      counts.streamedBytes += FILLER.length;
      if (!res.write(FILLER)) {
        res.once("drain", pump);
        return;
      }
    }
  };
  res.on("error", () => undefined);
  pump();
}

function send(res: ServerResponse, answer: Answer, fault: Fault | undefined): void {
  const link = fault?.kind === "link" ? fault.link : answer.link;
  if (link) res.setHeader("Link", link);
  if (answer.status === 204 || answer.body === undefined) {
    res.writeHead(answer.status);
    res.end();
    return;
  }
  const body = fault?.kind === "body" ? fault.body : JSON.stringify(answer.body);
  const half = body.slice(0, Math.floor(body.length / 2));
  res.setHeader("Content-Type", "application/json");
  switch (fault?.kind) {
    case "truncate":
      res.writeHead(answer.status);
      res.end(half);
      return;
    case "cut":
      res.writeHead(answer.status, { "Content-Length": Buffer.byteLength(body) });
      res.write(half, () => res.socket?.destroy());
      return;
    case "stall-body":
      res.writeHead(answer.status, { "Content-Length": Buffer.byteLength(body) });
      res.write(half);
      return;
    default:
      res.writeHead(answer.status, { "Content-Length": Buffer.byteLength(body) });
      res.end(body);
  }
}

function route(req: RecordedRequest, options: ContractServerOptions): Answer {
  if (req.headers.accept !== "application/json") return { status: 406 };
  if (!authorised(req.headers, options.auth)) return { status: 401 };
  const url = new URL(req.url, `http://${req.headers.host ?? "127.0.0.1"}`);
  if (!url.pathname.startsWith(API_BASE_PATH)) return { status: 404 };
  const path = url.pathname.slice(API_BASE_PATH.length);
  const q = url.searchParams;
  const flights = options.flights ?? [];

  if (path === "/flights/ids") return flightIds(q, flights);
  let m = /^\/flights\/([^/]+)$/.exec(path);
  if (m) {
    const id = decodeURIComponent(m[1] ?? "");
    if (!/^[0-9]+$/.test(id)) return { status: 400 };
    const flight = flights.find((f) => f.id === id);
    return flight ? { status: 200, body: flight } : { status: 404 };
  }
  m = /^\/airlines\/([^/]+)$/.exec(path);
  if (m) {
    const code = decodeURIComponent(m[1] ?? "");
    const airline = (options.airlines ?? []).find((a) => a.iata === code || a.icao === code);
    return airline ? { status: 200, body: airline } : { status: 404 };
  }
  m = /^\/destinations\/([^/]+)$/.exec(path);
  if (m) {
    const iata = decodeURIComponent(m[1] ?? "");
    const destination = (options.destinations ?? []).find((d) => d.iata === iata);
    return destination ? { status: 200, body: destination } : { status: 404 };
  }
  const direction = q.get("flightDirection");
  const collections: Record<string, [string, unknown[]]> = {
    "/flights": ["flights", flights.filter((f) => !direction || f.flightDirection === direction)],
    "/airlines": ["airlines", options.airlines ?? []],
    "/aircrafttypes": ["aircraftTypes", options.aircraftTypes ?? []],
    "/destinations": ["destinations", options.destinations ?? []],
  };
  const collection = collections[path];
  if (!collection) return { status: 404 };
  return page(url, collection[0], collection[1], options);
}

function authorised(headers: IncomingHttpHeaders, auth: ContractServerOptions["auth"]): boolean {
  if (!auth) return true;
  if ("token" in auth) return headers.authorization === `Bearer ${auth.token}`;
  return headers.app_id === auth.appId && headers.app_key === auth.appKey;
}

function page(url: URL, envelope: string, all: unknown[], options: ContractServerOptions): Answer {
  const pageText = url.searchParams.get("page") ?? "0";
  if (!/^\d+$/.test(pageText) || Number(pageText) > 499) return { status: 400 };
  const n = Number(pageText);
  const sizes = options.pageSize ?? 20;
  const sizeOf = (i: number): number =>
    typeof sizes === "number" ? sizes : (sizes[Math.min(i, sizes.length - 1)] ?? 20);
  // Page boundaries: page i covers [starts[i], starts[i + 1]).
  const starts = [0];
  while ((starts[starts.length - 1] ?? 0) < all.length) {
    starts.push((starts[starts.length - 1] ?? 0) + sizeOf(starts.length - 1));
  }
  const pageCount = starts.length - 1;
  if (n >= pageCount) return { status: 204 };
  const items = all.slice(starts[n], starts[n + 1]);
  const linkTo = (p: number): string => {
    const params = new URLSearchParams(url.searchParams);
    params.set("page", String(p));
    return `${url.origin}${url.pathname}?${params.toString()}`;
  };
  const links = [`<${linkTo(0)}>; rel="first"`];
  if (n > 0) links.push(`<${linkTo(n - 1)}>; rel="prev"`);
  if (n < pageCount - 1 || options.nextOnLastPage) links.push(`<${linkTo(n + 1)}>; rel="next"`);
  links.push(`<${linkTo(pageCount - 1)}>; rel="last"`);
  return { status: 200, body: { [envelope]: items }, link: links.join(", ") };
}

function flightIds(q: URLSearchParams, flights: Flight[]): Answer {
  const from = q.get("fromDateTime");
  const to = q.get("toDateTime");
  const fromMs = from === null ? undefined : fromLocalDateTime(from, ZONE);
  const toMs = to === null ? undefined : fromLocalDateTime(to, ZONE);
  if (fromMs === undefined || toMs === undefined || toMs < fromMs) return { status: 400 };
  if (toMs - fromMs > FLIGHT_IDS_MAX_RANGE_MS) return { status: 400 };
  const ids = flights
    .filter((f) => {
      const at = f.scheduleDateTime ? parseApiDateTime(f.scheduleDateTime, ZONE) : undefined;
      return at !== undefined && at >= fromMs && at <= toMs;
    })
    .map((f) => f.id);
  return { status: 200, body: ids };
}

/** `n` plausible flights with 18-digit ids, alternating direction, from 2026-11-21 06:00 local. */
export function sampleFlights(n: number): Flight[] {
  const start = Date.parse("2026-11-21T05:00:00Z");
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(start + i * 5 * 60_000).toISOString().replace("Z", "+00:00");
    return {
      id: `1234567890${String(i).padStart(8, "0")}`,
      flightName: `KL${1000 + i}`,
      flightDirection: i % 2 === 0 ? "D" : "A",
      scheduleDateTime: at,
      scheduleDate: "2026-11-21",
      lastUpdatedAt: at,
      gate: `D${i % 10}`,
      route: { destinations: ["LHR"], eu: "E", visa: false },
    } satisfies Flight;
  });
}

/** A contract server and a client pointed at it, with sleeps recorded instead of waited. */
export interface ServerAndClient {
  server: ContractServer;
  client: FlightApiClient;
  /** Every delay the client asked to sleep, in order. */
  sleeps: number[];
  close(): Promise<void>;
}

/** Starts a contract server and a client whose retries never really sleep. */
export async function startServerAndClient(
  serverOptions: ContractServerOptions = {},
  clientOptions: Partial<FlightApiClientOptions> = {},
): Promise<ServerAndClient> {
  const server = await startContractServer(serverOptions);
  const sleeps: number[] = [];
  const client = new FlightApiClient({
    baseUrl: server.baseUrl,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...clientOptions,
  });
  return {
    server,
    client,
    sleeps,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The UpstreamError a client call fails with (anything else fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error("expected an UpstreamError");
}
