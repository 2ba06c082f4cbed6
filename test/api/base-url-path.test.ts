/**
 * A base URL without the contract's path (`…/public/public-flights/v4`) is the likely
 * cause of a 404 that is not the API's "no such record": a 404 for a collection, a
 * record's 404 with another server's page, or any 404 under a base URL whose path does
 * not even end in the version segment `/v4`. Those are FW_ERR_UPSTREAM_BASE_URL (exit 2, showing the expected
 * form), not "airline not found" (exit 3). Against the contract server and the real
 * simulator, which serves the contract path too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import { ErrorCode, FlightwatchError, UpstreamError } from "../../src/errors.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import { spawnCli } from "../support/cli-process.js";
import { type ContractServer, startContractServer } from "../support/contract-server.js";

const AIRLINES = [{ iata: "KL", icao: "KLM", nvls: 100, publicName: "KLM" }];

let server: ContractServer;
beforeAll(async () => {
  server = await startContractServer({ airlines: AIRLINES });
});
afterAll(() => server.close());

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FlightwatchError) return err.code;
    throw err;
  }
  return "resolved";
}

function client(baseUrl: string): FlightApiClient {
  return new FlightApiClient({ baseUrl, maxAttempts: 1 });
}

describe("a 404 that points at the base URL", () => {
  it("without the contract path: every operation, records included, is a base URL error", async () => {
    for (const base of [server.origin, `${server.origin}/public/public-flights`]) {
      const c = client(base);
      expect(await codeOf(c.getAirlinesByCode("KL")), base).toBe(ErrorCode.UPSTREAM_BASE_URL);
      expect(await codeOf(c.getAirlines()), base).toBe(ErrorCode.UPSTREAM_BASE_URL);
      expect(await codeOf(c.flightById("123")), base).toBe(ErrorCode.UPSTREAM_BASE_URL);
      await c.close();
    }
  });

  it("a path that ends in the version segment (a proxy's) keeps an empty-bodied record 404 as not found", async () => {
    // So a flight gone upstream never fails a reconciliation behind such a proxy.
    const c = client(`${server.origin}/flights-api/v4`);
    expect(await codeOf(c.getAirlinesByCode("XX"))).toBe(ErrorCode.NOT_FOUND);
    expect(await codeOf(c.getAirlines())).toBe(ErrorCode.UPSTREAM_BASE_URL);
    await c.close();
  });

  it("the message shows the expected form, on this origin", async () => {
    const c = client(server.origin);
    const err = await c.getAirlinesByCode("KL").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(404);
    expect((err as Error).message).toContain(`${server.origin}/public/public-flights/v4`);
    await c.close();
  });

  it("with the contract path: an unknown record stays not found, unless the 404 is another server's page", async () => {
    const c = client(server.baseUrl);
    expect(await codeOf(c.getAirlinesByCode("XX"))).toBe(ErrorCode.NOT_FOUND);
    // The contract shows empty error bodies; JSON may be the API's own too.
    server.faults.push({
      kind: "status",
      status: 404,
      headers: { "content-type": "application/json" },
      body: '{"message":"not found"}',
    });
    expect(await codeOf(c.getAirlinesByCode("XX"))).toBe(ErrorCode.NOT_FOUND);
    for (const [type, body] of [
      ["text/html", "<html><body><h1>404 Not Found</h1>nginx</body></html>"],
      ["text/plain", "Cannot GET /public/public-flights/v4/airlines/XX"],
    ] as const) {
      server.faults.push({ kind: "status", status: 404, headers: { "content-type": type }, body });
      expect(await codeOf(c.getAirlinesByCode("XX")), type).toBe(ErrorCode.UPSTREAM_BASE_URL);
    }
    // A collection is never "not found" in the contract.
    server.faults.push({ kind: "status", status: 404 });
    expect(await codeOf(c.getAirlines())).toBe(ErrorCode.UPSTREAM_BASE_URL);
    await c.close();
  });
});

describe("flightwatch api against the simulator with the base URL's path left out", () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, live: false, tokens: ["base-url-token"] });
  });
  afterAll(() => sim.close());

  async function api(args: string[], baseUrl: string) {
    const proc = spawnCli(["api", ...args], {
      FLIGHT_API_BASE_URL: baseUrl,
      FLIGHT_API_TOKEN: "base-url-token",
      FLIGHT_API_APP_ID: "",
      FLIGHT_API_APP_KEY: "",
      FLIGHT_API_MAX_ATTEMPTS: "1",
    });
    const code = await proc.exited;
    return { code, stdout: proc.stdout(), stderr: proc.stderr() };
  }

  it("says the path looks wrong and shows the expected base URL; exit 2, not 'not found' (3)", async () => {
    const [airline, airlines, right] = await Promise.all([
      api(["airline", "KL"], sim.url),
      api(["airlines"], sim.url),
      api(["airline", "KL"], sim.baseUrl),
    ]);
    for (const out of [airline, airlines]) {
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toContain("[FW_ERR_UPSTREAM_BASE_URL]");
      expect(out.stderr).toContain("FLIGHT_API_BASE_URL");
      expect(out.stderr).toContain(sim.baseUrl);
      expect(out.stdout).toBe("");
    }
    expect(right.code, right.stderr).toBe(0);
    expect(JSON.parse(right.stdout)).toMatchObject({ iata: "KL" });
  }, 60_000);
});
