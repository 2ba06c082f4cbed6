/**
 * The whole pipeline under load: the real daemon (`flightwatch run`, a child process)
 * polling a simulated airport of ~10,000 physical flights over loopback HTTP, on a
 * real Redis, delivering to real loopback receivers in this process (a webhook
 * receiver checking every signature, an SMTP server, a Slack look-alike). The
 * benchmark changes gates upstream (bench/gate-updates.ts), each change routed by its
 * gate to one rule and channel, and times every change to the arrival of its
 * notification.
 *
 * 1. Sustained throughput: webhook changes at a rising rate, a step at a time, until
 *    the daemon falls behind; the highest step it keeps up with is the sustained rate.
 * 2. Notifications per second per channel: a burst of changes for one channel at a
 *    time, seen in one poll, timed from the first arrival to the last.
 */
import { cpus, loadavg } from "node:os";
import { startSimulator } from "../src/simulator/http/start-simulator.js";
import type { Benchmark, Headline } from "./benchmark.js";
import {
  type BenchAirport,
  type DaemonChild,
  metricSum,
  RECORDS_PER_10K_FLIGHTS,
  startBenchAirport,
  startDaemonChild,
  writeRuleFiles,
} from "./daemon-rig.js";
import { applyAtRate, type Fate, GateUpdates, quantile } from "./gate-updates.js";
import { waitFor } from "./support/polling.js";
import { HOOK_SECRET } from "./support/run-child.js";
import { startSlackReceiver } from "./support/slack-receiver.js";
import { startSmtpReceiver } from "./support/smtp-receiver.js";
import { startWebhookReceiver } from "./support/webhook-receiver.js";

/**
 * A daemon setting (and the page size the upstream serves it) and the webhook changes
 * per second of its ramp, one step after the other. The first is as deployed; the
 * second serves few big pages, taking the upstream's paging out of the way and
 * leaving the daemon's own ceiling.
 */
interface Setting {
  label: string;
  env: Record<string, string>;
  pageSize?: number;
  ramp: number[];
}
const SETTINGS: Setting[] = [
  {
    label: "defaults (the overlap sized from the observed stamp lag, 20 records a page)",
    env: {},
    ramp: [25, 50, 100, 200, 400, 800],
  },
  {
    label: "defaults, 1,000 records a page",
    env: {},
    pageSize: 1_000,
    ramp: [100, 200, 400, 800, 1_600, 3_200],
  },
];
const STEP_SECONDS = 6;
/** A step is kept up with when its changes all arrive and their p99 is within this. */
const KEPT_UP_P99_MS = 5_000;
/** Changes per channel burst (each on a flight of its own). */
const BURST = { webhook: 3_000, email: 1_000, slack: 1_000, console: 1_000 };
/** Slack webhooks of the Slack burst (Slack takes one message per second per webhook). */
const SLACK_WEBHOOKS = 250;
/** Longest wait for the backlog of a ramp to arrive before the next part. */
const DRAIN_MS = 120_000;
const BURST_TIMEOUT_MS = 60_000;

const fmt = (n: number): string => Math.round(n).toLocaleString("en");

type Channel = keyof typeof BURST;

/** Gate of change `seq` for a channel (Slack: spread over the webhooks). */
const GATES: Record<Channel, (seq: number) => string> = {
  webhook: (seq) => `QW-${seq}`,
  email: (seq) => `QM-${seq}`,
  console: (seq) => `QC-${seq}`,
  slack: (seq) => `QS${seq % SLACK_WEBHOOKS}X-${seq}`,
};

function rulesYaml(hookUrl: string, slackUrl: (path: string) => string): string {
  const gateRule = (id: string, gate: string, channel: string) =>
    `  - id: ${id}\n    flights: { gate: "${gate}" }\n    changes: [gate]\n    channels: [${channel}]\n`;
  const lines = [
    "rules:\n",
    gateRule(
      "hook",
      "QW*",
      `{ type: webhook, url: "${hookUrl}", secret: "\${RULE_HOOK_SECRET}", format: json }`,
    ),
    gateRule("mail", "QM*", `{ type: email, to: [ops@example.com], subject: "{changes}" }`),
    gateRule("print", "QC*", "{ type: console }"),
  ];
  for (let k = 0; k < SLACK_WEBHOOKS; k++) {
    lines.push(
      gateRule(
        `slack-${k}`,
        `QS${k}X*`,
        `{ type: slack, url: "${slackUrl(`/services/T0/B${k}/x`)}" }`,
      ),
    );
  }
  return lines.join("");
}

/** The receivers in this process, read into `updates` every 50 ms (and on `drain()`). */
async function startReceivers(updates: GateUpdates) {
  const webhook = await startWebhookReceiver({ secret: HOOK_SECRET });
  const smtp = await startSmtpReceiver();
  const slack = await startSlackReceiver();
  let slackRead = 0;
  const drain = () => {
    for (const d of webhook.deliveries.splice(0)) {
      if (d.verified) updates.arrived(d.rawBody, d.receivedAt);
    }
    for (const mail of smtp.messages.splice(0)) {
      updates.arrived(mail.headers.subject ?? "", mail.receivedAt);
    }
    const messages = slack.messages();
    for (const m of messages.slice(slackRead)) {
      updates.arrived((m.payload as { text?: string }).text ?? "", m.receivedAt);
    }
    slackRead = messages.length;
  };
  const timer = setInterval(drain, 50);
  return {
    webhook,
    smtp,
    slack,
    drain,
    async close() {
      clearInterval(timer);
      await Promise.all([webhook.close(), smtp.close(), slack.close()]);
    },
  };
}

type Receivers = Awaited<ReturnType<typeof startReceivers>>;

/** Flights each part of the benchmark changes, apart so that no gate moves between rules. */
interface Pools {
  ramp: string[];
  email: string[];
  slack: string[];
  console: string[];
  /** Flights changed in the background of the bursts. */
  background: string[];
}

/** One step of the ramp, as measured at its end. */
interface Step {
  rate: number;
  from: number;
  to: number;
  seconds: number;
  records: number;
  backlog: number;
  lagS: number;
  /** CPU of the daemon and of this process (simulator, receivers), % of one core. */
  cpuPct: number;
  benchCpuPct: number;
  rssMb: number;
  polls: number;
  pollMs: number;
  requestsPerPoll: number;
}

type Samples = Awaited<ReturnType<DaemonChild["scrape"]>>;

/** Polls, their seconds and upstream requests so far (incremental polls). */
function pollTotals(m: Samples): { polls: number; seconds: number; requests: number } {
  return {
    polls: metricSum(m, "flightwatch_poll_duration_seconds_count", { mode: "incremental" }),
    seconds: metricSum(m, "flightwatch_poll_duration_seconds_sum", { mode: "incremental" }),
    requests: metricSum(m, "flightwatch_upstream_requests_total"),
  };
}

const benchCpuMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** Steps up the rate until a step falls behind (or the last step). */
async function ramp(
  rates: readonly number[],
  daemon: DaemonChild,
  updates: GateUpdates,
  pool: readonly string[],
): Promise<Step[]> {
  const steps: Step[] = [];
  let next = 0;
  for (const rate of rates) {
    const from = updates.next;
    const records0 = updates.records;
    const cpu0 = daemon.cpuMs();
    const bench0 = benchCpuMs();
    const before = pollTotals(await daemon.scrape());
    const t0 = Date.now();
    await applyAtRate(rate, rate * STEP_SECONDS, () => {
      updates.apply(pool[next++ % pool.length] as string, GATES.webhook);
    });
    const t1 = Date.now();
    const to = updates.next - 1;
    const samples = await daemon.scrape();
    const after = pollTotals(samples);
    const polls = after.polls - before.polls;
    steps.push({
      rate,
      from,
      to,
      seconds: (t1 - t0) / 1000,
      records: updates.records - records0,
      backlog: metricSum(samples, "flightwatch_queue_jobs", {
        channel: "webhook",
        state: "waiting",
      }),
      lagS: metricSum(samples, "flightwatch_poll_lag_seconds"),
      cpuPct: ((daemon.cpuMs() - cpu0) / (t1 - t0)) * 100,
      benchCpuPct: ((benchCpuMs() - bench0) / (t1 - t0)) * 100,
      rssMb: daemon.memory().rssMb,
      polls,
      pollMs: ((after.seconds - before.seconds) / Math.max(1, polls)) * 1000,
      requestsPerPoll: (after.requests - before.requests) / Math.max(1, polls),
    });
    // Behind: more of the step's changes on their way than the p99 bound's worth.
    const pending = to - from + 1 - updates.arrivedCount(from, to);
    if (pending > (rate * KEPT_UP_P99_MS) / 1000) break;
  }
  return steps;
}

/** Waits until every change from `from` on has arrived or been superseded (at most DRAIN_MS). */
async function drained(updates: GateUpdates, from: number, drain: () => void): Promise<void> {
  const to = updates.next - 1;
  await waitFor(async () => {
    drain();
    return updates.fate(from, to).missing === 0;
  }, DRAIN_MS).catch(() => undefined);
}

function keptUp(fate: Fate): boolean {
  return fate.missing === 0 && quantile(fate.latencies, 0.99) <= KEPT_UP_P99_MS;
}

/** Prints the steps as a table; returns the sustained rate (the last of the kept-up steps from the first). */
function printRamp(steps: readonly Step[], updates: GateUpdates): number {
  console.log(
    "| changes/s | records/s upstream | delivered / superseded / missing | change → received p50 / p95 / p99 / max | polls/s, ms each, requests each | at step end: queue backlog, poll lag | CPU % daemon / simulator + receivers | daemon RSS |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  let sustained = 0;
  let unbroken = true;
  for (const s of steps) {
    const fate = updates.fate(s.from, s.to);
    const l = fate.latencies;
    const kept = keptUp(fate);
    unbroken &&= kept;
    if (unbroken) sustained = s.rate;
    console.log(
      `| ${fmt(s.rate)}${kept ? "" : " ✘"} | ${fmt(s.records / s.seconds)} | ${fmt(fate.delivered)} / ${fmt(fate.superseded)} / ${fmt(fate.missing)} | ` +
        `${fmt(quantile(l, 0.5))} / ${fmt(quantile(l, 0.95))} / ${fmt(quantile(l, 0.99))} / ${fmt(l.at(-1) ?? 0)} ms | ` +
        `${s.polls === 0 ? "none finished" : `${(s.polls / s.seconds).toFixed(2)}, ${fmt(s.pollMs)}, ${fmt(s.requestsPerPoll)}`} | ${fmt(s.backlog)}, ${s.lagS.toFixed(1)} s | ` +
        `${fmt(s.cpuPct)} / ${fmt(s.benchCpuPct)} | ${fmt(s.rssMb)} MB |`,
    );
  }
  return sustained;
}

/** What a part of the benchmark works with. */
interface Run {
  airport: BenchAirport;
  daemon: DaemonChild;
  updates: GateUpdates;
  receivers: Receivers;
  pools: Pools;
}

/** Epoch ms of the entries of a stream from `sinceMs` on (its entry ids start with them). */
async function entryTimes(run: Run, stream: string, sinceMs: number): Promise<number[]> {
  const entries = await run.airport.t.redis.xrange(stream, `${sinceMs}-0`, "+");
  return entries.map(([id]) => Number(id.split("-")[0]));
}

/**
 * A burst for one channel: `count` changes at once, each on a flight of its own. Other
 * flights keep changing meanwhile (5 a second, to gates no rule takes), as upstream
 * data does: the watermark moves on and the burst leaves the overlap window instead
 * of being read again by every poll until the next change. The outbox and alerts
 * streams' entry ids tell when the poll committed the changes and when each alert
 * was decided.
 */
async function burst(run: Run, channel: Channel): Promise<{ perSecond: number; line: string }> {
  const { updates, daemon, pools } = run;
  const pool = channel === "webhook" ? pools.ramp : pools[channel];
  const count = Math.min(BURST[channel], pool.length);
  const cpu0 = daemon.cpuMs();
  const from = updates.next;
  for (let i = 0; i < count; i++) updates.apply(pool[i] as string, GATES[channel]);
  const to = updates.next - 1;
  const t0 = updates.appliedAt(from);
  let tick = 0;
  const ticker = setInterval(() => {
    const flight = pools.background[tick++ % pools.background.length] as string;
    updates.apply(flight, (seq) => `ZZ-${seq}`, false);
  }, 200);
  await waitFor(async () => {
    run.receivers.drain();
    return updates.arrivedCount(from, to) === count;
  }, BURST_TIMEOUT_MS).catch(() => undefined);
  clearInterval(ticker);
  const fate = updates.fate(from, to);
  const first = updates.firstArrival(from, to);
  const last = updates.lastArrival(from, to);
  const perSecond = fate.delivered / Math.max(0.001, (last - first) / 1000);
  const cpu = daemon.cpuMs() - cpu0;
  // Only the burst's flights have alerts (the background's gates match no rule).
  const committed = (await entryTimes(run, run.airport.keys.outbox, t0))[0] ?? t0;
  const decided = await entryTimes(run, run.airport.keys.alerts, t0);
  const decidedSeconds = ((decided.at(-1) ?? 0) - (decided[0] ?? 0)) / 1000;
  return {
    perSecond,
    line:
      `${channel.padEnd(8)} ${fmt(perSecond).padStart(6)} notifications/s received (${fmt(fate.delivered)} of ${fmt(count)} ` +
      `in ${((last - first) / 1000).toFixed(2)} s, first arrival to last; ${fate.missing} missing); change → ` +
      `poll committed ${fmt(committed - t0)} ms, → first received ${fmt(first - t0)} ms, → last ` +
      `${fmt(last - t0)} ms; ${fmt(decided.length)} alerts decided at ${fmt(decided.length / Math.max(0.001, decidedSeconds))}/s; ` +
      `daemon CPU ${fmt((cpu * 1000) / Math.max(1, fate.delivered))} µs per notification, polls included`,
  };
}

/** Starts the daemon of a setting (with its own upstream server when it has a page size). */
async function startSetting(
  setting: Setting,
  airport: BenchAirport,
  receivers: Receivers,
  updates: GateUpdates,
  closers: Array<() => Promise<void>>,
): Promise<DaemonChild> {
  // The same airport, served with another page size.
  const wide =
    setting.pageSize === undefined
      ? undefined
      : await startSimulator({
          simulator: airport.sim.simulator,
          live: false,
          tokens: [airport.token],
          pageSize: setting.pageSize,
        });
  if (wide) closers.push(() => wide.close());
  const daemon = await startDaemonChild(airport, {
    ...setting.env,
    ...(wide ? { FLIGHT_API_BASE_URL: wide.baseUrl } : {}),
    SMTP_URL: receivers.smtp.url(),
    EMAIL_FROM: "Flightwatch <alerts@flightwatch.example>",
  });
  // The console channel prints each notification as a JSON line on the daemon's stdout.
  daemon.onObject((o) => {
    if (o.rule === "print" && Array.isArray(o.changes)) {
      updates.arrived(JSON.stringify(o.changes), Date.now());
    }
  });
  return daemon;
}

/** Part 1 for one setting: the ramp, its table and its headline. */
async function sustained(setting: Setting, run: Run): Promise<Headline> {
  const { daemon, updates, receivers, pools } = run;
  const tracked = metricSum(await daemon.scrape(), "flightwatch_tracked_flights");
  console.log(
    `\nSustained throughput, ${setting.label}: ${fmt(tracked)} physical flights tracked ` +
      `(baseline committed ${((daemon.baselineAt - daemon.spawnedAt) / 1000).toFixed(1)} s after the spawn); ` +
      `webhook changes at a rising rate, ${STEP_SECONDS} s a step, over ${fmt(pools.ramp.length)} flights. ` +
      `A step is kept up with when all its changes arrive with p99 ≤ ${KEPT_UP_P99_MS / 1000} s (✘: not).`,
  );
  const first = updates.next;
  const steps = await ramp(setting.ramp, daemon, updates, pools.ramp);
  await drained(updates, first, receivers.drain);
  const rate = printRamp(steps, updates);
  console.log(
    `sustained (${setting.label}): ${fmt(rate)} changes/s end to end; ` +
      `${updates.repeats} notifications arrived twice so far; daemon warnings and errors: ${daemon.problems()}`,
  );
  return {
    figure: `sustained changes/s, change upstream → signed webhook received with p99 ≤ 5 s, 10,000 flights, ${setting.label}`,
    value: `${fmt(rate)}/s`,
  };
}

/** Part 2: a burst per channel; their headlines. */
async function perChannel(setting: Setting, run: Run): Promise<Headline[]> {
  console.log(
    `\nNotifications per second per channel (${setting.label}): a burst of changes at once ` +
      "(one poll sees them) for one channel at a time, through the whole daemon. Slack: spread over " +
      `${SLACK_WEBHOOKS} webhooks, which the daemon paces to one message per second each (Slack's ` +
      "limit), so its figure is bounded by the number of webhooks. Console: one send at a time, " +
      "by design.",
  );
  const headlines: Headline[] = [];
  for (const channel of ["webhook", "email", "slack", "console"] as const) {
    const result = await burst(run, channel);
    console.log(result.line);
    headlines.push({
      figure: `${channel} notifications/s through the daemon${channel === "slack" ? ` (${SLACK_WEBHOOKS} webhooks)` : ""}`,
      value: `${fmt(result.perSecond)}/s`,
    });
  }
  const memory = run.daemon.memory();
  console.log(
    `daemon RSS at the end ${fmt(memory.rssMb)} MB, peak ${fmt(memory.peakMb)} MB; ` +
      `warnings and errors: ${run.daemon.problems()}`,
  );
  return headlines;
}

export const pipelineBenchmark: Benchmark = {
  name: "pipeline",
  title: "Whole pipeline: sustained throughput and notifications per channel",
  async run() {
    const airport: BenchAirport = await startBenchAirport("pipeline", RECORDS_PER_10K_FLIGHTS);
    const updates = new GateUpdates(airport.sim);
    const receivers = await startReceivers(updates);
    let daemon: DaemonChild | undefined;
    const closers: Array<() => Promise<void>> = [];
    try {
      await writeRuleFiles(airport, {
        "bench.yaml": rulesYaml(receivers.webhook.url, receivers.slack.url),
      });
      const ops = airport.operating;
      const pools: Pools = {
        ramp: ops.slice(0, 5_000),
        email: ops.slice(5_000, 6_500),
        slack: ops.slice(6_500, 8_000),
        console: ops.slice(8_000, 9_500),
        background: ops.slice(9_500),
      };
      console.log(
        `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(2)} before; the daemon, Redis and ` +
          "this process (the simulator and the receivers) share the cores.",
      );
      console.log(
        "method: `flightwatch run` (a child process; POLL_INTERVAL=1s, otherwise the defaults) polls " +
          `the simulator (${fmt(airport.sim.simulator.store.size)} records) over loopback HTTP. ` +
          `${SLACK_WEBHOOKS + 3} rules take gate changes to gates of their own prefix, one channel each. ` +
          "Each change moves one operating flight to a new gate (its codeshare records follow: " +
          "records/s counts them) and is timed from the change upstream to the first arrival of " +
          "the notification that carries it: poll → diff → match → alert → queue → send → received.",
      );
      const headlines: Headline[] = [];
      for (const [index, setting] of SETTINGS.entries()) {
        if (index > 0) {
          await daemon?.stop();
          await airport.clearRedis();
        }
        daemon = await startSetting(setting, airport, receivers, updates, closers);
        headlines.push(await sustained(setting, { airport, daemon, updates, receivers, pools }));
      }
      if (daemon) {
        const run: Run = { airport, daemon, updates, receivers, pools };
        headlines.push(...(await perChannel(SETTINGS.at(-1) as Setting, run)));
      }
      await drained(updates, 1, receivers.drain);
      const all = updates.fate(1, updates.next - 1);
      const total = all.delivered + all.superseded + all.missing;
      console.log(
        `\nEvery change of the run that a rule takes: ${fmt(total)}; received ${fmt(all.delivered)}, ` +
          `superseded ${fmt(all.superseded)}, never received ${fmt(all.missing)}; ` +
          `${fmt(updates.repeats)} received twice.`,
      );
      headlines.push({
        figure:
          "changes received, whole run, every channel (superseded: changed again before a poll saw it)",
        value:
          `${fmt(all.delivered)} of ${fmt(total)} (${fmt(all.superseded)} superseded, ` +
          `${fmt(all.missing)} missing), ${fmt(updates.repeats)} twice`,
        aim: "none missing, none twice",
        met: all.missing === 0 && updates.repeats === 0,
      });
      return headlines;
    } finally {
      await daemon?.stop();
      for (const close of closers) await close();
      await receivers.close();
      await airport.close();
    }
  },
};
