/** Diff throughput: flight updates folded and diffed per second on one core. */
import type { Flight } from "../src/api/types.js";
import { foldCodeshares } from "../src/diff/codeshare-fold.js";
import { diffFlight } from "../src/diff/flight-diff.js";
import type { FlightSnapshot } from "../src/diff/flight-snapshot.js";
import { formatApiDateTime } from "../src/time/local-time.js";
import type { Benchmark } from "./run.js";

const ZONE = "Europe/Amsterdam";
const FLIGHTS = 4_000;
const ROUNDS = 25;

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

export const diffBenchmark: Benchmark = {
  name: "diff throughput (one core)",
  async run() {
    const snapshots = new Map<string, FlightSnapshot>();
    let changes = 0;
    let nanos = 0n;
    for (let r = 0; r < ROUNDS; r++) {
      // Build one poll's records untimed, then time folding and diffing them.
      const records = Array.from({ length: FLIGHTS }, (_, i) => flight(i, r));
      const start = process.hrtime.bigint();
      for (const observed of foldCodeshares(records, ZONE)) {
        const result = diffFlight(snapshots.get(observed.identity.key), observed, ZONE);
        snapshots.set(observed.identity.key, result.snapshot);
        changes += result.changes.length;
      }
      nanos += process.hrtime.bigint() - start;
    }
    const seconds = Number(nanos) / 1e9;
    const updates = FLIGHTS * ROUNDS;
    console.log(
      `updates diffed:     ${updates.toLocaleString("en")} (${changes.toLocaleString("en")} changes)`,
    );
    console.log(
      `diff throughput:    ${Math.round(updates / seconds).toLocaleString("en")} flight updates/s (aim ≥ 100,000)`,
    );
    const bytes = [...snapshots.values()].reduce(
      (n, s) => n + Buffer.byteLength(JSON.stringify(s)),
      0,
    );
    console.log(
      `snapshot size:      ${Math.round(bytes / snapshots.size)} bytes/flight as JSON (aim ≤ 1 KB)`,
    );
  },
};
