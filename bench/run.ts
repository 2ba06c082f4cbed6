/**
 * `npm run bench`: runs every benchmark, prints its figures and writes them to
 * BENCHMARKS.md (bench/benchmarks-file.ts) with the machine and the date. Figures are
 * printed, never asserted (timed assertions flake on shared machines).
 * `npm run bench -- diff` runs only the benchmarks whose name contains "diff" and
 * replaces only their sections of BENCHMARKS.md; `--no-write` leaves the file alone.
 */
import { fileURLToPath } from "node:url";
import type { Benchmark } from "./benchmark.js";
import { type BenchSection, describeMachine, updateBenchmarksFile } from "./benchmarks-file.js";
import { deliveryEmailBenchmark } from "./delivery-email-bench.js";
import { deliveryWebhookBenchmark } from "./delivery-webhook-bench.js";
import { detectBenchmark } from "./detect-bench.js";
import { detectionCostBenchmark } from "./detection-cost-bench.js";
import { diffBenchmark } from "./diff-bench.js";
import { latencyBenchmark } from "./e2e-latency-bench.js";
import { pipelineBenchmark } from "./pipeline-bench.js";
import { requestsBenchmark } from "./requests-bench.js";
import { ruleLoadBenchmark } from "./rule-load-bench.js";
import { rulesBenchmark } from "./rules-bench.js";
import { scaleBenchmark } from "./scale-bench.js";
import { simulatorDataBenchmark } from "./simulator-data-bench.js";
import { simulatorServerBenchmark } from "./simulator-server-bench.js";
import { startupBenchmark } from "./startup-bench.js";
import { subscriptionsApiBenchmark } from "./subscriptions-api-bench.js";
import { subscriptionsBenchmark } from "./subscriptions-bench.js";
import { takeoverBenchmark } from "./takeover-bench.js";
import { watchThroughputBenchmark } from "./watch-throughput-bench.js";
import { clusterBenchmark, wireSpeedBenchmark } from "./wire-speed-bench.js";

const benchmarks: Benchmark[] = [
  simulatorDataBenchmark,
  simulatorServerBenchmark,
  diffBenchmark,
  detectBenchmark,
  requestsBenchmark,
  detectionCostBenchmark,
  latencyBenchmark,
  rulesBenchmark,
  ruleLoadBenchmark,
  deliveryWebhookBenchmark,
  deliveryEmailBenchmark,
  pipelineBenchmark,
  wireSpeedBenchmark,
  clusterBenchmark,
  scaleBenchmark,
  takeoverBenchmark,
  watchThroughputBenchmark,
  subscriptionsApiBenchmark,
  startupBenchmark,
  subscriptionsBenchmark,
];

const args = process.argv.slice(2);
const write = !args.includes("--no-write");
const filter = args.find((a) => !a.startsWith("--"));
const machine = await describeMachine();
console.log(`flightwatch benchmarks — ${machine.summary}`);

const sections: BenchSection[] = [];
/** Benchmarks that threw: the others still run, and what they measured is still written. */
const failed: string[] = [];
for (const bench of benchmarks) {
  if (filter && !bench.name.includes(filter)) continue;
  console.log(`\n## ${bench.name}`);
  const output: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => {
    output.push(parts.map((p) => (typeof p === "string" ? p : String(p))).join(" "));
    log(...parts);
  };
  const started = Date.now();
  try {
    const headlines = (await bench.run()) ?? [];
    sections.push({
      name: bench.name,
      title: bench.title ?? bench.name,
      headlines,
      output,
      seconds: (Date.now() - started) / 1000,
    });
  } catch (err) {
    failed.push(bench.name);
    console.error(err);
  } finally {
    console.log = log;
  }
}

if (write && sections.length > 0) {
  const file = fileURLToPath(new URL("../BENCHMARKS.md", import.meta.url));
  await updateBenchmarksFile(file, sections, machine, new Date());
  console.log(`\nwrote ${sections.map((s) => s.name).join(", ")} to BENCHMARKS.md`);
}

if (failed.length > 0) {
  console.error(`\nfailed, not written: ${failed.join(", ")}`);
  process.exitCode = 1;
}
