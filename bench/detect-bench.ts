/**
 * Change detection against a real Redis (REDIS_URL, default redis://127.0.0.1:6379):
 * 1. pipeline throughput: Detector.poll() over batches of changed records, its
 *    upstream replaced by an in-memory client (no HTTP, no JSON, no validation);
 * 2. Redis bytes per tracked flight after a baseline of ~10,000 physical flights;
 * 3. upstream requests per poll against the simulator over loopback HTTP, for
 *    incremental polling, a full re-read every poll and one request per flight.
 * Keys live under a prefix of their own and are deleted afterwards.
 */
import { randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import type { Collection } from "../src/api/contract.js";
import { type CallOptions, FlightApiClient, type WalkQuery } from "../src/api/flight-api-client.js";
import type { Page } from "../src/api/paged-walk.js";
import type { FlightIdsQuery, FlightsQuery } from "../src/api/query-params.js";
import type { CollectionItems } from "../src/api/response-body.js";
import type { Flight } from "../src/api/types.js";
import { Detector, type DetectorSettings, type PollReport } from "../src/detect/detector.js";
import { readChangedSince } from "../src/detect/flight-reader.js";
import { DEFAULT_HORIZON_DAYS, scheduleHorizon } from "../src/detect/horizon.js";
import type { FlightSnapshot } from "../src/diff/flight-snapshot.js";
import { NotFoundError } from "../src/errors.js";
import type { FlightStore } from "../src/simulator/flight-store.js";
import { ManualClock } from "../src/simulator/sim-clock.js";
import { createSimulator } from "../src/simulator/simulator.js";
import { type DetectionCommit, DetectionStore } from "../src/store/detection-store.js";
import {
  connectRedis,
  deleteByPattern,
  type RedisConnection,
} from "../src/store/redis-connection.js";
import { type RedisKeys, redisKeys } from "../src/store/redis-keys.js";
import { parseApiDateTime, toLocalDate } from "../src/time/local-time.js";
import type { Benchmark } from "./benchmark.js";
import { measureUpstreamRequests } from "./upstream-requests.js";

const ZONE = "Europe/Amsterdam";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** 2026-11-21 05:00 local: the day's traffic is still ahead. */
const THROUGHPUT_START = Date.parse("2026-11-21T04:00:00Z");
/** Records per local day giving ~10,000 physical flights over the three loaded days. */
const RECORDS_PER_DAY = 5_160;
/** Evolution collected for the batches: up to 23:54 local, before the day rolls over. */
const EVOLVE_MS = 18.9 * 3_600_000;
/**
 * Batches of changed records, in the order they are committed. A whole simulated
 * day changes only ~6,000 distinct records of the ~15,500, so 5,000 is the largest
 * batch of changed records that occurs; the reconciliation covers all of them.
 */
const BATCH_PLAN = [
  { size: 100, count: 30 },
  { size: 1_000, count: 4 },
  { size: 5_000, count: 1 },
];
/** 2026-11-21 10:00 local: busy hours for the request count. */
const REQUESTS_START = Date.parse("2026-11-21T09:00:00Z");
const POLL_MS = 30_000;
const REQUESTS_HOURS = 2;

const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const HOUR = 3_600_000;

/**
 * An upstream in memory: changed-since queries get `changed`; full reads, id lists
 * and reads by id answer from the simulator's store. Nothing goes over HTTP.
 */
class MemoryClient extends FlightApiClient {
  changed: readonly Flight[] = [];
  readonly #store: FlightStore;

  constructor(store: FlightStore) {
    // Never contacted: every operation the reader uses is answered below.
    super({ baseUrl: "http://127.0.0.1:9/v4", airportTimezone: ZONE, maxAttempts: 1 });
    this.#store = store;
  }

  #ofDate(date: string | undefined): Flight[] {
    return [...this.#store.all()].filter((f) => f.scheduleDate === date);
  }

  override async *pages<C extends Collection>(
    _collection: C,
    query?: WalkQuery<C>,
    _options?: CallOptions,
  ): AsyncGenerator<Page<CollectionItems[C]>, void, undefined> {
    const q = (query ?? {}) as FlightsQuery;
    const items =
      q.searchDateTimeField === "lastUpdatedAt" ? this.changed : this.#ofDate(q.fromScheduleDate);
    yield {
      index: 0,
      url: "memory:",
      status: 200,
      items: items as unknown as CollectionItems[C][],
      malformed: [],
      links: [],
      next: undefined,
    };
  }

  override async flightByIds(query: FlightIdsQuery, _options?: CallOptions): Promise<string[]> {
    const from = query.fromDateTime;
    const date = typeof from === "string" ? from.slice(0, 10) : toLocalDate(Number(from), ZONE);
    return this.#ofDate(date).map((f) => f.id ?? "");
  }

  override async flightById(id: string, _options?: CallOptions): Promise<Flight> {
    const flight = this.#store.get(id);
    if (!flight) throw new NotFoundError(`no flight ${id}`, { operation: "flightById", url: id });
    return flight;
  }
}

interface BenchRedis {
  redis: RedisConnection;
  keys: RedisKeys;
  /** A store on a connection of its own (WATCH is per connection). */
  store(): TimedStore;
  cleanup(): Promise<void>;
}

async function benchRedis(label: string): Promise<BenchRedis> {
  const redis = await connectRedis(REDIS_URL);
  const prefix = `fwbench-${label}-${randomUUID().slice(0, 8)}`;
  const keys = redisKeys(prefix);
  const connections: RedisConnection[] = [redis];
  return {
    redis,
    keys,
    store() {
      const connection = redis.duplicate();
      connections.push(connection);
      return new TimedStore(connection, keys);
    },
    async cleanup() {
      await deleteByPattern(redis, `${keys.prefix}*`);
      for (const connection of connections) connection.disconnect();
    },
  };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** Newest `lastUpdatedAt` of a batch, epoch ms. */
function newestStamp(batch: readonly Flight[], fallback: number): number {
  let newest = fallback;
  for (const record of batch) {
    const stamp = record.lastUpdatedAt ? parseApiDateTime(record.lastUpdatedAt, ZONE) : undefined;
    if (stamp !== undefined && stamp > newest) newest = stamp;
  }
  return newest;
}

/** Cuts the change stream into batches of distinct records (newest version of each). */
function cutBatches(stream: readonly Flight[]): Array<{ size: number; batches: Flight[][] }> {
  let pos = 0;
  return BATCH_PLAN.map(({ size, count }) => {
    const batches: Flight[][] = [];
    for (let b = 0; b < count; b++) {
      const batch = new Map<string, Flight>();
      while (pos < stream.length && batch.size < size) {
        const record = stream[pos++];
        if (record?.id !== undefined) batch.set(record.id, record);
      }
      batches.push([...batch.values()]);
    }
    return { size, batches };
  });
}

/** Wall and CPU time (this process) spent, in ms. */
interface Spent {
  wallMs: number;
  cpuMs: number;
}

const spent = (): Spent => ({ wallMs: 0, cpuMs: 0 });

/** Runs `fn`, adding its wall and CPU time to `into`. */
async function timed<T>(into: Spent, fn: () => Promise<T>): Promise<T> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    into.wallMs += performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    into.cpuMs += (cpu.user + cpu.system) / 1000;
  }
}

/** A DetectionStore that counts the time of its two bulk operations. */
class TimedStore extends DetectionStore {
  readonly bulk = spent();

  override loadSnapshots(flightKeys: readonly string[]): Promise<Map<string, FlightSnapshot>> {
    return timed(this.bulk, () => super.loadSnapshots(flightKeys));
  }

  override commit(commit: DetectionCommit): Promise<boolean> {
    return timed(this.bulk, () => super.commit(commit));
  }
}

/** Polls once per batch (`each` sets the batch up); prints one line of figures. */
async function pollBatches(
  label: string,
  detector: Detector,
  store: TimedStore,
  count: number,
  each: (i: number) => void,
): Promise<PollReport[]> {
  const total = spent();
  const storeBefore = { ...store.bulk };
  const polls: PollReport[] = [];
  for (let i = 0; i < count; i++) {
    each(i);
    const report = await timed(total, () => detector.poll());
    if (report.outcome !== "committed") throw report.error ?? new Error(report.outcome);
    polls.push(report);
  }
  const records = sum(polls.map((p) => p.records));
  const flights = sum(polls.map((p) => p.flights)) / count;
  const events = sum(polls.map((p) => p.events.length)) / count;
  const storeWall = store.bulk.wallMs - storeBefore.wallMs;
  const perSecond = (ms: number): string => fmt(records / (ms / 1000));
  console.log(
    `${label} (×${count}; ~${fmt(flights)} flights, ~${fmt(events)} events each): ` +
      `${(total.wallMs / count).toFixed(1)} ms/batch = ${perSecond(total.wallMs)} updates/s wall, ` +
      `${perSecond(total.cpuMs)}/s per CPU-second of this process; ` +
      `store ${((storeWall / total.wallMs) * 100).toFixed(0)}%`,
  );
  return polls;
}

/** Sections 1 and 2: throughput of the pipeline and bytes per flight, on one baseline. */
async function throughputAndMemory(): Promise<void> {
  const clock = new ManualClock(THROUGHPUT_START);
  const sim = createSimulator({ seed: 11, zone: ZONE, clock, flightsPerDay: RECORDS_PER_DAY });
  const client = new MemoryClient(sim.store);
  const bench = await benchRedis("detect");
  let now = THROUGHPUT_START;
  const store = bench.store();
  const settings: Partial<DetectorSettings> = { reconcileEveryMs: 0 };
  const detector = new Detector({ client, store, settings, now: () => now });
  try {
    const [load1] = loadavg();
    console.log(
      "method: Detector.poll() timed end to end (poll status, WATCH, state, fold, MGET of " +
        "snapshots, diff, events, one MULTI/EXEC of snapshots + index + outbox + state, status " +
        "write) with the upstream replaced by an in-memory client (no HTTP, JSON parsing or " +
        "validation); wall time, CPU time of this process (Redis not included), and the share " +
        "of the wall time spent in the store's MGET and commit. " +
        `Aim ≥ 20,000 updates/s. Load average ${load1?.toFixed(1)} on ${cpus().length} CPUs.`,
    );
    const [baseline] = await pollBatches(
      `baseline: all ${fmt(sim.store.size)} records, every snapshot new`,
      detector,
      store,
      1,
      () => undefined,
    );
    await bytesPerFlight(bench, baseline?.flights ?? 0);

    // Live evolution of the simulated day, every changed record kept in order.
    const stream: Flight[] = [];
    sim.store.onChange((change) => {
      if (change.after) stream.push(change.after);
    });
    for (let t = 0; t < EVOLVE_MS; t += POLL_MS) {
      clock.advance(POLL_MS);
      sim.tick();
    }
    console.log(
      `change stream: ${fmt(stream.length)} record changes to ${fmt(new Set(stream.map((f) => f.id)).size)} ` +
        `distinct records over ${(EVOLVE_MS / HOUR).toFixed(1)} simulated hours, ` +
        "cut into batches of distinct records (the newest version of each), committed in order",
    );
    let readMs = 0;
    let pollRecords = 0;
    for (const { size, batches } of cutBatches(stream)) {
      await pollBatches(
        `batches of ${fmt(size)} changed records`,
        detector,
        store,
        batches.length,
        (i) => {
          client.changed = batches[i] ?? [];
          now = newestStamp(client.changed, now) + 1000;
        },
      );
      // The in-memory reader's share (newest version per id), timed apart.
      for (const batch of batches) {
        client.changed = batch;
        const r0 = performance.now();
        await readChangedSince(client, scheduleHorizon(now, ZONE, DEFAULT_HORIZON_DAYS), 0);
        readMs += performance.now() - r0;
        pollRecords += batch.length;
      }
    }
    console.log(
      `(the in-memory read inside those polls costs ${((readMs * 1000) / pollRecords).toFixed(1)} µs/record)`,
    );

    // A full reconciliation: every record of the horizon, almost all unchanged.
    const reconciler = new Detector({
      client,
      store,
      settings: { reconcileEveryMs: 1 },
      now: () => now,
    });
    now += 1000;
    await pollBatches(
      `reconcile: all ${fmt(sim.store.size)} records re-read, changes after the last batch`,
      reconciler,
      store,
      1,
      () => undefined,
    );
  } finally {
    await client.close();
    await bench.cleanup();
  }
}

/** Section 2: MEMORY USAGE of the snapshot keys and the index, per tracked flight. */
async function bytesPerFlight(bench: BenchRedis, flights: number): Promise<void> {
  const { redis, keys } = bench;
  const flightKeys = await redis.zrange(keys.snapshotIndex, 0, -1);
  const usage: number[] = [];
  const json: number[] = [];
  for (let i = 0; i < flightKeys.length; i += 1000) {
    const chunk = flightKeys.slice(i, i + 1000).map((key) => keys.snapshot(key));
    const pipeline = redis.pipeline();
    for (const key of chunk) pipeline.call("MEMORY", "USAGE", key, "SAMPLES", "0");
    for (const key of chunk) pipeline.strlen(key);
    const results = (await pipeline.exec()) ?? [];
    results.forEach(([err, value], j) => {
      if (err) throw err;
      (j < chunk.length ? usage : json).push(Number(value));
    });
  }
  const indexBytes = Number(
    await redis.call("MEMORY", "USAGE", keys.snapshotIndex, "SAMPLES", "0"),
  );
  usage.sort((a, b) => a - b);
  json.sort((a, b) => a - b);
  const avg = sum(usage) / usage.length;
  console.log(
    "method: MEMORY USAGE … SAMPLES 0 of every snapshot key and of the index after the baseline, " +
      "divided per physical flight (the expiry entry of each key is not counted by Redis).",
  );
  console.log(
    `snapshot keys (${fmt(usage.length)} of ${fmt(flights)} flights): avg ${fmt(avg)} B, ` +
      `p95 ${fmt(quantile(usage, 0.95))} B, max ${fmt(quantile(usage, 1))} B; ` +
      `JSON avg ${fmt(sum(json) / json.length)} B, p95 ${fmt(quantile(json, 0.95))} B, max ${fmt(quantile(json, 1))} B`,
  );
  console.log(
    `index: ${fmt(indexBytes)} B = ${fmt(indexBytes / flights)} B/flight; ` +
      `total ${fmt(avg + indexBytes / flights)} B per tracked flight (aim ≤ 1,024)`,
  );
}

/** Section 3: upstream requests of real polls against the simulator over HTTP. */
async function requestsPerPoll(): Promise<void> {
  const run = await measureUpstreamRequests({
    start: REQUESTS_START,
    hours: REQUESTS_HOURS,
    intervalMs: POLL_MS,
    seed: 5,
    flightsPerDay: 1400,
    changeRate: 1,
  });
  const s = run.settings;
  console.log(
    `method: the simulator (1,400 records/day, default change rate, page size ${run.pageSize}) ` +
      `over loopback HTTP and a real Detector (interval ${s.intervalMs / 1000} s, overlap ${s.overlapMinMs / 1000}–${s.overlapMs / 1000} s from the observed stamp lag, ` +
      `reconcile every ${s.reconcileEveryMs / 60_000} min), the ManualClock advanced and the ` +
      `simulator ticked by one interval before each poll, for ${REQUESTS_HOURS} simulated hours.`,
  );
  const [full] = run.fullReads;
  const incremental = run.polls.filter((p) => p.mode === "incremental");
  const reconciles = run.polls.filter((p) => p.mode === "reconcile");
  const requests = incremental.map((p) => p.requests).sort((a, b) => a - b);
  const events = incremental.map((p) => p.events.length).sort((a, b) => a - b);
  const avgRequests = sum(requests) / requests.length;
  const pollsPerHour = HOUR / s.intervalMs;
  console.log(
    `full-horizon read: ${fmt(full.requests)} requests (${fmt(full.records)} records; baseline poll ${fmt(run.baseline.requests)})`,
  );
  console.log(
    `incremental poll (${incremental.length} polls, ${fmt(run.changes)} record changes upstream): ` +
      `avg ${avgRequests.toFixed(2)}, p95 ${quantile(requests, 0.95)}, max ${quantile(requests, 1)} requests; ` +
      `${(full.requests / avgRequests).toFixed(0)}× fewer than a full read (aim ≥ 20×)`,
  );
  console.log(
    `change events per incremental poll: avg ${(sum(events) / events.length).toFixed(1)}, ` +
      `p95 ${quantile(events, 0.95)}, max ${quantile(events, 1)}; per reconcile: ` +
      `${reconciles.map((p) => p.events.length).join(", ")} (${reconciles.length} reconciles)`,
  );
  console.log(
    `requests per hour: incremental + reconcile ${fmt(run.counted / REQUESTS_HOURS)}; ` +
      `full re-read every poll ${fmt(full.requests * pollsPerHour)}; ` +
      `each watched flight by id ${fmt(run.baseline.flights * pollsPerHour)} ` +
      `(${fmt(run.baseline.flights)} physical flights × ${pollsPerHour} polls); ` +
      "per interval and flight count: `npm run bench -- requests`",
  );
}

export const detectBenchmark: Benchmark = {
  name: "detect",
  title: "Change detection: pipeline, Redis per flight, upstream requests per poll",
  async run() {
    await throughputAndMemory();
    await requestsPerPoll();
  },
};
