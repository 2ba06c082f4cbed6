/**
 * Detection latency end to end: from the moment a change becomes visible upstream to
 * its arrival at the receiver, through the real `flightwatch run` polling every second
 * (a child process on the simulator and a Redis prefix of its own: bench/daemon-rig.ts).
 * The simulator runs in this process on the real clock and changes only when the
 * benchmark changes it: gates of distinct flights move at random moments (a Poisson
 * process, so the moments fall uniformly over the poll phase), each timed when the
 * simulator applied it. One rule sends every gate change to a signed webhook (a
 * loopback receiver that checks the signatures); one Slack rule per flight sends it to
 * the Slack look-alike, each flight to a URL of its own: Slack is paced per webhook URL
 * by design (one message a second), and that wait is not detection latency. Where the
 * time goes comes from timestamps the run leaves anyway: when each read request reached
 * the simulator, the outbox and alerts streams (a Redis entry id is its commit time),
 * the delivery job (enqueued, taken by a worker) and the daemon's poll log lines.
 * BENCH_LATENCY_SAMPLES and BENCH_LATENCY_GAP_MS change the number of changes and their
 * mean gap (for development runs).
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { cpus, loadavg } from "node:os";
import { DeliveryQueues } from "../src/deliver/delivery-queues.js";
import { notificationId } from "../src/deliver/notification.js";
import type { Alert } from "../src/dispatch/alert.js";
import { Random } from "../src/simulator/random.js";
import { alertOfFields } from "../src/store/alert-store.js";
import { eventsOfFields } from "../src/store/outbox-entry.js";
import type { RedisConnection } from "../src/store/redis-connection.js";
import type { RedisKeys } from "../src/store/redis-keys.js";
import type { Benchmark } from "./benchmark.js";
import {
  type BenchAirport,
  type DaemonChild,
  startBenchAirport,
  startDaemonChild,
  writeRuleFiles,
} from "./daemon-rig.js";
import { type Percentiles, percentiles } from "./latency-figures.js";
import { sleep, waitFor } from "./support/polling.js";
import { HOOK_SECRET } from "./support/run-child.js";
import type { SimFlight } from "./support/sim-flight.js";
import { type SlackReceiver, startSlackReceiver } from "./support/slack-receiver.js";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.js";

const INTERVAL_MS = 1000;
const AIM_MS = INTERVAL_MS + 250;
/** Measured changes, and a few before them that warm the pipeline up. */
const SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 250);
const WARM_UP = 3;
/** Mean gap between changes: 2.5 changes a second. */
const MEAN_GAP_MS = Number(process.env.BENCH_LATENCY_GAP_MS ?? 400);
const WEBHOOK_RULE = "latency-gates";

const fmt = (n: number): string => Math.round(n).toLocaleString("en");

/** One measured change: which flight, when the simulator applied it. */
interface Sample {
  flight: SimFlight;
  appliedAt: number;
}

/** The rule files: every gate change to the signed webhook; each flight's to its own Slack URL. */
function ruleFiles(webhookUrl: string, slackUrl: (i: number) => string, flights: SimFlight[]) {
  const webhook = `rules:
  - id: ${WEBHOOK_RULE}
    changes: [gate]
    channels: [{ type: webhook, url: "${webhookUrl}", secret: "\${RULE_HOOK_SECRET}" }]
`;
  const slack = `rules:\n${flights
    .map(
      (f, i) => `  - id: slack-${i}
    flights: { flight: ${f.flightName} }
    changes: [gate]
    channels: [{ type: slack, url: "${slackUrl(i)}" }]
`,
    )
    .join("")}`;
  return { "webhook.yaml": webhook, "slack.yaml": slack };
}

/** The time of each stage of one sample, ms (undefined where a timestamp is missing). */
interface Stages {
  waitForPoll?: number;
  poll?: number;
  dispatch?: number;
  enqueue?: number;
  queue?: number;
  send?: number;
}

/** Timestamps the run left in Redis, per operating flight id. */
async function stageTimes(
  redis: RedisConnection,
  keys: RedisKeys,
): Promise<{
  committedAt: Map<string, number>;
  alerts: Map<string, { at: number; alert: Alert }>;
}> {
  const entryMs = (id: string) => Number(id.split("-")[0]);
  const committedAt = new Map<string, number>();
  for (const [id, fields] of await redis.xrange(keys.outbox, "-", "+")) {
    for (const event of eventsOfFields(fields) ?? []) {
      if (event.kind === "gate" && !committedAt.has(event.flight.id)) {
        committedAt.set(event.flight.id, entryMs(id));
      }
    }
  }
  const alerts = new Map<string, { at: number; alert: Alert }>();
  for (const [id, fields] of await redis.xrange(keys.alerts, "-", "+")) {
    const alert = alertOfFields(fields);
    if (alert?.ruleId === WEBHOOK_RULE) alerts.set(alert.flight.id, { at: entryMs(id), alert });
  }
  return { committedAt, alerts };
}

const line = (label: string, p: Percentiles, n: number): string =>
  `  ${label.padEnd(34)} p50 ${fmt(p.p50).padStart(5)} ms, p95 ${fmt(p.p95).padStart(5)} ms, ` +
  `p99 ${fmt(p.p99).padStart(5)} ms, max ${fmt(p.max).padStart(5)} ms (n = ${n})`;

/** Everything one run uses; `close` ends it all and deletes the Redis keys and rule files. */
interface LatencyRig {
  airport: BenchAirport;
  /** When each incremental read request reached the simulator, epoch ms, in order. */
  reads: number[];
  /** How long the simulator took to answer each of them: when it arrived, ms. */
  readMs: Array<{ at: number; ms: number }>;
  receiver: WebhookReceiver;
  slack: SlackReceiver;
  /** Operating flights with a gate and distinct flight numbers, warm-up ones first. */
  flights: SimFlight[];
  daemon: DaemonChild;
  /** Every poll the daemon logged (at debug when it found nothing), in order. */
  polls: PollLine[];
  close(): Promise<void>;
}

/** One poll as the daemon logged it. */
interface PollLine {
  /** Epoch ms: the log line's time less the poll's duration. */
  start: number;
  durationMs: number;
  requests: number;
  committed: boolean;
}

const slackPath = (i: number) => `/services/T0/B0/f${i}`;

/** The airport, the receivers, the rules, and `flightwatch run` on them (baseline taken). */
async function startRig(): Promise<LatencyRig> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    const airport = await startBenchAirport("latency", 1400, 8);
    closers.push(() => airport.close());
    const byName = new Map<string, SimFlight>();
    for (const f of airport.sim.simulator.store.all()) {
      const name = f.flightName;
      if (name && f.mainFlight === name && typeof f.gate === "string" && !byName.has(name)) {
        byName.set(name, f as SimFlight);
      }
    }
    const flights = [...byName.values()].slice(0, WARM_UP + SAMPLES);
    if (flights.length < WARM_UP + SAMPLES) {
      throw new Error(
        `${flights.length} gated flights in the simulator, ${WARM_UP + SAMPLES} needed`,
      );
    }
    // The moment a request arrives, before the simulator's own handler runs (it answers
    // with what it holds then, synchronously).
    const reads: number[] = [];
    const readMs: LatencyRig["readMs"] = [];
    airport.sim.server.server.prependListener(
      "request",
      (req: IncomingMessage, res: ServerResponse) => {
        if (!req.url?.includes("searchDateTimeField=lastUpdatedAt")) return;
        const at = Date.now();
        reads.push(at);
        res.on("finish", () => readMs.push({ at, ms: Date.now() - at }));
      },
    );
    const receiver = await startWebhookReceiver({ secret: HOOK_SECRET });
    closers.push(() => receiver.close());
    const slack = await startSlackReceiver();
    closers.push(() => slack.close());
    await writeRuleFiles(
      airport,
      ruleFiles(receiver.url, (i) => slack.url(slackPath(i)), flights),
    );
    // Quiet polls are logged at debug: every poll's start and duration.
    const daemon = await startDaemonChild(airport, { LOG_LEVEL: "debug" });
    closers.push(() => daemon.stop());
    const polls: PollLine[] = [];
    daemon.onObject((l: Record<string, unknown>) => {
      if (typeof l.poll !== "number" || typeof l.durationMs !== "number") return;
      polls.push({
        start: Date.parse(String(l.time)) - l.durationMs,
        durationMs: l.durationMs,
        requests: Number(l.requests),
        committed: l.outcome === "committed",
      });
    });
    return { airport, reads, readMs, receiver, slack, flights, daemon, polls, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** What moving the gates took: the samples, and the wall and CPU time it spanned. */
interface Moves {
  samples: Sample[];
  /** Epoch ms of the first measured change's wait. */
  started: number;
  seconds: number;
  /** Receiver deliveries before the measured ones (the warm-up's). */
  from: number;
  daemonCpuMs: number;
  benchCpuMs: number;
}

/** Warms up, then moves the gates at random moments; waits for the arrivals. */
async function moveGates(rig: LatencyRig): Promise<Moves> {
  const { airport, flights, receiver, slack, daemon } = rig;
  const random = new Random(8);
  const move = (flight: SimFlight, i: number): number => {
    const gate = `${(flight.gate as string)[0]}${900 + i}`;
    airport.sim.simulator.apply({ kind: "update", target: { id: flight.id }, patch: { gate } });
    return Date.now();
  };
  // A few changes delivered before measuring: connections, JIT.
  for (let i = 0; i < WARM_UP; i++) move(flights[i] as SimFlight, i);
  await receiver.waitForIds(WARM_UP, 30_000);
  const from = receiver.deliveries.length;
  const started = Date.now();
  const cpuBefore = { daemon: daemon.cpuMs(), bench: process.cpuUsage() };
  const samples: Sample[] = [];
  for (let i = WARM_UP; i < flights.length; i++) {
    await sleep(-MEAN_GAP_MS * Math.log(1 - random.float()));
    const flight = flights[i] as SimFlight;
    samples.push({ flight, appliedAt: move(flight, i) });
  }
  const seconds = (Date.now() - started) / 1000;
  const daemonCpuMs = daemon.cpuMs() - cpuBefore.daemon;
  const bench = process.cpuUsage(cpuBefore.bench);
  await receiver.waitForIds(WARM_UP + SAMPLES, 30_000).catch(() => undefined);
  await waitFor(async () => slack.messages().length >= WARM_UP + SAMPLES, 15_000).catch(
    () => undefined,
  );
  return {
    samples,
    started,
    seconds,
    from,
    daemonCpuMs,
    benchCpuMs: (bench.user + bench.system) / 1000,
  };
}

/** Latencies and stages of the webhook arrivals. */
interface WebhookFigures {
  total: number[];
  stages: Stages[];
  missing: number;
  duplicates: number;
  unverified: number;
}

async function webhookFigures(rig: LatencyRig, moves: Moves): Promise<WebhookFigures> {
  // First arrival of each id; later ones are duplicates.
  const arrivedAt = new Map<string, number>();
  let duplicates = 0;
  let unverified = 0;
  for (const d of rig.receiver.deliveries.slice(moves.from)) {
    if (!d.verified) unverified++;
    else if (arrivedAt.has(d.id)) duplicates++;
    else arrivedAt.set(d.id, d.receivedAt);
  }
  const { redis } = rig.airport.t;
  const { keys } = rig.airport;
  const { committedAt, alerts } = await stageTimes(redis, keys);
  const jobs = new DeliveryQueues(redis, keys);
  const total: number[] = [];
  const stages: Stages[] = [];
  let missing = 0;
  const diff = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a - b;
  try {
    for (const { flight, appliedAt } of moves.samples) {
      const decided = alerts.get(flight.id);
      const id = decided ? notificationId(decided.alert.id, "webhook") : undefined;
      const received = id ? arrivedAt.get(id) : undefined;
      if (id === undefined || received === undefined) {
        missing++;
        continue;
      }
      total.push(received - appliedAt);
      const job = await jobs.queue("webhook").getJob(id);
      const committed = committedAt.get(flight.id);
      // Any read from the moment of the change on sees it (it sorts last, by its new stamp).
      const read = rig.reads.find((t) => t >= appliedAt);
      stages.push({
        waitForPoll: diff(read, appliedAt),
        poll: diff(committed, read),
        dispatch: diff(decided?.at, committed),
        enqueue: diff(job?.timestamp, decided?.at),
        queue: diff(job?.processedOn, job?.timestamp),
        send: diff(received, job?.processedOn),
      });
    }
  } finally {
    await jobs.close();
  }
  return { total, stages, missing, duplicates, unverified };
}

export const latencyBenchmark: Benchmark = {
  name: "latency",
  title: "Detection latency end to end at POLL_INTERVAL=1s",
  async run() {
    const rig = await startRig();
    try {
      const load = loadavg()[0] ?? 0;
      const moves = await moveGates(rig);
      const web = await webhookFigures(rig, moves);
      const slackLatency: number[] = [];
      let slackMissing = 0;
      let slackDuplicates = 0;
      moves.samples.forEach(({ appliedAt }, n) => {
        const messages = rig.slack.messages(slackPath(WARM_UP + n));
        if (messages.length === 0) slackMissing++;
        slackDuplicates += Math.max(0, messages.length - 1);
        if (messages[0]) slackLatency.push(messages[0].receivedAt - appliedAt);
      });
      const polls = rig.polls.filter((p) => p.start >= moves.started);
      const gaps = polls.slice(1).map((p, i) => p.start - (polls[i]?.start ?? 0));

      console.log(
        `method: \`flightwatch run\` from source (tsx) with POLL_INTERVAL=${INTERVAL_MS / 1000}s, ` +
          "production timeouts and LOG_LEVEL=debug (every poll is logged), against the simulator " +
          "in this process (1,400 records/day, evolve off, real clock), a real Redis (prefix of " +
          `its own) and loopback receivers in this process. After the baseline and ${WARM_UP} ` +
          `warm-up changes, ${SAMPLES} gates of distinct flights moved at random moments ` +
          `(exponential gaps, mean ${MEAN_GAP_MS} ms: ${(SAMPLES / moves.seconds).toFixed(1)} changes/s ` +
          `over ${moves.seconds.toFixed(0)} s). Latency: from the moment the simulator applied a ` +
          "change to its arrival at the receiver. Each poll re-reads the records changed within " +
          "POLL_OVERLAP (60 s) of its watermark — here the moved flights and their codeshare " +
          "records, far more than a real airport's busiest hour changes (`npm run bench -- " +
          `requests\`) — hence the requests per poll below. ${cpus().length} CPUs, load average ` +
          `${load.toFixed(2)} at the start.`,
      );
      const webhook = percentiles(web.total);
      console.log(
        `webhook (signed, verified by the receiver): ${web.total.length} received of ${SAMPLES}, ` +
          `${web.missing} missing, ${web.duplicates} duplicates, ${web.unverified} bad signatures`,
      );
      console.log(line("change visible → webhook received", webhook, web.total.length));
      console.log("  where the time goes (webhook):");
      const stage = (label: string, pick: (s: Stages) => number | undefined) => {
        const values = web.stages.map(pick).filter((v): v is number => v !== undefined);
        console.log(line(`  ${label}`, percentiles(values), values.length));
      };
      stage("waiting for the next poll's read", (s) => s.waitForPoll);
      stage("that read → outbox committed", (s) => s.poll);
      stage("outbox → alert decided", (s) => s.dispatch);
      stage("alert → notification enqueued", (s) => s.enqueue);
      stage("enqueued → taken by a worker", (s) => s.queue);
      stage("taken → received (send)", (s) => s.send);
      console.log(line("  time between polls' starts", percentiles(gaps), gaps.length));
      const requests = percentiles(polls.map((p) => p.requests));
      const readMs = percentiles(rig.readMs.filter((r) => r.at >= moves.started).map((r) => r.ms));
      console.log(
        line("  polls' duration", percentiles(polls.map((p) => p.durationMs)), polls.length) +
          `; requests per poll p50 ${requests.p50}, max ${requests.max} ` +
          `(the simulator's answer p50 ${fmt(readMs.p50)} ms, p99 ${fmt(readMs.p99)} ms); ` +
          `${polls.filter((p) => !p.committed).length} not committed`,
      );
      const share = (ms: number) => `${((ms / (moves.seconds * 1000)) * 100).toFixed(0)} %`;
      console.log(
        `  CPU while the gates moved: the daemon ${share(moves.daemonCpuMs)} of one core, this ` +
          `process (simulator, receivers) ${share(moves.benchCpuMs)}`,
      );
      console.log(
        "slack (one URL per flight, so the 1 message/s pacing per URL never waits): " +
          `${slackLatency.length} received of ${SAMPLES}, ${slackMissing} missing, ${slackDuplicates} duplicates`,
      );
      console.log(
        line("change visible → slack received", percentiles(slackLatency), slackLatency.length),
      );
      return [
        {
          figure:
            "detection latency p99 at POLL_INTERVAL=1s (change upstream → signed webhook received)",
          value: `${fmt(webhook.p99)} ms (p50 ${fmt(webhook.p50)}, p95 ${fmt(webhook.p95)}; ${web.total.length} samples)`,
          aim: `≤ ${fmt(AIM_MS)} ms (interval + 250 ms)`,
          met: web.missing === 0 && web.duplicates === 0 && webhook.p99 <= AIM_MS,
        },
      ];
    } finally {
      await rig.close();
    }
  },
};
