/**
 * Start-up cost of the `flightwatch` command (issue 20: `--help` within 0.3 s of CPU):
 * `--help`, `--version` and `api --help` of the built CLI (bin/flightwatch.js, which
 * runs dist/), each in a fresh process, beside a bare `node` measured in the same run.
 * CPU is the child's own user + system time from start to exit, which it reports
 * itself at exit (`process.cpuUsage()` of the parent sees none of it).
 * `BENCH_STARTUP_RUNS` sets the runs per command (default 10).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Benchmark, Headline } from "./benchmark.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin/flightwatch.js");
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 10);
/** Issue 20's aim for `flightwatch --help`, in seconds of CPU. */
const AIM_S = 0.3;
const MARK = "flightwatch-startup-cpu";

/**
 * The child's script (CommonJS, `node -e`): report the process's CPU time at exit on
 * stderr, then run the CLI with `args` as its own argv, as `node bin/flightwatch.js
 * <args>` would (given after `--`, or node would take `--help` for its own). With no
 * CLI, it is the bare node of the comparison.
 */
function childScript(cli: boolean): string {
  const report = `process.on("exit", () => { const u = process.cpuUsage(); process.stderr.write("\\n${MARK} " + (u.user + u.system) + "\\n"); });`;
  if (!cli) return report;
  return `${report} process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...process.argv.slice(1)]; import(${JSON.stringify(pathToFileURL(BIN).href)});`;
}

/** CPU seconds of one child run. */
function cpuSeconds(args: readonly string[] | undefined): number {
  const result = spawnSync(
    process.execPath,
    ["-e", childScript(args !== undefined), "--", ...(args ?? [])],
    {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const match = new RegExp(`${MARK} (\\d+)`).exec(result.stderr);
  if (result.status !== 0 || !match) {
    throw new Error(
      `flightwatch ${(args ?? []).join(" ")} failed (${result.status}): ${result.stderr}`,
    );
  }
  return Number(match[1]) / 1e6;
}

/** The newest modification time of the files under `dir` with `suffix`. */
function newest(dir: string, suffix: string): number {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(suffix)) continue;
    max = Math.max(max, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return max;
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const s = (x: number): string => `${x.toFixed(2)} s`;

export const startupBenchmark: Benchmark = {
  name: "startup",
  title: "Start-up cost of the CLI (CPU per command)",
  async run() {
    // bin/ runs dist/: figures of a stale build would describe other code.
    if (newest(join(ROOT, "dist"), ".js") < newest(join(ROOT, "src"), ".ts")) {
      throw new Error("dist/ is older than src/: run `npm run build` first");
    }
    const cases: { label: string; args?: string[] }[] = [
      { label: "node (bare)" },
      { label: "flightwatch --help", args: ["--help"] },
      { label: "flightwatch --version", args: ["--version"] },
      { label: "flightwatch api --help", args: ["api", "--help"] },
    ];
    const samples = new Map<string, number[]>(cases.map((c) => [c.label, []]));
    // Interleaved, so a neighbour's load falls on every command alike.
    for (let i = 0; i < RUNS; i++) {
      for (const c of cases) samples.get(c.label)?.push(cpuSeconds(c.args));
    }
    console.log(`CPU (user + system) of one process, median and min of ${RUNS} runs:`);
    const bare = median(samples.get("node (bare)") ?? []);
    const headlines: Headline[] = [];
    for (const c of cases) {
      const xs = samples.get(c.label) ?? [];
      const m = median(xs);
      const above = c.args ? `, ${s(m - bare)} above bare node` : "";
      const aim = c.label === "flightwatch --help" ? ` (aim ≤ ${s(AIM_S)})` : "";
      console.log(`  ${c.label.padEnd(24)} ${s(m)} (min ${s(Math.min(...xs))})${above}${aim}`);
      if (c.args) {
        headlines.push({
          figure: `CPU of \`${c.label}\` (bare node: ${s(bare)})`,
          value: s(m),
          ...(c.label === "flightwatch --help" ? { aim: `≤ ${s(AIM_S)}`, met: m <= AIM_S } : {}),
        });
      }
    }
    return headlines;
  },
};
