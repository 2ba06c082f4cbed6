/**
 * The embedded simulator's settings from the flags of `run` and `watch` (its flags are
 * simulator-flags.ts, its start src/daemon/embedded-simulator.ts), and the `--start`
 * instant `simulate` reads as well. Shared, so no command file imports another.
 */
import type { EmbeddedSimulatorSettings } from "../daemon/embedded-simulator.js";
import { ConfigError } from "../errors.js";
import { parseApiDateTime } from "../time/local-time.js";
import { integer, number, SEED_MAX, SEED_MIN } from "./flag-values.js";

/** The embedded simulator's settings from `--speed`, `--seed` and `--start`, checked. */
export function simulatorSettings(
  flags: { seed?: string; speed?: string; start?: string },
  zone: string,
): EmbeddedSimulatorSettings {
  const start = flags.start === undefined ? undefined : simulatedStart(flags.start, zone);
  return {
    speed: number("--speed", flags.speed ?? "1", (x) => x > 0, "a number > 0"),
    seed: integer("--seed", flags.seed ?? "1", SEED_MIN, SEED_MAX),
    ...(start !== undefined ? { startMs: start } : {}),
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
