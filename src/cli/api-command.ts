/** `flightwatch api`: call any Flight API operation from the shell and print JSON. */
import type { Command } from "commander";

/** Adds the `api` subcommand. */
export function registerApiCommand(program: Command): void {
  program.command("api").description("call a Flight API operation and print JSON (not yet built)");
}
