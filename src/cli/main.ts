/**
 * The `flightwatch` command: parses argv and hands each subcommand to its builder.
 * Only wiring lives here; every subcommand is a file of its own under `src/cli/`,
 * which defines its flags and help and loads its work (`<name>-action.ts`) when it
 * runs, so that `--help` and `--version` load commander and little else.
 */
import { Command, CommanderError } from "commander";
import { describeError, FlightwatchError } from "../errors.js";
import { maskSecrets } from "../log/mask-secrets.js";
import { VERSION } from "../version.js";
import { registerApiCommand } from "./api-command.js";
import { registerApiKeysCommand } from "./api-keys-command.js";
import { registerChannelsCommand } from "./channels-command.js";
import { registerConfigCommand } from "./config-command.js";
import { registerDeliveriesCommand } from "./deliveries-command.js";
import { exitCodeOf, usageExit } from "./exit-codes.js";
import { registerRulesCommand } from "./rules-command.js";
import { registerRunCommands } from "./run-command.js";
import { registerSimulateCommand } from "./simulate-command.js";
import { registerSubscriptionsCommand } from "./subscriptions-command.js";
import { registerWatchCommand } from "./watch-command.js";

/** Builds the command tree; tests call this to run subcommands in-process. */
export function buildProgram(): Command {
  const program = new Command("flightwatch")
    .description(
      "Watch an airport's Flight Information Service (API v4) for flight changes and alert people and systems.",
    )
    .version(VERSION)
    .showHelpAfterError("(add --help for usage and examples)")
    .enablePositionalOptions()
    // Set before subcommands are added: commander copies it to each of them, so no
    // subcommand ever calls process.exit (in-process tests stay alive).
    .exitOverride(usageExit);
  registerApiCommand(program);
  registerSimulateCommand(program);
  registerRunCommands(program);
  registerConfigCommand(program);
  registerWatchCommand(program);
  registerRulesCommand(program);
  registerDeliveriesCommand(program);
  registerChannelsCommand(program);
  registerSubscriptionsCommand(program);
  registerApiKeysCommand(program);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are "errors" to commander; they already printed.
      return err.exitCode;
    }
    if (err instanceof FlightwatchError) {
      // Masked as the logs are: a message may quote a value that holds a credential.
      process.stderr.write(`flightwatch: ${maskSecrets(describeError(err))}\n`);
      return exitCodeOf(err);
    }
    throw err;
  }
}
