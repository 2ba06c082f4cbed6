/**
 * `flightwatch run` and `flightwatch demo`: the daemon. `run`
 * builds the configuration (every problem at once, exit 2), the logger and the
 * senders, starts the daemon of its role and stops it gracefully on SIGTERM/SIGINT.
 * `demo` is `run` against the built-in simulator with a fast clock and a live view.
 */
import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import type { FlightApiClientOptions } from "../api/client-options.js";
import {
  configSourcesFor,
  type DaemonConfig,
  effectiveEnv,
  readDaemonConfig,
  secretsIn,
} from "../config/daemon-config.js";
import { readRuleVariables, ruleVariableSecrets } from "../config/rule-variables.js";
import { type Daemon, startDaemon } from "../daemon/daemon.js";
import { findRedisServer, type PrivateRedis, startPrivateRedis } from "../daemon/private-redis.js";
import { listenForStop, type StopSignals } from "../daemon/stop-signals.js";
import { plaintextAuthWarning } from "../deliver/email-settings.js";
import { buildSenders } from "../deliver/senders.js";
import { DemoState } from "../demo/demo-state.js";
import { LiveView } from "../demo/live-view.js";
import { ErrorCode, FlightwatchError } from "../errors.js";
import { createLogger, type Logger } from "../log/logger.js";
import { maskUrl } from "../log/mask-url.js";
import type { RuleSet } from "../rules/rule-matcher.js";
import type { RuleWatcher } from "../rules/rule-watcher.js";
import { connectRedis, deleteByPattern } from "../store/redis-connection.js";
import { redisKeys, SIMULATOR_PREFIX } from "../store/redis-keys.js";
import {
  addSimulatorOptions,
  simulatedStart,
  startEmbeddedSimulator,
} from "./embedded-simulator.js";
import { EXIT } from "./exit-codes.js";
import { integer, number, SEED_MAX, SEED_MIN } from "./flag-values.js";
import { startRuleWatcher } from "./rule-files.js";
import { VARS_FILE_HELP } from "./vars-file.js";

/** Flags of `run` (and `demo`) as commander hands them over. */
export interface RunFlags {
  role?: string;
  config?: string;
  varsFile?: string;
  simulator?: boolean;
  speed?: string;
  seed?: string;
  /** Simulated start (with --simulator), airport-local. */
  start?: string;
  rules?: string;
  console?: boolean;
  dashboard?: boolean;
  consumer?: string;
  /** `demo --plain`: log lines instead of the live view. */
  plain?: boolean;
}

const RUN_EXAMPLES = `
Examples:
  $ npm start
      the zero-configuration demo: the built-in simulator, the example rules, notifications on the console
  $ FLIGHT_API_BASE_URL=https://api.example/public-flights/v4 FLIGHT_API_TOKEN=… REDIS_URL=redis://redis:6379 flightwatch run
      the daemon against the live service: health on :8080/healthz, metrics on :8080/metrics
  $ flightwatch run --role worker
      one more delivery worker for a deployment that shares this Redis (and FLIGHTWATCH_PREFIX)
  $ flightwatch run --config /etc/flightwatch.yaml
      the same variables from a YAML file (the environment wins over it)

\`flightwatch config\` shows the effective configuration (secrets masked) and every problem in it and in
the rule files; \`flightwatch config --check-connections\` also checks Redis and the upstream.
See docs/operations.md.`;

/** Adds `run` and `demo`. */
export function registerRunCommands(program: Command): void {
  const run = program
    .command("run")
    .description("run the daemon: poll, detect, match rules and deliver, until SIGTERM")
    .option(
      "--role <role>",
      "poller (poll, detect, match, enqueue), worker (deliver) or all",
      "all",
    )
    .option("--config <file>", "read variables from this YAML file (default FLIGHTWATCH_CONFIG)")
    .option("--vars-file <file>", VARS_FILE_HELP)
    .option(
      "--simulator",
      "poll the built-in simulator, started in this process (no account needed)",
    );
  addSimulatorOptions(run)
    .option("--rules <dir>", "rule files (overrides FLIGHTWATCH_RULES; default ./rules)")
    .option(
      "--console",
      "print every notification on the console instead of sending it (a dry run)",
    )
    .option(
      "--dashboard",
      "serve the queue dashboard (Bull Board) at /queues on HTTP_PORT; needs DASHBOARD_TOKEN",
    )
    .option("--consumer <name>", "consumer name, stable across restarts (default: host name)")
    .addHelpText("after", RUN_EXAMPLES)
    .action(async (flags: RunFlags) => {
      process.exitCode = await runDaemon(flags, process.env);
    });
  program
    .command("demo")
    .description(
      "the daemon against the built-in simulator at 120× speed, with a live view in the terminal",
    )
    .option("--speed <x>", "simulated seconds per second", "120")
    .option("--seed <n>", "simulator data seed", "1")
    .option("--rules <dir>", "rule files (default ./rules, with rules/demo.env's values)")
    .option("--plain", "log lines instead of the live view (also when the output is no terminal)")
    .option(
      "--vars-file <file>",
      `${VARS_FILE_HELP} (default rules/demo.env with the example rules)`,
    )
    .action(async (flags: RunFlags) => {
      const varsFile = flags.varsFile ?? (flags.rules === undefined ? "rules/demo.env" : undefined);
      process.exitCode = await runDaemon(
        {
          ...flags,
          ...(varsFile !== undefined ? { varsFile } : {}),
          simulator: true,
          console: true,
          demo: !flags.plain,
        },
        process.env,
      );
    });
}

/** Thrown inside the start-up when a stop signal arrived meanwhile. */
class StopDuringStart extends Error {}

/** Runs the daemon until a signal; resolves to the exit code. */
export async function runDaemon(
  flags: RunFlags & { demo?: boolean },
  env: Record<string, string | undefined>,
): Promise<number> {
  // Listen first: a SIGTERM during start-up (or to node as PID 1, which ignores
  // signals without handlers) must stop the process cleanly, not be lost. The listener
  // stays for the whole run, so a second signal is always heard (see stop-signals.ts).
  const impatience: Impatience = {};
  const stop = listenForStop({
    onImpatient: (signal) => {
      impatience.say?.(signal);
      process.exit(EXIT.failure);
    },
  });
  try {
    const code = await runUntilStopped(flags, env, stop, impatience);
    stop.done(code);
    return code;
  } catch (err) {
    // The error becomes the exit code in main(); signals go back to Node's default.
    stop.close();
    throw err;
  }
}

/** What a second signal says before the process exits at once (once there is a log). */
interface Impatience {
  say?: (signal: string) => void;
}

/** `runDaemon` once its signals are heard. */
async function runUntilStopped(
  flags: RunFlags & { demo?: boolean },
  env: Record<string, string | undefined>,
  stop: StopSignals,
  impatience: Impatience,
): Promise<number> {
  const checkpoint = () => {
    if (stop.received !== undefined) throw new StopDuringStart(stop.received);
  };
  const sources = configSourcesFor(flags, env);
  const config = readDaemonConfig(sources.env, sources.options);
  const vars = effectiveEnv(sources.env, sources.options).env;
  const ruleVars = readRuleVariables(env, flags.varsFile);
  const speed = flags.simulator
    ? number("--speed", flags.speed ?? "1", (x) => x > 0, "a number > 0")
    : 1;
  // Checked before anything starts, as every other setting is.
  integer("--seed", flags.seed ?? "1", SEED_MIN, SEED_MAX);
  if (flags.simulator && flags.start !== undefined) simulatedStart(flags.start, config.zone);
  const live = flags.demo === true && process.stdout.isTTY === true;
  const demoState = live ? new DemoState({ speed }) : undefined;
  const log = createLogger({
    // The live view has the screen; the log speaks again once it is closed (the stop).
    level: live ? "silent" : config.log.level,
    format: config.log.format ?? (process.stdout.isTTY ? "text" : "json"),
    base: { role: config.role },
    secrets: [...secretsIn(vars), ...ruleVariableSecrets(ruleVars)],
  });
  // A second signal while draining means "now".
  impatience.say = (signal) => log.warn({ signal }, "second signal: exiting without waiting");
  // Said once, at start, by the processes that send email.
  const plaintext = plaintextAuthWarning(config.email);
  if (plaintext !== undefined && config.role !== "poller" && !flags.console) log.warn(plaintext);

  const cleanups: Array<() => Promise<void> | void> = [];
  // Set when unfinished sends may hold the process open after the stop.
  let exitAfterCleanup = false;
  let daemon: Daemon | undefined;
  let view: LiveView | undefined;
  // The terminal back on the main screen, and the log (silent under the view) on it.
  const closeView = () => {
    if (view === undefined) return;
    view.close();
    view = undefined;
    log.level = config.log.level;
  };
  try {
    const redis = await redisFor(config, Boolean(flags.simulator), log);
    if (redis.private) cleanups.push(() => redis.private?.stop());
    config.redis.url = redis.url;
    checkpoint();
    // The embedded simulator is a new airport at every start: its data goes under a
    // prefix of this process's own, removed at the end, so two demos never mix.
    const privatePrefix = Boolean(flags.simulator) && vars.FLIGHTWATCH_PREFIX === undefined;
    if (privatePrefix) {
      config.redis.prefix = `${SIMULATOR_PREFIX}-${randomUUID().slice(0, 8)}`;
      const url = config.redis.url;
      const prefix = config.redis.prefix;
      cleanups.push(async () => {
        const removed = await removeKeys(url, prefix);
        log.info(
          { prefix, keys: removed },
          `removed the simulator's data (${removed} keys under ${prefix})`,
        );
      });
    }

    let client: FlightApiClientOptions;
    let now: (() => number) | undefined;
    if (flags.simulator) {
      const embedded = await startEmbeddedSimulator(flags, config.zone);
      cleanups.push(() => embedded.sim.close());
      checkpoint();
      ({ client, now } = embedded);
      const url = embedded.sim.baseUrl;
      log.info(
        { baseUrl: url, speed, seed: flags.seed },
        `built-in simulator at ${url} (×${speed})`,
      );
    } else {
      client = config.client ?? { baseUrl: "", airportTimezone: config.zone };
    }

    const rules: RuleWatcher<RuleSet> = await startRuleWatcher(
      config.rulesDir,
      ruleVars,
      config.zone,
      config.outbound,
      {
        info: (line) => log.info({ rulesDir: config.rulesDir }, line),
        problem: (line) => log.error({ rulesDir: config.rulesDir }, line),
      },
    );
    cleanups.push(() => rules.close());
    checkpoint();
    const reload = () =>
      void rules.reload().catch((err: unknown) => log.error({ err }, "rules not reloaded"));
    process.on("SIGHUP", reload);
    cleanups.push(() => void process.off("SIGHUP", reload));

    const consoleWrite = demoState
      ? () => undefined
      : (text: string) => void process.stdout.write(text);
    const clock = now;
    daemon = await startDaemon({
      config,
      client,
      rules: () => rules.current,
      senders: (plain) =>
        buildSenders({
          env: vars,
          redis: plain,
          keys: redisKeys(config.redis.prefix),
          console: { write: consoleWrite, json: !process.stdout.isTTY },
          consoleOnly: Boolean(flags.console),
          outbound: config.outbound,
        }),
      log,
      ...(clock ? { now: clock } : {}),
      fresh: privatePrefix,
      // In a dry run the console shows each alert already: its log lines are detail.
      ...(flags.console ? { quietAlerts: true } : {}),
      ...(flags.consumer !== undefined ? { consumer: flags.consumer } : {}),
      ...(demoState && clock
        ? {
            onPoll: (report) => demoState.poll(report, clock()),
            onDecided: (alerts) => {
              for (const alert of alerts) demoState.alert(alert, clock());
            },
            onRecord: (record) => demoState.delivery(record, clock()),
          }
        : {}),
    });
    checkpoint();
    log.info(
      {
        prefix: config.redis.prefix,
        redis: maskUrl(config.redis.url),
        ...(config.role === "worker" ? {} : { upstream: client.baseUrl }),
        ...(daemon.url ? { http: daemon.url, httpHost: config.http?.host } : {}),
        // Which internal destinations notifications may reach, for whoever audits the start.
        ...(config.outbound.strict ? {} : { outboundAllow: String(config.outbound) }),
      },
      `flightwatch ${config.role === "all" ? "" : `${config.role} `}running${daemon.url ? `; health and metrics at ${daemon.url} (listening on ${config.http?.host})` : ""}`,
    );
    if (demoState && clock) {
      view = new LiveView({
        output: process.stdout,
        state: demoState,
        zone: config.zone,
        speed,
        now: clock,
      });
      view.start();
    }
    const signal = await Promise.race([stop.first, daemon.done.then(() => "ended" as const)]);
    closeView();
    if (signal === "ended") {
      // The pipeline gave up on its own: a failure, so a supervisor restarts it.
      log.error("the pipeline ended on its own; stopping");
      await daemon.stop();
      return EXIT.failure;
    }
    log.info(
      { signal },
      `stopping (${signal}): finishing in-flight work, up to ${config.shutdownTimeoutMs / 1000} s`,
    );
    const { clean } = await daemon.stop();
    log.info({ clean }, clean ? "stopped" : "stopped; unfinished work was handed back");
    // Sends still in flight hold connections open; their jobs go back to the queue
    // when their locks expire (DELIVERY_STALL_TIMEOUT), so leaving loses nothing — once
    // the clean-ups below (the simulator's keys) are done.
    exitAfterCleanup = !clean;
    return EXIT.ok;
  } catch (err) {
    closeView();
    await daemon?.stop().catch(() => undefined);
    if (err instanceof StopDuringStart) {
      log.info({ signal: err.message }, `stopped during start-up (${err.message})`);
      return EXIT.ok;
    }
    throw err;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve(cleanup()).catch((err: unknown) =>
        log.warn({ err }, "clean-up after the stop failed"),
      );
    }
    if (exitAfterCleanup) setTimeout(() => process.exit(EXIT.ok), 100).unref();
  }
}

/** Deletes the keys of a private prefix (the embedded simulator's); resolves to how many. */
async function removeKeys(url: string, prefix: string): Promise<number> {
  const redis = await connectRedis(url, { timeoutMs: 1000 });
  try {
    return await deleteByPattern(redis, redisKeys(prefix).pattern);
  } finally {
    redis.disconnect();
  }
}

/**
 * The Redis to use. For the simulator demo without REDIS_URL, when nothing answers at
 * the default address, a private `redis-server` is started if one is on PATH; otherwise
 * the error says how to get one.
 */
async function redisFor(
  config: DaemonConfig,
  simulator: boolean,
  log: Logger,
): Promise<{ url: string; private?: PrivateRedis }> {
  try {
    const probe = await connectRedis(config.redis.url, { timeoutMs: 1500 });
    probe.disconnect();
    return { url: config.redis.url };
  } catch (err) {
    if (config.redisGiven || !simulator) throw err;
    const binary = findRedisServer();
    if (binary === undefined) {
      throw new FlightwatchError(
        ErrorCode.REDIS_UNAVAILABLE,
        `no Redis answers at ${config.redis.url}, and no redis-server is on PATH to start one.\n` +
          "  Get one with any of:\n" +
          "    docker run -d --name flightwatch-redis -p 6379:6379 redis:7\n" +
          "    sudo apt-get install redis-server   (Debian/Ubuntu; it starts on 127.0.0.1:6379)\n" +
          "    brew install redis && brew services start redis   (macOS)\n" +
          "  or set REDIS_URL to yours, then run this again.",
        { cause: err },
      );
    }
    log.info(
      { binary },
      `no Redis at ${config.redis.url}; starting a private one for the demo (kept in memory)`,
    );
    const started = await startPrivateRedis(binary);
    return { url: started.url, private: started };
  }
}
