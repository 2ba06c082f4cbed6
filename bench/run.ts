/**
 * `npm run bench`: runs every benchmark and prints its figures. Figures are printed,
 * never asserted (timed assertions flake on shared machines). `npm run bench -- diff`
 * runs only the benchmarks whose name contains "diff".
 */
import { cpus } from "node:os";
import { deliveryEmailBenchmark } from "./delivery-email-bench.js";
import { deliveryWebhookBenchmark } from "./delivery-webhook-bench.js";
import { detectBenchmark } from "./detect-bench.js";
import { diffBenchmark } from "./diff-bench.js";
import { ruleLoadBenchmark } from "./rule-load-bench.js";
import { rulesBenchmark } from "./rules-bench.js";
import { simulatorDataBenchmark } from "./simulator-data-bench.js";
import { simulatorServerBenchmark } from "./simulator-server-bench.js";

/** One benchmark: a name and a function that prints its own figures. */
export interface Benchmark {
  name: string;
  run(): Promise<void>;
}

const benchmarks: Benchmark[] = [
  simulatorDataBenchmark,
  simulatorServerBenchmark,
  diffBenchmark,
  detectBenchmark,
  rulesBenchmark,
  ruleLoadBenchmark,
  deliveryWebhookBenchmark,
  deliveryEmailBenchmark,
];

const filter = process.argv[2];
console.log(
  `flightwatch benchmarks — node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${new Date().toISOString()}`,
);
for (const bench of benchmarks) {
  if (filter && !bench.name.includes(filter)) continue;
  console.log(`\n## ${bench.name}`);
  await bench.run();
}
