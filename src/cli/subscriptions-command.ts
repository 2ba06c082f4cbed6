/**
 * `flightwatch subscriptions`: passenger subscriptions kept as data in Redis — add one
 * (a flight number on a date, an email address or a webhook URL, what to hear about),
 * list them, remove them, import and export them in bulk (NDJSON or CSV). Reads the same Redis (`REDIS_URL`, `FLIGHTWATCH_PREFIX`) as the
 * daemon, which matches them beside the rule files from the next change on.
 *
 * This file is the definition only (what `--help` shows); the work is
 * subscriptions-action.ts, loaded when a subcommand runs.
 */
import type { Command } from "commander";

const EXAMPLES = `
Examples:
  $ flightwatch subscriptions add --flight KL1001 --date 2026-11-27 --email anna@example.com --label booking=X7Q2LM
      gate, boarding, delays of 15 minutes or more, cancellation, diversion and belt (the essentials preset)
  $ flightwatch subscriptions add --flight DL9341 --date 2026-11-27 --webhook https://app.example.com/hooks/fw --secret "$HOOK_SECRET" \\
      --changes '["gate", {"kind": "departure_time", "delay_at_least": "30m"}]'
  $ flightwatch subscriptions list --flight KL1001 --date 2026-11-27
  $ flightwatch subscriptions remove 3kq5cz0y1b6x2m4n
  $ flightwatch subscriptions import passengers.csv
      every line checked first: one bad line (named by line and field) and nothing is imported
  $ flightwatch subscriptions export --output all.ndjson
  $ flightwatch subscriptions export --with-secrets | flightwatch subscriptions import --replace -
`;

/** Flags of `subscriptions add`. */
export interface AddFlags {
  id?: string;
  flight?: string;
  date?: string;
  email?: string;
  webhook?: string;
  secret?: string;
  language?: string;
  direction?: string;
  quietHours?: string;
  remind?: string[];
  preset?: string;
  changes?: string;
  label?: string[];
  json?: boolean;
}

/** Flags of `subscriptions list`. */
export interface ListFlags {
  flight?: string;
  date?: string;
  recipient?: string;
  label?: string;
  status?: string;
  limit?: string;
  json?: boolean;
}

/** Flags of `subscriptions import`. */
export interface ImportFlags {
  format?: string;
  replace?: boolean;
  skipInvalid?: boolean;
}

/** Flags of `subscriptions export`. */
export interface ExportFlags {
  format?: string;
  output?: string;
  withSecrets?: boolean;
}

const actions = () => import("./subscriptions-action.js");

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Adds `subscriptions add`, `list`, `remove`, `import` and `export` to the program. */
export function registerSubscriptionsCommand(program: Command): void {
  const subscriptions = program
    .command("subscriptions")
    .description(
      "passenger subscriptions kept in Redis: add, list, remove, import, export (REDIS_URL, FLIGHTWATCH_PREFIX)",
    )
    .addHelpText("after", EXAMPLES);

  subscriptions
    .command("add")
    .description("subscribe a recipient to one flight on one date")
    .requiredOption(
      "--flight <number>",
      "flight number: the operating one or any codeshare (KL1001)",
    )
    .requiredOption("--date <yyyy-MM-dd>", "the flight's schedule date, local to the airport")
    .option(
      "--direction <departure|arrival>",
      "only the departure, or only the arrival, of that number on that date (default: both)",
    )
    .option("--email <address>", "send to this address")
    .option("--webhook <url>", "or POST signed JSON to this URL (an app backend)")
    .option("--secret <secret>", "with --webhook: the signing secret (Standard Webhooks)")
    .option("--language <code>", "the notifications' language: en (the default) or nl")
    .option(
      "--quiet-hours <from-to>",
      "hold what is not critical to the window's end: 23:00-07:00, or 23:00-07:00 Europe/London",
    )
    .option(
      "--remind <when>",
      "a reminder, such as '30m before boarding' (repeatable; before departure, boarding, gate_closing or arrival)",
      collect,
    )
    .option(
      "--preset <name>",
      "what to hear about: essentials (the default), or none (reminders only)",
    )
    .option("--changes <json>", "or change selectors as rule files write them, as a JSON list")
    .option("--label <name=value>", "a label echoed in every notification (repeatable)", collect)
    .option("--id <id>", "the subscription's id (default: a random one); refused when taken")
    .option("--json", "print the subscription as JSON")
    .action(async (flags: AddFlags) => (await actions()).addSubscription(flags));

  subscriptions
    .command("list")
    .description("list subscriptions, soonest to expire first")
    .option("--flight <number>", "only this flight number")
    .option("--date <yyyy-MM-dd>", "only this schedule date")
    .option("--recipient <address-or-url>", "only this email address or webhook URL")
    .option("--label <name=value>", "only those with this label")
    .option("--status <status>", "only pending, active, unsubscribed or expired ones")
    .option("--limit <n>", "at most this many", "100")
    .option("--json", "one JSON object per line")
    .action(async (flags: ListFlags) => (await actions()).listSubscriptions(flags));

  subscriptions
    .command("remove")
    .description("delete subscriptions: nothing more is sent for them")
    .argument("<ids...>", "subscription ids, as `subscriptions list` shows them")
    .action(async (ids: string[]) => (await actions()).removeSubscriptions(ids));

  subscriptions
    .command("import")
    .description(
      "add subscriptions from an NDJSON or CSV file, all or nothing: every line is checked first",
    )
    .argument("<file>", "the file, or - for standard input")
    .option(
      "--format <format>",
      "ndjson or csv (default: by the file's extension; standard input: ndjson)",
    )
    .option("--replace", "overwrite stored subscriptions whose id a line gives with other content")
    .option("--skip-invalid", "import the good lines of a file with bad ones (listed on stderr)")
    .action(async (file: string, flags: ImportFlags) =>
      (await actions()).importSubscriptionsFile(file, flags),
    );

  subscriptions
    .command("export")
    .description("write every stored subscription as NDJSON or CSV, as import reads it back")
    .option("-o, --output <file>", "write to this file (default: standard output)")
    .option("--format <format>", "ndjson or csv (default: by --output's extension, else ndjson)")
    .option("--with-secrets", "write webhook secrets as they are (default: masked, ***)")
    .action(async (flags: ExportFlags) => (await actions()).exportSubscriptionsFile(flags));
}
