/**
 * Loading rule files: the time to read, validate and normalise 100,000 passenger
 * rules, as a consumer app that writes one rule per booking would have them — in one
 * JSON file, in 100 JSON files and, for comparison, in one YAML file (the `yaml`
 * package reads some 1 MB/s; JSON.parse much faster) — which is also what each reload
 * of such a directory costs; and the heap the daemon keeps per rule once they are
 * loaded and compiled (issue 21: at most 1 KB).
 */
import { fork } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { loadRuleDir } from "../src/rules/read/rule-loader.js";
import type { Benchmark, Headline } from "./benchmark.js";
import type { RuleHeapAnswer } from "./rule-heap-child.js";

const RULES = 100_000;
const ZONE = "Europe/Amsterdam";
/** Issue 21's limit on the heap a loaded passenger rule costs. */
const HEAP_LIMIT_BYTES = 1024;

/** One passenger rule as a person (or an app) writes it. */
function passengerRule(i: number): Record<string, unknown> {
  return {
    id: `pax-${i}`,
    labels: { booking: `B${i.toString(36).toUpperCase()}` },
    flights: {
      flight: `KL${1000 + (i % 3000)}`,
      schedule: { from: "2026-11-21", to: "2026-11-22" },
    },
    changes: [
      { kind: "gate", within: "3h" },
      { kind: "departure_time", delay_at_least: "15m", shift_at_least: "15m" },
      "cancelled",
    ],
    channels: [{ type: "email", to: [`p${i}@example.com`] }],
    group_wait: "1m",
  };
}

async function timeLoad(dir: string): Promise<{ seconds: number; rules: number }> {
  const start = process.hrtime.bigint();
  const load = await loadRuleDir(dir, { vars: { values: {} }, zone: ZONE });
  if (load.problems.length > 0)
    throw new Error(`bench rules invalid: ${load.problems[0]?.message}`);
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, rules: load.rules.length };
}

/**
 * Live heap per rule of `dir` in a child with `--expose-gc` (bench/rule-heap-child.ts):
 * what the loaded RuleSet adds to the heap after a full collection.
 */
async function heapPerRule(
  dir: string,
  warmDir: string,
): Promise<{ bytes: number; rules: number }> {
  const child = fork(new URL("./rule-heap-child.ts", import.meta.url), [dir, warmDir, ZONE], {
    execArgv: ["--expose-gc", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const answer = await new Promise<RuleHeapAnswer>((resolve, reject) => {
    child.once("message", (message) => resolve(message as RuleHeapAnswer));
    child.once("exit", (code) => reject(new Error(`rule-heap-child exited (${code})`)));
  });
  return { bytes: (answer.after - answer.before) / answer.rules, rules: answer.rules };
}

export const ruleLoadBenchmark: Benchmark = {
  name: "rules-load",
  title: "Rule loading",
  async run(): Promise<Headline[]> {
    const root = await mkdtemp(join(tmpdir(), "fw-rule-load-"));
    try {
      const rules = Array.from({ length: RULES }, (_, i) => passengerRule(i));
      const cases: Array<[string, string]> = [];
      for (const [name, write] of [
        [
          "one JSON file",
          async (dir: string) => writeFile(join(dir, "all.json"), JSON.stringify({ rules })),
        ],
        [
          "100 JSON files",
          async (dir: string) => {
            for (let f = 0; f < 100; f++) {
              const part = rules.slice(f * 1000, (f + 1) * 1000);
              await writeFile(
                join(dir, `part-${String(f).padStart(3, "0")}.json`),
                JSON.stringify({ rules: part }),
              );
            }
          },
        ],
        [
          "one YAML file",
          async (dir: string) => writeFile(join(dir, "all.yaml"), stringify({ rules })),
        ],
      ] as const) {
        const dir = join(root, name.replace(/ /g, "-"));
        await mkdir(dir);
        await write(dir);
        cases.push([name, dir]);
      }
      const warmDir = join(root, "warm");
      await mkdir(warmDir);
      await writeFile(join(warmDir, "warm.json"), JSON.stringify({ rules: rules.slice(0, 10) }));
      for (const [name, dir] of cases) {
        const { seconds, rules: loaded } = await timeLoad(dir);
        console.log(
          `${loaded.toLocaleString("en")} rules, ${name}:`.padEnd(34) +
            `${seconds.toFixed(2)} s (${Math.round(loaded / seconds).toLocaleString("en")} rules/s)`,
        );
      }
      // One JSON file: the format of large generated sets, and the one where strings
      // sliced out of the file text would keep the most alive.
      const heap = await heapPerRule(cases[0]?.[1] as string, warmDir);
      const met = heap.bytes <= HEAP_LIMIT_BYTES;
      console.log(
        `heap per rule, ${heap.rules.toLocaleString("en")} rules (RuleSet live, after full GC):`.padEnd(
          60,
        ) +
          `${Math.round(heap.bytes).toLocaleString("en")} B  (limit ≤ 1,024 B: ${met ? "met" : "NOT met"})`,
      );
      return [
        {
          figure: "heap per passenger rule at 100,000 rules (loaded and compiled)",
          value: `${Math.round(heap.bytes).toLocaleString("en")} B`,
          aim: "≤ 1 KB",
          met,
        },
      ];
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
