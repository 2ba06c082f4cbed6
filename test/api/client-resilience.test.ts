/**
 * Integration: retries, timeouts and malformed bodies against a real server. Waits
 * between attempts go through the injected sleep (recorded, not slept); only the
 * timeout tests spend real time: undici checks header and body timeouts on a
 * coarse (~0.5 s) timer, so each costs up to a second.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FlightApiClientOptions } from "../../src/api/client-options.js";
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import { ErrorCode, FlightwatchError } from "../../src/errors.js";
import {
  type Fault,
  rejection,
  type ServerAndClient,
  sampleFlights,
  startContractServer,
  startServerAndClient,
} from "../support/contract-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const FLIGHTS = sampleFlights(5);

async function setup(
  faults: Fault[],
  clientOptions: Partial<FlightApiClientOptions> = {},
): Promise<ServerAndClient> {
  const started = await startServerAndClient(
    { flights: FLIGHTS, faults },
    { random: () => 0.5, ...clientOptions },
  );
  cleanups.push(() => started.close());
  return started;
}

describe("retries", () => {
  it("honours Retry-After in delta-seconds on 429", async () => {
    const { server, client, sleeps } = await setup([
      { kind: "status", status: 429, headers: { "Retry-After": "7" } },
    ]);
    expect((await client.getFlights()).items).toHaveLength(5);
    expect(sleeps).toEqual([7000]);
    expect(server.requests).toHaveLength(2);
  });

  it("honours Retry-After as an HTTP-date, against the injected clock", async () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    const { client, sleeps } = await setup(
      [
        {
          kind: "status",
          status: 503,
          headers: { "Retry-After": "Sat, 21 Nov 2026 10:00:12 GMT" },
        },
      ],
      { now: () => now },
    );
    await client.getFlights();
    expect(sleeps).toEqual([12_000]);
  });

  it("caps a long Retry-After at maxRetryAfterMs", async () => {
    const { client, sleeps } = await setup(
      [{ kind: "status", status: 429, headers: { "Retry-After": "86400" } }],
      { maxRetryAfterMs: 5000 },
    );
    await client.getFlights();
    expect(sleeps).toEqual([5000]);
  });

  it("backs off exponentially with jitter on 5xx", async () => {
    const { server, client, sleeps } = await setup([
      { kind: "status", status: 503 },
      { kind: "status", status: 500 },
      { kind: "status", status: 502 },
    ]);
    await client.getFlights();
    // random() = 0.5 of ceilings 500, 1000, 2000 ms.
    expect(sleeps).toEqual([250, 500, 1000]);
    expect(server.requests).toHaveLength(4);
  });

  it("gives up after maxAttempts with FW_ERR_UPSTREAM_HTTP and the attempt count", async () => {
    const { server, client, sleeps } = await setup(
      Array.from({ length: 5 }, () => ({ kind: "status", status: 503 }) as const),
      { maxAttempts: 3 },
    );
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_HTTP);
    expect(err.status).toBe(503);
    expect(err.details.attempts).toBe(3);
    expect(err.details.operation).toBe("getFlights");
    expect(err.message).toContain("3 attempts");
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it("retries a reset connection", async () => {
    const { server, client } = await setup([{ kind: "reset" }, { kind: "reset" }]);
    expect((await client.getFlights()).items).toHaveLength(5);
    expect(server.requests).toHaveLength(3);
  });

  it("gives up on resets with FW_ERR_UPSTREAM_NETWORK", async () => {
    const { client } = await setup([{ kind: "reset" }, { kind: "reset" }], { maxAttempts: 2 });
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_NETWORK);
    expect(err.details.attempts).toBe(2);
    expect(err.status).toBeUndefined();
  });

  it("retries a body truncated by a clean end, then by a dropped connection", async () => {
    const { server, client } = await setup([{ kind: "truncate" }, { kind: "cut" }]);
    expect((await client.getFlights()).items).toHaveLength(5);
    expect(server.requests).toHaveLength(3);
  });

  it("gives up on truncated bodies with FW_ERR_UPSTREAM_MALFORMED", async () => {
    const { client } = await setup(
      [{ kind: "truncate" }, { kind: "truncate" }, { kind: "truncate" }],
      { maxAttempts: 3 },
    );
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_MALFORMED);
    expect(err.details.attempts).toBe(3);
  });

  it("times out a server that never answers, and retries", async () => {
    const { server, client } = await setup([{ kind: "hang" }], { headersTimeoutMs: 150 });
    const started = performance.now();
    expect((await client.getFlights()).items).toHaveLength(5);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    expect(server.requests).toHaveLength(2);
  });

  it("times out a body that stalls, and gives up with FW_ERR_UPSTREAM_NETWORK", async () => {
    const { client } = await setup([{ kind: "stall-body" }], {
      bodyTimeoutMs: 150,
      maxAttempts: 1,
    });
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_NETWORK);
    expect(err.message).toMatch(/timeout/i);
  });

  it("does not retry 400 and reports FW_ERR_UPSTREAM_BAD_REQUEST", async () => {
    const { server, client, sleeps } = await setup([
      { kind: "status", status: 400, body: "page out of range" },
    ]);
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_BAD_REQUEST);
    expect(err.status).toBe(400);
    expect(err.message).toContain("page out of range");
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("does not retry a 404 on a collection (FW_ERR_UPSTREAM_BASE_URL, not NOT_FOUND)", async () => {
    const { server, client } = await setup([{ kind: "status", status: 404 }]);
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_BASE_URL);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up on a refused connection with FW_ERR_UPSTREAM_NETWORK", async () => {
    const server = await startContractServer();
    const baseUrl = server.baseUrl;
    await server.close();
    const sleeps: number[] = [];
    const client = new FlightApiClient({
      baseUrl,
      maxAttempts: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    cleanups.push(() => client.close());
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_NETWORK);
    expect(err.message).toContain("ECONNREFUSED");
    expect(sleeps).toHaveLength(1);
  });

  it("stops waiting when the caller aborts", async () => {
    const controller = new AbortController();
    const { server, client } = await setup(
      [
        { kind: "status", status: 503 },
        { kind: "status", status: 503 },
      ],
      {
        sleep: async (_ms, signal) => {
          controller.abort(new Error("shutting down"));
          signal?.throwIfAborted();
        },
      },
    );
    await expect(client.getFlights({}, { signal: controller.signal })).rejects.toThrow(
      "shutting down",
    );
    expect(server.requests).toHaveLength(1);
  });
});

describe("malformed bodies", () => {
  it("fails a wrong envelope with FW_ERR_UPSTREAM_MALFORMED, without retrying", async () => {
    const { server, client } = await setup([{ kind: "body", body: '{"items": []}' }]);
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_MALFORMED);
    expect(err.message).toContain('"flights" array');
    expect(server.requests).toHaveLength(1);
  });

  it("fails a single record that breaks the contract", async () => {
    const { client } = await setup([{ kind: "body", body: '{"id": 123, "gate": "D7"}' }]);
    const err = await rejection(client.flightById(FLIGHTS[0]?.id ?? ""));
    expect(err.code).toBe(ErrorCode.UPSTREAM_MALFORMED);
    expect(err.message).toContain("id:");
  });

  it("fails an id list that is not an array of strings", async () => {
    const { client } = await setup([{ kind: "body", body: '{"ids": []}' }]);
    const err = await rejection(
      client.flightByIds({
        fromDateTime: "2026-11-21T00:00:00",
        toDateTime: "2026-11-21T12:00:00",
      }),
    );
    expect(err.code).toBe(ErrorCode.UPSTREAM_MALFORMED);
  });

  it("keeps a page readable when one record is bad", async () => {
    const bad = JSON.stringify({
      flights: [
        { id: "1", gate: "D1" },
        { id: "2", route: { visa: "maybe" } },
        { id: "3", gate: null },
      ],
    });
    const { client } = await setup([{ kind: "body", body: bad }]);
    const page = await client.getFlights();
    expect(page.items).toEqual([{ id: "1", gate: "D1" }, { id: "3" }]);
    expect(page.malformed).toEqual([
      {
        index: 1,
        id: "2",
        field: "route",
        problems: [expect.stringMatching(/^route\.visa:/)],
        identity: { id: "2" },
      },
    ]);
  });

  it("skips a record nested 10,000 deep, and fails a single record nested so", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const { client } = await setup([
      { kind: "body", body: `{"flights":[{"id":"1","x":${deep}},{"id":"2"}]}` },
      { kind: "body", body: `{"id":"3","x":${deep}}` },
    ]);
    const page = await client.getFlights();
    expect(page.items).toEqual([{ id: "2" }]);
    expect(page.malformed).toEqual([
      {
        index: 0,
        id: "1",
        field: "record",
        problems: [expect.stringContaining("nested deeper than 64")],
      },
    ]);
    const err = await rejection(client.flightById(FLIGHTS[0]?.id ?? ""));
    expect(err.code).toBe(ErrorCode.UPSTREAM_MALFORMED);
  });

  it("is a FlightwatchError with a stable code in every case", async () => {
    const { client } = await setup([{ kind: "body", body: "[]" }]);
    const err = await rejection(client.getFlights());
    expect(err).toBeInstanceOf(FlightwatchError);
    expect(err.code).toMatch(/^FW_ERR_/);
  });
});
