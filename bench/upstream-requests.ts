/**
 * Upstream requests of real polls: the simulator over loopback HTTP (it counts every
 * request it answers), the real FlightApiClient and a real Detector on a real Redis
 * (REDIS_URL, a prefix of its own, deleted afterwards), with a ManualClock advanced
 * and the simulator ticked by one interval before each poll — so a simulated hour
 * takes seconds. Beside the polls it measures what the other ways of watching cost:
 * one full read of the horizon (at the start and at the end of the run) and reads of
 * single flights by id.
 */
import { randomUUID } from "node:crypto";
import { Detector, type DetectorSettings, type PollReport } from "../src/detect/detector.js";
import { readHorizon } from "../src/detect/flight-reader.js";
import { scheduleHorizon } from "../src/detect/horizon.js";
import { type RunningSimulator, startSimulator } from "../src/simulator/http/start-simulator.js";
import { ManualClock } from "../src/simulator/sim-clock.js";
import { DetectionStore } from "../src/store/detection-store.js";
import { connectRedis, deleteByPattern } from "../src/store/redis-connection.js";
import { redisKeys } from "../src/store/redis-keys.js";
import { TappedClient } from "./support/tapped-client.js";

const ZONE = "Europe/Amsterdam";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const HOUR = 3_600_000;
/** Flights read one by one to show what a read by id costs. */
const BY_ID_SAMPLE = 100;

/** What to run: the simulated airport, the poll interval and how long. */
export interface UpstreamRequestsOptions {
  /** Simulated time of the first poll after the baseline, epoch ms. */
  start: number;
  hours: number;
  intervalMs: number;
  seed: number;
  /** Records per local day, codeshares included. */
  flightsPerDay: number;
  /** The simulator's change rate (1 = its realistic default). */
  changeRate: number;
  /** Whether the simulator evolves between polls (default true); false: only the hooks change it. */
  evolve?: boolean;
  /** Records per page the simulator serves (default its own, 20). */
  pageSize?: number;
  /** Stamps lag the simulator's clock by this much (a fault real services show). */
  stampLagMs?: number;
  settings?: Partial<DetectorSettings>;
  /** Runs before the baseline (e.g. a bulk stamp). */
  beforeBaseline?: (sim: RunningSimulator, clock: ManualClock) => void;
  /**
   * Runs before poll `index` (0 = the first after the baseline), `hookBeforePollMs`
   * before it on the clock (default 0).
   */
  beforePoll?: (index: number, sim: RunningSimulator, clock: ManualClock) => void;
  hookBeforePollMs?: number;
}

/** One full read of the horizon. */
export interface FullRead {
  requests: number;
  records: number;
}

/** What a run measured. */
export interface UpstreamRequests {
  settings: DetectorSettings;
  pageSize: number;
  baseline: PollReport;
  /** Every poll after the baseline, in order. */
  polls: PollReport[];
  /** Record changes upstream during the run. */
  changes: number;
  /** Requests the simulator answered during the polls after the baseline. */
  counted: number;
  /** Full reads of the horizon at the start and at the end of the run. */
  fullReads: [FullRead, FullRead];
  /** Requests the simulator answered per flight read by id (over BY_ID_SAMPLE reads). */
  perIdRead: number;
  /** Times each record was on a page read by the polls after the baseline, by id. */
  reads: ReadonlyMap<string, number>;
}

/** Runs the baseline and the polls of `options.hours`, counting requests upstream. */
export async function measureUpstreamRequests(
  options: UpstreamRequestsOptions,
): Promise<UpstreamRequests> {
  const clock = new ManualClock(options.start - options.intervalMs);
  const sim = await startSimulator({
    seed: options.seed,
    zone: ZONE,
    clock,
    flightsPerDay: options.flightsPerDay,
    changeRate: options.changeRate,
    live: false,
    tokens: ["bench-token"],
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
  });
  if (options.stampLagMs !== undefined) sim.faults.update({ stampLagMs: options.stampLagMs });
  // Counts the records on every page the polls read, by id (a record read on two
  // pages counts twice).
  const reads = new Map<string, number>();
  let counting = false;
  const client = new TappedClient(
    { baseUrl: sim.baseUrl, token: "bench-token", airportTimezone: ZONE },
    () => (page) => {
      if (!counting) return;
      for (const item of page.items) {
        if (item.id !== undefined) reads.set(item.id, (reads.get(item.id) ?? 0) + 1);
      }
    },
  );
  const redis = await connectRedis(REDIS_URL);
  const keys = redisKeys(`fwbench-requests-${randomUUID().slice(0, 8)}`);
  const detector = new Detector({
    client,
    store: new DetectionStore(redis, keys),
    settings: { intervalMs: options.intervalMs, ...options.settings },
    now: () => clock.now(),
  });
  const counted = () => sim.faults.counters.requests;
  const fullRead = async (): Promise<FullRead> => {
    const before = counted();
    const read = await readHorizon(
      client,
      scheduleHorizon(clock.now(), ZONE, detector.settings.horizon),
    );
    return { requests: counted() - before, records: read.records.size };
  };
  const committed = (report: PollReport): PollReport => {
    if (report.outcome !== "committed") throw report.error ?? new Error(report.outcome);
    return report;
  };
  try {
    options.beforeBaseline?.(sim, clock);
    const baseline = committed(await detector.poll());
    const first = await fullRead();
    const ids = [...sim.simulator.store.all()].slice(0, BY_ID_SAMPLE).map((f) => f.id as string);
    const byIdBefore = counted();
    for (const id of ids) await client.flightById(id);
    const perIdRead = (counted() - byIdBefore) / ids.length;

    const polls: PollReport[] = [];
    let changes = 0;
    const before = counted();
    counting = true;
    for (let t = 0, i = 0; t < options.hours * HOUR; t += options.intervalMs, i++) {
      const early = options.hookBeforePollMs ?? 0;
      clock.advance(options.intervalMs - early);
      options.beforePoll?.(i, sim, clock);
      clock.advance(early);
      if (options.evolve !== false) changes += sim.simulator.tick().changes;
      polls.push(committed(await detector.poll()));
    }
    counting = false;
    const during = counted() - before;
    return {
      settings: detector.settings,
      pageSize: sim.server.pageSize,
      baseline,
      polls,
      changes,
      counted: during,
      fullReads: [first, await fullRead()],
      perIdRead,
      reads,
    };
  } finally {
    await client.close();
    await sim.close();
    await deleteByPattern(redis, keys.pattern);
    redis.disconnect();
  }
}
