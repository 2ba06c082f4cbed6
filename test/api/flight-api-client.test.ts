/** Integration: the client against a real contract-following server on 127.0.0.1. */
import { afterEach, describe, expect, it } from "vitest";
import type { FlightApiClientOptions, MalformedReport } from "../../src/api/client-options.js";
import type { ExchangeEvent } from "../../src/api/exchange-event.js";
import type { FlightApiClient } from "../../src/api/flight-api-client.js";
import type { Flight } from "../../src/api/types.js";
import { ErrorCode, FlightwatchError, InvalidParamError, NotFoundError } from "../../src/errors.js";
import {
  type ContractServer,
  type ContractServerOptions,
  type ServerAndClient,
  sampleFlights,
  startContractServer,
  startServerAndClient,
} from "../support/contract-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  serverOptions: ContractServerOptions = {},
  clientOptions: Partial<FlightApiClientOptions> = {},
): Promise<ServerAndClient> {
  const started = await startServerAndClient(serverOptions, clientOptions);
  cleanups.push(() => started.close());
  return started;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<FlightwatchError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FlightwatchError) return err;
    throw err;
  }
  throw new Error("expected a FlightwatchError");
}

const ids = (flights: Flight[]): (string | undefined)[] => flights.map((f) => f.id);
const pageParams = (server: ContractServer): (string | null)[] =>
  server.requests.map((r) => new URL(r.url, server.origin).searchParams.get("page"));

describe("paging", () => {
  it("reads every page once, following next links from page 0", async () => {
    const flights = sampleFlights(47);
    const { server, client } = await setup({ flights });
    const items = await collect(client.items("flights"));
    expect(ids(items)).toEqual(ids(flights));
    expect(pageParams(server)).toEqual(["0", "1", "2"]);
  });

  it("does not assume a page size of 20", async () => {
    const flights = sampleFlights(30);
    const { server, client } = await setup({ flights, pageSize: 7 });
    expect(ids(await collect(client.items("flights")))).toEqual(ids(flights));
    expect(server.requests).toHaveLength(5);
  });

  it("keeps going after a short page that is not the last", async () => {
    const flights = sampleFlights(50);
    const { server, client } = await setup({ flights, pageSize: [20, 3, 20] });
    const pages = await collect(client.pages("flights"));
    expect(pages.map((p) => p.items.length)).toEqual([20, 3, 20, 7]);
    expect(ids(pages.flatMap((p) => p.items))).toEqual(ids(flights));
    expect(pages.map((p) => p.index)).toEqual([0, 1, 2, 3]);
    expect(pageParams(server)).toEqual(["0", "1", "2", "3"]);
  });

  it("treats 204 as an empty page and ends when it has no next link", async () => {
    const flights = sampleFlights(40);
    const { client } = await setup({ flights, nextOnLastPage: true });
    const pages = await collect(client.pages("flights"));
    expect(pages.map((p) => [p.status, p.items.length])).toEqual([
      [200, 20],
      [200, 20],
      [204, 0],
    ]);
    expect(pages[2]?.next).toBeUndefined();
  });

  it("reads an empty collection (204 on page 0) as no items", async () => {
    const { server, client } = await setup({ flights: [] });
    expect(await collect(client.items("flights"))).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the filters on every page (the links carry them) and exposes page metadata", async () => {
    const flights = sampleFlights(60);
    const { server, client } = await setup({ flights, pageSize: 10 });
    const pages = await collect(
      client.pages("flights", { flightDirection: "D", sort: "+scheduleTime" }),
    );
    expect(ids(pages.flatMap((p) => p.items))).toEqual(
      ids(flights.filter((f) => f.flightDirection === "D")),
    );
    for (const r of server.requests) {
      const q = new URL(r.url, server.origin).searchParams;
      expect(q.get("flightDirection")).toBe("D");
      expect(q.get("sort")).toBe("+scheduleTime");
    }
    const first = pages[0];
    expect(first?.url).toBe(
      `${server.baseUrl}/flights?flightDirection=D&page=0&sort=%2BscheduleTime`,
    );
    expect(first?.links.map((l) => l.rels[0])).toEqual(["first", "next", "last"]);
    expect(first?.next).toBe(pages[1]?.url);
  });

  it("follows a next link exactly as given, encoding included, relative or absolute", async () => {
    const flights = sampleFlights(3);
    const odd =
      "/public/public-flights/v4/flights?sort=%2BscheduleTime&route=LHR%2CCDG&x=a,b&page=1";
    const { server, client } = await setup({ flights, pageSize: 1 });
    server.faults.push(
      { kind: "link", link: `<${server.origin}${odd}>; rel="next"` },
      { kind: "link", link: `</public/public-flights/v4/flights?page=2&y=%7E>; rel=next` },
      { kind: "link", link: "" },
    );
    await collect(client.items("flights"));
    expect(server.requests.map((r) => r.url)).toEqual([
      "/public/public-flights/v4/flights?page=0",
      odd,
      "/public/public-flights/v4/flights?page=2&y=%7E",
    ]);
  });

  it("stops a next-link loop with FW_ERR_UPSTREAM_LINK", async () => {
    const { server, client } = await setup({ flights: sampleFlights(10), pageSize: 2 });
    server.faults.push(
      { kind: "link", link: `<${server.baseUrl}/flights?page=1>; rel="next"` },
      { kind: "link", link: `<${server.baseUrl}/flights?page=0>; rel="next"` },
    );
    const err = await rejection(collect(client.items("flights")));
    expect(err.code).toBe(ErrorCode.UPSTREAM_LINK);
    expect(server.requests).toHaveLength(2);
  });

  it("stops at the page cap with FW_ERR_UPSTREAM_PAGE_LIMIT", async () => {
    const { server, client } = await setup(
      { flights: sampleFlights(100), pageSize: 5 },
      { maxPages: 3 },
    );
    const seen: number[] = [];
    const err = await rejection(
      (async () => {
        for await (const page of client.pages("flights")) seen.push(page.index);
      })(),
    );
    expect(err.code).toBe(ErrorCode.UPSTREAM_PAGE_LIMIT);
    expect(seen).toEqual([0, 1, 2]);
    expect(server.requests).toHaveLength(3);
  });

  it("fails when the last page the contract allows (499) holds records, next link or not", async () => {
    const { server, client } = await setup({ flights: sampleFlights(500), pageSize: 1 });
    const seen: number[] = [];
    const err = await rejection(
      (async () => {
        for await (const page of client.pages("flights")) seen.push(page.index);
      })(),
    );
    expect(err.code).toBe(ErrorCode.UPSTREAM_PAGE_LIMIT);
    expect(err.message).toContain("may be truncated");
    expect(seen).toHaveLength(500);
    expect(server.requests).toHaveLength(500);
    const more = await setup({ flights: sampleFlights(501), pageSize: 1 });
    expect((await rejection(collect(more.client.items("flights")))).code).toBe(
      ErrorCode.UPSTREAM_PAGE_LIMIT,
    );
  });

  it("completes a walk of 499 pages, or one whose page 499 is empty", async () => {
    const exact = await setup({ flights: sampleFlights(499), pageSize: 1 });
    expect(await collect(exact.client.items("flights"))).toHaveLength(499);
    const trailing = await setup({
      flights: sampleFlights(499),
      pageSize: 1,
      nextOnLastPage: true,
    });
    const pages = await collect(trailing.client.pages("flights"));
    expect(pages).toHaveLength(500);
    expect(pages[499]?.status).toBe(204);
  });

  it("refuses a next link to another origin and sends it nothing", async () => {
    const foreign = await startContractServer({ flights: sampleFlights(5) });
    cleanups.push(() => foreign.close());
    const { server, client } = await setup(
      { flights: sampleFlights(5), auth: { token: "tok-123" } },
      { token: "tok-123" },
    );
    server.faults.push({ kind: "link", link: `<${foreign.baseUrl}/flights?page=1>; rel="next"` });
    const err = await rejection(collect(client.items("flights")));
    expect(err.code).toBe(ErrorCode.UPSTREAM_LINK);
    expect(err.message).toContain(foreign.origin);
    expect(foreign.requests).toHaveLength(0);
    // A single page with such a link is refused too.
    server.faults.push({ kind: "link", link: `<https://evil.test/flights?page=1>; rel="next"` });
    expect((await rejection(client.getFlights())).code).toBe(ErrorCode.UPSTREAM_LINK);
  });

  it("reads a single page with getFlights and the other collections", async () => {
    const { client } = await setup({
      flights: sampleFlights(25),
      airlines: [{ iata: "KL", icao: "KLM", nvls: 100, publicName: "KLM" }],
      aircraftTypes: [{ iataMain: "73H", iataSub: "73H", longDescription: "Boeing 737-800" }],
      destinations: [{ iata: "LHR", city: "London", publicName: { english: "London Heathrow" } }],
    });
    const second = await client.getFlights({ page: 1 });
    expect(second.items).toHaveLength(5);
    expect(second.next).toBeUndefined();
    expect((await client.getAirlines()).items).toEqual([
      { iata: "KL", icao: "KLM", nvls: 100, publicName: "KLM" },
    ]);
    expect((await client.getAircraftTypes({ iataMain: "73H" })).items[0]?.iataMain).toBe("73H");
    expect((await client.getDestinations()).items[0]?.city).toBe("London");
    expect(await collect(client.items("airlines"))).toHaveLength(1);
  });
});

describe("single records and ids", () => {
  it("reads a flight, an airline and a destination by key", async () => {
    const flights = sampleFlights(3);
    const { client } = await setup({
      flights,
      airlines: [{ iata: "KL", icao: "KLM" }],
      destinations: [{ iata: "AMS", city: "Amsterdam" }],
    });
    expect(await client.flightById("123456789000000001")).toEqual(flights[1]);
    expect(await client.getAirlinesByCode("KLM")).toEqual({ iata: "KL", icao: "KLM" });
    expect(await client.getDestinationsByCode("AMS")).toEqual({ iata: "AMS", city: "Amsterdam" });
  });

  it("answers 404 with NotFoundError, without retrying", async () => {
    const { server, client, sleeps } = await setup({ flights: sampleFlights(1) });
    const err = await rejection(client.flightById("999999999999999999"));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.code).toBe(ErrorCode.NOT_FOUND);
    expect((await rejection(client.getAirlinesByCode("XX"))).code).toBe(ErrorCode.NOT_FOUND);
    expect((await rejection(client.getDestinationsByCode("XXX"))).code).toBe(ErrorCode.NOT_FOUND);
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toEqual([]);
  });

  it("lists flight ids in a range as strings", async () => {
    const flights = sampleFlights(30); // every 5 minutes from 06:00 local
    const { server, client } = await setup({ flights });
    const result = await client.flightByIds({
      fromDateTime: "2026-11-21T06:00:00",
      toDateTime: new Date("2026-11-21T05:20:00Z"), // 06:20 local, inclusive
    });
    expect(result).toEqual(ids(flights.slice(0, 5)));
    expect(server.requests[0]?.url).toBe(
      "/public/public-flights/v4/flights/ids?fromDateTime=2026-11-21T06%3A00%3A00&toDateTime=2026-11-21T06%3A20%3A00",
    );
  });
});

describe("request headers", () => {
  it("sends Accept, ResourceVersion and a Bearer token", async () => {
    const { server, client } = await setup(
      { flights: sampleFlights(1), auth: { token: "tok-abc" } },
      { token: "tok-abc" },
    );
    await client.getFlights();
    const headers = server.requests[0]?.headers;
    expect(headers?.accept).toBe("application/json");
    expect(headers?.resourceversion).toBe("v4");
    expect(headers?.authorization).toBe("Bearer tok-abc");
    expect(headers?.app_key).toBeUndefined();
  });

  it("sends app_id and app_key instead when configured so", async () => {
    const { server, client } = await setup(
      { flights: sampleFlights(1), auth: { appId: "my-app", appKey: "my-key" } },
      { appId: "my-app", appKey: "my-key" },
    );
    await client.getFlights();
    const headers = server.requests[0]?.headers;
    expect([headers?.app_id, headers?.app_key, headers?.authorization]).toEqual([
      "my-app",
      "my-key",
      undefined,
    ]);
  });

  it("fails with FW_ERR_UPSTREAM_AUTH on 401, without retrying", async () => {
    const { server, client, sleeps } = await setup(
      { flights: sampleFlights(1), auth: { token: "right" } },
      { token: "wrong" },
    );
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_AUTH);
    expect(err.message).toContain("FLIGHT_API_TOKEN");
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe("parameter validation happens before sending", () => {
  const ZONE_RANGE = { fromDateTime: "2026-11-21T00:00:00", toDateTime: "2026-11-25T00:00:00" };
  it.each<[string, (c: FlightApiClient) => Promise<unknown>, string]>([
    ["flightById", (c) => c.flightById("12x"), "id"],
    ["flightByIds", (c) => c.flightByIds(ZONE_RANGE), "toDateTime"],
    ["getFlights", (c) => c.getFlights({ page: 500 }), "page"],
    ["getFlights", (c) => c.getFlights({ airline: "KL", airlineCode: 1 }), "airline"],
    ["getAirlines", (c) => c.getAirlines({ sort: "+city" }), "sort"],
    ["getAirlinesByCode", (c) => c.getAirlinesByCode("K"), "airline"],
    ["getAircraftTypes", (c) => c.getAircraftTypes({ iataSub: "7" }), "iataSub"],
    ["getDestinations", (c) => c.getDestinations({ page: -1 }), "page"],
    ["getDestinationsByCode", (c) => c.getDestinationsByCode("AMSX"), "iata"],
    ["items", (c) => collect(c.items("flights", { flightName: "KL1" })), "flightName"],
    ["pages", (c) => collect(c.pages("flights", { page: 2 } as never)), "page"],
  ])("%s rejects a bad parameter (%#) and sends nothing", async (_name, call, param) => {
    const { server, client } = await setup({ flights: sampleFlights(1) });
    const err = await rejection(call(client));
    expect(err).toBeInstanceOf(InvalidParamError);
    expect((err as InvalidParamError).param).toBe(param);
    expect(server.requests).toHaveLength(0);
  });
});

describe("observability and malformed records", () => {
  it("reports every attempt to onExchange", async () => {
    const events: ExchangeEvent[] = [];
    const { server, client } = await setup(
      { flights: sampleFlights(3), pageSize: 2 },
      { onExchange: (e) => events.push(e), random: () => 0.5 },
    );
    server.faults.push({ kind: "status", status: 503 });
    await collect(client.items("flights"));
    expect(
      events.map(({ operation, attempt, status, outcome, willRetry, retryDelayMs }) => ({
        operation,
        attempt,
        status,
        outcome,
        willRetry,
        retryDelayMs,
      })),
    ).toEqual([
      {
        operation: "getFlights",
        attempt: 1,
        status: 503,
        outcome: "server_error",
        willRetry: true,
        retryDelayMs: 250,
      },
      {
        operation: "getFlights",
        attempt: 2,
        status: 200,
        outcome: "ok",
        willRetry: false,
        retryDelayMs: undefined,
      },
      {
        operation: "getFlights",
        attempt: 1,
        status: 200,
        outcome: "ok",
        willRetry: false,
        retryDelayMs: undefined,
      },
    ]);
    expect(events[0]?.url).toBe(`${server.baseUrl}/flights?page=0`);
    for (const e of events) expect(e.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("an exchange hook that throws does not break the request", async () => {
    const { client } = await setup(
      { flights: sampleFlights(1) },
      {
        onExchange: () => {
          throw new Error("observer bug");
        },
      },
    );
    expect((await client.getFlights()).items).toHaveLength(1);
  });

  it("skips one bad record, reports it, and returns the rest", async () => {
    const flights: Flight[] = sampleFlights(4);
    const broken = { ...flights[1], terminal: "three" } as unknown as Flight;
    const { server, client } = await setup({
      flights: [flights[0]!, broken, flights[2]!, flights[3]!],
      pageSize: 2,
    });
    const reports: unknown[] = [];
    const items = await collect(
      client.items("flights", {}, { onMalformed: (r) => reports.push(r) }),
    );
    expect(ids(items)).toEqual([flights[0]?.id, flights[2]?.id, flights[3]?.id]);
    expect(reports).toEqual([
      {
        index: 1,
        id: flights[1]?.id,
        field: "terminal",
        problems: [expect.stringMatching(/^terminal: /)],
        identity: {
          id: flights[1]?.id,
          flightName: flights[1]?.flightName,
          flightDirection: flights[1]?.flightDirection,
          scheduleDate: flights[1]?.scheduleDate,
          scheduleDateTime: flights[1]?.scheduleDateTime,
        },
        url: `${server.baseUrl}/flights?page=0`,
      },
    ]);
  });

  it("tells the client's onMalformed hook of every skipped record, whatever the read", async () => {
    const reports: MalformedReport[] = [];
    const own: MalformedReport[] = [];
    const { server, client } = await setup(
      {
        flights: [
          { id: "1", gate: 7 } as unknown as Flight,
          { id: "2", flightDirection: "X" } as unknown as Flight,
        ],
        pageSize: 1,
      },
      { onMalformed: (r) => reports.push(r) },
    );
    expect(await collect(client.items("flights"))).toEqual([]);
    expect(reports.map((r) => [r.id, r.field])).toEqual([
      ["1", "gate"],
      ["2", "flightDirection"],
    ]);
    // A page, a walk with a handler of its own: the hook hears them too, once each.
    await client.getFlights();
    await collect(client.items("flights", {}, { onMalformed: (r) => own.push(r) }));
    expect(reports.map((r) => r.id)).toEqual(["1", "2", "1", "1", "2"]);
    expect(own.map((r) => r.id)).toEqual(["1", "2"]);
    // A single record that breaks the contract: refused, and reported first.
    server.faults.push({ kind: "body", body: '{"id":"1","terminal":"three"}' });
    await expect(client.flightById("1", { onMalformed: (r) => own.push(r) })).rejects.toThrow(
      expect.objectContaining({ code: ErrorCode.UPSTREAM_MALFORMED }),
    );
    expect(reports.at(-1)).toMatchObject({ id: "1", field: "terminal", index: 0 });
    expect(own.at(-1)).toMatchObject({ id: "1", field: "terminal" });
  });

  it("an onMalformed hook that throws does not break the read", async () => {
    const { client } = await setup(
      { flights: [{ id: "1", gate: 7 } as unknown as Flight, ...sampleFlights(1)] },
      {
        onMalformed: () => {
          throw new Error("observer bug");
        },
      },
    );
    expect((await client.getFlights()).items).toHaveLength(1);
  });
});
