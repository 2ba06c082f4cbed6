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
import { FlightApiClient } from "../src/api/flight-api-client.js";
import { Detector, type DetectorSettings, type PollReport } from "../src/detect/detector.js";
import { readHorizon } from "../src/detect/flight-reader.js";
import { scheduleHorizon } from "../src/detect/horizon.js";
import { startSimulator } from "../src/simulator/http/start-simulator.js";
import { ManualClock } from "../src/simulator/sim-clock.js";
import { DetectionStore } from "../src/store/detection-store.js";
import { connectRedis, deleteByPattern } from "../src/store/redis-connection.js";
import { redisKeys } from "../src/store/redis-keys.js";

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
  });
  const client = new FlightApiClient({
    baseUrl: sim.baseUrl,
    token: "bench-token",
    airportTimezone: ZONE,
  });
  const redis = await connectRedis(REDIS_URL);
  const keys = redisKeys(`fwbench-requests-${randomUUID().slice(0, 8)}`);
  const detector = new Detector({
    client,
    store: new DetectionStore(redis, keys),
    settings: { intervalMs: options.intervalMs },
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
    const baseline = committed(await detector.poll());
    const first = await fullRead();
    const ids = [...sim.simulator.store.all()].slice(0, BY_ID_SAMPLE).map((f) => f.id as string);
    const byIdBefore = counted();
    for (const id of ids) await client.flightById(id);
    const perIdRead = (counted() - byIdBefore) / ids.length;

    const polls: PollReport[] = [];
    let changes = 0;
    const before = counted();
    for (let t = 0; t < options.hours * HOUR; t += options.intervalMs) {
      clock.advance(options.intervalMs);
      changes += sim.simulator.tick().changes;
      polls.push(committed(await detector.poll()));
    }
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
    };
  } finally {
    await client.close();
    await sim.close();
    await deleteByPattern(redis, keys.pattern);
    redis.disconnect();
  }
}
