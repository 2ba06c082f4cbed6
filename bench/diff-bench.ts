/**
 * Diff throughput: flight updates per second on one core through the pure pipeline the
 * detector runs on each poll — records (parsed JSON) → `foldCodeshares` → `diffFlight`
 * against the previous snapshot → `toChangeEvent` for every change. Records are built
 * and parsed untimed; the events of a poll are kept until the poll ends, as the
 * detector keeps them for its commit. Two record sets: a synthetic mix where most
 * flights change a field or two each poll (the headline figure), and the simulator's
 * generated airport read in full every five simulated minutes (codeshare records,
 * check-in desks, mostly unchanged flights).
 */
import type { Flight } from "../src/api/types.js";
import { type ChangeEvent, toChangeEvent } from "../src/diff/change.js";
import { foldCodeshares } from "../src/diff/codeshare-fold.js";
import { diffFlight } from "../src/diff/flight-diff.js";
import type { FlightSnapshot } from "../src/diff/flight-snapshot.js";
import { ManualClock } from "../src/simulator/sim-clock.js";
import { createSimulator } from "../src/simulator/simulator.js";
import { formatApiDateTime } from "../src/time/local-time.js";
import type { Benchmark } from "./run.js";

const ZONE = "Europe/Amsterdam";
const FLIGHTS = 4_000;
const ROUNDS = 25;
const SIM_FLIGHTS_PER_DAY = 3_334;
const SIM_ROUNDS = 13;
const SIM_STEP_MS = 5 * 60_000;

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
  nanos: bigint;
  events: number;
}

/** One poll through the pipeline, timed: fold, diff, and an event per change. */
function poll(records: Flight[], snapshots: Map<string, FlightSnapshot>): PollFigures {
  const start = process.hrtime.bigint();
  const events: ChangeEvent[] = [];
  for (const observed of foldCodeshares(records, ZONE)) {
    const result = diffFlight(snapshots.get(observed.identity.key), observed, ZONE);
    snapshots.set(observed.identity.key, result.snapshot);
    for (const change of result.changes) {
      events.push(toChangeEvent(change, result.snapshot, result.snapshot.version));
    }
  }
  return { nanos: process.hrtime.bigint() - start, events: events.length };
}

const perSecond = (updates: number, nanos: bigint): string =>
  Math.round(updates / (Number(nanos) / 1e9)).toLocaleString("en");

export const diffBenchmark: Benchmark = {
  name: "diff",
  title: "Diff throughput (one core)",
  async run() {
    const snapshots = new Map<string, FlightSnapshot>();
    let events = 0;
    let nanos = 0n;
    for (let r = 0; r < ROUNDS; r++) {
      const figures = poll(
        asParsedJson(Array.from({ length: FLIGHTS }, (_, i) => flight(i, r))),
        snapshots,
      );
      events += figures.events;
      nanos += figures.nanos;
    }
    const updates = FLIGHTS * ROUNDS;
    console.log(
      `updates diffed:     ${updates.toLocaleString("en")} (${events.toLocaleString("en")} change events)`,
    );
    console.log(
      `diff throughput:    ${perSecond(updates, nanos)} flight updates/s (aim ≥ 100,000)`,
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
    let simRecords = 0;
    let simEvents = 0;
    let simNanos = 0n;
    for (let r = 0; r < SIM_ROUNDS; r++) {
      if (r > 0) {
        clock.advance(SIM_STEP_MS);
        sim.tick();
      }
      const records = asParsedJson([...sim.store.all()]);
      const figures = poll(records, simSnapshots);
      simRecords += records.length;
      simEvents += figures.events;
      simNanos += figures.nanos;
    }
    console.log(
      `simulator records:  ${perSecond(simRecords, simNanos)} records/s, ${simRecords.toLocaleString("en")} records in ${SIM_ROUNDS} full reads 5 min apart (${simEvents.toLocaleString("en")} change events)`,
    );
  },
};
