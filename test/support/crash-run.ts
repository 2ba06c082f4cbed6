/**
 * The moving parts of the SIGKILL tests: gates that keep changing in a simulator, and
 * a run of a CLI child process that is killed again and again — half the time at a
 * random moment, half the time by itself at a named crash point (src/crash-point.ts).
 */
import { expect } from "vitest";
import type { Flight } from "../../src/api/types.js";
import type { RunningSimulator } from "../../src/simulator/http/start-simulator.js";
import { type CliProcess, completeLines } from "./cli-process.js";

/** A flight of the simulator, with its id. */
export type SimFlight = Flight & { id: string };

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

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
