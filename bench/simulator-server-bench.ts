/**
 * Simulator HTTP throughput: requests per second one process serves on loopback,
 * with 200 concurrent keep-alive clients walking `/flights` pages of today (1400
 * records a day, default sort), first on frozen data, then with live evolution at
 * 60× speed (every change drops the cached sorted views). The client runs in the
 * same process, so the figures are a floor. Also prints the start-up time.
 */
import { Agent, request } from "undici";
import { type RunningSimulator, startSimulator } from "../src/simulator/http/start-simulator.js";
import type { Benchmark } from "./benchmark.js";

const CONCURRENCY = 200;
const DURATION_MS = 4000;

async function load(sim: RunningSimulator, label: string): Promise<void> {
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const headers = { accept: "application/json", authorization: `Bearer ${sim.token}` };
  const pages = Math.max(1, Math.ceil(sim.simulator.store.size / 3 / sim.server.pageSize));
  const latencies: number[] = [];
  let failures = 0;
  const versionBefore = sim.simulator.store.version;
  const start = performance.now();
  const worker = async (w: number): Promise<void> => {
    for (let i = w; performance.now() - start < DURATION_MS; i += CONCURRENCY) {
      const t0 = performance.now();
      const res = await request(`${sim.baseUrl}/flights?page=${i % pages}`, {
        headers,
        dispatcher: agent,
      });
      await res.body.dump();
      if (res.statusCode !== 200 && res.statusCode !== 204) failures++;
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const seconds = (performance.now() - start) / 1000;
  await agent.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(1);
  console.log(
    `${label}: ${Math.round(latencies.length / seconds)} req/s (${latencies.length} in ${seconds.toFixed(1)} s, ` +
      `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, ${failures} failed, ` +
      `${sim.simulator.store.version - versionBefore} data changes meanwhile)`,
  );
}

export const simulatorServerBenchmark: Benchmark = {
  name: "simulator-server",
  title: "Simulator HTTP server",
  async run() {
    const t0 = performance.now();
    const frozen = await startSimulator({ live: false });
    console.log(
      `start-up (generate ${frozen.simulator.store.size} records + listen): ${(performance.now() - t0).toFixed(0)} ms`,
    );
    try {
      await load(frozen, `frozen data, ${CONCURRENCY} keep-alive clients`);
    } finally {
      await frozen.close();
    }
    const live = await startSimulator({ speed: 60 });
    try {
      await load(live, `live data at 60x, ${CONCURRENCY} keep-alive clients`);
    } finally {
      await live.close();
    }
  },
};
