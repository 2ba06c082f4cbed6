/**
 * The moving parts of the SIGKILL tests: a simulator whose gates keep changing, a
 * `flightwatch watch` child process polling it, and a run of that process killed
 * again and again — half the time at a random moment, half the time by itself at a
 * named crash point (src/crash-point.ts).
 */

import { expect } from "vitest";
import { sleep, waitFor } from "../../bench/support/polling.js";
import type { SimFlight } from "../../bench/support/sim-flight.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import { createSimulator } from "../../src/simulator/simulator.js";
import type { RedisConnection } from "../../src/store/redis-connection.js";
import type { RedisKeys } from "../../src/store/redis-keys.js";
import { type CliProcess, completeLines, spawnCli, testRedisEnv } from "./cli-process.js";

export type { SimFlight };
// Shared with the benchmarks (bench/support/), which import nothing from test/.
export { sleep, waitFor };

/** A simulator of 150 flights a day that change only when a test changes them, behind `token`. */
export function startCrashSimulator(seed: number, token: string): Promise<RunningSimulator> {
  const simulator = createSimulator({ seed, flightsPerDay: 150, evolve: false });
  return startSimulator({ simulator, live: false, tokens: [token] });
}

/** Where a SIGKILL test's `flightwatch watch` polls from and writes to. */
export interface CrashWatchOptions {
  sim: RunningSimulator;
  /** The simulator's bearer token. */
  token: string;
  /** The test's Redis key prefix. */
  prefix: string;
  /** Arguments after `watch --consumer crash-test`. */
  args?: readonly string[];
  /** Settings beside the common ones (a 200 ms poll, Amsterdam time). */
  env?: Record<string, string>;
}

/** Starts `flightwatch watch` against the simulator, armed to crash at `crashAt` when given. */
export function spawnWatch(options: CrashWatchOptions, crashAt?: string): CliProcess {
  return spawnCli(["watch", "--consumer", "crash-test", ...(options.args ?? [])], {
    FLIGHT_API_BASE_URL: options.sim.baseUrl,
    FLIGHT_API_TOKEN: options.token,
    ...testRedisEnv(options.prefix),
    POLL_INTERVAL: "200ms",
    AIRPORT_TIMEZONE: "Europe/Amsterdam",
    ...options.env,
    ...(crashAt ? { FLIGHTWATCH_CRASH_AT: crashAt } : {}),
  });
}

/** The first `count` operating flights of the simulator that have a gate. */
export function gatedFlights(sim: RunningSimulator, count: number): SimFlight[] {
  const flights = [...sim.simulator.store.all()]
    .filter((f) => f.mainFlight === f.flightName && typeof f.gate === "string")
    .slice(0, count) as SimFlight[];
  expect(flights.length).toBe(count);
  return flights;
}

/** Moves the flights' gates in turn (K1, K2, …) every `everyMs` until stopped. */
export function changeGates(
  sim: RunningSimulator,
  flights: readonly SimFlight[],
  everyMs: number,
): { stop(): void; readonly count: number } {
  let n = 0;
  const timer = setInterval(() => {
    const flight = flights[n % flights.length] as SimFlight;
    n++;
    sim.simulator.apply({ kind: "update", target: { id: flight.id }, patch: { gate: `K${n}` } });
  }, everyMs);
  return {
    stop: () => clearInterval(timer),
    get count() {
      return n;
    },
  };
}

export interface KillRunOptions {
  kills: number;
  /** Crash points taken in turn by the self-inflicted kills. */
  crashPoints: readonly string[];
  /** Starts the process, armed to crash at `crashAt` (`<point>:<n>`) when given. */
  start: (crashAt?: string) => CliProcess;
  /** The first process, already running. */
  first: CliProcess;
  /** Random kills come this long after a start, at most (default 1,500 ms). */
  maxRandomMs?: number;
  /** A crash point is reached at its 1st to n-th pass (default 4). */
  maxPass?: number;
}

/**
 * Kills and restarts the process `kills` times; every kill must be a SIGKILL. Returns
 * the process left running and the complete stdout lines of the killed ones.
 */
export async function killRepeatedly(
  options: KillRunOptions,
): Promise<{ proc: CliProcess; printed: string[] }> {
  let proc = options.first;
  const printed: string[] = [];
  for (let kill = 0; kill < options.kills; kill++) {
    if (kill % 2 === 0) {
      await sleep(250 + Math.floor(Math.random() * (options.maxRandomMs ?? 1500)));
      proc.child.kill("SIGKILL");
    } else {
      // The process kills itself at its crash point; from outside if it never gets there.
      const timer = setTimeout(() => proc.child.kill("SIGKILL"), 10_000);
      await proc.exited;
      clearTimeout(timer);
    }
    expect(await proc.exited).toBe("SIGKILL");
    printed.push(...completeLines(proc.stdout()));
    const points = options.crashPoints;
    const point = points[Math.floor(kill / 2) % points.length] as string;
    const pass = 1 + Math.floor(Math.random() * (options.maxPass ?? 4));
    proc = options.start(kill % 2 === 0 ? `${point}:${pass}` : undefined);
  }
  return { proc, printed };
}

export interface GateKillRunOptions extends Omit<KillRunOptions, "first"> {
  sim: RunningSimulator;
  /** The flights whose gates move (see changeGates). */
  flights: readonly SimFlight[];
  /** Gates move this often once the first process has taken its baseline. */
  gateEveryMs: number;
  /** The test's Redis: the baseline is taken once the detection watermark is set. */
  redis: RedisConnection;
  keys: RedisKeys;
}

/**
 * Starts the first process and, once it has taken its baseline, keeps gates moving
 * while killing and restarting it (killRepeatedly). Returns the process left running,
 * the complete stdout lines of the killed ones and how many gate changes were made.
 */
export async function killWhileGatesMove(
  options: GateKillRunOptions,
): Promise<{ proc: CliProcess; printed: string[]; gateChanges: number }> {
  const first = options.start();
  const { redis, keys } = options;
  await waitFor(async () => (await redis.hget(keys.detection, "watermark")) !== null, 30_000);
  const gates = changeGates(options.sim, options.flights, options.gateEveryMs);
  try {
    const run = await killRepeatedly({ ...options, first });
    return { ...run, gateChanges: gates.count };
  } finally {
    gates.stop();
  }
}

/** Entries read but not yet acknowledged, over all the stream's consumer groups; -1 while it has none. */
export async function pendingEntries(redis: RedisConnection, stream: string): Promise<number> {
  const groups = (await redis.call("XINFO", "GROUPS", stream)) as unknown[][];
  if (groups.length === 0) return -1;
  return groups.reduce((sum, g) => sum + Number(g[g.indexOf("pending") + 1] ?? 0), 0);
}
