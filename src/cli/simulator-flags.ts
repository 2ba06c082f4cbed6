/**
 * `--speed`, `--seed` and `--start`: the flags of the simulator that `--simulator`
 * embeds in `run` and `watch`. Apart from embedded-simulator.ts, which starts it, so
 * that defining the flags (all `--help` needs) loads no simulator.
 */
import type { Command } from "commander";

/** Adds the embedded simulator's flags to `command`. */
export function addSimulatorOptions(command: Command): Command {
  return command
    .option(
      "--speed <x>",
      "simulator clock speed, simulated seconds per second (with --simulator)",
      "1",
    )
    .option("--seed <n>", "simulator data seed (with --simulator)", "1")
    .option(
      "--start <date-time>",
      "simulated start, airport-local (with --simulator; default: now)",
    );
}
