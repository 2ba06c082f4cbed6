/**
 * Integration: a stuck or hostile upstream against a real loopback server. A body
 * trickling a byte a second never falls silent long enough for undici's body timeout,
 * so only the attempt's whole deadline ends it; bodies past the cap and endless error
 * bodies must not be read through. The deadline tests spend real time (a second or
 * two each); their bounds are generous.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FlightApiClientOptions } from "../../src/api/client-options.js";
import type { ExchangeEvent } from "../../src/api/exchange-event.js";
import { ErrorCode } from "../../src/errors.js";
import {
  type Fault,
  rejection,
  type ServerAndClient,
  sampleFlights,
  startServerAndClient,
} from "../support/contract-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  faults: Fault[],
  clientOptions: Partial<FlightApiClientOptions> = {},
): Promise<ServerAndClient & { events: ExchangeEvent[] }> {
  const events: ExchangeEvent[] = [];
  const started = await startServerAndClient(
    { flights: sampleFlights(5), faults },
    { random: () => 0.5, onExchange: (e) => events.push(e), ...clientOptions },
  );
  cleanups.push(() => started.close());
  return { ...started, events };
}

/** Waits (up to 30 s) until `check` holds: the server hears a closed connection a moment later. */
async function eventually(check: () => boolean): Promise<void> {
  const until = performance.now() + 30_000;
  while (!check() && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
}

describe("the attempt's whole deadline (requestTimeoutMs)", () => {
  it("cuts off a body trickling in a byte a second, retries, then gives up with a timeout", async () => {
    const { server, client, events } = await setup(
      [{ kind: "trickle" }, { kind: "trickle" }],
      // The silence timeouts are far away: only the whole deadline can end this.
      { requestTimeoutMs: 1_500, bodyTimeoutMs: 60_000, headersTimeoutMs: 60_000, maxAttempts: 2 },
    );
    const started = performance.now();
    const err = await rejection(client.getFlights());
    const elapsed = performance.now() - started;
    expect(err.code).toBe(ErrorCode.UPSTREAM_NETWORK);
    expect(err.message).toContain("FLIGHT_API_REQUEST_TIMEOUT");
    expect(err.details.attempts).toBe(2);
    expect(events.map((e) => [e.outcome, e.status, e.willRetry])).toEqual([
      ["timeout", undefined, true],
      ["timeout", undefined, false],
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(15_000);
    // Both connections were closed by the client, not left trickling.
    await eventually(() => server.cutOff === 2);
    expect(server.cutOff).toBe(2);
  });

  it("covers the wait for headers too", async () => {
    const { client, events } = await setup([{ kind: "hang" }], {
      requestTimeoutMs: 1_000,
      headersTimeoutMs: 60_000,
      maxAttempts: 1,
    });
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_NETWORK);
    expect(events.map((e) => e.outcome)).toEqual(["timeout"]);
  });

  it("a caller's abort during a trickle ends the request at once, unretried, with the caller's reason", async () => {
    const { server, client } = await setup([{ kind: "trickle", everyMs: 100 }], {
      requestTimeoutMs: 60_000,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("poll over")), 500);
    await expect(client.getFlights({}, { signal: controller.signal })).rejects.toThrow("poll over");
    expect(server.requests).toHaveLength(1);
    await eventually(() => server.cutOff === 1);
    expect(server.cutOff).toBe(1);
  });
});

describe("the body cap (maxBodyBytes)", () => {
  it("fails a success body that never ends once it passes the cap, without retrying", async () => {
    const { server, client, events } = await setup([{ kind: "endless" }], {
      maxBodyBytes: 1024 * 1024,
    });
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_TOO_LARGE);
    expect(err.details.maxBodyBytes).toBe(1024 * 1024);
    expect(err.message).toContain("1 MB");
    expect(err.message).toContain("FLIGHT_API_MAX_BODY");
    expect(server.requests).toHaveLength(1);
    expect(events.map((e) => [e.outcome, e.status, e.willRetry])).toEqual([
      ["body_too_large", undefined, false],
    ]);
    // Stopped near the cap: what the server got out is the cap plus socket buffers.
    expect(server.streamedBytes).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses a Content-Length over the cap before reading the body", async () => {
    const { client } = await setup([{ kind: "endless", announce: 300 * 1024 * 1024 }], {
      maxBodyBytes: 1024 * 1024,
    });
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_TOO_LARGE);
    expect(err.message).toContain("announced 300 MB");
  });

  it("reads a body under the cap (five flights, 1.3 KB, under 4 KB)", async () => {
    const { client } = await setup([], { maxBodyBytes: 4096 });
    expect((await client.getFlights()).items).toHaveLength(5);
  });

  it("reads only the start of an endless error body, on every retry", async () => {
    const { server, client, sleeps } = await setup(
      [
        { kind: "endless", status: 503 },
        { kind: "endless", status: 503 },
        { kind: "endless", status: 503 },
      ],
      { maxAttempts: 3 },
    );
    const err = await rejection(client.getFlights());
    expect(err.code).toBe(ErrorCode.UPSTREAM_HTTP);
    expect(err.status).toBe(503);
    expect(err.details.attempts).toBe(3);
    expect(sleeps).toHaveLength(2);
    // The message quotes the start of the body, at most 200 characters of it.
    const quoted = /\(body: "(.*)"\)$/.exec(err.message)?.[1] ?? "";
    expect(quoted.startsWith('{\\"flights\\":[{\\"id\\"')).toBe(true);
    expect(quoted.replaceAll("\\", "").length).toBeLessThanOrEqual(200);
    await eventually(() => server.cutOff === 3);
    expect(server.cutOff).toBe(3);
    expect(server.streamedBytes).toBeLessThan(3 * 64 * 1024 * 1024);
  });

  it("reads only the start of an error body that trickles, within the deadline", async () => {
    const { client } = await setup([{ kind: "trickle", status: 500, everyMs: 200 }], {
      requestTimeoutMs: 1_500,
      maxAttempts: 1,
    });
    const err = await rejection(client.getFlights());
    // The status is the answer; what trickled in before the deadline is the snippet.
    expect(err.code).toBe(ErrorCode.UPSTREAM_HTTP);
    expect(err.status).toBe(500);
  });
});
