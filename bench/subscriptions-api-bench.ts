/**
 * Creating subscriptions through the HTTP API of a running daemon: the real
 * `flightwatch run` (a child process polling the simulator, bench/daemon-rig.ts) on a
 * real Redis, and this process as the clients, over loopback HTTP with undici — both on
 * the machine's cores. Every create is what an app backend sends: an API key, an
 * Idempotency-Key of its own, a booking label, three in four by email and one in four
 * by signed webhook, on the simulator's flights. Two runs: as fast as 32 clients at
 * once get answers (the throughput), and an open loop offering 2,000 creates a second
 * on a fixed schedule, each timed from when it was due (no coordinated omission: a
 * slow answer delays nobody's clock), for the latency at the aimed rate.
 */
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { ApiKeyStore } from "../src/http-api/api-key-store.js";
import type { Benchmark, Headline } from "./benchmark.js";
import {
  type BenchAirport,
  type DaemonChild,
  startBenchAirport,
  startDaemonChild,
  writeRuleFiles,
} from "./daemon-rig.js";
import { type Percentiles, percentiles } from "./latency-figures.js";

/** Issue 22's aims. */
const AIM_PER_SECOND = 2_000;
const AIM_P99_MS = 50;

const WARM_UP = 1_000;
const CLOSED_REQUESTS = 20_000;
const CLIENTS = 32;
const OPEN_RATE = AIM_PER_SECOND;
const OPEN_SECONDS = 10;

const SECRET = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;
const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const ms = (n: number): string => `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`;

/** What the clients send: a body per create, by number. */
interface Workload {
  flights: { flight: string; date: string }[];
  key: string;
}

function body(w: Workload, i: number): string {
  const target = w.flights[i % w.flights.length] as { flight: string; date: string };
  const channel =
    i % 4 === 3
      ? { webhook: `https://app.example.com/hooks/${i % 97}`, secret: SECRET }
      : { email: `passenger-${i}@example.com` };
  return JSON.stringify({ ...target, ...channel, labels: { booking: `B${i.toString(36)}` } });
}

/** One create; resolves to its status. */
async function create(pool: Pool, w: Workload, i: number, run: string): Promise<number> {
  const res = await pool.request({
    method: "POST",
    path: "/api/v1/subscriptions",
    headers: {
      authorization: `Bearer ${w.key}`,
      "content-type": "application/json",
      "idempotency-key": `${run}-${i}`,
    },
    body: body(w, i),
  });
  await res.body.dump();
  return res.statusCode;
}

/** Figures of one run. */
interface RunFigures extends Percentiles {
  requests: number;
  seconds: number;
  perSecond: number;
  failed: number;
  daemonCpuMs: number;
  clientCpuMs: number;
}

async function measure(
  daemon: DaemonChild,
  body: (latencies: number[], statuses: number[]) => Promise<void>,
): Promise<RunFigures> {
  const latencies: number[] = [];
  const statuses: number[] = [];
  const daemonCpu = daemon.cpuMs();
  const clientCpu = process.cpuUsage();
  const started = performance.now();
  await body(latencies, statuses);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(clientCpu);
  return {
    requests: statuses.length,
    seconds,
    perSecond: statuses.length / seconds,
    failed: statuses.filter((s) => s !== 201).length,
    daemonCpuMs: daemon.cpuMs() - daemonCpu,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    ...percentiles(latencies),
  };
}

/** `count` creates from `clients` clients at once, each sending its next when answered. */
function closedLoop(pool: Pool, w: Workload, run: string, count: number, clients: number) {
  return async (latencies: number[], statuses: number[]) => {
    let next = 0;
    const client = async () => {
      while (next < count) {
        const i = next++;
        const at = performance.now();
        statuses.push(await create(pool, w, i, run));
        latencies.push(performance.now() - at);
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
  };
}

/** `rate` creates a second for `seconds`, each sent when due and timed from then. */
function openLoop(pool: Pool, w: Workload, run: string, rate: number, seconds: number) {
  return async (latencies: number[], statuses: number[]) => {
    const count = rate * seconds;
    const start = performance.now();
    const pending: Promise<void>[] = [];
    let sent = 0;
    while (sent < count) {
      const now = performance.now();
      while (sent < count && start + (sent * 1000) / rate <= now) {
        const due = start + (sent * 1000) / rate;
        const i = sent++;
        pending.push(
          create(pool, w, i, run).then((status) => {
            statuses.push(status);
            latencies.push(performance.now() - due);
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(pending);
  };
}

function row(name: string, f: RunFigures): string {
  return (
    `| ${name} | ${fmt(f.requests)} | ${fmt(f.perSecond)}/s | ${ms(f.p50)} | ${ms(f.p95)} | ${ms(f.p99)} | ` +
    `${ms(f.max)} | ${f.failed} | ${fmt(f.daemonCpuMs / f.seconds / 10)} % | ${fmt(f.clientCpuMs / f.seconds / 10)} % |`
  );
}

/** `npm run bench -- subscriptions-api`. */
export const subscriptionsApiBenchmark: Benchmark = {
  name: "subscriptions-api",
  title: "Subscriptions API: creates per second and their latency, against a running daemon",
  async run() {
    let airport: BenchAirport | undefined;
    let daemon: DaemonChild | undefined;
    let pool: Pool | undefined;
    try {
      airport = await startBenchAirport("subs-api", 400, 11);
      // The daemon wants a rule file; this one's flight never flies.
      await writeRuleFiles(airport, {
        "ops.yaml":
          "rules:\n  - id: ops\n    flights: { flight: ZZ9999 }\n    changes: [gate]\n    channels: [{ type: console }]\n",
      });
      daemon = await startDaemonChild(airport);
      const flights = [...airport.sim.simulator.store.all()]
        .filter((f) => f.mainFlight === f.flightName && f.scheduleDate !== undefined)
        .map((f) => ({ flight: f.flightName as string, date: f.scheduleDate as string }));
      const { key } = await new ApiKeyStore(airport.t.redis, airport.keys).create("bench");
      const w: Workload = { flights, key };
      pool = new Pool(daemon.url, { connections: 64 });
      await measure(daemon, closedLoop(pool, w, "warm", WARM_UP, CLIENTS));
      const closed = await measure(daemon, closedLoop(pool, w, "closed", CLOSED_REQUESTS, CLIENTS));
      const open = await measure(daemon, openLoop(pool, w, "open", OPEN_RATE, OPEN_SECONDS));
      // Every flight number and date with subscriptions (`2026-11-27KL1001`), then its hash's size.
      const { t, keys } = airport;
      const filed = await t.redis.zrange(keys.subscriptionFlights, 0, -1);
      const sizes = await Promise.all(
        filed.map((m) => t.redis.hlen(keys.subscriptionsOf(m.slice(10), m.slice(0, 10)))),
      );
      const stored = sizes.reduce((a, b) => a + b, 0);
      console.log(
        `method: \`flightwatch run\` (a child process, POLL_INTERVAL=1s, the simulator's ${fmt(flights.length)} ` +
          `operating flights) on the test Redis; this process sends POST /api/v1/subscriptions over loopback ` +
          `(undici Pool, up to 64 connections), each with the API key, an Idempotency-Key of its own and a ` +
          `booking label, 3 in 4 by email and 1 in 4 by webhook with a secret. ${fmt(WARM_UP)} creates warm up. ` +
          `Closed loop: ${CLIENTS} clients at once, each sending its next create when answered. Open loop: ` +
          `${fmt(OPEN_RATE)} creates a second on a fixed schedule for ${OPEN_SECONDS} s, each timed from when ` +
          `it was due. CPU: % of one core, daemon and clients, over each run. ${fmt(stored)} subscriptions ` +
          `stored at the end; daemon problems: ${daemon.problems()}.`,
      );
      console.log(
        [
          "",
          "| run | creates | rate | p50 | p95 | p99 | max | not 201 | daemon CPU | client CPU |",
          "|---|---|---|---|---|---|---|---|---|---|",
          row(`closed loop, ${CLIENTS} clients`, closed),
          row(`open loop, ${fmt(OPEN_RATE)}/s offered`, open),
          "",
        ].join("\n"),
      );
      const headlines: Headline[] = [
        {
          figure: `creates/s via the API, ${CLIENTS} clients at once (closed loop)`,
          value: `${fmt(closed.perSecond)}/s (p99 ${ms(closed.p99)})`,
          aim: `≥ ${fmt(AIM_PER_SECOND)}/s`,
          met: closed.perSecond >= AIM_PER_SECOND && closed.failed === 0,
        },
        {
          figure: `create latency p99 at ${fmt(OPEN_RATE)}/s offered (open loop)`,
          value: `${ms(open.p99)} (p50 ${ms(open.p50)}, ${fmt(open.perSecond)}/s served)`,
          aim: `≤ ${AIM_P99_MS} ms`,
          met: open.p99 <= AIM_P99_MS && open.failed === 0 && open.perSecond >= 0.98 * OPEN_RATE,
        },
      ];
      for (const h of headlines) {
        console.log(`${h.figure}: ${h.value} — aim ${h.aim}: ${h.met ? "met" : "NOT met"}`);
      }
      return headlines;
    } finally {
      await pool?.close();
      await daemon?.stop();
      await airport?.close();
    }
  },
};
