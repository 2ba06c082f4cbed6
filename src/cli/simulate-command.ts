/** `flightwatch simulate`: run the built-in Flight API v4 simulator. */
import type { Command } from "commander";

/** Adds the `simulate` subcommand. */
export function registerSimulateCommand(program: Command): void {
  program.command("simulate").description("run the Flight API v4 simulator (not yet built)");
}
