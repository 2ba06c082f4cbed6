/**
 * Memory and scaling of the real daemon: `flightwatch run` (a child process) tracking
 * a simulated airport of 1,000 to 30,000 physical flights with 100 to 100,000
 * passenger rules, while the benchmark changes gates upstream at ×1, ×10 and ×100 of a
 * busy airport's rate — one dimension grown at a time from 10,000 flights and 10,000
 * rules (100,000 for the change rate). For each setting: the time to load the rules and take the
 * baseline, the daemon's RSS (after the baseline, at steady state, at its peak), Redis
 * bytes per tracked flight, incremental poll durations, and the notifications the
 * changes caused. The setting of 10,000 flights and 100,000 rules gives the memory
 * headlines; the table shows how each figure moves as one dimension grows.
 */

import { cpus, loadavg } from "node:os";
import type { Flight } from "../src/api/types.js";
import type { Benchmark, Headline } from "./benchmark.js";
import {
  type BenchAirport,
  type DaemonChild,
  metricSum,
  RECORDS_PER_10K_FLIGHTS,
  shuffle,
  startBenchAirport,
  startDaemonChild,
  writeRuleFiles,
} from "./daemon-rig.js";
import { applyAtRate, GateUpdates, quantile } from "./gate-updates.js";
import { type Footprint, footprintBytes, redisFootprint, usedMemory } from "./redis-footprint.js";
import { sleep } from "./support/polling.js";
import { HOOK_SECRET } from "./support/run-child.js";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.js";

/** Flight changes per second at ×1 per 10,000 flights: a busy hour (the simulated day averages ~0.45). */
const BASE_RATE_PER_10K = 1;
/** One run of the daemon: airport size, rules, and the change rates it goes through. */
interface Setting {
  flights: number;
  rules: number;
  rates: number[];
}
const SETTINGS: Setting[] = [
  { flights: 1_000, rules: 10_000, rates: [1] },
  { flights: 10_000, rules: 100, rates: [1] },
  { flights: 10_000, rules: 10_000, rates: [1] },
  { flights: 10_000, rules: 100_000, rates: [1, 10, 100] },
  { flights: 30_000, rules: 10_000, rates: [1] },
];
/** The setting of the memory headlines. */
const HEADLINE = { flights: 10_000, rules: 100_000 };
const PHASE_SECONDS = 8;
/** Quiet time after the baseline before the steady-state figures. */
const SETTLE_MS = 2_000;
const RULES_PER_FILE = 1_000;

const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/**
 * `count` passenger rules as rules/passenger.yaml has them (a flight number and date,
 * gate and delay and boarding and cancellation, a signed webhook to the passenger's
 * app), written as JSON the way a generator would, a rule a line; spread over every
 * flight number of the airport: one per number and date, and round again when there
 * are more rules than numbers.
 */
function passengerRuleFiles(
  records: readonly Flight[],
  count: number,
  hookUrl: string,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f * RULES_PER_FILE < count; f++) {
    const lines: string[] = [];
    for (let i = f * RULES_PER_FILE; i < Math.min(count, (f + 1) * RULES_PER_FILE); i++) {
      const record = records[i % records.length] as Flight;
      const date = record.scheduleDate;
      const rule = {
        id: `pax-${i}`,
        labels: { booking: `B${i.toString(36).toUpperCase()}` },
        flights: { flight: record.flightName, schedule: { from: date, to: date } },
        changes: [
          { kind: "gate", within: "4h" },
          { kind: "departure_time", delay_at_least: "15m", shift_at_least: "15m" },
          { kind: "state", states: ["BRD", "GCL"] },
          "cancelled",
          "uncancelled",
        ],
        channels: [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a rule variable, read by flightwatch
          { type: "webhook", url: hookUrl, secret: "${RULE_HOOK_SECRET}", format: "json" },
        ],
        cool_down: "30m",
      };
      lines.push(JSON.stringify(rule));
    }
    files[`passengers-${String(f).padStart(3, "0")}.json`] =
      `{"rules": [\n${lines.join(",\n")}\n]}\n`;
  }
  return files;
}

/** One row of the table. */
interface Row {
  flights: number;
  rules: number;
  rate: number;
  rulesLiveS: number;
  baselineS: number;
  rssBaselineMb: number;
  rssSteadyMb: number;
  peakMb: number;
  heapMb: number;
  snapshotBytes: number;
  prefixBytes: number;
  pollMs: number;
  pollP95Ms: number;
  notificationsPerSecond: number;
  latencyP95Ms: number;
}

/** Incremental polls' durations (logged when they found changes) and notifications. */
class PhaseLog {
  polls: number[] = [];
  latencies: number[] = [];
  notifications = 0;

  reset(): void {
    this.polls = [];
    this.latencies = [];
    this.notifications = 0;
  }
}

function readArrivals(receiver: WebhookReceiver, updates: GateUpdates, log: PhaseLog): void {
  for (const d of receiver.deliveries.splice(0)) {
    if (!d.verified) continue;
    log.notifications++;
    const seq = updates.arrived(d.rawBody, d.receivedAt);
    if (seq !== undefined) log.latencies.push(d.receivedAt - updates.appliedAt(seq));
  }
}

/** Runs one setting: its own airport, rules and daemon. */
async function runSetting(setting: Setting, receiver: WebhookReceiver): Promise<Row[]> {
  const recordsPerDay = Math.round((RECORDS_PER_10K_FLIGHTS * setting.flights) / 10_000);
  const airport: BenchAirport = await startBenchAirport(`scale-${setting.flights}`, recordsPerDay);
  let daemon: DaemonChild | undefined;
  const rows: Row[] = [];
  try {
    const records = [...airport.sim.simulator.store.all()];
    shuffle(records, setting.flights);
    await writeRuleFiles(airport, passengerRuleFiles(records, setting.rules, receiver.url));
    const usedBefore = await usedMemory(airport.t.redis);
    daemon = await startDaemonChild(airport);
    const live = daemon;
    const log = new PhaseLog();
    live.onObject((o) => {
      if (o.mode === "incremental" && typeof o.durationMs === "number")
        log.polls.push(o.durationMs);
    });
    const samples = await live.scrape();
    const tracked = metricSum(samples, "flightwatch_tracked_flights");
    const baselineS = metricSum(samples, "flightwatch_poll_duration_seconds_sum", {
      mode: "baseline",
    });
    const rssBaselineMb = live.memory().rssMb;
    await sleep(SETTLE_MS);
    const updates = new GateUpdates(airport.sim);
    receiver.deliveries.splice(0);
    let next = 0;
    for (const multiple of setting.rates) {
      const rate = (BASE_RATE_PER_10K * multiple * setting.flights) / 10_000;
      log.reset();
      const rss: number[] = [];
      const sampler = setInterval(() => {
        rss.push(live.memory().rssMb);
        readArrivals(receiver, updates, log);
      }, 1_000);
      const t0 = Date.now();
      await applyAtRate(rate, Math.round(rate * PHASE_SECONDS), () => {
        updates.apply(
          airport.operating[next++ % airport.operating.length] as string,
          (s) => `QP-${s}`,
        );
      });
      // Whatever is left of the phase, then a second for the last poll's notifications.
      await sleep(Math.max(0, t0 + PHASE_SECONDS * 1000 - Date.now()) + 1_000);
      clearInterval(sampler);
      readArrivals(receiver, updates, log);
      const seconds = (Date.now() - t0) / 1000;
      const footprint: Footprint = await redisFootprint(airport.t.redis, airport.keys);
      log.polls.sort((a, b) => a - b);
      log.latencies.sort((a, b) => a - b);
      const row: Row = {
        flights: tracked,
        rules: setting.rules,
        rate,
        rulesLiveS: (live.rulesLiveAt - live.spawnedAt) / 1000,
        baselineS,
        rssBaselineMb,
        rssSteadyMb: quantile(
          rss.sort((a, b) => a - b),
          0.5,
        ),
        peakMb: live.memory().peakMb,
        heapMb: 0,
        snapshotBytes: footprintBytes(footprint, ["snapshots", "snapshot index"]) / tracked,
        prefixBytes: footprintBytes(footprint) / tracked,
        pollMs: log.polls.length > 0 ? log.polls.reduce((a, b) => a + b, 0) / log.polls.length : 0,
        pollP95Ms: quantile(log.polls, 0.95),
        notificationsPerSecond: log.notifications / seconds,
        latencyP95Ms: quantile(log.latencies, 0.95),
      };
      rows.push(row);
      if (
        setting.flights === HEADLINE.flights &&
        setting.rules === HEADLINE.rules &&
        multiple === 1
      ) {
        printFootprint(footprint, tracked, (await usedMemory(airport.t.redis)) - usedBefore);
      }
    }
    // Once, at the end: the full collection also shrinks the RSS of what would follow.
    const heapMb = await live.liveHeapMb();
    for (const row of rows) row.heapMb = heapMb;
  } finally {
    await daemon?.stop();
    await airport.close();
  }
  return rows;
}

function printFootprint(footprint: Footprint, tracked: number, usedDelta: number): void {
  console.log(
    `Redis at ${fmt(tracked)} tracked flights and 100,000 rules, after the ×1 phase ` +
      "(MEMORY USAGE … SAMPLES 0 of every key of the prefix):",
  );
  for (const [family, entry] of Object.entries(footprint).sort((a, b) => b[1].bytes - a[1].bytes)) {
    console.log(
      `  ${family.padEnd(16)} ${fmt(entry.keys).padStart(7)} keys ${mb(entry.bytes).padStart(7)} MB ` +
        `${fmt(entry.bytes / tracked).padStart(6)} B per tracked flight`,
    );
  }
  console.log(
    `  INFO used_memory grew by ${mb(usedDelta)} MB meanwhile (the whole server: other clients count too)`,
  );
}

function printTable(rows: readonly Row[]): void {
  console.log(
    "| flights | rules | changes/s | start → rules live | baseline poll | RSS after baseline / steady / peak, live heap | Redis B per flight: snapshots + index / whole prefix | incremental poll mean / p95 | notifications/s, change → received p95 |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${fmt(r.flights)} | ${fmt(r.rules)} | ${r.rate < 1 ? r.rate.toFixed(1) : fmt(r.rate)} | ${r.rulesLiveS.toFixed(1)} s | ` +
        `${r.baselineS.toFixed(1)} s | ${fmt(r.rssBaselineMb)} / ${fmt(r.rssSteadyMb)} / ${fmt(r.peakMb)} MB, ${fmt(r.heapMb)} MB | ` +
        `${fmt(r.snapshotBytes)} / ${fmt(r.prefixBytes)} | ` +
        `${r.pollMs > 0 ? `${fmt(r.pollMs)} / ${fmt(r.pollP95Ms)} ms` : "—"} | ` +
        `${r.notificationsPerSecond.toFixed(1)}, ${r.latencyP95Ms > 0 ? `${fmt(r.latencyP95Ms)} ms` : "—"} |`,
    );
  }
}

export const scaleBenchmark: Benchmark = {
  name: "scale",
  title: "Memory and scaling: flights, rules, change rate",
  async run() {
    console.log(
      `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(2)} before; the daemon, Redis and ` +
        "this process (the simulator and the receiver) share the cores.",
    );
    console.log(
      "method: for each setting a new simulated airport (served over loopback HTTP, 20 records a page) " +
        "and a new `flightwatch run` child process (POLL_INTERVAL=1s, otherwise the defaults: " +
        "POLL_OVERLAP 60s, a 4-day horizon) with passenger rules as rules/passenger.yaml has them, written as JSON " +
        `(flight number and date, gate within 4h, delays, boarding, cancellation; a signed webhook), ` +
        `${RULES_PER_FILE} a file. After the baseline and ${SETTLE_MS / 1000} s, gates change upstream at ` +
        `${BASE_RATE_PER_10K} flight change/s per 10,000 flights ×1 (a busy hour; the simulated day ` +
        "averages ~0.45), ×10 and ×100, each for " +
        `${PHASE_SECONDS} s. RSS is the child's VmRSS (median of 1 s samples over the phase; it ` +
        "includes tsx, which compiles the TypeScript sources in memory), peak its VmHWM, live heap " +
        "what is left on the V8 heap after a full garbage collection at the end of the setting " +
        "(bench/heap-probe.mjs; RSS keeps pages V8 has not given back); Redis bytes " +
        "are MEMORY USAGE of the prefix's keys; poll figures are of polls that found changes.",
    );
    const receiver = await startWebhookReceiver({ secret: HOOK_SECRET });
    const rows: Row[] = [];
    try {
      for (const setting of SETTINGS) rows.push(...(await runSetting(setting, receiver)));
    } finally {
      await receiver.close();
    }
    printTable(rows);
    const memory = rows.find(
      (r) => r.rules === HEADLINE.rules && Math.abs(r.flights - HEADLINE.flights) < 1_000,
    );
    if (memory === undefined) return [];
    const headlines: Headline[] = [
      {
        figure: `daemon RSS at ${fmt(memory.flights)} flights and 100,000 rules: steady / peak`,
        value: `${fmt(memory.rssSteadyMb)} / ${fmt(memory.peakMb)} MB`,
      },
      {
        figure: `daemon live heap at ${fmt(memory.flights)} flights and 100,000 rules (after a full GC, end of the run)`,
        value: `${fmt(memory.heapMb)} MB`,
      },
      {
        figure: "Redis per tracked flight (snapshot key + index entry)",
        value: `${fmt(memory.snapshotBytes)} B`,
        aim: "≤ 1,024 B",
        met: memory.snapshotBytes <= 1024,
      },
      {
        figure: "Redis per tracked flight, every key of the deployment",
        value: `${fmt(memory.prefixBytes)} B`,
      },
    ];
    return headlines;
  },
};
