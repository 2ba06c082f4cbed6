/**
 * Webhook delivery throughput, end to end: notifications of simulator alerts enqueued
 * through DeliveryQueues and delivered by DeliveryWorkers with the WebhookSender
 * (CloudEvents, Standard Webhooks signatures) to a loopback receiver that checks every
 * signature with the `standardwebhooks` package. The flightwatch side runs in one or
 * two processes that each enqueue and deliver (bench/delivery-process-child.ts), as
 * `flightwatch watch` processes sharing one Redis do; the receiver runs in a process
 * of its own. Real Redis (REDIS_URL, default 127.0.0.1:6379) under a prefix of its
 * own, deleted afterwards. Each setup gets a burst (every notification enqueued at
 * once: throughput, and latencies that are mostly time in the queue) and then a
 * steady rate below capacity (the latency a notification sees when the queue keeps
 * up). Redis, the receiver and the flightwatch processes all share the machine's cores.
 */
import { randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import {
  connectRedis,
  deleteByPattern,
  type RedisConnection,
} from "../src/store/redis-connection.js";
import { redisKeys } from "../src/store/redis-keys.js";
import { type BenchChild, forkBenchChild } from "./bench-child.js";
import type { Benchmark } from "./benchmark.js";
import { benchAlerts } from "./delivery-alerts.js";
import type { EnqueueReport, ProcessRequest, ProcessSettings } from "./delivery-process-child.js";
import { BENCH_SECRET } from "./delivery-webhook-rules.js";
import { type RunFigures, runFigures } from "./latency-figures.js";
import type { ReceiverReport, ReceiverRequest } from "./webhook-receiver-child.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const BURST = 20_000;
const STEADY_RATE = 1_000;
const STEADY_SECONDS = 5;
/** The workers' default webhook concurrency (DeliveryWorkers), per process. */
const CONCURRENCY = 64;
const PROCESSES = [1, 2];

const fmt = (n: number): string => Math.round(n).toLocaleString("en");

/** Redis server CPU so far, ms (all its clients: other work on the same Redis counts too). */
async function redisCpuMs(redis: RedisConnection): Promise<number> {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (field("used_cpu_user") + field("used_cpu_sys")) * 1000;
}

/** CPU time so far, ms: the flightwatch processes, the receiver, Redis. */
interface Cpu {
  flightwatch: number;
  receiver: number;
  redis: number;
}

function print(label: string, f: RunFigures, cpu: Cpu, count: number): void {
  const per = (ms: number) => fmt((ms * 1000) / count);
  console.log(
    `  ${label.padEnd(15)} ${fmt(f.perSecond)} notifications/s end to end (${fmt(count)} in ${f.seconds.toFixed(2)} s), ` +
      `enqueue ${fmt(f.enqueuePerSecond)}/s; enqueue→received p50 ${fmt(f.p50)} ms, ` +
      `p95 ${fmt(f.p95)} ms, p99 ${fmt(f.p99)} ms, max ${fmt(f.max)} ms; ` +
      `${f.duplicates} duplicates, ${f.missing} missing, ${f.unverified} bad signatures`,
  );
  console.log(
    `  ${"".padEnd(15)} CPU per notification: ${per(cpu.flightwatch)} µs flightwatch (enqueue + workers), ` +
      `${per(cpu.receiver)} µs receiver, ${per(cpu.redis)} µs Redis`,
  );
}

/** One setup: its own receiver, Redis prefix and processes; a burst, then a steady rate. */
async function runSetup(processes: number): Promise<void> {
  console.log(
    `${processes} flightwatch process${processes > 1 ? "es" : ""} (enqueue + workers, webhook concurrency ${CONCURRENCY} each):`,
  );
  const receiver = forkBenchChild("./webhook-receiver-child.ts", {
    BENCH_WEBHOOK_SECRET: BENCH_SECRET,
  });
  const { url } = (await receiver.hello) as { url: string };
  const collect = (collect: number, from: number) =>
    receiver.ask<ReceiverReport>({ collect, from, timeoutMs: 120_000 } satisfies ReceiverRequest);
  const prefix = `fwbench-deliver-${randomUUID().slice(0, 8)}`;
  const plain = await connectRedis(REDIS_URL);
  const children: BenchChild[] = [];
  try {
    for (let index = 0; index < processes; index++) {
      const child = forkBenchChild("./delivery-process-child.ts");
      const settings: ProcessSettings = {
        redisUrl: REDIS_URL,
        prefix,
        url,
        index,
        of: processes,
        burst: BURST,
        steadyRate: STEADY_RATE,
        steadySeconds: STEADY_SECONDS,
        concurrency: CONCURRENCY,
      };
      children.push(child);
      await child.ask(settings);
    }
    const cpuNow = async (): Promise<Cpu> => ({
      flightwatch: (
        await Promise.all(
          children.map((c) => c.ask<{ cpuMs: number }>({ cpu: true } satisfies ProcessRequest)),
        )
      ).reduce((n, a) => n + a.cpuMs, 0),
      receiver: (await collect(0, 0)).cpuMs,
      redis: await redisCpuMs(plain),
    });
    let received = 0;
    const run = async (label: string, run: "burst" | "steady") => {
      const before = await cpuNow();
      const reports = await Promise.all(
        children.map((c) => c.ask<EnqueueReport>({ run } satisfies ProcessRequest)),
      );
      const enqueuedAt = new Map<string, number>();
      for (const r of reports) {
        r.ids.forEach((id, i) => {
          enqueuedAt.set(id, r.at[i] as number);
        });
      }
      const arrivals = await collect(received + enqueuedAt.size, received);
      received += enqueuedAt.size;
      const after = await cpuNow();
      const enqueueMs = Math.max(...reports.map((r) => r.enqueueMs));
      const cpu: Cpu = {
        flightwatch: after.flightwatch - before.flightwatch,
        receiver: after.receiver - before.receiver,
        redis: after.redis - before.redis,
      };
      print(label, runFigures(enqueuedAt, enqueueMs, arrivals), cpu, enqueuedAt.size);
    };
    await run(`burst ${fmt(BURST)}`, "burst");
    await run(`steady ${fmt(STEADY_RATE)}/s`, "steady");
  } finally {
    await Promise.all(children.map((c) => c.ask({ stop: true } satisfies ProcessRequest)));
    await receiver.ask({ close: true } satisfies ReceiverRequest).catch(() => undefined);
    await receiver.exited;
    await deleteByPattern(plain, redisKeys(prefix).pattern);
    plain.disconnect();
  }
}

export const deliveryWebhookBenchmark: Benchmark = {
  name: "delivery-webhook",
  title: "Webhook delivery throughput and latency",
  async run() {
    const built = benchAlerts(BURST + STEADY_RATE * STEADY_SECONDS);
    console.log(
      `${cpus().length} CPUs, node ${process.version}, load average ${loadavg()[0]?.toFixed(2)} before; ` +
        `Redis, the receiver (its own process) and flightwatch share the cores`,
    );
    console.log(
      `alerts: ${fmt(built.alerts.length)} from ${fmt(built.groups)} simulator flight-change groups ` +
        `(${(built.changes / built.alerts.length).toFixed(1)} changes each) over ${built.ruleIds.length} rules, ` +
        `one signed CloudEvents endpoint; enqueued in batches of 100`,
    );
    for (const processes of PROCESSES) await runSetup(processes);
  },
};
