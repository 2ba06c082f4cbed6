/**
 * `flightwatch run`, `flightwatch demo` and `flightwatch config`: the daemon. `run`
 * builds the configuration (every problem at once, exit 2), the logger and the
 * senders, starts the daemon of its role and stops it gracefully on SIGTERM/SIGINT.
 * `demo` is `run` against the built-in simulator with a fast clock and a live view.
 */
import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { CONFIG_VARIABLES } from "../config/config-variables.js";
import {
  type DaemonConfig,
  effectiveEnv,
  type ReadConfigOptions,
  readDaemonConfig,
} from "../config/daemon-config.js";
import { type Daemon, startDaemon } from "../daemon/daemon.js";
import { findRedisServer, type PrivateRedis, startPrivateRedis } from "../daemon/private-redis.js";
import { buildSenders } from "../deliver/senders.js";
import { DemoState } from "../demo/demo-state.js";
import { LiveView } from "../demo/live-view.js";
import { ConfigProblemsError, ErrorCode, FlightwatchError } from "../errors.js";
import { createLogger, type Logger } from "../log/logger.js";
import { maskSecrets } from "../log/mask-secrets.js";
import { maskUrl } from "../log/mask-url.js";
import type { RuleSet } from "../rules/rule-matcher.js";
import type { RuleWatcher } from "../rules/rule-watcher.js";
import { connectRedis, deleteByPattern } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import { EXIT } from "./exit-codes.js";
import { integer, number, SEED_MAX, SEED_MIN } from "./flag-values.js";
import { loadVarsFile, VARS_FILE_HELP } from "./rules-command.js";
import { simulatedStart } from "./simulate-command.js";
import {
  addSimulatorOptions,
  SIMULATOR_PREFIX,
  startEmbeddedSimulator,
  startRuleWatcher,
} from "./watch-command.js";

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

\`flightwatch config\` shows the effective configuration (secrets masked) and every problem in it.
See docs/operations.md.`;

/** Adds `run`, `demo` and `config`. */
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
    .option("--dashboard", "serve the queue dashboard (Bull Board) at /queues on HTTP_PORT")
    .option("--consumer <name>", "consumer name, stable across restarts (default: host name)")
    .addHelpText("after", RUN_EXAMPLES)
    .action(async (flags: RunFlags) => {
      loadVarsFile(flags.varsFile);
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
      loadVarsFile(flags.varsFile ?? (flags.rules === undefined ? "rules/demo.env" : undefined));
      process.exitCode = await runDaemon(
        { ...flags, simulator: true, console: true, demo: !flags.plain },
        process.env,
      );
    });
  program
    .command("config")
    .description(
      "print the effective configuration (secrets masked) and check it; exit 2 on any problem",
    )
    .option("--role <role>", "check as for this role", "all")
    .option("--config <file>", "read variables from this YAML file (default FLIGHTWATCH_CONFIG)")
    .option("--vars-file <file>", VARS_FILE_HELP)
    .option("--simulator", "check as for --simulator (no upstream variables needed)")
    .option("--rules <dir>", "as for run --rules (overrides FLIGHTWATCH_RULES)")
    .option("--dashboard", "as for run --dashboard")
    .option("--json", "print JSON")
    .action((flags: RunFlags & { json?: boolean }) => {
      loadVarsFile(flags.varsFile);
      process.exitCode = printConfig(flags, process.env);
    });
}

/** How `run` (and `config`, to show the same) reads the configuration for these flags. */
function configSources(
  flags: RunFlags,
  env: Record<string, string | undefined>,
): { env: Record<string, string | undefined>; options: ReadConfigOptions } {
  // With the embedded simulator: faster polls, and no HTTP port unless asked for.
  const defaults: Record<string, string> = flags.simulator
    ? { POLL_INTERVAL: "2s", HTTP_PORT: "off" }
    : {};
  const overrides: Record<string, string> = {
    ...(flags.rules !== undefined ? { FLIGHTWATCH_RULES: flags.rules } : {}),
    ...(flags.dashboard ? { DASHBOARD: "true" } : {}),
  };
  return {
    env: { ...env, ...overrides },
    options: {
      ...(flags.role !== undefined ? { role: flags.role } : {}),
      simulator: Boolean(flags.simulator),
      defaults,
      ...(flags.config !== undefined ? { configFile: flags.config } : {}),
    },
  };
}

/** Thrown inside the start-up when a stop signal arrived meanwhile. */
class StopDuringStart extends Error {}

/** Runs the daemon until a signal; resolves to the exit code. */
export async function runDaemon(
  flags: RunFlags & { demo?: boolean },
  env: Record<string, string | undefined>,
): Promise<number> {
  // Listen first: a SIGTERM during start-up (or to node as PID 1, which ignores
  // signals without handlers) must stop the process cleanly, not be lost.
  let signalled: string | undefined;
  const stopSignal = new Promise<string>((resolve) => {
    const on = (name: string) => () => {
      signalled = name;
      resolve(name);
    };
    process.once("SIGINT", on("SIGINT"));
    process.once("SIGTERM", on("SIGTERM"));
  });
  const checkpoint = () => {
    if (signalled !== undefined) throw new StopDuringStart(signalled);
  };
  const sources = configSources(flags, env);
  const config = readDaemonConfig(sources.env, sources.options);
  const vars = effectiveEnv(sources.env, sources.options).env;
  const speed = flags.simulator
    ? number("--speed", flags.speed ?? "1", (x) => x > 0, "a number > 0")
    : 1;
  // Checked before anything starts, as every other setting is.
  integer("--seed", flags.seed ?? "1", SEED_MIN, SEED_MAX);
  if (flags.simulator && flags.start !== undefined) simulatedStart(flags.start, config.zone);
  const live = flags.demo === true && process.stdout.isTTY === true;
  const demoState = live ? new DemoState({ speed }) : undefined;
  const log = createLogger({
    level: live ? "silent" : config.log.level,
    format: config.log.format ?? (process.stdout.isTTY ? "text" : "json"),
    base: { role: config.role },
    secrets: secretsOf(config, vars),
  });

  const cleanups: Array<() => Promise<void> | void> = [];
  let daemon: Daemon | undefined;
  let view: LiveView | undefined;
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
      cleanups.push(() => removeKeys(url, prefix));
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

    const rules: RuleWatcher<RuleSet> = await startRuleWatcher(config.rulesDir, vars, config.zone, {
      info: (line) => log.info({ rulesDir: config.rulesDir }, line),
      problem: (line) => log.error({ rulesDir: config.rulesDir }, line),
    });
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
        }),
      log,
      ...(clock ? { now: clock, clockRate: speed } : {}),
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
        ...(daemon.url ? { http: daemon.url } : {}),
      },
      `flightwatch ${config.role === "all" ? "" : `${config.role} `}running${daemon.url ? `; health and metrics at ${daemon.url}` : ""}`,
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
    const signal = await Promise.race([stopSignal, daemon.done.then(() => "ended")]);
    view?.close();
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
    // A second signal while draining means "now".
    const impatient = () => {
      log.warn("second signal: exiting without waiting");
      process.exit(EXIT.failure);
    };
    process.once("SIGINT", impatient);
    process.once("SIGTERM", impatient);
    const { clean } = await daemon.stop();
    log.info({ clean }, clean ? "stopped" : "stopped; unfinished work was handed back");
    if (!clean) {
      // Sends still in flight hold connections open; their jobs go back to the queue
      // when their locks expire (DELIVERY_STALL_TIMEOUT), so leaving now loses nothing.
      setTimeout(() => process.exit(EXIT.ok), 100).unref();
    }
    return EXIT.ok;
  } catch (err) {
    view?.close();
    await daemon?.stop().catch(() => undefined);
    if (err instanceof StopDuringStart) {
      log.info({ signal: err.message }, `stopped during start-up (${err.message})`);
      return EXIT.ok;
    }
    throw err;
  } finally {
    for (const cleanup of cleanups.reverse())
      await Promise.resolve(cleanup()).catch(() => undefined);
  }
}

/** Deletes the keys of a private prefix (the embedded simulator's). */
async function removeKeys(url: string, prefix: string): Promise<void> {
  const redis = await connectRedis(url, { timeoutMs: 1000 });
  try {
    await deleteByPattern(redis, redisKeys(prefix).pattern);
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

/** The credentials this process holds, so the logger masks them wherever they appear. */
function secretsOf(config: DaemonConfig, vars: Record<string, string>): string[] {
  const secrets: string[] = [];
  if (config.client?.token) secrets.push(config.client.token);
  if (config.client?.appKey) secrets.push(config.client.appKey);
  if (config.email?.auth?.pass) secrets.push(config.email.auth.pass);
  const redisPassword = passwordOf(config.redis.url);
  if (redisPassword) secrets.push(redisPassword);
  // Variables the rule files use for webhook secrets and URLs.
  for (const [name, value] of Object.entries(vars)) {
    if (/SECRET|TOKEN|PASSWORD|_KEY$|WEBHOOK_URL/.test(name)) secrets.push(value);
  }
  return secrets;
}

function passwordOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/** `flightwatch config`: the table, then the verdict. */
function printConfig(
  flags: RunFlags & { json?: boolean },
  env: Record<string, string | undefined>,
): number {
  const { env: merged, options } = configSources(flags, env);
  const { env: vars, sources, file } = effectiveEnv(merged, options);
  const rows = CONFIG_VARIABLES.map((variable) => {
    const value = vars[variable.name];
    const shown =
      value === undefined
        ? (variable.default ?? "")
        : variable.exposure === "secret"
          ? "********"
          : // Whatever the variable, credential shapes in a value are masked too
            // (a token in a query, a password in a URL given where none belongs).
            maskSecrets(variable.exposure === "url" ? maskUrl(value) : value);
    return {
      name: variable.name,
      value: shown,
      source: value === undefined ? "default" : (sources[variable.name] ?? "env"),
      meaning: variable.meaning,
    };
  });
  let problems: string[] = [];
  try {
    readDaemonConfig(merged, options);
  } catch (err) {
    if (err instanceof ConfigProblemsError)
      problems = err.problems.map((p) => maskSecrets(p.message));
    else if (err instanceof FlightwatchError && err.code === ErrorCode.CONFIG_INVALID)
      problems = [maskSecrets(err.message)];
    else throw err;
  }
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ ...(file ? { file } : {}), variables: rows, problems }, null, 2)}\n`,
    );
  } else {
    const width = Math.max(...rows.map((r) => r.name.length));
    if (file) process.stdout.write(`config file: ${file}\n`);
    for (const row of rows) {
      const value = row.value === "" ? "(unset)" : row.value;
      process.stdout.write(
        `${row.name.padEnd(width)}  ${value}${row.source === "default" ? "" : `  (${row.source})`}\n`,
      );
    }
    process.stdout.write(
      problems.length === 0
        ? "\nconfiguration is valid\n"
        : `\n${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${problems.map((p) => `  ${p}`).join("\n")}\n`,
    );
  }
  return problems.length === 0 ? EXIT.ok : EXIT.usage;
}
