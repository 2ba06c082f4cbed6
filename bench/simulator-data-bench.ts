/**
 * Simulator data and evolution cost: generating the default three days (4,200
 * records) and 10,000 records, first in a cold process then warm; and what one
 * `tick()` costs at 10,000 records when nothing is due, per simulated minute, and
 * per 250 ms timer tick at 60× speed (15 simulated seconds).
 */
import { ManualClock } from "../src/simulator/sim-clock.js";
import { createSimulator } from "../src/simulator/simulator.js";
import type { Benchmark } from "./benchmark.js";

const START = Date.parse("2026-06-10T04:00:00Z");
const MIN = 60_000;

function timeCreate(flightsPerDay: number, seed: number): { ms: number; size: number } {
  const t0 = performance.now();
  const sim = createSimulator({ seed, clock: new ManualClock(START), flightsPerDay });
  return { ms: performance.now() - t0, size: sim.store.size };
}

function tickCost(stepMs: number, steps: number): { perTickUs: number; events: number } {
  const clock = new ManualClock(START);
  const sim = createSimulator({ seed: 3, clock, flightsPerDay: 3334 });
  let events = 0;
  let nanos = 0n;
  for (let i = 0; i < steps; i++) {
    clock.advance(stepMs);
    const t0 = process.hrtime.bigint();
    events += sim.tick().processed;
    nanos += process.hrtime.bigint() - t0;
  }
  return { perTickUs: Number(nanos) / 1000 / steps, events: events / steps };
}

export const simulatorDataBenchmark: Benchmark = {
  name: "simulator-data",
  title: "Simulator data and evolution",
  async run() {
    const cold = timeCreate(1400, 1);
    const warm = [2, 3, 4].map((seed) => timeCreate(1400, seed).ms);
    console.log(
      `generate ${cold.size} records: ${cold.ms.toFixed(0)} ms cold, ` +
        `${Math.min(...warm).toFixed(0)} ms warm (aim well under 200 ms)`,
    );
    const big = [5, 6].map((seed) => timeCreate(3334, seed));
    console.log(
      `generate ${big[0]?.size} records: ${Math.min(...big.map((b) => b.ms)).toFixed(0)} ms warm`,
    );
    const idle = tickCost(1, 2000);
    console.log(
      `tick, nothing due (10k records):        ${idle.perTickUs.toFixed(1)} µs (${idle.events.toFixed(2)} events/tick)`,
    );
    const minute = tickCost(MIN, 600);
    console.log(
      `tick per simulated minute (10k records): ${minute.perTickUs.toFixed(0)} µs (${minute.events.toFixed(1)} events/tick)`,
    );
    const fast = tickCost(15_000, 2000);
    console.log(
      `tick at 60× every 250 ms (10k records):  ${fast.perTickUs.toFixed(0)} µs (${fast.events.toFixed(1)} events/tick)`,
    );
  },
};
