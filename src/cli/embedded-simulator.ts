/**
 * The simulator `--simulator` embeds in `run` and `watch`: its start, and the
 * `--start` instant `simulate` reads as well (its flags are simulator-flags.ts).
 * Shared by the commands, so no command file imports another.
 */
import { randomUUID } from "node:crypto";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { ConfigError } from "../errors.js";
import { type RunningSimulator, startSimulator } from "../simulator/http/start-simulator.js";
import { parseApiDateTime } from "../time/local-time.js";
import { integer, number, SEED_MAX, SEED_MIN } from "./flag-values.js";

/**
 * Re-exported for run-command.ts and watch-command.ts until their definitions import
 * it from simulator-flags.ts (issue 20: a definition must not load the simulator).
 */
export { addSimulatorOptions } from "./simulator-flags.js";

/** The simulator embedded by `--simulator`: the server, a client of it and its clock. */
export interface EmbeddedSimulator {
  sim: RunningSimulator;
  client: FlightApiClientOptions;
  /** The simulated airport clock, epoch ms. */
  now: () => number;
  /** Simulated ms per real ms. */
  speed: number;
}

/** Starts the simulator `--simulator` embeds, from `--seed`, `--speed` and `--start`. */
export async function startEmbeddedSimulator(
  flags: { seed?: string; speed?: string; start?: string },
  zone: string,
): Promise<EmbeddedSimulator> {
  const token = randomUUID();
  const speed = number("--speed", flags.speed ?? "1", (x) => x > 0, "a number > 0");
  const sim = await startSimulator({
    seed: integer("--seed", flags.seed ?? "1", SEED_MIN, SEED_MAX),
    ...(flags.start !== undefined ? { startMs: simulatedStart(flags.start, zone) } : {}),
    speed,
    zone,
    tokens: [token],
  });
  const clock = sim.simulator.clock;
  return {
    sim,
    client: { baseUrl: sim.baseUrl, token, airportTimezone: zone },
    now: () => clock.now(),
    speed,
  };
}

/** `--start`: the simulated start, airport-local or with an offset, as epoch ms. */
export function simulatedStart(text: string, zone: string): number {
  const ms = parseApiDateTime(text, zone);
  if (ms === undefined) {
    throw new ConfigError("--start", `"${text}" is not a date-time (e.g. 2026-10-25T01:30:00)`);
  }
  return ms;
}
