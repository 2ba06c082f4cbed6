/**
 * The simulator's data as the detector would see it, for the benchmarks: a generated
 * airport evolved one poll interval at a time, each poll's changed records folded
 * and diffed against the last snapshots into change events (with their real
 * deterministic ids). The first poll is the baseline, left out: every flight "added",
 * which the detector takes in silently.
 */
import type { Flight } from "../src/api/types.js";
import { type ChangeEvent, toChangeEvent } from "../src/diff/change.js";
import { foldCodeshares } from "../src/diff/codeshare-fold.js";
import { diffFlight } from "../src/diff/flight-diff.js";
import type { FlightSnapshot } from "../src/diff/flight-snapshot.js";
import { ManualClock } from "../src/simulator/sim-clock.js";
import { createSimulator } from "../src/simulator/simulator.js";

/** The airport zone of the simulator's data. */
export const BENCH_ZONE = "Europe/Amsterdam";
/** 2026-11-21 06:00 local: the busy part of the day lies ahead. */
export const BENCH_START = Date.parse("2026-11-21T05:00:00Z");
/** A big hub's day (about 1,700 flights each way, codeshares as records of their own). */
const FLIGHTS_PER_DAY = 3_334;
const POLL_MS = 5 * 60_000;

/** One poll after the baseline: its time and each changed flight's events. */
export interface SimulatedPoll {
  now: number;
  /** One list per flight with changes, in the order the flights were diffed. */
  flights: ChangeEvent[][];
}

/**
 * `polls` polls five simulated minutes apart (seed 11), after a silent baseline, and
 * every flight name seen (baseline included), sorted.
 */
export function simulatedPolls(polls: number): { polls: SimulatedPoll[]; names: string[] } {
  const clock = new ManualClock(BENCH_START);
  const sim = createSimulator({ seed: 11, clock, flightsPerDay: FLIGHTS_PER_DAY });
  const changed = new Set<string>();
  sim.store.onChange((change) => changed.add(change.id));
  const snapshots = new Map<string, FlightSnapshot>();
  const out: SimulatedPoll[] = [];
  const names = new Set<string>();
  for (let p = 0; p <= polls; p++) {
    let live: Flight[];
    if (p === 0) {
      live = [...sim.store.all()];
    } else {
      changed.clear();
      clock.advance(POLL_MS);
      sim.tick();
      live = [...changed].flatMap((id): Flight[] => {
        const record = sim.store.get(id);
        return record ? [record] : [];
      });
    }
    // Through JSON, as records arrive from the API.
    const records: Flight[] = JSON.parse(JSON.stringify(live));
    const flights: ChangeEvent[][] = [];
    for (const observed of foldCodeshares(records, BENCH_ZONE)) {
      const result = diffFlight(snapshots.get(observed.identity.key), observed, BENCH_ZONE);
      snapshots.set(observed.identity.key, result.snapshot);
      for (const name of result.snapshot.flightNames) names.add(name);
      if (result.changes.length === 0) continue;
      flights.push(
        result.changes.map((change) =>
          toChangeEvent(change, result.snapshot, result.snapshot.version, result.snapshot.fields),
        ),
      );
    }
    if (p > 0) out.push({ now: clock.now(), flights });
  }
  return { polls: out, names: [...names].sort() };
}
