/**
 * Notifications at the speed of the wire (issue 21): webhook notifications per second
 * through the real daemon (`flightwatch run`, a child process) polling a simulated
 * airport over loopback HTTP, on a Redis of the benchmark's own (a `redis-server` it
 * starts, so that the server's counters are the daemon's alone), delivering to 256
 * signed webhook endpoints of a receiver in its own process. Beside it, in the same
 * run, the wire's own rate: a plain undici client POSTing bodies of the same size,
 * signed the same way, to the same receiver (bench/raw-post-child.ts).
 *
 * 1. A burst: 20,000 flights change gate at once (their codeshare records follow),
 *    each taken by one rule and endpoint; timed from the poll's commit (what detection
 *    hands on) to the last arrival, and from the change.
 *    Figures: notifications/s, daemon CPU per notification (polls included), Redis
 *    commands per notification (INFO commandstats: commands run inside scripts
 *    count) and requests (top-level commands) and socket reads (≈ round trips) per
 *    notification.
 * 2. A sustained 500 changes/s for 10 s: change → received percentiles.
 * 3. Email: a burst of 5,000 gate changes taken by one email rule, through the same
 *    daemon to a local SMTP server (smtp-server, its own process), with the default
 *    pool (SMTP_MAX_CONNECTIONS, SMTP_MAX_MESSAGES); beside it, plain nodemailer
 *    sending as many messages, composed its own way, over a pool of the same size.
 * 4. The same webhook burst with the stages in two processes (`--role poller`,
 *    `--role worker`).
 */
import { cpus, loadavg } from "node:os";
import { Redis } from "ioredis";
import nodemailer from "nodemailer";
import {
  findRedisServer,
  type PrivateRedis,
  startPrivateRedis,
} from "../src/daemon/private-redis.js";
import { startSimulator } from "../src/simulator/http/start-simulator.js";
import type { RedisKeys } from "../src/store/redis-keys.js";
import { forkBenchChild } from "./bench-child.js";
import type { Benchmark, Headline } from "./benchmark.js";
import {
  type BenchAirport,
  benchDaemonEnv,
  type DaemonChild,
  RECORDS_PER_10K_FLIGHTS,
  startBenchAirport,
  startDaemonChild,
  writeRuleFiles,
} from "./daemon-rig.js";
import { applyAtRate, GateUpdates, quantile } from "./gate-updates.js";
import type { RawPostReport, RawPostRequest } from "./raw-post-child.js";
import type { SmtpChildReport, SmtpChildRequest } from "./smtp-receiver-child.js";
import { startRedisCluster } from "./support/redis-cluster.js";
import { HOOK_SECRET } from "./support/run-child.js";
import type { ReceiverReport, ReceiverRequest } from "./webhook-receiver-child.js";

const ENDPOINTS = 256;
const BURST = 20_000;
const STEADY_RATE = 500;
const STEADY_SECONDS = 10;
const EMAIL_BURST = 5_000;
/** The daemon's defaults (SMTP_MAX_CONNECTIONS, twice as many sends in flight; SMTP_MAX_MESSAGES). */
const SMTP_POOL = { maxConnections: 3, inFlight: 6, maxMessages: 100 };
/** Gate of email change `seq`: the `mail` rule's. */
const mailGate = (seq: number): string => `QM-${seq}`;
/** Flights enough for the burst and the steady phase, each changed once per setup. */
const RECORDS_PER_DAY = Math.ceil(RECORDS_PER_10K_FLIGHTS * 2.6);
const PAGE_SIZE = 1_000;
const WAIT_MS = 180_000;
/** The daemon's webhook concurrency (the raw client keeps as many requests in flight). */
const CONCURRENCY = 64;

const fmt = (n: number): string => Math.round(n).toLocaleString("en");

/** The machine's CPU time so far, busy and in all, summed over its cores (ms), at `at`. */
interface MachineCpu {
  at: number;
  busy: number;
  all: number;
}

function machineCpu(): MachineCpu {
  let busy = 0;
  let all = 0;
  for (const { times } of cpus()) {
    const sum = times.user + times.nice + times.sys + times.irq + times.idle;
    all += sum;
    busy += sum - times.idle;
  }
  return { at: Date.now(), busy, all };
}

/**
 * Samples the machine's CPU every 100 ms until stopped; `busyShare(from, to)` is the
 * share of all its cores' time that was busy between the samples nearest those times
 * (every process on the machine, not only the rig's: what was left for more daemons).
 */
function sampleMachine(): { stop(): void; busyShare(from: number, to: number): number } {
  const samples = [machineCpu()];
  const timer = setInterval(() => samples.push(machineCpu()), 100);
  // A burst that throws never stops it: it must not keep the benchmark process alive.
  timer.unref();
  const nearest = (t: number) =>
    samples.reduce((best, s) => (Math.abs(s.at - t) < Math.abs(best.at - t) ? s : best));
  return {
    stop() {
      clearInterval(timer);
      samples.push(machineCpu());
    },
    busyShare(from, to) {
      const a = nearest(from);
      const b = nearest(to);
      return b.all > a.all ? (b.busy - a.busy) / (b.all - a.all) : 0;
    },
  };
}

/**
 * The gate of change `seq` to flight number `i` of the pool: a flight stays with one
 * endpoint (a flight moved to another endpoint's gate would concern two rules: the one
 * it left and the one it joined).
 */
const gateOf =
  (i: number) =>
  (seq: number): string =>
    `QW${i % ENDPOINTS}X-${seq}`;

function rulesYaml(url: string): string {
  const lines = ["rules:\n"];
  for (let k = 0; k < ENDPOINTS; k++) {
    lines.push(
      `  - id: hook-${k}\n    flights: { gate: "QW${k}X*" }\n    changes: [gate]\n` +
        `    channels: [{ type: webhook, url: "${url}/e${k}", secret: "\${RULE_HOOK_SECRET}", format: json }]\n`,
    );
  }
  lines.push(
    '  - id: mail\n    flights: { gate: "QM*" }\n    changes: [gate]\n' +
      "    channels: [{ type: email, to: [ops@example.com] }]\n",
  );
  return lines.join("");
}

/** What Redis has done so far: commands (scripts' included), requests, socket reads, CPU ms. */
interface RedisCounters {
  commands: number;
  reads: number;
  cpuMs: number;
  /** Bytes the server read from its clients and wrote to them. */
  bytesIn: number;
  bytesOut: number;
  /** Calls by command name. */
  byName: Map<string, number>;
}

async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const text = await redis.info("all");
  const field = (name: string) =>
    Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(text)?.[1] ?? 0);
  let commands = 0;
  const byName = new Map<string, number>();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    commands += Number(match[2]);
    byName.set(match[1] as string, Number(match[2]));
  }
  return {
    commands,
    byName,
    reads: field("total_reads_processed"),
    cpuMs: (field("used_cpu_user") + field("used_cpu_sys")) * 1000,
    bytesIn: field("total_net_input_bytes"),
    bytesOut: field("total_net_output_bytes"),
  };
}

/** Counters of several servers, added up. */
function sumCounters(all: readonly RedisCounters[]): RedisCounters {
  const byName = new Map<string, number>();
  for (const c of all) {
    for (const [name, n] of c.byName) byName.set(name, (byName.get(name) ?? 0) + n);
  }
  return {
    commands: all.reduce((sum, c) => sum + c.commands, 0),
    reads: all.reduce((sum, c) => sum + c.reads, 0),
    cpuMs: all.reduce((sum, c) => sum + c.cpuMs, 0),
    bytesIn: all.reduce((sum, c) => sum + c.bytesIn, 0),
    bytesOut: all.reduce((sum, c) => sum + c.bytesOut, 0),
    byName,
  };
}

/** How long the last 2,000 completed webhook jobs waited in the queue and took to run, ms. */
async function jobTimes(redis: Redis, keys: RedisKeys) {
  const queue = `${keys.queuePrefix}:deliver-webhook`;
  const ids = await redis.zrange(`${queue}:completed`, -2_000, -1);
  const rows = await Promise.all(
    ids.map((id) => redis.hmget(`${queue}:${id}`, "timestamp", "processedOn", "finishedOn")),
  );
  const waits = rows.map(([added, taken]) => Number(taken) - Number(added)).sort((a, b) => a - b);
  const runs = rows.map(([, taken, done]) => Number(done) - Number(taken)).sort((a, b) => a - b);
  return {
    waitP50: quantile(waits, 0.5),
    waitP90: quantile(waits, 0.9),
    runP50: quantile(runs, 0.5),
    runP90: quantile(runs, 0.9),
    runP99: quantile(runs, 0.99),
  };
}

/** The receiver child, read into `updates`. */
interface Receiver {
  url: string;
  /** Waits until `count` more ids were accepted; notes their arrivals; resolves to the report. */
  collect(count: number): Promise<ReceiverReport>;
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}

async function startReceiver(updates: GateUpdates): Promise<Receiver> {
  const child = forkBenchChild("./webhook-receiver-child.ts", {
    BENCH_WEBHOOK_SECRET: HOOK_SECRET,
    BENCH_GATE_TOKENS: "1",
  });
  const { url } = (await child.hello) as { url: string };
  let read = 0;
  let accepted = 0;
  const ask = (collect: number, from: number) =>
    child.ask<ReceiverReport>({ collect, from, timeoutMs: WAIT_MS } satisfies ReceiverRequest);
  return {
    url: url.replace(/\/hook$/, ""),
    async collect(count) {
      const report = await ask(accepted + count, read);
      read += report.ids.length;
      accepted = report.accepted;
      report.tokens?.forEach((seq, i) => {
        updates.arrivedSeq(seq < 0 ? undefined : seq, report.receivedAt[i] as number);
      });
      return report;
    },
    cpuMs: async () => (await ask(0, Number.MAX_SAFE_INTEGER)).cpuMs,
    async close() {
      await child.ask({ close: true } satisfies ReceiverRequest).catch(() => undefined);
      await child.exited;
    },
  };
}

/** Figures of one burst. */
interface BurstFigures {
  perSecond: number;
  line: string;
  cpuUs: number;
  commands: number;
  reads: number;
  /** Share of all the machine's cores that was busy from the poll's commit to the last arrival. */
  machineBusy: number;
  /** The body of a notification of the burst (for the wire's peer). */
  sample: string;
}

async function burst(
  daemons: readonly DaemonChild[],
  redis: Redis,
  keys: RedisKeys,
  receiver: Receiver,
  updates: GateUpdates,
  flights: readonly string[],
  /** The other servers the deployment's keys are on (a cluster's other masters): counted too. */
  others: readonly Redis[] = [],
): Promise<BurstFigures> {
  const cpus0 = daemons.map((d) => d.cpuMs());
  const servers = [redis, ...others];
  const serverCounters = () => Promise.all(servers.map((server) => redisCounters(server)));
  const each0 = await serverCounters();
  const redis0 = sumCounters(each0);
  const receiverCpu0 = await receiver.cpuMs();
  const profiling = process.env.CPU_PROFILE_DIR !== undefined;
  if (profiling) for (const d of daemons) d.proc.child.kill("SIGUSR2");
  const machine = sampleMachine();
  const from = updates.next;
  flights.forEach((flight, i) => {
    updates.apply(flight, gateOf(i));
  });
  const to = updates.next - 1;
  const t0 = updates.appliedAt(from);
  const report = await receiver.collect(flights.length);
  machine.stop();
  // When the burst's changes were committed and its alerts decided: the streams' entry ids.
  const times = async (stream: string) =>
    (await redis.xrange(stream, `${t0}-0`, "+")).map(([id]) => Number(id.split("-")[0]));
  const outbox = await times(keys.outbox);
  const decided = await times(keys.alerts);
  if (profiling) for (const d of daemons) d.proc.child.kill("SIGUSR2");
  const fate = updates.fate(from, to);
  const last = updates.lastArrival(from, to);
  const first = updates.firstArrival(from, to);
  const cpusUs = daemons.map(
    (d, i) => ((d.cpuMs() - (cpus0[i] as number)) * 1000) / fate.delivered,
  );
  const cpuUs = cpusUs.reduce((a, b) => a + b, 0);
  const busy = daemons.map((d, i) =>
    Math.round(((d.cpuMs() - (cpus0[i] as number)) / (last - t0)) * 100),
  );
  const each1 = await serverCounters();
  const redis1 = sumCounters(each1);
  const shares = each1.map((c, i) => c.commands - (each0[i] as RedisCounters).commands);
  const receiverUs = ((report.cpuMs - receiverCpu0) * 1000) / fate.delivered;
  const jobs = await jobTimes(redis, keys);
  const per = (k: "commands" | "reads" | "cpuMs" | "bytesIn" | "bytesOut") =>
    (redis1[k] - redis0[k]) / fate.delivered;
  const top = [...redis1.byName]
    .map(
      ([name, calls]) => [name, (calls - (redis0.byName.get(name) ?? 0)) / fate.delivered] as const,
    )
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(2)}`)
    .join(", ");
  // From the poll's commit (the burst visible to the rest of the pipeline) to the last
  // arrival: dispatch, notify and delivery. Timed from the first arrival instead, a
  // daemon that starts sending later would look faster.
  const committed = outbox[0] ?? t0;
  const perSecond = fate.delivered / ((last - committed) / 1000);
  const machineShare = machine.busyShare(committed, last);
  const machineBusy = Math.round(machineShare * 100);
  const endToEnd = fate.delivered / ((last - t0) / 1000);
  const line =
    `  burst ${fmt(flights.length)}: ${fmt(perSecond)} notifications/s (${fmt(fate.delivered)} of ` +
    `${fmt(flights.length)} in ${((last - committed) / 1000).toFixed(2)} s from the poll's commit to the last arrival); ` +
    `from the change: committed after ${fmt(committed - t0)} ms (one poll reads them all), alerts decided ` +
    `${fmt((decided[0] ?? t0) - t0)}–${fmt((decided.at(-1) ?? t0) - t0)} ms, arrivals ${fmt(first - t0)}–${fmt(last - t0)} ms ` +
    `(${fmt(endToEnd)}/s from the change); ${fate.missing} missing, ${updates.repeats} twice so far, ${report.unverified} bad signatures\n` +
    `    per notification: daemon CPU ${fmt(cpuUs)} µs (polls included${daemons.length > 1 ? `; ${cpusUs.map(fmt).join(" + ")}` : ""}; ` +
    `${busy.join(" + ")} % of a core; the machine's ${cpus().length} cores ${machineBusy} % busy from the poll's commit to the last arrival), receiver ${fmt(receiverUs)} µs, ` +
    `Redis ${fmt(per("cpuMs") * 1000)} µs; Redis commands ${per("commands").toFixed(1)} ` +
    `(scripts' own included), socket reads ${per("reads").toFixed(2)} (≈ round trips), ` +
    `bytes to Redis ${fmt(per("bytesIn"))} and back ${fmt(per("bytesOut"))}\n` +
    `    commands per notification: ${top}\n` +
    (servers.length > 1
      ? `    commands by master: ${shares.map((n) => `${Math.round((n / (redis1.commands - redis0.commands)) * 100)} %`).join(" / ")} (the prefix's own first)\n`
      : "") +
    `    webhook jobs (the last 2,000): enqueued → taken p50 ${fmt(jobs.waitP50)} ms, p90 ${fmt(jobs.waitP90)} ms; ` +
    `taken → finished p50 ${fmt(jobs.runP50)} ms, p90 ${fmt(jobs.runP90)} ms, p99 ${fmt(jobs.runP99)} ms`;
  return {
    perSecond,
    line,
    cpuUs,
    commands: per("commands"),
    reads: per("reads"),
    machineBusy: machineShare,
    sample: report.sampleBody ?? "",
  };
}

/** The SMTP server child. */
interface SmtpChild {
  port: number;
  ask(request: SmtpChildRequest): Promise<SmtpChildReport>;
  close(): Promise<void>;
}

async function startSmtpChild(): Promise<SmtpChild> {
  const child = forkBenchChild("./smtp-receiver-child.ts");
  const { port } = (await child.hello) as { port: number };
  return {
    port,
    ask: (request) => child.ask<SmtpChildReport>(request),
    async close() {
      await child.ask({ close: true } satisfies SmtpChildRequest).catch(() => undefined);
      await child.exited;
    },
  };
}

/** An email burst through the daemon: the rate from the poll's commit to the last message in. */
async function emailBurst(
  daemon: DaemonChild,
  redis: Redis,
  keys: RedisKeys,
  smtp: SmtpChild,
  updates: GateUpdates,
  flights: readonly string[],
): Promise<{ perSecond: number; line: string }> {
  const before = await smtp.ask({ count: 0, timeoutMs: 0 });
  const cpu0 = daemon.cpuMs();
  const profiling = process.env.CPU_PROFILE_DIR !== undefined;
  if (profiling) daemon.proc.child.kill("SIGUSR2");
  const from = updates.next;
  for (const flight of flights) updates.apply(flight, mailGate);
  const to = updates.next - 1;
  const t0 = updates.appliedAt(from);
  const report = await smtp.ask({
    count: before.messages + flights.length,
    timeoutMs: WAIT_MS,
    from: before.messages,
  });
  if (profiling) daemon.proc.child.kill("SIGUSR2");
  report.tokens?.forEach((seq, i) => {
    updates.arrivedSeq(seq < 0 ? undefined : seq, report.receivedAt?.[i] as number);
  });
  const committed = Number(
    (await redis.xrange(keys.outbox, `${t0}-0`, "+", "COUNT", 1))[0]?.[0].split("-")[0] ?? t0,
  );
  const fate = updates.fate(from, to);
  const last = updates.lastArrival(from, to);
  const perSecond = fate.delivered / ((last - committed) / 1000);
  const cpuUs = ((daemon.cpuMs() - cpu0) * 1000) / fate.delivered;
  const serverUs = ((report.cpuMs - before.cpuMs) * 1000) / fate.delivered;
  return {
    perSecond,
    line:
      `  email burst ${fmt(flights.length)}: ${fmt(perSecond)} notifications/s (${fmt(fate.delivered)} of ${fmt(flights.length)} ` +
      `in ${((last - committed) / 1000).toFixed(2)} s from the poll's commit to the last message in; ` +
      `${fmt(fate.delivered / ((last - t0) / 1000))}/s from the change); ${fate.missing} missing, ${updates.repeats} twice so far; ` +
      `per notification: daemon CPU ${fmt(cpuUs)} µs (polls included), SMTP server ${fmt(serverUs)} µs`,
  };
}

/** Plain nodemailer over a pool of the daemon's default size: what the SMTP server takes from a client. */
async function plainNodemailer(smtp: SmtpChild, count: number): Promise<number> {
  const before = await smtp.ask({ count: 0, timeoutMs: 0 });
  const transport = nodemailer.createTransport({
    pool: true,
    host: "127.0.0.1",
    port: smtp.port,
    secure: false,
    ignoreTLS: true,
    maxConnections: SMTP_POOL.maxConnections,
    maxMessages: SMTP_POOL.maxMessages,
  });
  const text = `KL1001 to WAW, departs Fri 27 Nov 10:25: gate D7 → D9\n\nChanges:\n- gate D7 → D9\n`;
  const html = `<!DOCTYPE html>\n<html><body><p>${text.split("\n")[0]}</p><ul><li>gate D7 → D9</li></ul></body></html>\n`;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: SMTP_POOL.inFlight }, async () => {
      while (next < count) {
        const i = next++;
        await transport.sendMail({
          from: "Flightwatch <alerts@flightwatch.example>",
          to: "ops@example.com",
          subject: `KL1001 2026-11-27: gate D7 → D9 (${i})`,
          text,
          html,
          headers: { "Auto-Submitted": "auto-generated" },
        });
      }
    }),
  );
  await smtp.ask({ count: before.messages + count, timeoutMs: WAIT_MS });
  const seconds = (performance.now() - start) / 1000;
  transport.close();
  return count / seconds;
}

async function steady(
  daemons: readonly DaemonChild[],
  receiver: Receiver,
  updates: GateUpdates,
  flights: readonly string[],
): Promise<{ p99: number; line: string }> {
  const count = STEADY_RATE * STEADY_SECONDS;
  const from = updates.next;
  const cpu0 = daemons.reduce((n, d) => n + d.cpuMs(), 0);
  await applyAtRate(STEADY_RATE, count, (i) => updates.apply(flights[i] as string, gateOf(i)));
  const to = updates.next - 1;
  await receiver.collect(count);
  const fate = updates.fate(from, to);
  const cpuPct = (daemons.reduce((n, d) => n + d.cpuMs(), 0) - cpu0) / 10 / STEADY_SECONDS;
  const q = (p: number) => fmt(quantile(fate.latencies, p));
  const p99 = quantile(fate.latencies, 0.99);
  return {
    p99,
    line:
      `  steady ${STEADY_RATE}/s for ${STEADY_SECONDS} s: change → received p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, ` +
      `p99 ${fmt(p99)} ms, max ${q(1)} ms (${fmt(fate.delivered)} of ${fmt(count)}, ${fate.missing} missing); ` +
      `daemon CPU ${fmt(cpuPct)} % of a core`,
  };
}

export const wireSpeedBenchmark: Benchmark = {
  name: "wire-speed",
  title: "Webhook notifications per second through the whole daemon",
  async run() {
    const binary = findRedisServer();
    if (!binary)
      throw new Error("the throughput benchmark starts a redis-server of its own: none on PATH");
    const privateRedis: PrivateRedis = await startPrivateRedis(binary);
    const closers: Array<() => Promise<void>> = [async () => privateRedis.stop()];
    const headlines: Headline[] = [];
    try {
      console.log(
        `${cpus().length} CPUs, node ${process.version}, load average ${loadavg()[0]?.toFixed(2)} before; ` +
          "the daemon, its own Redis, the receiver (its own process) and this process (the simulator) share the cores",
      );
      const airport: BenchAirport = await startBenchAirport(
        "throughput",
        RECORDS_PER_DAY,
        7,
        privateRedis.url,
      );
      closers.unshift(() => airport.close());
      const wide = await startSimulator({
        simulator: airport.sim.simulator,
        live: false,
        tokens: [airport.token],
        pageSize: PAGE_SIZE,
      });
      closers.unshift(() => wide.close());
      const updates = new GateUpdates(airport.sim);
      const receiver = await startReceiver(updates);
      closers.unshift(() => receiver.close());
      await writeRuleFiles(airport, { "hooks.yaml": rulesYaml(receiver.url) });
      const counters = new Redis(privateRedis.url);
      closers.unshift(async () => counters.disconnect());
      const smtp = await startSmtpChild();
      closers.unshift(() => smtp.close());
      const env: Record<string, string> = {
        FLIGHT_API_BASE_URL: wide.baseUrl,
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        EMAIL_FROM: "Flightwatch <alerts@flightwatch.example>",
      };
      // CPU_PROFILE_DIR: the daemons profile each burst (bench/cpu-profile.mjs).
      if (process.env.CPU_PROFILE_DIR !== undefined) {
        const probe = new URL("./cpu-profile.mjs", import.meta.url).pathname;
        env.NODE_OPTIONS = `${benchDaemonEnv(airport).NODE_OPTIONS} --import=${probe}`;
      }
      console.log(
        `method: the simulator (${fmt(airport.sim.simulator.store.size)} records, ${PAGE_SIZE} a page) changes gates; ` +
          `${ENDPOINTS} rules take gate QW<k>X-… to endpoint k (signed JSON webhooks); POLL_INTERVAL=1s, otherwise the defaults.`,
      );

      const operating = airport.operating;
      const need = BURST + EMAIL_BURST;
      if (operating.length < need) throw new Error(`${operating.length} flights, ${need} needed`);
      const burstFlights = operating.slice(0, BURST);
      // The burst's flights change again, each to a gate of the same endpoint as before.
      const steadyFlights = burstFlights.slice(0, STEADY_RATE * STEADY_SECONDS);
      const emailFlights = operating.slice(BURST, need);

      console.log("1 process (`flightwatch run`):");
      const one = await startDaemonChild(airport, env);
      let single: BurstFigures;
      let steadyP99: number;
      let email: { perSecond: number; line: string };
      try {
        single = await burst([one], counters, airport.keys, receiver, updates, burstFlights);
        console.log(single.line);
        const s = await steady([one], receiver, updates, steadyFlights);
        steadyP99 = s.p99;
        console.log(s.line);
        email = await emailBurst(one, counters, airport.keys, smtp, updates, emailFlights);
        console.log(email.line);
        console.log(`  daemon warnings and errors: ${one.problems()}`);
      } finally {
        await one.stop();
      }
      await airport.clearRedis();
      const plain = await plainNodemailer(smtp, EMAIL_BURST);
      console.log(
        `  the SMTP server from plain nodemailer (pool of ${SMTP_POOL.maxConnections} connections, ${SMTP_POOL.maxMessages} messages each, ` +
          `${SMTP_POOL.inFlight} in flight, messages composed its own way): ${fmt(plain)}/s`,
      );
      const emailHeadline: Headline = {
        figure: `email notifications/s through the whole daemon (1 process, burst of ${fmt(EMAIL_BURST)} changes, default SMTP pool, the poll's commit → last message in)`,
        value: `${fmt(email.perSecond)}/s (plain nodemailer: ${fmt(plain)}/s)`,
        aim: "≥ 1,000/s",
        met: email.perSecond >= 1_000,
      };
      // WIRE_SPEED_ONE=1: the one-process figures alone (while working on them).
      if (process.env.WIRE_SPEED_ONE) return [emailHeadline];

      console.log(
        "2 processes (`flightwatch run --role poller`, `flightwatch run --role worker`):",
      );
      const poller = await startDaemonChild(airport, env, ["--role", "poller"]);
      const worker = await startDaemonChild(airport, env, ["--role", "worker"]).catch(
        async (err: unknown) => {
          await poller.stop();
          throw err;
        },
      );
      let split: BurstFigures;
      try {
        split = await burst(
          [poller, worker],
          counters,
          airport.keys,
          receiver,
          updates,
          burstFlights,
        );
        console.log(split.line);
        console.log(`  daemon warnings and errors: ${poller.problems()}; ${worker.problems()}`);
      } finally {
        await Promise.all([poller.stop(), worker.stop()]);
      }

      const raw = forkBenchChild("./raw-post-child.ts");
      await raw.hello;
      const body = split.sample || single.sample;
      const wire = await raw.ask<RawPostReport>({
        url: `${receiver.url}/e0`,
        secret: HOOK_SECRET,
        body,
        count: BURST,
        concurrency: CONCURRENCY,
      } satisfies RawPostRequest);
      await receiver.collect(BURST);
      raw.ask({ close: true }).catch(() => undefined);
      await raw.exited;
      console.log(
        `the wire: plain undici, ${CONCURRENCY} in flight over ${CONCURRENCY} keep-alive connections, ` +
          `${fmt(BURST)} signed POSTs of ${fmt(body.length)} bytes to the same receiver: ${fmt(wire.perSecond)}/s ` +
          `(${wire.failed} refused; ${fmt(wire.cpuUsPerRequest)} µs client CPU per request)`,
      );
      const share = single.perSecond / wire.perSecond;
      // What the machine leaves a second process: the cores the one-process burst left
      // idle. The same work split over two processes costs at least as much CPU (it
      // costs 5–20 % more here), so two can go about 1 / (busy share) as fast at most,
      // whatever either costs: an estimate, as each run's CPU per notification varies.
      const ceiling = single.machineBusy > 0 ? 1 / single.machineBusy : Number.POSITIVE_INFINITY;
      const splitBusy = Math.round(split.machineBusy * 100);
      console.log(
        `this machine's ceiling for 2 processes: about ${ceiling.toFixed(2)}× (one process kept its ${cpus().length} cores ` +
          `${Math.round(single.machineBusy * 100)} % busy, with Redis, the receiver and the simulator beside it; ` +
          `two kept them ${splitBusy} % busy)`,
      );
      headlines.push(
        {
          figure: `webhook notifications/s through the whole daemon (1 process, ${ENDPOINTS} endpoints, burst of ${fmt(BURST)} changes, the poll's commit → last arrival)`,
          value: `${fmt(single.perSecond)}/s`,
          aim: "≥ 2,000/s",
          met: single.perSecond >= 2_000,
        },
        {
          figure: "the same, as a share of plain undici POSTs to the same receiver (same run)",
          value:
            `${Math.round(share * 100)} % of ${fmt(wire.perSecond)}/s (daemon CPU per notification ` +
            `${(single.cpuUs / wire.cpuUsPerRequest).toFixed(1)}× the plain client's per POST)`,
          aim: "≥ 40 %",
          met: share >= 0.4,
        },
        {
          figure: "daemon CPU per webhook notification (polls included)",
          value: `${fmt(single.cpuUs)} µs`,
          aim: "≤ 500 µs",
          met: single.cpuUs <= 500,
        },
        {
          figure: "Redis commands per notification (scripts' own included)",
          value: single.commands.toFixed(1),
          aim: "≤ 30",
          met: single.commands <= 30,
        },
        {
          figure: "Redis round trips per notification (socket reads)",
          value: single.reads.toFixed(2),
          aim: "≤ 6",
          met: single.reads <= 6,
        },
        {
          figure: "2 processes (poller + worker) vs 1",
          value:
            `${(split.perSecond / single.perSecond).toFixed(2)}× (${fmt(split.perSecond)}/s; ` +
            `this machine's ceiling about ${ceiling.toFixed(2)}×, ${splitBusy} % of its cores busy)`,
          aim: "≥ 1.5×",
          met: split.perSecond >= 1.5 * single.perSecond,
        },
        {
          figure: `change → webhook received p99 at ${STEADY_RATE} changes/s`,
          value: `${fmt(steadyP99)} ms`,
          aim: "≤ 5,000 ms",
          met: steadyP99 <= 5_000,
        },
        emailHeadline,
      );
    } finally {
      for (const close of closers) await close().catch(() => undefined);
    }
    return headlines;
  },
};

/**
 * `npm run bench -- cluster`: the burst of the wire-speed benchmark through one daemon,
 * on one Redis and on a Redis Cluster of three masters with a replica each (the
 * daemon's REDIS_URL with `?cluster`), side by side in one run. Redis's own figures are
 * those of the servers serving the deployment: the one Redis, and every master of the
 * cluster (the prefix's slot on one, the delivery shards spread over all three).
 */
export const clusterBenchmark: Benchmark = {
  name: "cluster",
  title: "Webhook notifications per second: one Redis and a 3-master Redis Cluster",
  async run() {
    const binary = findRedisServer();
    if (!binary) throw new Error("the cluster benchmark starts redis-server: none on PATH");
    const closers: Array<() => Promise<void>> = [];
    const rates: { label: string; perSecond: number }[] = [];
    try {
      const single = await startPrivateRedis(binary);
      closers.push(async () => single.stop());
      const cluster = await startRedisCluster();
      closers.push(() => cluster.close());
      console.log(
        `${cpus().length} CPUs, node ${process.version}, load average ${loadavg()[0]?.toFixed(2)} before; ` +
          `a burst of ${fmt(BURST)} gate changes to ${ENDPOINTS} webhook endpoints through one \`flightwatch run\`, ` +
          "first on one Redis, then on a cluster of 3 masters with a replica each (all on this machine), " +
          "with delivery in one slot and split over 8 shards",
      );
      for (const [label, url, shards] of [
        ["one Redis", single.url, "1"],
        [
          "Redis Cluster, 3 masters + 3 replicas, DELIVERY_SHARDS=1 (every key in one slot)",
          cluster.url,
          "1",
        ],
        [
          "Redis Cluster, 3 masters + 3 replicas, DELIVERY_SHARDS=8 (the default)",
          cluster.url,
          "8",
        ],
      ] as const) {
        const airport = await startBenchAirport(`cluster-${rates.length}`, RECORDS_PER_DAY, 7, url);
        const wide = await startSimulator({
          simulator: airport.sim.simulator,
          live: false,
          tokens: [airport.token],
          pageSize: PAGE_SIZE,
        });
        const updates = new GateUpdates(airport.sim);
        const receiver = await startReceiver(updates);
        const port = url === single.url ? undefined : await cluster.masterOf(airport.keys.prefix);
        const counters =
          port === undefined ? new Redis(url) : new Redis({ host: "127.0.0.1", port });
        // On the cluster, the other masters hold delivery shards: their work counts too.
        const others =
          port === undefined
            ? []
            : (await cluster.masterPorts())
                .filter((p) => p !== port)
                .map((p) => new Redis({ host: "127.0.0.1", port: p }));
        try {
          await writeRuleFiles(airport, { "hooks.yaml": rulesYaml(receiver.url) });
          const daemon = await startDaemonChild(airport, {
            FLIGHT_API_BASE_URL: wide.baseUrl,
            DELIVERY_SHARDS: shards,
          });
          try {
            const figures = await burst(
              [daemon],
              counters,
              airport.keys,
              receiver,
              updates,
              airport.operating.slice(0, BURST),
              others,
            );
            console.log(`${label}:\n${figures.line}`);
            console.log(`  daemon warnings and errors: ${daemon.problems()}`);
            rates.push({ label, perSecond: figures.perSecond });
          } finally {
            await daemon.stop();
          }
        } finally {
          counters.disconnect();
          for (const other of others) other.disconnect();
          await receiver.close();
          await wide.close();
          await airport.close();
        }
      }
    } finally {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    }
    const [one, oneSlot, many] = rates;
    if (one === undefined || oneSlot === undefined || many === undefined) {
      throw new Error("a burst did not run");
    }
    return [
      {
        figure: `webhook notifications/s through one daemon on one Redis (burst of ${fmt(BURST)})`,
        value: `${fmt(one.perSecond)}/s`,
      },
      {
        figure:
          "the same on a Redis Cluster of 3 masters + 3 replicas, delivery split over 8 shards (same run, same machine)",
        value: `${fmt(many.perSecond)}/s (${(many.perSecond / one.perSecond).toFixed(2)}× one Redis)`,
      },
      {
        figure: "the same cluster with DELIVERY_SHARDS=1 (every key in one slot)",
        value: `${fmt(oneSlot.perSecond)}/s (${(oneSlot.perSecond / one.perSecond).toFixed(2)}× one Redis)`,
      },
    ];
  },
};
