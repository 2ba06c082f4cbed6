/**
 * The real daemon for the whole-pipeline benchmarks: a `flightwatch run` child process
 * (the CLI from source, as bench/support/cli-process.ts starts it) polling a simulator
 * served over loopback HTTP by the benchmark's process, on a Redis prefix of its own,
 * with a rules directory the benchmark writes. The simulator does not evolve by
 * itself: flights change only when the benchmark changes them (bench/gate-updates.ts).
 * Readers of what the child exposes: its JSON stdout line by line, /metrics, and its
 * RSS and CPU time from /proc.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSimulator, startSimulator } from "../src/simulator/http/start-simulator.js";
import { Random } from "../src/simulator/random.js";
import { createSimulator } from "../src/simulator/simulator.js";
import { type RedisKeys, redisKeys } from "../src/store/redis-keys.js";
import { type CliProcess, spawnCli } from "./support/cli-process.js";
import { waitFor } from "./support/polling.js";
import type { PrometheusSample } from "./support/prometheus-text.js";
import { deleteByPattern, TEST_REDIS_URL, type TestRedis, testRedis } from "./support/redis.js";
import { runEnv, scrape } from "./support/run-child.js";

/** Records per local day giving ~10,000 physical flights over the simulator's three loaded days. */
export const RECORDS_PER_10K_FLIGHTS = 5_160;

/** A simulated airport served over HTTP, with a Redis prefix and a rules directory. */
export interface BenchAirport {
  sim: RunningSimulator;
  token: string;
  t: TestRedis;
  keys: RedisKeys;
  rulesDir: string;
  /** Operating records (codeshare records follow them), in a seeded shuffled order. */
  operating: string[];
  /** The Redis its daemons use. */
  redisUrl: string;
  /** Deletes every key of the prefix (the next daemon starts as a new installation). */
  clearRedis(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts an airport of `recordsPerDay` records a day that changes only when told to;
 * its daemons use the Redis at `redisUrl` (default: the tests' Redis).
 */
export async function startBenchAirport(
  label: string,
  recordsPerDay: number,
  seed = 7,
  redisUrl = TEST_REDIS_URL,
): Promise<BenchAirport> {
  const token = `fw-bench-${label}-token`;
  const simulator = createSimulator({ seed, flightsPerDay: recordsPerDay, evolve: false });
  const sim = await startSimulator({ simulator, live: false, tokens: [token] });
  const t = await testRedis(`bench-${label}`, redisUrl);
  const rulesDir = await mkdtemp(join(tmpdir(), `fw-bench-${label}-`));
  const operating = [...simulator.store.all()]
    .filter((f) => f.mainFlight === f.flightName && f.id !== undefined)
    .map((f) => f.id as string);
  shuffle(operating, seed);
  return {
    sim,
    token,
    t,
    redisUrl,
    keys: redisKeys(t.prefix),
    rulesDir,
    operating,
    async clearRedis() {
      await deleteByPattern(t.redis, redisKeys(t.prefix).pattern);
    },
    async close() {
      await sim.close();
      await t.cleanup();
      await rm(rulesDir, { recursive: true, force: true });
    },
  };
}

/** Writes the rule files (name → YAML text) into the airport's rules directory. */
export async function writeRuleFiles(
  airport: BenchAirport,
  files: Record<string, string>,
): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(airport.rulesDir, name), text);
  }
}

/** A running `flightwatch run` child. */
export interface DaemonChild {
  proc: CliProcess;
  pid: number;
  /** Its ops server (/metrics). */
  url: string;
  /** Epoch ms: spawned, rules live (its log line), running (its log line), baseline committed. */
  spawnedAt: number;
  rulesLiveAt: number;
  runningAt: number;
  baselineAt: number;
  /** Hears every JSON object the child prints from now on (log lines, console notifications). */
  onObject(listener: (object: Record<string, unknown>) => void): void;
  /** Resident memory now and at its peak (VmRSS, VmHWM), MB. */
  memory(): { rssMb: number; peakMb: number };
  /** CPU time used so far (user + system), ms. */
  cpuMs(): number;
  /** Its warning and error log lines so far, counted by message ("none" when none). */
  problems(): string;
  /** The live heap after a full garbage collection (bench/heap-probe.mjs), MB. */
  liveHeapMb(): Promise<number>;
  scrape(): Promise<PrometheusSample[]>;
  /** SIGTERM, a graceful stop; SIGKILL when it takes longer than 20 s. */
  stop(): Promise<void>;
}

/** The V8 flags the image's ENTRYPOINT runs the daemon with (Dockerfile). */
const DAEMON_NODE_FLAGS = "--max-semi-space-size=32";

const HEAP_PROBE = fileURLToPath(new URL("./heap-probe.mjs", import.meta.url));

/**
 * The settings of a benchmark daemon: the tests' run settings with production
 * timeouts, and the heap probe loaded.
 */
export function benchDaemonEnv(airport: BenchAirport): Record<string, string> {
  return {
    ...runEnv(airport),
    REDIS_URL: airport.redisUrl,
    // The young generation the image's ENTRYPOINT gives the daemon (Dockerfile).
    NODE_OPTIONS:
      `${process.env.NODE_OPTIONS ?? ""} ${DAEMON_NODE_FLAGS} --import=${HEAP_PROBE}`.trim(),
    POLL_INTERVAL: "1s",
    FLIGHT_API_MAX_ATTEMPTS: "4",
    FLIGHT_API_TIMEOUT: "30s",
    DELIVERY_STALL_TIMEOUT: "30s",
    HTTP_PORT: "0",
  };
}

/** Spawns `flightwatch run` for the airport; resolves once its baseline is committed. */
export async function startDaemonChild(
  airport: BenchAirport,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<DaemonChild> {
  const spawnedAt = Date.now();
  const proc = spawnCli(["run", "--consumer", "bench", ...args], {
    ...benchDaemonEnv(airport),
    ...env,
  });
  const pid = proc.child.pid as number;
  const listeners: Array<(object: Record<string, unknown>) => void> = [];
  let rest = "";
  const seen: Record<string, number> = {};
  const problems = new Map<string, number>();
  const heapWaiters: Array<(mb: number) => void> = [];
  let url = "";
  // Lines are parsed as they come (spawnCli's copy of all output is dropped: a run
  // prints tens of MB of log lines).
  proc.child.stdout.removeAllListeners("data");
  proc.child.stdout.setEncoding("utf8");
  proc.child.stdout.on("data", (chunk: string) => {
    const lines = `${rest}${chunk}`.split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      let object: Record<string, unknown>;
      try {
        object = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const probe = object.heapProbe as { heapUsed: number } | undefined;
      if (probe) heapWaiters.shift()?.(probe.heapUsed / 1024 / 1024);
      if (typeof object.msg === "string") {
        if (["warn", "error", "fatal"].includes(String(object.level))) {
          const text = object.msg.slice(0, 100);
          problems.set(text, (problems.get(text) ?? 0) + 1);
        }
        const at = Date.parse(String(object.time));
        if (object.msg.includes(" rules live") || object.msg.includes(" rule live")) {
          seen.rulesLive ??= at;
        }
        if (typeof object.http === "string") {
          url = object.http;
          seen.running ??= at;
        }
      }
      for (const listener of listeners) listener(object);
    }
  });
  // Whatever becomes of the benchmark, the daemon does not outlive it.
  const orphan = () => proc.child.kill("SIGKILL");
  process.once("exit", orphan);
  void proc.exited.then(() => process.off("exit", orphan));
  const child: DaemonChild = {
    proc,
    pid,
    url: "",
    spawnedAt,
    rulesLiveAt: 0,
    runningAt: 0,
    baselineAt: 0,
    onObject: (listener) => listeners.push(listener),
    memory() {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
      return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
    },
    cpuMs() {
      // Fields 14 and 15 (utime, stime) in clock ticks of 10 ms, after the command name.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    liveHeapMb: () =>
      new Promise((resolve) => {
        heapWaiters.push(resolve);
        proc.child.kill("SIGUSR2");
      }),
    problems: () =>
      problems.size === 0
        ? "none"
        : [...problems].map(([text, count]) => `${count} × "${text}"`).join(", "),
    scrape: () => scrape(child.url),
    stop: () => stopChild(proc),
  };
  try {
    await waitFor(async () => {
      if (proc.child.exitCode !== null) {
        throw new Error(`flightwatch run exited (${proc.child.exitCode}): ${proc.stderr()}`);
      }
      return url !== "";
    }, 120_000);
    child.url = url;
    child.rulesLiveAt = seen.rulesLive ?? 0;
    child.runningAt = seen.running ?? 0;
    await waitFor(
      async () => (await airport.t.redis.hget(airport.keys.detection, "watermark")) !== null,
      180_000,
    );
    child.baselineAt = Date.now();
  } catch (err) {
    proc.child.kill("SIGKILL");
    await proc.exited;
    throw err;
  }
  return child;
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function metricSum(
  samples: readonly PrometheusSample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  let sum = 0;
  for (const s of samples) {
    if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) {
      sum += s.value;
    }
  }
  return sum;
}

/** Fisher–Yates: the same order for the same seed. */
export function shuffle<T>(items: T[], seed: number): void {
  const random = new Random(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
}

/** Stops a benchmark's child: SIGTERM, SIGKILL if it has not ended 20 s later. */
export async function stopChild(proc: CliProcess): Promise<void> {
  if (proc.child.exitCode !== null) return;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 20_000);
  await proc.exited;
  clearTimeout(timer);
}
