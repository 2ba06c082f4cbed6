/**
 * A detector wired to a real simulator over loopback HTTP and a real Redis with a
 * prefix of its own. The simulator runs on a ManualClock and does not evolve unless
 * asked, so each test scripts exactly the changes it expects to see.
 */
import { afterEach } from "vitest";
import type { FlightApiClientOptions } from "../../src/api/client-options.js";
import type { FlightApiClient } from "../../src/api/flight-api-client.js";
import type { Flight } from "../../src/api/types.js";
import { Detector, type DetectorSettings } from "../../src/detect/detector.js";
import type { ChangeEvent } from "../../src/diff/change.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import { ManualClock } from "../../src/simulator/sim-clock.js";
import { createSimulator, type SimulatorOptions } from "../../src/simulator/simulator.js";
import { DetectionStore } from "../../src/store/detection-store.js";
import { readOutboxEvents } from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { type FlightsPageHook, TappedClient } from "../support/tapped-client.js";

export const ZONE = "Europe/Amsterdam";
/** 2026-11-21 10:00 local. */
export const START_MS = Date.parse("2026-11-21T09:00:00Z");

export type { FlightsPageHook };

export interface DetectHarnessOptions {
  /** Simulated time at start (default START_MS). */
  startMs?: number;
  simulator?: SimulatorOptions;
  pageSize?: number;
  settings?: Partial<DetectorSettings>;
  client?: Partial<FlightApiClientOptions>;
  label?: string;
}

export interface DetectHarness {
  sim: RunningSimulator;
  clock: ManualClock;
  client: FlightApiClient;
  redis: TestRedis;
  keys: RedisKeys;
  store: DetectionStore;
  detector: Detector;
  /** A detector of its own (another "process") over the same Redis and upstream. */
  another(settings?: Partial<DetectorSettings>): Promise<Detector>;
  /** Every event in the outbox, in order. */
  outbox(): Promise<ChangeEvent[]>;
  /** The operating record of a flight with at least `codeshares` codeshares. */
  operating(codeshares?: number): Flight;
  /**
   * Moves the gate of `operating(codeshares)` to `gate` 5 s from now on the airport
   * clock, then lets 1 s more pass: the change the next incremental poll must find.
   */
  moveGate(gate: string, codeshares?: number): Flight;
  /** Operating records (one per physical flight) that pass `filter`, in store order. */
  operatingFlights(filter?: (flight: Flight) => boolean): Flight[];
  /**
   * Runs `hook` after every page of every `/flights` walk of the harness's clients
   * (the detectors' too), between that page's response and the next request; with
   * no hook, stops. How tests change the upstream while a read is under way.
   */
  onFlightsPage(hook?: FlightsPageHook): void;
  close(): Promise<void>;
}

export async function detectHarness(options: DetectHarnessOptions = {}): Promise<DetectHarness> {
  const clock = new ManualClock(options.startMs ?? START_MS);
  const simulator = createSimulator({
    seed: 7,
    zone: ZONE,
    clock,
    flightsPerDay: 120,
    evolve: false,
    ...options.simulator,
  });
  const sim = await startSimulator({
    simulator,
    live: false,
    tokens: ["detect-token"],
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
  });
  const closers: Array<() => Promise<void>> = [];
  let pageHook: FlightsPageHook | undefined;
  const makeClient = () => {
    const client = new TappedClient(
      {
        baseUrl: sim.baseUrl,
        token: "detect-token",
        airportTimezone: ZONE,
        baseDelayMs: 1,
        maxDelayMs: 5,
        ...options.client,
      },
      () => pageHook,
    );
    closers.push(() => client.close());
    return client;
  };
  const redis = await testRedis(options.label ?? "detect");
  const keys = redisKeys(redis.prefix);
  const makeDetector = async (settings?: Partial<DetectorSettings>) => {
    const connection = redis.redis.duplicate();
    closers.push(async () => {
      connection.disconnect();
    });
    return new Detector({
      client: makeClient(),
      store: new DetectionStore(connection, keys),
      settings: {
        intervalMs: 1000,
        ...options.settings,
        ...settings,
      },
      now: () => clock.now(),
    });
  };
  const detector = await makeDetector();
  const client = makeClient();
  const operating = (codeshares = 0): Flight => {
    const found = [...simulator.store.all()].find(
      (f) =>
        f.mainFlight === f.flightName &&
        (f.codeshares?.codeshares?.length ?? 0) >= codeshares &&
        f.scheduleDate === "2026-11-21" &&
        f.flightDirection === "D" &&
        typeof f.gate === "string",
    );
    if (!found) throw new Error(`no operating departure with ${codeshares} codeshares`);
    return found;
  };
  return {
    sim,
    clock,
    client,
    redis,
    keys,
    store: new DetectionStore(redis.redis, keys),
    detector,
    another: makeDetector,
    outbox() {
      return readOutboxEvents(redis.redis, keys);
    },
    operating,
    moveGate(gate, codeshares = 1) {
      const flight = operating(codeshares);
      clock.advance(5_000);
      simulator.apply({ kind: "update", target: { id: flight.id as string }, patch: { gate } });
      clock.advance(1_000);
      return flight;
    },
    operatingFlights(filter = () => true) {
      return [...simulator.store.all()].filter(
        (f) => (f.mainFlight === undefined || f.mainFlight === f.flightName) && filter(f),
      );
    },
    onFlightsPage(hook) {
      pageHook = hook;
    },
    async close() {
      for (const close of closers) await close();
      await sim.close();
      await redis.cleanup();
    },
  };
}

/**
 * A `harness(options)` for a test file: each harness it starts (labelled `label`
 * unless the options say otherwise) is closed after the test that started it.
 */
export function harnessesClosedAfterEach(
  label: string,
): (options?: DetectHarnessOptions) => Promise<DetectHarness> {
  let open: DetectHarness[] = [];
  afterEach(async () => {
    for (const h of open) await h.close();
    open = [];
  });
  return async (options = {}) => {
    const h = await detectHarness({ label, ...options });
    open.push(h);
    return h;
  };
}
