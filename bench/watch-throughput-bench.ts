/**
 * Detection alone under sustained change (issue 18): the real `flightwatch watch` (a
 * child process, the CLI from source as bench/daemon-rig.ts starts `run`) polling a
 * simulated airport of ~10,000 physical flights over loopback HTTP, on a real Redis,
 * printing one JSON change event per line. The benchmark moves gates upstream at a
 * rising rate (bench/gate-updates.ts), a step at a time, and times each change from
 * the moment it was applied upstream to the moment its event line (the flight's id
 * and the new gate) came out of the child's stdout.
 *
 * Per step: changes applied, seen, superseded (changed again before a poll read it:
 * no poller can see the older gate), missing; latency p50/p99; requests the
 * simulator answered; records read per change (distinct records of each poll, from
 * the child's poll lines on stderr); the child's CPU (utime + stime from /proc) per
 * change. Beside it, what re-reading the whole horizon every poll would cost, measured
 * on the same server in the same run.
 *
 * BENCH_WATCH_RATES (comma-separated changes/s), BENCH_WATCH_PAGES (comma-separated
 * page sizes) and BENCH_WATCH_CPU_PROF (a directory: the child runs with --cpu-prof)
 * are for development runs.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { FlightApiClient } from "../src/api/flight-api-client.js";
import { readHorizon } from "../src/detect/flight-reader.js";
import { DEFAULT_HORIZON_DAYS, scheduleHorizon } from "../src/detect/horizon.js";
import { type RunningSimulator, startSimulator } from "../src/simulator/http/start-simulator.js";
import { eventsOfFields } from "../src/store/outbox-entry.js";
import type { Benchmark, Headline } from "./benchmark.js";
import {
  type BenchAirport,
  RECORDS_PER_10K_FLIGHTS,
  startBenchAirport,
  stopChild,
} from "./daemon-rig.js";
import { applyAtRate, GateUpdates, quantile } from "./gate-updates.js";
import { type CliProcess, spawnCli, testRedisEnv } from "./support/cli-process.js";
import { waitFor } from "./support/polling.js";

const ZONE = "Europe/Amsterdam";
const INTERVAL = "1s";
const STEP_SECONDS = 6;
const RATES = (process.env.BENCH_WATCH_RATES ?? "100,250,500,1000,1500,2000,3000")
  .split(",")
  .map(Number);
const PAGE_SIZES = (process.env.BENCH_WATCH_PAGES ?? "20,1000").split(",").map(Number);
const CPU_PROF_DIR = process.env.BENCH_WATCH_CPU_PROF;
const CPU_PROFILE = fileURLToPath(new URL("./cpu-profile.mjs", import.meta.url));
/** A step is kept up with when every change is seen with p99 within this. */
const KEPT_UP_P99_MS = 5_000;
const AIM_PER_SECOND = 1_000;
/** Longest wait for a step's changes after it ends (the next step starts then anyway). */
const DRAIN_MS = 30_000;

const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const gate = (seq: number): string => `QW-${seq}`;

/** One poll line of the child's stderr (`poll 7 incremental: 3 requests, 41 records, …`). */
interface PollLine {
  at: number;
  mode: string;
  requests: number;
  records: number;
  events: number;
  ms: number;
}
const POLL_LINE =
  /^poll \d+ (\w+): (\d+) requests, (\d+) records.*?, (\d+) flights, (\d+) events, (\d+) ms/;

/** The `flightwatch watch` child and what it has printed. */
interface WatchChild {
  proc: CliProcess;
  pid: number;
  polls: PollLine[];
  /** Event lines printed, and gate events among them that carry a benchmark gate. */
  lines: number;
  /** CPU time used so far (user + system), ms. */
  cpuMs(): number;
  /** Time its main thread waited for a CPU so far, ms. */
  runQueueMs(): number;
  stop(): Promise<void>;
}

/** The child's CPU time, ms: utime + stime (fields 14, 15; clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Time the child's main thread (the JS thread) spent runnable but waiting for a CPU,
 * ms (/proc/<pid>/schedstat, second field, ns): on a shared machine, the part of the
 * latency that is other processes' doing, not the watcher's.
 */
function runQueueMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/schedstat`, "utf8").trim().split(" ");
  return Number(fields[1]) / 1e6;
}

/** Spawns `flightwatch watch` on `baseUrl`; resolves once its baseline is committed. */
async function startWatchChild(
  airport: BenchAirport,
  baseUrl: string,
  updates: GateUpdates,
): Promise<WatchChild> {
  const env: Record<string, string> = {
    ...testRedisEnv(airport.t.prefix),
    FLIGHT_API_BASE_URL: baseUrl,
    FLIGHT_API_TOKEN: airport.token,
    AIRPORT_TIMEZONE: ZONE,
    POLL_INTERVAL: INTERVAL,
    FLIGHT_API_MAX_ATTEMPTS: "4",
    FLIGHT_API_TIMEOUT: "30s",
  };
  if (CPU_PROF_DIR) {
    env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --import=${CPU_PROFILE}`.trim();
    env.CPU_PROFILE_DIR = CPU_PROF_DIR;
  }
  const proc = spawnCli(["watch", "--consumer", "bench"], env);
  const pid = proc.child.pid as number;
  const child: WatchChild = {
    proc,
    pid,
    polls: [],
    lines: 0,
    cpuMs: () => cpuMsOf(pid),
    runQueueMs: () => runQueueMsOf(pid),
    stop: () => stopChild(proc),
  };
  // Lines are parsed as they come (spawnCli's copy of everything is dropped).
  let rest = "";
  proc.child.stdout.removeAllListeners("data");
  proc.child.stdout.setEncoding("utf8");
  proc.child.stdout.on("data", (chunk: string) => {
    const at = Date.now();
    const lines = `${rest}${chunk}`.split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "") continue;
      child.lines++;
      let event: { kind?: string; new?: unknown; flight?: { id?: string } };
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      if (event.kind !== "gate" || typeof event.new !== "string") continue;
      const seq = updates.arrived(event.new, at);
      if (seq !== undefined && updates.flightOf(seq) !== event.flight?.id) {
        throw new Error(`gate ${event.new} printed for flight ${event.flight?.id}`);
      }
    }
  });
  let errRest = "";
  let errTail = "";
  proc.child.stderr.removeAllListeners("data");
  proc.child.stderr.setEncoding("utf8");
  proc.child.stderr.on("data", (chunk: string) => {
    const at = Date.now();
    const lines = `${errRest}${chunk}`.split("\n");
    errRest = lines.pop() ?? "";
    for (const line of lines) {
      const m = POLL_LINE.exec(line);
      if (!m) {
        errTail = `${errTail}${line}\n`.slice(-2_000);
        continue;
      }
      child.polls.push({
        at,
        mode: m[1] as string,
        requests: Number(m[2]),
        records: Number(m[3]),
        events: Number(m[5]),
        ms: Number(m[6]),
      });
    }
  });
  const orphan = () => proc.child.kill("SIGKILL");
  process.once("exit", orphan);
  void proc.exited.then(() => process.off("exit", orphan));
  try {
    await waitFor(async () => {
      if (proc.child.exitCode !== null) {
        throw new Error(`flightwatch watch exited (${proc.child.exitCode}): ${errTail}`);
      }
      return (await airport.t.redis.hget(airport.keys.detection, "watermark")) !== null;
    }, 180_000);
  } catch (err) {
    proc.child.kill("SIGKILL");
    await proc.exited;
    throw err;
  }
  return child;
}

/** One step of the ramp. */
interface Step {
  rate: number;
  from: number;
  to: number;
  seconds: number;
  requests: number;
  polls: PollLine[];
  cpuMs: number;
  runQueueMs: number;
  benchCpuMs: number;
}

const benchCpuMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** Steps the rate up until a step falls clearly behind (or the last step). */
async function ramp(
  child: WatchChild,
  server: RunningSimulator,
  updates: GateUpdates,
  pool: readonly string[],
  cursor: { next: number },
): Promise<Step[]> {
  const steps: Step[] = [];
  for (const rate of RATES) {
    const from = updates.next;
    const cpu0 = child.cpuMs();
    const wait0 = child.runQueueMs();
    const bench0 = benchCpuMs();
    const requests0 = server.faults.counters.requests;
    const polls0 = child.polls.length;
    const t0 = Date.now();
    await applyAtRate(rate, rate * STEP_SECONDS, () => {
      updates.apply(pool[cursor.next++ % pool.length] as string, gate);
    });
    const t1 = Date.now();
    const to = updates.next - 1;
    steps.push({
      rate,
      from,
      to,
      seconds: (t1 - t0) / 1000,
      requests: server.faults.counters.requests - requests0,
      polls: child.polls.slice(polls0),
      cpuMs: child.cpuMs() - cpu0,
      runQueueMs: child.runQueueMs() - wait0,
      benchCpuMs: benchCpuMs() - bench0,
    });
    const pending = to - from + 1 - updates.arrivedCount(from, to);
    if (pending > (rate * KEPT_UP_P99_MS) / 1000) break;
  }
  // The backlog of the last steps, for their latencies.
  const first = steps[0]?.from ?? updates.next;
  await waitFor(async () => {
    const fate = updates.fate(first, updates.next - 1);
    return fate.missing === 0;
  }, DRAIN_MS).catch(() => undefined);
  return steps;
}

/** What re-reading the whole horizon every poll costs: one full read on the same server. */
interface FullRead {
  requests: number;
  records: number;
  ms: number;
}

async function measureFullRead(server: RunningSimulator, token: string): Promise<FullRead> {
  const client = new FlightApiClient({ baseUrl: server.baseUrl, token, airportTimezone: ZONE });
  try {
    const before = server.faults.counters.requests;
    const t0 = performance.now();
    const read = await readHorizon(client, scheduleHorizon(Date.now(), ZONE, DEFAULT_HORIZON_DAYS));
    return {
      requests: server.faults.counters.requests - before,
      records: read.records.size,
      ms: performance.now() - t0,
    };
  } finally {
    await client.close();
  }
}

/** When each benchmark gate change was committed to the outbox (an entry id is its commit time). */
async function commitTimes(airport: BenchAirport, sinceMs: number): Promise<Map<number, number>> {
  const committed = new Map<number, number>();
  let from = `${sinceMs}-0`;
  for (;;) {
    const entries = await airport.t.redis.xrange(airport.keys.outbox, from, "+", "COUNT", 2_000);
    for (const [id, fields] of entries) {
      for (const event of eventsOfFields(fields) ?? []) {
        const seq = event.kind === "gate" ? /^QW-(\d+)$/.exec(String(event.new))?.[1] : undefined;
        if (seq !== undefined && !committed.has(Number(seq))) {
          committed.set(Number(seq), Number(id.split("-")[0]));
        }
      }
    }
    if (entries.length < 2_000) return committed;
    from = `(${entries.at(-1)?.[0]}`;
  }
}

/**
 * Where each step's latency went: change → committed to the outbox (waiting for a
 * poll, reading, diff, the Redis transaction) and committed → event line out of the
 * child (the outbox consumer, stdout); and how many requests the polls made against
 * the fewest their records needed (records ÷ page size, per poll).
 */
function printStages(
  steps: readonly Step[],
  updates: GateUpdates,
  committed: ReadonlyMap<number, number>,
  pageSize: number,
): void {
  console.log(
    "| changes/s | change → committed p50 / p99 | committed → event line p50 / p99 | incremental polls: requests / fewest possible (records ÷ page size) |",
  );
  console.log("|---|---|---|---|");
  for (const s of steps) {
    const toCommit: number[] = [];
    const toLine: number[] = [];
    for (let seq = s.from; seq <= s.to; seq++) {
      const at = committed.get(seq);
      const line = updates.arrivedAt(seq);
      if (at === undefined) continue;
      toCommit.push(at - updates.appliedAt(seq));
      if (line !== undefined) toLine.push(line - at);
    }
    toCommit.sort((a, b) => a - b);
    toLine.sort((a, b) => a - b);
    const incremental = s.polls.filter((p) => p.mode === "incremental");
    const requests = incremental.reduce((n, p) => n + p.requests, 0);
    const fewest = incremental.reduce(
      (n, p) => n + Math.max(1, Math.ceil(p.records / pageSize)),
      0,
    );
    console.log(
      `| ${fmt(s.rate)} | ${fmt(quantile(toCommit, 0.5))} / ${fmt(quantile(toCommit, 0.99))} ms | ` +
        `${fmt(quantile(toLine, 0.5))} / ${fmt(quantile(toLine, 0.99))} ms | ` +
        `${fmt(requests)} / ${fmt(fewest)}${fewest > 0 ? ` (${(requests / fewest).toFixed(1)}×)` : ""} |`,
    );
  }
}

/** Prints a setting's table; returns its sustained rate and the CPU per change at it. */
function printSteps(
  steps: readonly Step[],
  updates: GateUpdates,
  pageSize: number,
  full: FullRead,
): { sustained: number; cpuUs: number; requestsPerS: number; failedWaitPct?: number } {
  console.log(
    "| changes/s | applied / seen / superseded / missing | change → event line p50 / p99 / max | requests (per s) | polls, ms each | records read per change | watch CPU per change (% of a core) | watch waiting for a CPU % | bench process CPU % (simulator) | full re-read every second: requests/s, records per change |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  let sustained = 0;
  let cpuUs = 0;
  let requestsPerS = 0;
  let failedWaitPct: number | undefined;
  let unbroken = true;
  for (const s of steps) {
    const fate = updates.fate(s.from, s.to);
    const l = fate.latencies;
    const applied = s.to - s.from + 1;
    const p99 = quantile(l, 0.99);
    // A flight comes round again only after 10,000 / rate seconds (5 s at 2,000/s): a
    // change superseded before any poll read it says the polls fell behind.
    const kept =
      fate.missing === 0 &&
      fate.delivered > 0 &&
      fate.superseded <= applied * 0.01 &&
      p99 <= KEPT_UP_P99_MS;
    if (unbroken && !kept) failedWaitPct = (s.runQueueMs / (s.seconds * 1000)) * 100;
    unbroken &&= kept;
    const incremental = s.polls.filter((p) => p.mode === "incremental");
    const records = incremental.reduce((n, p) => n + p.records, 0);
    const pollMs = incremental.reduce((n, p) => n + p.ms, 0) / Math.max(1, incremental.length);
    const perChange = (s.cpuMs * 1000) / applied;
    if (unbroken) {
      sustained = s.rate;
      cpuUs = perChange;
      requestsPerS = s.requests / s.seconds;
    }
    console.log(
      `| ${fmt(s.rate)}${kept ? "" : " ✘"} | ${fmt(applied)} / ${fmt(fate.delivered)} / ${fmt(fate.superseded)} / ${fmt(fate.missing)} | ` +
        `${fmt(quantile(l, 0.5))} / ${fmt(p99)} / ${fmt(l.at(-1) ?? 0)} ms | ` +
        `${fmt(s.requests)} (${fmt(s.requests / s.seconds)}) | ${incremental.length}, ${fmt(pollMs)} | ` +
        `${(records / applied).toFixed(1)} | ${fmt(perChange)} µs (${fmt((s.cpuMs / (s.seconds * 1000)) * 100)} %) | ` +
        `${fmt((s.runQueueMs / (s.seconds * 1000)) * 100)} | ` +
        `${fmt((s.benchCpuMs / (s.seconds * 1000)) * 100)} | ` +
        `${fmt(full.requests)}, ${fmt(full.records / s.rate)} |`,
    );
  }
  console.log(
    `sustained (${pageSize} records a page): ${fmt(sustained)} changes/s with every change seen and p99 ≤ ${KEPT_UP_P99_MS / 1000} s` +
      (sustained > 0
        ? `; poller CPU ${fmt(cpuUs)} µs per changed record at that rate (polls, diff, Redis commit, outbox read, stdout)`
        : ""),
  );
  return {
    sustained,
    cpuUs,
    requestsPerS,
    ...(failedWaitPct === undefined ? {} : { failedWaitPct }),
  };
}

/** Starts a server of `pageSize` records a page on the airport's simulator (the airport's own for 20). */
async function serverFor(
  airport: BenchAirport,
  pageSize: number,
  closers: Array<() => Promise<void>>,
): Promise<RunningSimulator> {
  if (pageSize === airport.sim.server.pageSize) return airport.sim;
  const wide = await startSimulator({
    simulator: airport.sim.simulator,
    live: false,
    tokens: [airport.token],
    pageSize,
  });
  closers.push(() => wide.close());
  return wide;
}

export const watchThroughputBenchmark: Benchmark = {
  name: "watch-throughput",
  title: "Detection alone: sustained changes through `flightwatch watch`",
  async run() {
    const airport = await startBenchAirport("watch-throughput", RECORDS_PER_10K_FLIGHTS);
    const updates = new GateUpdates(airport.sim);
    const closers: Array<() => Promise<void>> = [];
    let child: WatchChild | undefined;
    const headlines: Headline[] = [];
    const load = loadavg()[0]?.toFixed(1);
    try {
      // Every operating flight in turn: a flight changes again only after all others did.
      const pool = airport.operating;
      const cursor = { next: 0 };
      console.log(
        `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(2)} before; the watch child, Redis and ` +
          "this process (the simulator) share the cores.",
      );
      console.log(
        `method: \`flightwatch watch\` (a child process, the CLI from source through tsx) with the detection ` +
          `defaults except POLL_INTERVAL=${INTERVAL} (overlap ${"2 s"} floor / 60 s cap, reconciliation every 15 min, ` +
          `horizon yesterday to two days ahead) polls the simulator (${fmt(airport.sim.simulator.store.size)} records, ` +
          `${fmt(pool.length)} operating flights) over loopback HTTP. Each change moves one operating flight ` +
          "(its codeshare records follow, in the same stamp) to a new gate, flights taken in turn; it is timed " +
          "from the change upstream to its event line (flight id + new gate) on the child's stdout. " +
          `${STEP_SECONDS} s a step; a step is kept up with when every change is seen with p99 ≤ ` +
          `${KEPT_UP_P99_MS / 1000} s and at most 1 % were superseded (changed again before any poll read ` +
          "them: a flight comes round again only after 10,000 / rate seconds, so more says the polls fell behind) (✘: not). " +
          "Why 1 s: at the default POLL_INTERVAL=30s a change waits for the next poll, up to 30 s, so no rate " +
          "meets p99 ≤ 5 s (p99 ≥ ~29.7 s by construction); the aim is only meaningful at a short interval.",
      );
      for (const pageSize of PAGE_SIZES) {
        if (child) {
          await child.stop();
          await airport.clearRedis();
        }
        const server = await serverFor(airport, pageSize, closers);
        const full = await measureFullRead(server, airport.token);
        const t0 = Date.now();
        child = await startWatchChild(airport, server.baseUrl, updates);
        console.log(
          `\n${pageSize} records a page: baseline committed ${((Date.now() - t0) / 1000).toFixed(1)} s after the spawn; ` +
            `one full read of the horizon on this server: ${fmt(full.requests)} requests, ${fmt(full.records)} records, ` +
            `${fmt(full.ms)} ms (what re-reading the horizon every poll costs, per poll).`,
        );
        // Idle: what polling costs with nothing changing.
        const idleCpu0 = child.cpuMs();
        const idleReq0 = server.faults.counters.requests;
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        console.log(
          `idle (5 s, nothing changing): ${fmt(server.faults.counters.requests - idleReq0)} requests, ` +
            `watch CPU ${fmt(((child.cpuMs() - idleCpu0) / 5_000) * 100)} % of a core`,
        );
        // With BENCH_WATCH_CPU_PROF the child profiles the ramp (bench/cpu-profile.mjs).
        if (CPU_PROF_DIR) child.proc.child.kill("SIGUSR2");
        const steps = await ramp(child, server, updates, pool, cursor);
        if (CPU_PROF_DIR) {
          child.proc.child.kill("SIGUSR2");
          await new Promise((resolve) => setTimeout(resolve, 2_000));
        }
        const result = printSteps(steps, updates, pageSize, full);
        printStages(steps, updates, await commitTimes(airport, t0), pageSize);
        console.log(`event lines printed so far: ${fmt(child.lines)}`);
        headlines.push({
          figure: `sustained changes/s through \`flightwatch watch\` (detection alone), change upstream → event line with p99 ≤ 5 s, 10,000 flights, POLL_INTERVAL=1s, ${fmt(pageSize)} records a page`,
          value:
            `${fmt(result.sustained)}/s` +
            (result.failedWaitPct === undefined
              ? ""
              : ` (the step after it: watch waiting for a CPU ${fmt(result.failedWaitPct)} % of the time; load average ${load} before)`),
          aim: `≥ ${fmt(AIM_PER_SECOND)}/s`,
          met: result.sustained >= AIM_PER_SECOND,
        });
        headlines.push({
          figure: `watch CPU per changed record at the sustained rate, ${fmt(pageSize)} records a page (vs a full re-read: ${fmt(full.requests)} requests a poll)`,
          value:
            result.sustained > 0
              ? `${fmt(result.cpuUs)} µs (${fmt(result.requestsPerS)} requests/s)`
              : "n/a",
        });
      }
      return headlines;
    } finally {
      await child?.stop();
      for (const close of closers) await close();
      await airport.close();
    }
  },
};
