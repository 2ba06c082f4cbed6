/**
 * Take-over after a kill: how long the work of a SIGKILLed process waits before
 * another process does it, measured on real `flightwatch run` children sharing one
 * Redis prefix.
 *
 * - **Polls.** Two pollers (`--role poller`); the one polling is SIGKILLed, either at a
 *   random moment between polls or half-way through a poll (the simulator answering
 *   slowly), and the time until the other starts a poll is taken from the poll status
 *   (`lastAttemptAt`, `lastPoller`). Aim: within two poll intervals.
 * - **Deliveries.** A worker holds webhook sends (the receiver answers its requests only
 *   after the test is over) and is SIGKILLed; a second worker sends them again under the
 *   same ids. Time from the kill to each one's arrival, against DELIVERY_STALL_TIMEOUT.
 */
import { hostname } from "node:os";
import type { Benchmark, Headline } from "./benchmark.js";
import {
  type BenchAirport,
  benchDaemonEnv,
  startBenchAirport,
  writeRuleFiles,
} from "./daemon-rig.js";
import { percentiles } from "./latency-figures.js";
import { type CliProcess, spawnCli } from "./support/cli-process.js";
import { sleep, waitFor } from "./support/polling.js";
import { HOOK_SECRET } from "./support/run-child.js";
import { startWebhookReceiver, type WebhookDelivery } from "./support/webhook-receiver.js";

const ROUNDS = Number(process.env.BENCH_TAKEOVER_ROUNDS ?? 6);
const fmt = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** A `flightwatch run` child of the airport, killed at the end whatever happens. */
function spawnRun(airport: BenchAirport, args: string[], env: Record<string, string>): CliProcess {
  const proc = spawnCli(["run", ...args], { ...benchDaemonEnv(airport), ...env });
  const orphan = () => proc.child.kill("SIGKILL");
  process.once("exit", orphan);
  void proc.exited.then(() => process.off("exit", orphan));
  return proc;
}

/** The pid in a poller's name (`<consumer>:<pid>[:<random>]`). */
const pidOf = (name: string | null | undefined): number | undefined => {
  const pid = Number(name?.split(":")[1]);
  return Number.isInteger(pid) ? pid : undefined;
};

async function pollTakeover(
  airport: BenchAirport,
  intervalMs: number,
  midPoll: boolean,
): Promise<number[]> {
  const { redis } = airport.t;
  const keys = airport.keys;
  const env = { POLL_INTERVAL: `${intervalMs}ms`, RECONCILE_INTERVAL: "0", HTTP_PORT: "off" };
  const procs = new Map<number, CliProcess>();
  let n = 0;
  const spawnPoller = () => {
    const proc = spawnRun(airport, ["--role", "poller", "--consumer", `p${n++}`], env);
    procs.set(proc.child.pid as number, proc);
  };
  spawnPoller();
  spawnPoller();
  const takeovers: number[] = [];
  try {
    await waitFor(async () => (await redis.hget(keys.detection, "watermark")) !== null, 120_000);
    // Half-way through a poll: every request (after the baseline) takes most of an interval.
    airport.sim.faults.replace(midPoll ? { latencyMs: Math.round(intervalMs * 0.8) } : {});
    for (let round = 0; round < ROUNDS; round++) {
      let victim: number | undefined;
      if (midPoll) {
        // The lease is held while a poll runs: kill its holder once the poll is under way.
        await waitFor(async () => {
          victim = pidOf(await redis.get(keys.pollLease));
          return victim !== undefined && procs.has(victim);
        }, 30_000);
        await sleep(Math.round(intervalMs * 0.3));
      } else {
        await sleep(Math.random() * intervalMs);
        victim = pidOf(await redis.hget(keys.pollStatus, "lastPoller"));
      }
      const proc = victim === undefined ? undefined : procs.get(victim);
      if (!proc || victim === undefined) throw new Error("no poller to kill");
      const killedAt = Date.now();
      proc.child.kill("SIGKILL");
      await proc.exited;
      procs.delete(victim);
      let tookAt = 0;
      await waitFor(
        async () => {
          const status = await redis.hmget(keys.pollStatus, "lastAttemptAt", "lastPoller");
          const at = Number(status[0]);
          const by = pidOf(status[1]);
          if (by === undefined || by === victim || !(at >= killedAt)) return false;
          tookAt = at;
          return true;
        },
        60_000 + 10 * intervalMs,
      );
      // The attempt's start is recorded when it ends: with the latency it is the start.
      takeovers.push(tookAt - killedAt);
      spawnPoller();
      await sleep(intervalMs * 2);
    }
  } finally {
    for (const proc of procs.values()) proc.child.kill("SIGKILL");
    await Promise.all([...procs.values()].map((p) => p.exited));
    airport.sim.faults.replace({});
    await airport.clearRedis();
  }
  return takeovers;
}

async function deliveryTakeover(airport: BenchAirport, stallTimeoutMs: number): Promise<number[]> {
  const held = new Set<string>();
  // First sends are held open (the worker is killed meanwhile); later ones are taken.
  const receiver = await startWebhookReceiver({
    secret: HOOK_SECRET,
    respond: (d: WebhookDelivery) => {
      if (held.has(d.id)) return { status: 204 };
      held.add(d.id);
      return { status: 204, delayMs: 10 * 60_000 };
    },
  });
  await writeRuleFiles(airport, {
    "gates.yaml": `rules:
  - id: gates
    changes: [gate]
    channels: [{ type: webhook, url: "${receiver.url}", secret: "\${RULE_HOOK_SECRET}" }]
`,
  });
  const env = {
    POLL_INTERVAL: "500ms",
    RECONCILE_INTERVAL: "0",
    HTTP_PORT: "off",
    DELIVERY_STALL_TIMEOUT: `${stallTimeoutMs}ms`,
  };
  const poller = spawnRun(airport, ["--role", "poller", "--consumer", "poller"], env);
  const first = spawnRun(airport, ["--role", "worker", "--consumer", "w1"], env);
  const procs = [poller, first];
  try {
    await waitFor(
      async () => (await airport.t.redis.hget(airport.keys.detection, "watermark")) !== null,
      120_000,
    );
    const flights = airport.operating.slice(0, ROUNDS * 2);
    for (const [i, id] of flights.entries()) {
      const gate = `T${stallTimeoutMs / 1000}${i}`;
      airport.sim.simulator.apply({ kind: "update", target: { id }, patch: { gate } });
    }
    // Every send is held by the first worker.
    await waitFor(async () => held.size === flights.length, 60_000);
    const second = spawnRun(airport, ["--role", "worker", "--consumer", "w2"], env);
    procs.push(second);
    await sleep(2_000); // its workers ready
    const killedAt = Date.now();
    first.child.kill("SIGKILL");
    await first.exited;
    await receiver.waitForIds(flights.length, 0).catch(() => undefined);
    await waitFor(
      async () => {
        const again = receiver.deliveries.filter((d) => d.receivedAt >= killedAt);
        return new Set(again.map((d) => d.id)).size === flights.length;
      },
      stallTimeoutMs * 3 + 30_000,
    );
    const firstArrival = new Map<string, number>();
    for (const d of receiver.deliveries) {
      if (d.receivedAt >= killedAt && !firstArrival.has(d.id)) firstArrival.set(d.id, d.receivedAt);
    }
    return [...firstArrival.values()].map((at) => at - killedAt);
  } finally {
    for (const proc of procs) proc.child.kill("SIGKILL");
    await Promise.all(procs.map((p) => p.exited));
    await receiver.close();
    await airport.clearRedis();
  }
}

export const takeoverBenchmark: Benchmark = {
  name: "takeover",
  title: "takeover — a killed process's polls and deliveries taken over",
  async run() {
    const airport = await startBenchAirport("takeover", 300);
    const headlines: Headline[] = [];
    try {
      // The pollers need a rule to run; nothing changes while they are measured.
      await writeRuleFiles(airport, {
        "gates.yaml":
          "rules:\n  - id: gates\n    changes: [gate]\n    channels: [{ type: console }]\n",
      });
      console.log(
        `host ${hostname()}: two pollers, the one polling SIGKILLed ${ROUNDS} times per case; time until the other starts a poll (aim: within 2 intervals)`,
      );
      console.log("| interval | killed | median | max | max / interval |");
      console.log("|---|---|---|---|---|");
      for (const intervalMs of [1_000, 5_000]) {
        for (const midPoll of [false, true]) {
          const times = await pollTakeover(airport, intervalMs, midPoll);
          const p = percentiles(times);
          const ratio = p.max / intervalMs;
          console.log(
            `| ${intervalMs / 1000} s | ${midPoll ? "half-way through a poll" : "between polls"} | ${fmt(p.p50)} | ${fmt(p.max)} | ${ratio.toFixed(2)} |`,
          );
          if (intervalMs === 1_000) {
            headlines.push({
              figure: `poll take-over after a SIGKILL at POLL_INTERVAL=1s (${midPoll ? "mid-poll" : "between polls"}), max`,
              value: fmt(p.max),
              aim: "≤ 2 intervals (2 s)",
              met: p.max <= 2 * intervalMs,
            });
          }
        }
      }
      console.log(
        "\nA worker holding webhook sends SIGKILLed; a second worker sends them again (same ids). Time from the kill to each arrival:",
      );
      console.log("| DELIVERY_STALL_TIMEOUT | sends | median | max |");
      console.log("|---|---|---|---|");
      for (const stallMs of [10_000, 30_000]) {
        const times = await deliveryTakeover(airport, stallMs);
        const p = percentiles(times);
        console.log(`| ${stallMs / 1000} s | ${times.length} | ${fmt(p.p50)} | ${fmt(p.max)} |`);
        headlines.push({
          figure: `deliveries of a SIGKILLed worker handed on, DELIVERY_STALL_TIMEOUT=${stallMs / 1000}s, max`,
          value: fmt(p.max),
          aim: `≤ ${stallMs / 1000} s`,
          met: p.max <= stallMs,
        });
      }
    } finally {
      await airport.close();
    }
    return headlines;
  },
};
