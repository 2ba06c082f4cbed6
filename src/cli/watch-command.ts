/**
 * `flightwatch watch`: change detection alone. Polls the upstream (or the built-in
 * simulator with `--simulator`), keeps snapshots in Redis, and prints every change
 * event as one JSON line on stdout; poll summaries and problems go to stderr.
 */
import type { Command } from "commander";
import type { Redis } from "ioredis";
import { clientOptionsFromEnv, type FlightApiClientOptions } from "../api/client-options.js";
import { readRuleVariables } from "../config/rule-variables.js";
import { type DeliveryRecord, describeRecord } from "../deliver/delivery-log.js";
import type { DeliveryJob } from "../deliver/delivery-queues.js";
import { plaintextAuthWarning, readEmailSettings } from "../deliver/email-settings.js";
import { buildSenders } from "../deliver/senders.js";
import { describePoll } from "../detect/describe-poll.js";
import { detectorSettingsFromEnv, redisSettingsFromEnv } from "../detect/detect-config.js";
import type { DetectorSettings } from "../detect/detector.js";
import { startWatch } from "../detect/watch.js";
import type { Alert } from "../dispatch/alert.js";
import { ConfigError, describeError, renameSettings } from "../errors.js";
import { readOutboundAllow } from "../outbound/outbound-policy.js";
import { describeAlert } from "../render/alert-text.js";
import type { RuleSet } from "../rules/rule-matcher.js";
import type { RuleWatcher } from "../rules/rule-watcher.js";
import type { RunningSimulator } from "../simulator/http/start-simulator.js";
import { redisKeys, SIMULATOR_PREFIX } from "../store/redis-keys.js";
import { parseDuration } from "../time/duration.js";
import { DEFAULT_AIRPORT_TIMEZONE, toLocalDateTime } from "../time/local-time.js";
import { addSimulatorOptions, startEmbeddedSimulator } from "./embedded-simulator.js";
import { rulesDir, startRuleWatcher } from "./rule-files.js";
import { VARS_FILE_HELP } from "./vars-file.js";

/** Flags of `watch` as commander hands them over. */
export interface WatchFlags {
  simulator?: boolean;
  speed?: string;
  seed?: string;
  /** Simulated start (with --simulator), airport-local. */
  start?: string;
  interval?: string;
  overlap?: string;
  reconcile?: string;
  group?: string;
  dispatchGroup?: string;
  consumer?: string;
  poll?: boolean;
  quiet?: boolean;
  varsFile?: string;
  /** `--rules` alone is `true`: the default directory. */
  rules?: string | boolean;
  /** `--no-deliver` makes it false: print the alerts instead of delivering them. */
  deliver?: boolean;
  /** Print every notification on the console instead of sending it. */
  console?: boolean;
}

const EXAMPLES = `
Examples:
  $ flightwatch watch --simulator
      watch the built-in simulator (no account needed); a change event per line
  $ flightwatch watch --simulator --speed 10 --rules --vars-file rules/demo.env --console
      the example rules against the simulator, as a dry run: each notification and where it would go
  $ SMTP_URL=smtp://127.0.0.1:1025 EMAIL_FROM=alerts@example.com flightwatch watch --rules
      deliver for real (Slack, email, webhooks); \`flightwatch deliveries\` shows what happened
  $ flightwatch watch --simulator --speed 60 --interval 2s | jq -c '{flight: .flight.flightNames[0], kind, old, new}'
      an hour of airport per minute, condensed with jq
  $ FLIGHT_API_BASE_URL=https://api.example/public-flights/v4 FLIGHT_API_TOKEN=… flightwatch watch
      the live service

Environment: FLIGHT_API_BASE_URL, FLIGHT_API_TOKEN or FLIGHT_API_APP_ID + FLIGHT_API_APP_KEY,
AIRPORT_TIMEZONE, REDIS_URL (default redis://127.0.0.1:6379), FLIGHTWATCH_PREFIX,
POLL_INTERVAL (30s; 2s with --simulator), POLL_OVERLAP (60s, the most), POLL_OVERLAP_MIN (1s),
RECONCILE_INTERVAL (1h),
HORIZON_PAST_DAYS (1), HORIZON_FUTURE_DAYS (2), SNAPSHOT_TTL (3d), OUTBOX_RETENTION (7d),
with --rules: SMTP_URL, EMAIL_FROM, DELIVERY_STALL_TIMEOUT (30s).
Several watchers may share one Redis: exactly one poll runs per interval among them.
With --simulator and no FLIGHTWATCH_PREFIX, data goes under the prefix ${SIMULATOR_PREFIX},
cleared at every start (the simulated airport is new each time).
See docs/detection.md and docs/delivery.md.`;

/** Adds the `watch` subcommand. */
export function registerWatchCommand(program: Command): void {
  const watch = program
    .command("watch")
    .description(
      "detect flight changes and print each change event as a JSON line (or, with --rules, each alert)",
    )
    .option("--simulator", "watch the built-in simulator, started in this process");
  addSimulatorOptions(watch)
    .option("--interval <duration>", "time between polls (overrides POLL_INTERVAL)")
    .option(
      "--overlap <duration>",
      "the most incremental windows reach back; they follow the stamp lag observed (overrides POLL_OVERLAP)",
    )
    .option(
      "--reconcile <duration>",
      "full re-read interval, 0 = never (overrides RECONCILE_INTERVAL)",
    )
    .option(
      "--group <name>",
      "consumer group of what is printed (events, or alerts with --rules): watchers in one group share them",
      "watch",
    )
    .option(
      "--dispatch-group <name>",
      "with --rules: the dispatcher's group on the outbox; processes in one group share the work and must run the same rules",
      "dispatch",
    )
    .option("--consumer <name>", "consumer name, stable across restarts (default: host name)")
    .option(
      "--rules [dir]",
      "match changes against the rule files in dir (default: FLIGHTWATCH_RULES or ./rules) and deliver the alerts through their channels instead of printing the events",
    )
    .option(
      "--no-deliver",
      "with --rules: print each alert (JSON when piped) instead of delivering it through its channels",
    )
    .option(
      "--console",
      "with --rules: print every notification on the console instead of sending it to Slack, email or webhooks (a dry run)",
    )
    .option("--vars-file <file>", VARS_FILE_HELP)
    .option("--no-poll", "only print events; polling is left to other processes")
    .option("--quiet", "no poll summaries on stderr")
    .addHelpText("after", EXAMPLES)
    .action(async (flags: WatchFlags) => {
      await runWatchCommand(flags, process.env);
    });
}

/** Runs `watch` until SIGINT/SIGTERM. */
export async function runWatchCommand(
  flags: WatchFlags,
  env: Record<string, string | undefined>,
): Promise<void> {
  const ruleVars = readRuleVariables(env, flags.varsFile);
  const overrides: Record<string, string> = {};
  // A flag's problem names the flag, not the variable it overrides.
  const flagOf: Record<string, string> = {};
  const fromFlag = (name: string, flag: string, value: string | undefined): void => {
    if (value === undefined) return;
    overrides[name] = value;
    flagOf[name] = flag;
  };
  fromFlag("POLL_INTERVAL", "--interval", flags.interval);
  if (flags.interval === undefined && flags.simulator && !env.POLL_INTERVAL) {
    overrides.POLL_INTERVAL = "2s";
  }
  fromFlag("POLL_OVERLAP", "--overlap", flags.overlap);
  fromFlag("RECONCILE_INTERVAL", "--reconcile", flags.reconcile);
  let settings: DetectorSettings;
  try {
    settings = detectorSettingsFromEnv(env, overrides);
  } catch (err) {
    throw err instanceof ConfigError ? renameSettings(err, flagOf) : err;
  }
  // Delivery settings are checked before anything starts (exit 2 naming the variable).
  if (flags.rules !== undefined && flags.rules !== false && flags.deliver !== false) {
    const plaintext = plaintextAuthWarning(readEmailSettings(env));
    if (plaintext !== undefined && !flags.console) {
      process.stderr.write(`flightwatch: warning: ${plaintext}\n`);
    }
  }
  const outbound = readOutboundAllow(env);
  const redis = redisSettingsFromEnv(env);
  // The embedded simulator is a new airport at every start: unless told otherwise,
  // keep its data apart from a real installation's and start from a clean slate.
  const fresh = Boolean(flags.simulator) && !env.FLIGHTWATCH_PREFIX?.trim();
  if (fresh) redis.prefix = SIMULATOR_PREFIX;
  const group = checkName("--group", flags.group ?? "watch");
  const dispatchGroup = checkName("--dispatch-group", flags.dispatchGroup ?? "dispatch");
  const consumer =
    flags.consumer === undefined ? undefined : checkName("--consumer", flags.consumer);

  let sim: RunningSimulator | undefined;
  let client: FlightApiClientOptions;
  let now: (() => number) | undefined;
  if (flags.simulator) {
    const embedded = await startEmbeddedSimulator(
      flags,
      env.AIRPORT_TIMEZONE || DEFAULT_AIRPORT_TIMEZONE,
    );
    ({ sim, client, now } = embedded);
    process.stderr.write(`flightwatch: watching the built-in simulator at ${sim.baseUrl}\n`);
  } else {
    client = clientOptionsFromEnv(env);
  }

  const stopSignal = new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
    // The reader went away (`| head -1`): stop as on a signal; what was not printed
    // stays unacknowledged for the next run.
    process.stdout.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") resolve("EPIPE");
    });
  });
  const zone = client.airportTimezone ?? DEFAULT_AIRPORT_TIMEZONE;
  let rules: RuleWatcher<RuleSet> | undefined;
  // A failed reload is reported by the watcher itself; it must not end the process.
  const reload = () =>
    void rules?.reload().catch((err: unknown) => {
      process.stderr.write(`flightwatch: rules not reloaded: ${describeError(err)}\n`);
    });
  let polls = 0;
  try {
    if (flags.rules !== undefined && flags.rules !== false) {
      const dir = rulesDir(typeof flags.rules === "string" ? flags.rules : undefined, env);
      rules = await startRuleWatcher(dir, ruleVars, zone, outbound);
      process.on("SIGHUP", reload);
    }
    const live = rules;
    const deliver = live !== undefined && flags.deliver !== false;
    const stallMs = env.DELIVERY_STALL_TIMEOUT
      ? parseDuration(env.DELIVERY_STALL_TIMEOUT, "DELIVERY_STALL_TIMEOUT")
      : undefined;
    const watcher = await startWatch({
      client,
      redis,
      settings,
      group,
      ...(consumer ? { consumer } : {}),
      ...(now ? { now } : {}),
      noPoll: flags.poll === false,
      fresh,
      onEvent: (event) => writeLine(`${JSON.stringify(event)}\n`),
      ...(live
        ? {
            rules: {
              current: () => live.current,
              group: dispatchGroup,
              ...(deliver
                ? {}
                : { onAlert: (alert: Alert) => writeLine(alertLine(alert, live.current, zone)) }),
            },
          }
        : {}),
      ...(deliver
        ? {
            delivery: {
              senders: (plain: Redis) =>
                buildSenders({
                  env,
                  redis: plain,
                  keys: redisKeys(redis.prefix),
                  console: { write: (text) => writeLine(text), json: !process.stdout.isTTY },
                  consoleOnly: Boolean(flags.console),
                  outbound,
                }),
              workers: {
                ...(stallMs !== undefined ? { stallTimeoutMs: stallMs } : {}),
                onRecord: (record: DeliveryRecord) => {
                  // In a dry run the notification itself is on stdout already.
                  const plain = flags.quiet || flags.console;
                  if (!plain || record.result !== "delivered") {
                    process.stderr.write(`${describeRecord(record)}\n`);
                  }
                },
                onAbandoned: (job: DeliveryJob) =>
                  process.stderr.write(
                    `flightwatch: delivery: ${job.notification.id} not sent: lock lost before sending; another worker has it\n`,
                  ),
                onError: (err: Error) =>
                  process.stderr.write(`flightwatch: delivery: ${describeError(err)}\n`),
              },
              onDropped: (alert: Alert) =>
                process.stderr.write(
                  `flightwatch: alert ${alert.id} not sent: rule ${alert.ruleId} is gone\n`,
                ),
            },
          }
        : {}),
      onPoll: (report) => {
        polls++;
        if (!flags.quiet) process.stderr.write(`${describePoll(polls, report)}\n`);
      },
      onError: (err) => {
        process.stderr.write(`flightwatch: ${describeError(err)}\n`);
      },
    });
    await Promise.race([stopSignal, watcher.done]);
    await watcher.stop();
  } finally {
    process.off("SIGHUP", reload);
    await rules?.close();
    await sim?.close();
  }
}

/**
 * An alert for stdout: readable in a terminal (rule, channels, what changed), one
 * JSON object per line (the alert plus its channels) when piped.
 */
export function alertLine(alert: Alert, ruleSet: RuleSet, zone: string): string {
  const channels = (ruleSet.get(alert.ruleId)?.channels ?? []).map((c) =>
    c.name === c.type ? c.type : `${c.type}:${c.name}`,
  );
  if (!process.stdout.isTTY) return `${JSON.stringify({ ...alert, channels })}\n`;
  const at = toLocalDateTime(alert.decidedAt, zone).slice(11, 19);
  return `${at} ${alert.ruleId} → ${channels.join(", ") || "(rule gone)"}: ${describeAlert(alert, zone)}\n`;
}

/** Writes to stdout, waiting when the pipe is full (an event is acknowledged after). */
function writeLine(line: string): Promise<void> | undefined {
  const out = process.stdout;
  // Closed (the reader went away): fail, so the item is not acknowledged as printed.
  if (out.destroyed || !out.writable) return Promise.reject(new Error("stdout is closed"));
  if (out.write(line)) return undefined;
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      out.off("drain", onDrain);
      out.off("error", settle);
      out.off("close", onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new Error("stdout is closed"));
    out.once("drain", onDrain);
    out.once("error", settle);
    out.once("close", onClose);
  });
}

function checkName(flag: string, value: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(value)) {
    throw new ConfigError(
      flag,
      `"${value}" is not a usable name (1–64 of letters, digits, _ . : -)`,
    );
  }
  return value;
}
