/**
 * Passenger subscriptions at scale (issue 22), on a Redis the benchmark starts for itself
 * (its counters are the benchmark's alone), against a simulated airport of ~10,000
 * flights whose gates change only when the benchmark changes them:
 *
 * 1. Redis per subscription: INFO used_memory's growth over an import of 100,000 and of
 *    1,000,000 passenger subscriptions (essentials, an email address, a booking label,
 *    spread over every flight number and date of the airport: ~65 a number and date),
 *    divided by their number; and MEMORY USAGE by kind of key.
 * 2. The 1,000,000 imported through the real CLI (`flightwatch subscriptions import`, a
 *    child process from source): wall-clock time, and the child's peak RSS.
 * 3. A gate change of a flight with 1,000 subscribers: from the poll's commit (its outbox
 *    entry's id) to the last of the 1,000 delivery jobs enqueued (BullMQ's timestamp).
 * 4. The daemon's live heap after a full collection (`flightwatch run`, bench/daemon-rig.ts)
 *    with the 1,000,000 stored, then with only the 1,000 of that flight: each run changes
 *    that flight's gate and 100 others' (which have ~65 subscribers each among the
 *    million, none among the thousand) and waits for every email (a local SMTP server).
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Flight } from "../src/api/types.js";
import {
  findRedisServer,
  type PrivateRedis,
  startPrivateRedis,
} from "../src/daemon/private-redis.js";
import { normaliseFlightNumber } from "../src/rules/flight-number.js";
import { deleteByPattern, type RedisConnection } from "../src/store/redis-connection.js";
import type { RedisKeys } from "../src/store/redis-keys.js";
import {
  type SubscriptionQuery,
  SubscriptionStore,
} from "../src/subscriptions/subscription-store.js";
import { forkBenchChild } from "./bench-child.js";
import type { Benchmark, Headline } from "./benchmark.js";
import {
  type BenchAirport,
  RECORDS_PER_10K_FLIGHTS,
  startBenchAirport,
  startDaemonChild,
  writeRuleFiles,
} from "./daemon-rig.js";
import { GateUpdates } from "./gate-updates.js";
import { usedMemory } from "./redis-footprint.js";
import type { SmtpChildReport, SmtpChildRequest } from "./smtp-receiver-child.js";
import { spawnCli } from "./support/cli-process.js";
import { sleep, waitFor } from "./support/polling.js";

const MILLION = 1_000_000;
const HUNDRED_K = 100_000;
/** Subscribers of the flight whose gate change is timed. */
const FAN_OUT = 1_000;
/** Other flights whose gates change in each daemon run. */
const OTHER_CHANGES = 100;
const ZONE = "Europe/Amsterdam";
const WAIT_MS = 300_000;

const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/** A number and date subscriptions are filed under (`KL1001|2026-11-27`). */
const pairOf = (f: Pick<Flight, "flightName" | "scheduleDate">): string =>
  `${normaliseFlightNumber(f.flightName ?? "") ?? ""}|${f.scheduleDate}`;

/** The files the benchmark imports, and how many subscriptions each number and date has. */
interface Files {
  dir: string;
  million: string;
  hundredK: string;
  fanOut: string;
  perPair: Map<string, number>;
}

/** One passenger's subscription as an import line. */
function line(id: string, flight: Flight, email: string, booking: string): string {
  return `${JSON.stringify({
    id,
    flight: flight.flightName,
    date: flight.scheduleDate,
    email,
    labels: { booking },
  })}\n`;
}

/**
 * Writes the import files: the fan-out flight's 1,000 subscribers first, then the rest
 * spread round-robin over every record (operating and codeshare numbers) of the other flights.
 */
async function writeFiles(records: readonly Flight[], fanOut: Flight): Promise<Files> {
  const dir = await mkdtemp(join(tmpdir(), "fw-bench-subs-"));
  const others = records.filter(
    (r) => !(r.mainFlight === fanOut.flightName && r.scheduleDate === fanOut.scheduleDate),
  );
  const perPair = new Map<string, number>();
  const fan: string[] = [];
  for (let i = 0; i < FAN_OUT; i++) {
    fan.push(line(`fan-${i}`, fanOut, `fan${i}@example.com`, `F${i}`));
  }
  const files: Files = {
    dir,
    million: join(dir, "million.ndjson"),
    hundredK: join(dir, "hundred-k.ndjson"),
    fanOut: join(dir, "fan-out.ndjson"),
    perPair,
  };
  await writeFile(files.fanOut, fan.join(""));
  const chunks: string[] = [fan.join("")];
  const hundredK: string[] = [];
  for (let i = FAN_OUT; i < MILLION; i++) {
    const record = others[i % others.length] as Flight;
    perPair.set(pairOf(record), (perPair.get(pairOf(record)) ?? 0) + 1);
    const text = line(
      `p${i.toString(36)}`,
      record,
      `passenger.${i}@example.com`,
      `B${(i * 7919).toString(36).toUpperCase()}`,
    );
    chunks.push(text);
    if (i < FAN_OUT + HUNDRED_K) hundredK.push(text);
  }
  await writeFile(files.million, chunks.join(""));
  await writeFile(files.hundredK, hundredK.join(""));
  return files;
}

/**
 * The cost of a listing page (100) at the million, by each filter the API and the CLI
 * take: flight and date read that flight's hash; recipient and label read every
 * subscription until the page is full (here: one match, so all of them).
 */
async function timeListings(
  redis: RedisConnection,
  keys: RedisKeys,
  fanOut: Flight,
): Promise<void> {
  const store = new SubscriptionStore(redis, keys, { zone: ZONE });
  const i = 777_777;
  const queries: Array<[string, SubscriptionQuery]> = [
    ["by flight and date", { flight: fanOut.flightName, date: fanOut.scheduleDate }],
    ["by flight", { flight: fanOut.flightName }],
    ["by recipient", { recipient: `passenger.${i}@example.com` }],
    [
      "by label",
      { label: { name: "booking", value: `B${(i * 7919).toString(36).toUpperCase()}` } },
    ],
  ];
  for (const [what, query] of queries) {
    const started = performance.now();
    const page = await store.list(query, { limit: 100 });
    const ms = performance.now() - started;
    console.log(
      `  list ${what.padEnd(19)} ${fmt(ms).padStart(6)} ms for a page of ${page.subscriptions.length}${page.cursor ? " (more follow)" : ""}`,
    );
  }
}

/** Runs `flightwatch subscriptions import` as a child: wall-clock seconds and peak RSS (MB). */
async function importThroughCli(
  file: string,
  redisUrl: string,
  prefix: string,
): Promise<{ seconds: number; peakMb: number; summary: string }> {
  const started = performance.now();
  const proc = spawnCli(["subscriptions", "import", file], {
    REDIS_URL: redisUrl,
    FLIGHTWATCH_PREFIX: prefix,
    AIRPORT_TIMEZONE: ZONE,
  });
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${proc.child.pid}/status`, "utf8");
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // ended meanwhile
    }
  }, 250);
  const code = await proc.exited;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`subscriptions import exited ${code}: ${proc.stderr()}`);
  return {
    seconds: (performance.now() - started) / 1000,
    peakMb: peakKb / 1024,
    summary: proc.stdout().trim(),
  };
}

/** MEMORY USAGE (every element) of the subscription keys, by kind; and how many are listpacks. */
async function subscriptionFootprint(redis: RedisConnection, keys: RedisKeys): Promise<string[]> {
  const kinds = new Map<string, { keys: number; bytes: number; listpacks: number }>();
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${keys.prefix}:sub*`, "COUNT", 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of found) {
      pipeline.call("MEMORY", "USAGE", key, "SAMPLES", "0").object("ENCODING", key);
    }
    const replies = (await pipeline.exec()) ?? [];
    found.forEach((key, i) => {
      const kind =
        key === keys.subscriptionFlights
          ? "flights and dates (sorted set)"
          : key.startsWith(`${keys.prefix}:subid:`)
            ? "id filings (4,096 hashes)"
            : "a hash per number and date";
      const entry = kinds.get(kind) ?? { keys: 0, bytes: 0, listpacks: 0 };
      kinds.set(kind, entry);
      entry.keys++;
      entry.bytes += Number(replies[2 * i]?.[1] ?? 0);
      if (replies[2 * i + 1]?.[1] === "listpack") entry.listpacks++;
    });
  } while (cursor !== "0");
  return [...kinds].map(
    ([kind, e]) =>
      `    ${kind.padEnd(32)} ${fmt(e.keys).padStart(7)} keys (${fmt(e.listpacks)} listpacks) ` +
      `${mb(e.bytes).padStart(7)} MB, ${fmt(e.bytes / MILLION).padStart(4)} B a subscription`,
  );
}

/** The SMTP server child (bench/smtp-receiver-child.ts). */
interface SmtpChild {
  port: number;
  messages(): Promise<number>;
  /** Waits until `count` messages are in (or the time passed); resolves to how many are. */
  waitFor(count: number): Promise<number>;
  close(): Promise<void>;
}

async function startSmtpChild(): Promise<SmtpChild> {
  const child = forkBenchChild("./smtp-receiver-child.ts");
  const { port } = (await child.hello) as { port: number };
  const ask = (count: number, timeoutMs: number) =>
    child.ask<SmtpChildReport>({ count, timeoutMs } satisfies SmtpChildRequest);
  return {
    port,
    messages: async () => (await ask(0, 0)).messages,
    waitFor: async (count) => (await ask(count, WAIT_MS)).messages,
    async close() {
      await child.ask({ close: true } satisfies SmtpChildRequest).catch(() => undefined);
      await child.exited;
    },
  };
}

/** Figures of one daemon run. */
interface RunFigures {
  /** Poll's commit → last job enqueued, first job, last email in (ms). */
  lastJobMs: number;
  firstJobMs: number;
  decidedMs: number;
  lastMailMs: number;
  jobs: number;
  otherMails: number;
  /** Live heap after the baseline, before any change; and once every email is in. */
  idleHeapMb: number;
  heapMb: number;
  rssMb: number;
  problems: string;
}

/**
 * One `flightwatch run` over what the airport's Redis holds: the fan-out flight's gate
 * change timed to its jobs, then 100 other gate changes; the live heap once every
 * email is in.
 */
async function daemonRun(
  run: number,
  airport: BenchAirport,
  smtp: SmtpChild,
  fanOut: Flight,
  others: readonly Flight[],
  otherMails: number,
): Promise<RunFigures> {
  const daemon = await startDaemonChild(airport, {
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    EMAIL_FROM: "Flightwatch <alerts@flightwatch.example>",
  });
  try {
    const redis = airport.t.redis;
    const queue = `${airport.keys.queuePrefix}:deliver-email`;
    await sleep(2_000);
    const idleHeapMb = await daemon.liveHeapMb();
    const updates = new GateUpdates(airport.sim);
    const before = await smtp.messages();
    // Gates no earlier run has left (a new installation's baseline would see them).
    const seq = updates.apply(fanOut.id as string, (s) => `QF${run}X-${s}`);
    const t0 = updates.appliedAt(seq);
    await smtp.waitFor(before + FAN_OUT);
    const lastMail = Date.now();
    const ids: string[] = [];
    await waitFor(async () => {
      ids.splice(0, ids.length, ...(await redis.zrangebyscore(`${queue}:completed`, t0, "+inf")));
      return ids.length >= FAN_OUT;
    }, 60_000);
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(`${queue}:${id}`, "timestamp");
    const stamps = ((await pipeline.exec()) ?? []).map(([, t]) => Number(t)).sort((a, b) => a - b);
    const entryTime = async (stream: string) =>
      Number((await redis.xrange(stream, `${t0}-0`, "+", "COUNT", 1))[0]?.[0].split("-")[0]);
    const committed = await entryTime(airport.keys.outbox);
    const decided = await entryTime(airport.keys.alerts);

    const mailsBefore = await smtp.messages();
    for (const f of others) updates.apply(f.id as string, (s) => `QO${run}X-${s}`);
    const mails =
      otherMails > 0 ? await smtp.waitFor(mailsBefore + otherMails) : await smtp.messages();
    // The polls that read the changes, and their dispatch, are over.
    await sleep(3_000);
    const heapMb = await daemon.liveHeapMb();
    return {
      lastJobMs: (stamps.at(-1) ?? 0) - committed,
      firstJobMs: (stamps[0] ?? 0) - committed,
      decidedMs: decided - committed,
      lastMailMs: lastMail - committed,
      jobs: stamps.length,
      otherMails: mails - mailsBefore,
      idleHeapMb,
      heapMb,
      rssMb: daemon.memory().rssMb,
      problems: daemon.problems(),
    };
  } finally {
    await daemon.stop();
  }
}

function describeRun(label: string, r: RunFigures, expectedOther: number): string {
  return (
    `  ${label}: live heap ${r.idleHeapMb.toFixed(1)} MB after the baseline, ${r.heapMb.toFixed(1)} MB after the changes ` +
    `(RSS ${fmt(r.rssMb)} MB); the 1,000 subscribers' gate change, ` +
    `from the poll's commit: alerts decided from ${fmt(r.decidedMs)} ms, jobs enqueued ${fmt(r.firstJobMs)}–${fmt(r.lastJobMs)} ms ` +
    `(${fmt(r.jobs)} jobs), last email in at ${fmt(r.lastMailMs)} ms; ${OTHER_CHANGES} other gate changes: ` +
    `${fmt(r.otherMails)} of ${fmt(expectedOther)} emails; daemon warnings and errors: ${r.problems}`
  );
}

export const subscriptionsBenchmark: Benchmark = {
  name: "subscriptions",
  title: "Passenger subscriptions: Redis per subscription, bulk import, daemon heap, fan-out",
  async run(): Promise<Headline[]> {
    const binary = findRedisServer();
    if (!binary) throw new Error("the subscriptions benchmark starts a redis-server: none on PATH");
    const privateRedis: PrivateRedis = await startPrivateRedis(binary);
    const closers: Array<() => Promise<void>> = [async () => privateRedis.stop()];
    try {
      console.log(
        `${cpus().length} CPUs, node ${process.version}, load average ${loadavg()[0]?.toFixed(2)} before; ` +
          "the CLI or the daemon, its own Redis, the SMTP server (its own process) and this process (the simulator) share the cores",
      );
      const airport = await startBenchAirport("subs", RECORDS_PER_10K_FLIGHTS, 7, privateRedis.url);
      closers.unshift(() => airport.close());
      await writeRuleFiles(airport, {
        // The daemon wants a rule file; this rule takes nothing the benchmark changes.
        "ops.yaml":
          "rules:\n  - id: none\n    flights: { gate: ZZ9 }\n    changes: [gate]\n    channels: [{ type: console }]\n",
      });
      const records = [...airport.sim.simulator.store.all()];
      const byId = new Map(records.map((r) => [r.id, r]));
      const fanOut = byId.get(airport.operating[0] as string) as Flight;
      const others = airport.operating
        .slice(1, 1 + OTHER_CHANGES)
        .map((id) => byId.get(id) as Flight);
      const files = await writeFiles(records, fanOut);
      closers.unshift(() => rm(files.dir, { recursive: true, force: true }));
      // The emails of the other changes: the subscriptions to any number of theirs on their date.
      let otherMails = 0;
      for (const f of others) {
        for (const r of records) {
          if (r.mainFlight === f.flightName && r.scheduleDate === f.scheduleDate) {
            otherMails += files.perPair.get(pairOf(r)) ?? 0;
          }
        }
      }
      const redis = airport.t.redis;
      console.log(
        `method: ${fmt(records.length)} records, each an operating or codeshare number on a date ` +
          `(${fmt(new Set(records.map(pairOf)).size)} distinct); 1,000 subscribers on ${fanOut.flightName} ${fanOut.scheduleDate}, the rest spread ` +
          "round-robin over the other records (essentials, an email address, a booking label each); " +
          "Redis's default listpack limits (512 entries, 64-byte values).",
      );

      // 1. Bytes per subscription at 100,000 (its own prefix, removed after).
      const smallPrefix = `${airport.t.prefix}-100k`;
      const used0 = await usedMemory(redis);
      const small = await importThroughCli(files.hundredK, privateRedis.url, smallPrefix);
      const perSubSmall = ((await usedMemory(redis)) - used0) / HUNDRED_K;
      await deleteByPattern(redis, `{${smallPrefix}}*`);
      console.log(
        `import of 100,000 (${small.seconds.toFixed(1)} s): Redis used_memory grew ${fmt(perSubSmall)} B a subscription`,
      );

      // 2. The million through the CLI, timed.
      const used1 = await usedMemory(redis);
      const big = await importThroughCli(files.million, privateRedis.url, airport.t.prefix);
      const perSub = ((await usedMemory(redis)) - used1) / MILLION;
      console.log(
        `import of 1,000,000 through the CLI: ${big.seconds.toFixed(1)} s (${fmt(MILLION / big.seconds)} a second), ` +
          `peak RSS of the CLI ${fmt(big.peakMb)} MB; it said: ${big.summary}`,
      );
      console.log(`Redis used_memory grew ${fmt(perSub)} B a subscription; by kind of key:`);
      for (const row of await subscriptionFootprint(redis, airport.keys)) console.log(row);
      await timeListings(redis, airport.keys, fanOut);

      // 3 and 4. The daemon with the million, then with the thousand.
      const smtp = await startSmtpChild();
      closers.unshift(() => smtp.close());
      const withMillion = await daemonRun(1, airport, smtp, fanOut, others, otherMails);
      console.log(describeRun("1,000,000 stored", withMillion, otherMails));
      await airport.clearRedis();
      await importThroughCli(files.fanOut, privateRedis.url, airport.t.prefix);
      const withThousand = await daemonRun(2, airport, smtp, fanOut, others, 0);
      console.log(describeRun("    1,000 stored", withThousand, 0));
      const heapGrowth = withMillion.heapMb - withThousand.heapMb;
      const fanOutMs = Math.max(withMillion.lastJobMs, withThousand.lastJobMs);

      return [
        {
          figure: `Redis per active subscription at 1,000,000 (at 100,000: ${fmt(perSubSmall)} B)`,
          value: `${fmt(perSub)} B`,
          aim: "≤ 300 B",
          met: perSub <= 300 && perSubSmall <= 300,
        },
        {
          figure: "bulk import of 1,000,000 subscriptions through the CLI",
          value: `${big.seconds.toFixed(0)} s`,
          aim: "≤ 5 min",
          met: big.seconds <= 300,
        },
        {
          figure: "daemon live heap, 1,000,000 vs 1,000 stored subscriptions",
          value: `${heapGrowth >= 0 ? "+" : ""}${heapGrowth.toFixed(1)} MB (${withMillion.heapMb.toFixed(1)} vs ${withThousand.heapMb.toFixed(1)} MB)`,
          aim: "within 20 MB",
          met: Math.abs(heapGrowth) <= 20,
        },
        {
          figure:
            "gate change of a flight with 1,000 subscribers: poll's commit → all 1,000 notifications enqueued",
          value: `${fmt(fanOutMs)} ms`,
          aim: "≤ 1 s",
          met: fanOutMs <= 1_000 && withMillion.jobs >= FAN_OUT && withThousand.jobs >= FAN_OUT,
        },
      ];
    } finally {
      for (const close of closers) await close().catch(() => undefined);
    }
  },
};
