/**
 * `flightwatch channels test`: send a clearly marked sample notification through a
 * rule's (or a subscription's) real channels, now, and report what each receiver
 * answered — the check to run after setting up a webhook, a Slack URL or SMTP.
 *
 * This file is the definition only (what `--help` shows); the work is
 * channels-action.ts, loaded when the subcommand runs.
 */
import type { Command } from "commander";
import { VARS_FILE_HELP } from "./vars-file.js";

const EXAMPLES = `
Examples:
  $ flightwatch channels test ops-gates --vars-file rules/demo.env
      send a sample through every channel of rule ops-gates (rules from ./rules or FLIGHTWATCH_RULES)
  $ flightwatch channels test partner-feed --channel partner
      only its channel named partner
  $ flightwatch channels test sub:3kq5cz0y1b6x2m4n
      a passenger subscription's channel (read from REDIS_URL under FLIGHTWATCH_PREFIX)

The sample says it is a test: "TEST — no flight changed" before its headline, an email
subject starting with TEST, the header X-Flightwatch-Test, and for webhooks the event
type flightwatch.test with "test": true in its data. It is sent once, not queued or
retried; SMTP_URL, EMAIL_FROM and OUTBOUND_ALLOW apply as in the daemon.
Exit 0 when every channel accepted it, 1 when any did not.`;

/** Flags of `channels test`. */
export interface ChannelsTestFlags {
  channel?: string;
  varsFile?: string;
  json?: boolean;
}

/** Adds the `channels` subcommand and its `test` subcommand. */
export function registerChannelsCommand(program: Command): void {
  const channels = program
    .command("channels")
    .description("check that a rule's channels reach their receivers")
    .addHelpText("after", EXAMPLES);
  channels
    .command("test")
    .description(
      "send a sample notification, marked as a test, through a rule's or subscription's channels",
    )
    .argument("<id>", "a rule id, or sub:<id> for a passenger subscription")
    .argument("[dir]", "rules directory (default: FLIGHTWATCH_RULES or ./rules)")
    .option("--channel <name>", "only this channel of the rule")
    .option("--json", "print each channel's outcome as a JSON line")
    .option("--vars-file <file>", VARS_FILE_HELP)
    .action(async (id: string, dir: string | undefined, flags: ChannelsTestFlags) => {
      const { runChannelsTest } = await import("./channels-action.js");
      process.exitCode = await runChannelsTest(id, dir, flags, process.env);
    });
}
