/**
 * The simulator `--simulator` embeds in `run`, `demo` and `watch`: started in this
 * process from its settings, with a client of it and its clock.
 */
import { randomUUID } from "node:crypto";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { type RunningSimulator, startSimulator } from "../simulator/http/start-simulator.js";

/** The embedded simulator's settings, as the flags give them (checked). */
export interface EmbeddedSimulatorSettings {
  /** Simulated ms per real ms. */
  speed: number;
  /** Data seed. */
  seed: number;
  /** The simulated start, epoch ms (default now). */
  startMs?: number;
}

/** The simulator embedded by `--simulator`: the server, a client of it and its clock. */
export interface EmbeddedSimulator {
  sim: RunningSimulator;
  client: FlightApiClientOptions;
  /** The simulated airport clock, epoch ms. */
  now: () => number;
}

/** Starts the embedded simulator, behind a token of its own. */
export async function startEmbeddedSimulator(
  settings: EmbeddedSimulatorSettings,
  zone: string,
): Promise<EmbeddedSimulator> {
  const token = randomUUID();
  const sim = await startSimulator({
    seed: settings.seed,
    ...(settings.startMs !== undefined ? { startMs: settings.startMs } : {}),
    speed: settings.speed,
    zone,
    tokens: [token],
  });
  const clock = sim.simulator.clock;
  return {
    sim,
    client: { baseUrl: sim.baseUrl, token, airportTimezone: zone },
    now: () => clock.now(),
  };
}
