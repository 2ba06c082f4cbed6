/**
 * The API client (src/api) reads every collection of the simulator completely, with
 * no duplicates, on a healthy server and under each fault type, relying on its own
 * retries (with an injected no-op sleep: no test waits for a backoff).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";

const TOKEN = "client-reads-all";
let sim: RunningSimulator;
let days: string[];

beforeAll(async () => {
  sim = await startSimulator({
    seed: 11,
    flightsPerDay: 300,
    live: false,
    tokens: [TOKEN],
    faultSeed: 99,
  });
  days = [...new Set([...sim.simulator.store.all()].map((f) => f.scheduleDate ?? ""))].sort();
});
afterAll(() => sim.close());

function client(): FlightApiClient {
  return new FlightApiClient({
    baseUrl: sim.baseUrl,
    token: TOKEN,
    maxAttempts: 12,
    sleep: async () => {},
    random: () => 0.5,
  });
}

/** Every item of an item walk. */
async function readAll(walk: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of walk) out.push(item);
  return out;
}

const keyOf = (record: unknown): string => {
  const r = record as Record<string, unknown>;
  return String(r.id ?? r.iata ?? `${r.iataMain}/${r.iataSub}`);
};

async function expectEverythingRead(api: FlightApiClient): Promise<void> {
  const store = sim.simulator.store;
  const flights = await readAll(
    api.items("flights", { fromScheduleDate: days[0], toScheduleDate: days.at(-1) }),
  );
  const ids = flights.map(keyOf);
  expect(new Set(ids).size, "no duplicate flights").toBe(ids.length);
  expect(ids.length).toBe(store.size);
  expect(new Set(ids)).toEqual(new Set([...store.all()].map((f) => f.id)));

  const today = days[1] as string;
  const todays = await readAll(api.items("flights", { scheduleDate: today }));
  expect(todays.length).toBe([...store.all()].filter((f) => f.scheduleDate === today).length);

  for (const [collection, records] of [
    ["airlines", store.reference.airlines],
    ["aircraftTypes", store.reference.aircraftTypes],
    ["destinations", store.reference.destinations],
  ] as const) {
    const read = await readAll(api.items(collection));
    expect(read.length, collection).toBe(records.length);
    expect(new Set(read.map((r) => JSON.stringify(r))).size, `${collection} duplicates`).toBe(
      read.length,
    );
  }
}

describe("the client reads every collection from the simulator", () => {
  it("without faults", async () => {
    sim.faults.replace({});
    const api = client();
    try {
      await expectEverythingRead(api);
    } finally {
      await api.close();
    }
  });

  it.each([
    [
      "5xx",
      { serverErrorRate: 0.25 },
      () => Object.values(sim.faults.counters.serverErrors).reduce((a, b) => a + b, 0),
    ],
    [
      "429 with Retry-After",
      { rateLimitRate: 0.25, retryAfterSeconds: 2 },
      () => sim.faults.counters.rateLimited,
    ],
    ["latency", { latencyMs: 1, jitterMs: 3 }, () => sim.faults.counters.delayed],
    ["truncated bodies", { truncateRate: 0.2 }, () => sim.faults.counters.truncated],
    ["dropped connections", { dropRate: 0.2 }, () => sim.faults.counters.dropped],
    ["stamp lag", { stampLagMs: 5000 }, () => (sim.simulator.store.stampLagMs === 5000 ? 1 : 0)],
  ] as const)("under %s", async (_name, settings, injected) => {
    sim.faults.replace(settings);
    sim.faults.resetCounters();
    const api = client();
    try {
      await expectEverythingRead(api);
      expect(injected(), "faults were injected").toBeGreaterThan(0);
    } finally {
      sim.faults.replace({});
      await api.close();
    }
  });
});
