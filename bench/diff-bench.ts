/**
 * Diff throughput: flight updates per CPU-second through the pure pipeline the
 * detector runs on each poll — records (parsed JSON) → `foldCodeshares` → `diffFlight`
 * against the previous snapshot → `toChangeEvent` for every change. Records are built
 * and parsed untimed; the events of a poll are kept until the poll ends, as the
 * detector keeps them for its commit. Two record sets: a synthetic mix where most
 * flights change a field or two each poll (the headline figure), and the simulator's
 * generated airport read in full every five simulated minutes (codeshare records,
 * check-in desks, mostly unchanged flights).
 *
 * The headline counts CPU time (`process.cpuUsage()`, user + system, every thread of
 * the process, so garbage collection done during a poll is counted) rather than wall
 * time, which on a shared machine mostly measures the neighbours; the wall-clock rate
 * is printed beside it. Two untimed warm-up polls (one that adds every flight, one that
 * diffs them) on a snapshot map of their own let the JIT settle first; the timed polls
 * still start from no snapshots.
 */
import os from "node:os";
import type { Flight } from "../src/api/types.js";
import { type ChangeEvent, toChangeEvent } from "../src/diff/change.js";
import { foldCodeshares } from "../src/diff/codeshare-fold.js";
import { diffFlight } from "../src/diff/flight-diff.js";
import type { FlightSnapshot } from "../src/diff/flight-snapshot.js";
import { ManualClock } from "../src/simulator/sim-clock.js";
import { createSimulator } from "../src/simulator/simulator.js";
import { formatApiDateTime } from "../src/time/local-time.js";
import type { Benchmark, Headline } from "./benchmark.js";

const ZONE = "Europe/Amsterdam";
const FLIGHTS = 4_000;
const ROUNDS = 25;
const SIM_FLIGHTS_PER_DAY = 3_334;
const SIM_ROUNDS = 13;
const SIM_STEP_MS = 5 * 60_000;
const WARM_UP_ROUNDS = 2;
const AIM = 100_000;

const formatted = new Map<number, string>();
/** Memoised so that building the records makes little garbage of its own. */
const fmt = (ms: number): string => {
  let text = formatted.get(ms);
  if (text === undefined) {
    text = formatApiDateTime(ms, ZONE);
    formatted.set(ms, text);
  }
  return text;
};

function flight(i: number, round: number): Flight {
  const base = Date.parse("2026-11-21T06:00:00Z") + (i % 1000) * 60_000;
  return {
    id: String(100000000000000000n + BigInt(i)),
    flightName: `KL${1000 + i}`,
    mainFlight: `KL${1000 + i}`,
    flightDirection: i % 2 ? "A" : "D",
    isOperationalFlight: true,
    scheduleDate: "2026-11-21",
    scheduleDateTime: fmt(base),
    lastUpdatedAt: fmt(base - 3_600_000 + round * 1000),
    // A realistic mix: most rounds change one or two fields of a flight.
    gate: `D${(i + (round % 7 === 0 ? round : 0)) % 80}`,
    pier: "D",
    terminal: 2,
    publicFlightState: { flightStates: round % 5 === 0 ? ["SCH", "DEL"] : ["SCH"] },
    publicEstimatedOffBlockTime: fmt(base + (round % 3) * 60_000),
    expectedTimeBoarding: fmt(base - 40 * 60_000),
    baggageClaim: { belts: [String(10 + (i % 12))] },
    codeshares: { codeshares: [`DL${9000 + i}`] },
    aircraftType: { iataMain: "73H", iataSub: "73H" },
    aircraftRegistration: "PHBXA",
    route: { destinations: ["LHR"] },
    serviceType: "J",
  };
}

/** Records as the API client hands them over: parsed from a response body. */
const asParsedJson = (records: Flight[]): Flight[] => JSON.parse(JSON.stringify(records));

/** What one timed poll did. */
interface PollFigures {
  /** Wall time. */
  nanos: bigint;
  /** CPU time of the process (user + system), microseconds. */
  cpuMicros: number;
  events: number;
}

/** One poll through the pipeline, timed: fold, diff, and an event per change. */
function poll(records: Flight[], snapshots: Map<string, FlightSnapshot>): PollFigures {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const events: ChangeEvent[] = [];
  for (const observed of foldCodeshares(records, ZONE)) {
    const result = diffFlight(snapshots.get(observed.identity.key), observed, ZONE);
    snapshots.set(observed.identity.key, result.snapshot);
    for (const change of result.changes) {
      events.push(toChangeEvent(change, result.snapshot, result.snapshot.version));
    }
  }
  const nanos = process.hrtime.bigint() - start;
  const used = process.cpuUsage(cpu);
  return { nanos, cpuMicros: used.user + used.system, events: events.length };
}

/** Sums of the timed polls. */
interface Totals {
  nanos: bigint;
  cpuMicros: number;
  events: number;
}

const add = (totals: Totals, figures: PollFigures): void => {
  totals.nanos += figures.nanos;
  totals.cpuMicros += figures.cpuMicros;
  totals.events += figures.events;
};

const perWallSecond = (count: number, nanos: bigint): number => count / (Number(nanos) / 1e9);
const perCpuSecond = (count: number, cpuMicros: number): number => count / (cpuMicros / 1e6);
const rate = (n: number): string => Math.round(n).toLocaleString("en");

/** The synthetic records of round `round`, as parsed JSON. */
const syntheticRound = (round: number): Flight[] =>
  asParsedJson(Array.from({ length: FLIGHTS }, (_, i) => flight(i, round)));

export const diffBenchmark: Benchmark = {
  name: "diff",
  title: "Diff throughput (per CPU-second)",
  async run(): Promise<Headline[]> {
    // Warm-up, untimed, on snapshots of its own: the timed passes start from nothing.
    const warm = new Map<string, FlightSnapshot>();
    for (let r = 0; r < WARM_UP_ROUNDS; r++) poll(syntheticRound(r), warm);

    const snapshots = new Map<string, FlightSnapshot>();
    const totals: Totals = { nanos: 0n, cpuMicros: 0, events: 0 };
    for (let r = 0; r < ROUNDS; r++) add(totals, poll(syntheticRound(r), snapshots));
    const updates = FLIGHTS * ROUNDS;
    const cpuRate = perCpuSecond(updates, totals.cpuMicros);
    const wallRate = perWallSecond(updates, totals.nanos);
    console.log(
      `updates diffed:     ${updates.toLocaleString("en")} (${totals.events.toLocaleString("en")} change events)`,
    );
    console.log(
      `diff throughput:    ${rate(cpuRate)} flight updates per CPU-second (aim ≥ ${rate(AIM)}); ${(totals.cpuMicros / 1000).toFixed(0)} ms CPU`,
    );
    console.log(
      `  wall clock:       ${rate(wallRate)} flight updates/s; ${(Number(totals.nanos) / 1e6).toFixed(0)} ms wall (load average ${os.loadavg()[0]?.toFixed(1)} on ${os.availableParallelism()} CPUs)`,
    );
    const bytes = [...snapshots.values()].reduce(
      (n, s) => n + Buffer.byteLength(JSON.stringify(s)),
      0,
    );
    console.log(
      `snapshot size:      ${Math.round(bytes / snapshots.size)} bytes/flight as JSON (aim ≤ 1 KB)`,
    );

    const clock = new ManualClock(Date.parse("2026-06-10T04:00:00Z"));
    const sim = createSimulator({ seed: 3, clock, flightsPerDay: SIM_FLIGHTS_PER_DAY });
    const simSnapshots = new Map<string, FlightSnapshot>();
    const simTotals: Totals = { nanos: 0n, cpuMicros: 0, events: 0 };
    let simRecords = 0;
    for (let r = 0; r < SIM_ROUNDS; r++) {
      if (r > 0) {
        clock.advance(SIM_STEP_MS);
        sim.tick();
      }
      const records = asParsedJson([...sim.store.all()]);
      add(simTotals, poll(records, simSnapshots));
      simRecords += records.length;
    }
    console.log(
      `simulator records:  ${rate(perCpuSecond(simRecords, simTotals.cpuMicros))} records per CPU-second (${rate(perWallSecond(simRecords, simTotals.nanos))}/s wall), ${simRecords.toLocaleString("en")} records in ${SIM_ROUNDS} full reads 5 min apart (${simTotals.events.toLocaleString("en")} change events)`,
    );
    return [
      {
        figure: `diff throughput, ${FLIGHTS.toLocaleString("en")} flights × ${ROUNDS} polls (fold → diff → change events), CPU time`,
        value: `${rate(cpuRate)} updates per CPU-second (wall: ${rate(wallRate)}/s)`,
        aim: `≥ ${rate(AIM)}`,
        met: cpuRate >= AIM,
      },
    ];
  },
};
