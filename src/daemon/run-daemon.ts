/**
 * A flightwatch process from start to stop, as `run`, `demo` and `watch` run it: the
 * stop signals (heard from the first instant), the log, Redis (a private one for the
 * simulator demo), the embedded simulator, the live rules, the daemon of the role, and
 * a graceful stop with its clean-ups. The commands differ only in their flags and in
 * their Face: how the process speaks (log lines, NDJSON, the live view).
 */
import { randomUUID } from "node:crypto";
import type { FlightApiClientOptions } from "../api/client-options.js";
import type { Flight } from "../api/types.js";
import { type DaemonConfig, secretsIn } from "../config/daemon-config.js";
import { ruleVariableSecrets } from "../config/rule-variables.js";
import { plaintextAuthWarning } from "../deliver/email-settings.js";
import { buildSenders } from "../deliver/senders.js";
import { ErrorCode, FlightwatchError } from "../errors.js";
import { createLogger, type LogFormat, type Logger, type LogLevel } from "../log/logger.js";
import { maskUrl } from "../log/mask-url.js";
import type { PipelineObserver, StageName } from "../pipeline/observer.js";
import { type PipelineGroups, type PipelineRole, stagesOf } from "../pipeline/pipeline.js";
import { RuleSet } from "../rules/match/rule-matcher.js";
import type { RuleVariables } from "../rules/read/variable-substitution.js";
import { connectRedis, deleteByPattern } from "../store/redis-connection.js";
import { redisKeys, SIMULATOR_PREFIX } from "../store/redis-keys.js";
import { seedDemoSubscriptions } from "../subscriptions/demo-passengers.js";
import { recipientOf, SubscriptionStore } from "../subscriptions/subscription-store.js";
import { type Daemon, startDaemon } from "./daemon.js";
import { type EmbeddedSimulatorSettings, startEmbeddedSimulator } from "./embedded-simulator.js";
import { startLiveRules } from "./live-rules.js";
import { findRedisServer, type PrivateRedis, startPrivateRedis } from "./private-redis.js";
import { listenForStop, type StopSignals } from "./stop-signals.js";

/** Exit codes of a run. */
export const RUN_EXIT = { ok: 0, failure: 1 } as const;

/** What the process's parts are, once started: given to the Face. */
export interface RunContext {
  config: DaemonConfig;
  log: Logger;
  /** The airport clock (the simulator's when embedded). */
  now: () => number;
  /** The live rules. */
  rules: () => RuleSet;
  /** The upstream this process polls (absent when it polls nothing), and whether it is the embedded simulator. */
  upstream?: { baseUrl: string; simulated: boolean };
}

/** How a command's process speaks. Every part is optional; the defaults are `run`'s. */
export interface Face {
  /** The log's destination (default stdout), least level and format (default the configuration's). */
  log?: { destination?: NodeJS.WritableStream; level?: LogLevel; format?: LogFormat };
  /** Where the console channel (and `--console`'s dry run) writes (default stdout). */
  console?: { write: (text: string) => void | Promise<void>; json: boolean };
  /** Says rule (re)loads and their problems (default the log). */
  rules?: { info(line: string): void; problem(line: string): void };
  /** Hears the pipeline beside the metrics and the log. */
  observer?(context: RunContext): PipelineObserver;
  /** Takes the screen once the daemon runs (the live view); returns how to give it back. */
  show?(context: RunContext): () => void;
  /** Settles when the output went away (a closed pipe): the run stops as on a signal. */
  gone?: Promise<string>;
  /** Log decided alerts and deliveries at debug (the console shows them already). */
  quietAlerts?: boolean;
}

/** What one run is: the configuration as read and what the command's flags chose. */
export interface RunOptions {
  config: DaemonConfig;
  /** The effective variables (secrets to mask; the senders' settings). */
  vars: Readonly<Record<string, string>>;
  ruleVars: RuleVariables;
  /** What this process runs (default the configuration's `--role`). */
  role?: PipelineRole;
  without?: readonly StageName[];
  groups?: PipelineGroups;
  /** Embed the simulator and poll it. */
  simulator?: EmbeddedSimulatorSettings;
  /** Print every notification instead of sending it (a dry run). */
  consoleOnly?: boolean;
  consumer?: string;
  face?: Face;
}

/** Thrown inside the start-up when a stop signal arrived meanwhile. */
class StopDuringStart extends Error {}

/** What a second signal says before the process exits at once (once there is a log). */
interface Impatience {
  say?: (signal: string) => void;
}

/** Runs until a signal (or the end of the output); resolves to the exit code. */
export async function runDaemon(options: RunOptions): Promise<number> {
  // Listen first: a SIGTERM during start-up (or to node as PID 1, which ignores
  // signals without handlers) must stop the process cleanly, not be lost. The listener
  // stays for the whole run, so a second signal is always heard (see stop-signals.ts).
  const impatience: Impatience = {};
  const stop = listenForStop({
    onImpatient: (signal) => {
      impatience.say?.(signal);
      process.exit(RUN_EXIT.failure);
    },
  });
  try {
    const code = await runUntilStopped(options, stop, impatience);
    stop.done(code);
    return code;
  } catch (err) {
    // The error becomes the exit code in main(); signals go back to Node's default.
    stop.close();
    throw err;
  }
}

/** `runDaemon` once its signals are heard. */
async function runUntilStopped(
  options: RunOptions,
  stop: StopSignals,
  impatience: Impatience,
): Promise<number> {
  const { config, vars, face = {} } = options;
  const checkpoint = () => {
    if (stop.received !== undefined) throw new StopDuringStart(stop.received);
  };
  const role = options.role ?? config.role;
  const stages = stagesOf(role, options.without);
  const level = face.log?.level ?? config.log.level;
  const log = createLogger({
    level,
    format: face.log?.format ?? config.log.format ?? (process.stdout.isTTY ? "text" : "json"),
    base: { role },
    secrets: [...secretsIn(vars), ...ruleVariableSecrets(options.ruleVars)],
    ...(face.log?.destination ? { destination: face.log.destination } : {}),
  });
  // A second signal while draining means "now".
  impatience.say = (signal) => log.warn({ signal }, "second signal: exiting without waiting");
  // Said once, at start, by the processes that send email.
  const delivers = stages.has("deliver");
  const plaintext = plaintextAuthWarning(config.email);
  if (plaintext !== undefined && delivers && !options.consoleOnly) log.warn(plaintext);

  const cleanups: Array<() => Promise<void> | void> = [];
  // Set when unfinished sends may hold the process open after the stop.
  let exitAfterCleanup = false;
  let daemon: Daemon | undefined;
  let hide: (() => void) | undefined;
  // The screen back to the log.
  const giveBackScreen = () => {
    hide?.();
    hide = undefined;
  };
  try {
    const redis = await redisFor(config, options.simulator !== undefined, log);
    if (redis.private) cleanups.push(() => redis.private?.stop());
    config.redis.url = redis.url;
    checkpoint();
    // The embedded simulator is a new airport at every start: its data goes under a
    // prefix of this process's own, removed at the end, so two runs never mix.
    const privatePrefix = options.simulator !== undefined && vars.FLIGHTWATCH_PREFIX === undefined;
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
    let now: () => number = Date.now;
    let embeddedFlights: (() => Iterable<Flight>) | undefined;
    if (options.simulator) {
      const embedded = await startEmbeddedSimulator(options.simulator, config.zone);
      embeddedFlights = () => embedded.sim.simulator.store.all();
      cleanups.push(() => embedded.sim.close());
      checkpoint();
      ({ client, now } = embedded);
      const url = embedded.sim.baseUrl;
      const { speed, seed } = options.simulator;
      log.info({ baseUrl: url, speed, seed }, `built-in simulator at ${url} (×${speed})`);
    } else {
      client = config.client ?? { baseUrl: "", airportTimezone: config.zone };
    }

    // Only a process that matches rules reads them (not the detect-only role).
    const matches = (["dispatch", "alerts", "notify", "deliver"] as const).some((s) =>
      stages.has(s),
    );
    const rules = matches
      ? await startLiveRules(
          config.rulesDir,
          options.ruleVars,
          config.zone,
          config.outbound,
          face.rules ?? {
            info: (line) => log.info({ rulesDir: config.rulesDir }, line),
            problem: (line) => log.error({ rulesDir: config.rulesDir }, line),
          },
        )
      : undefined;
    const noRules = new RuleSet([], { zone: config.zone });
    const currentRules = () => rules?.current ?? noRules;
    if (rules) cleanups.push(() => rules.close());
    checkpoint();
    // SIGHUP reloads the rules; a process without rules keeps Node's default (it ends,
    // as on a terminal that hung up).
    if (rules) {
      const reload = () =>
        void rules.reload().catch((err: unknown) => log.error({ err }, "rules not reloaded"));
      process.on("SIGHUP", reload);
      cleanups.push(() => void process.off("SIGHUP", reload));
    }

    const context: RunContext = {
      config,
      log,
      now,
      rules: currentRules,
      ...(stages.has("poll")
        ? { upstream: { baseUrl: client.baseUrl, simulated: options.simulator !== undefined } }
        : {}),
    };
    const write = face.console?.write ?? ((text: string) => void process.stdout.write(text));
    daemon = await startDaemon({
      config,
      role,
      ...(options.without ? { without: options.without } : {}),
      ...(options.groups ? { groups: options.groups } : {}),
      client,
      rules: currentRules,
      senders: (plain) =>
        buildSenders({
          ...(config.email ? { email: config.email } : {}),
          redis: plain,
          keys: redisKeys(config.redis.prefix, config.redis.deliveryShards),
          console: { write, json: face.console?.json ?? !process.stdout.isTTY },
          consoleOnly: Boolean(options.consoleOnly),
          outbound: config.outbound,
          ...(config.slackApiUrl !== undefined ? { slackApiUrl: config.slackApiUrl } : {}),
        }),
      log,
      now,
      fresh: privatePrefix,
      ...(face.quietAlerts ? { quietAlerts: true } : {}),
      ...(options.consumer !== undefined ? { consumer: options.consumer } : {}),
      ...(face.observer ? { observer: face.observer(context) } : {}),
    });
    checkpoint();
    // The simulated airport's passengers: a few subscriptions to departures boarding soon.
    if (privatePrefix && embeddedFlights && stages.has("dispatch")) {
      const connection = await connectRedis(config.redis.url);
      try {
        const store = new SubscriptionStore(connection, redisKeys(config.redis.prefix), {
          zone: config.zone,
        });
        for (const s of await seedDemoSubscriptions(store, embeddedFlights(), now(), config.zone)) {
          log.info(
            { subscription: s.id, flight: s.flight, date: s.date },
            `demo passenger: ${recipientOf(s.channel)} follows ${s.flight} on ${s.date} (subscription ${s.id}, the essentials${s.remind ? `, reminded ${s.remind.join(" and ")}` : ""})`,
          );
        }
      } finally {
        connection.disconnect();
      }
    }
    log.info(
      {
        prefix: config.redis.prefix,
        redis: maskUrl(config.redis.url),
        ...(role === "worker" ? {} : { upstream: client.baseUrl }),
        ...(daemon.url ? { http: daemon.url, httpHost: config.http?.host } : {}),
        // Which internal destinations notifications may reach, for whoever audits the start.
        ...(config.outbound.strict ? {} : { outboundAllow: String(config.outbound) }),
      },
      `flightwatch ${role === "all" ? "" : `${role} `}running${daemon.url ? `; health and metrics at ${daemon.url} (listening on ${config.http?.host})` : ""}`,
    );
    hide = face.show?.(context);
    const signal = await Promise.race([
      stop.first,
      ...(face.gone ? [face.gone] : []),
      daemon.done.then(() => "ended" as const),
    ]);
    giveBackScreen();
    if (signal === "ended") {
      // The pipeline gave up on its own: a failure, so a supervisor restarts it.
      log.error("the pipeline ended on its own; stopping");
      await daemon.stop();
      return RUN_EXIT.failure;
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
    return RUN_EXIT.ok;
  } catch (err) {
    giveBackScreen();
    await daemon?.stop().catch(() => undefined);
    if (err instanceof StopDuringStart) {
      log.info({ signal: err.message }, `stopped during start-up (${err.message})`);
      return RUN_EXIT.ok;
    }
    throw err;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve(cleanup()).catch((err: unknown) =>
        log.warn({ err }, "clean-up after the stop failed"),
      );
    }
    // Once stopped and cleaned up, nothing is left to do: a handle still open (a send in
    // flight after an unclean stop; a cluster client still reconnecting to a master that
    // died) must not keep the process alive past its stop. The exit code is the one
    // bin/flightwatch.js has set by then (unref'd: a process that drains exits earlier).
    setTimeout(
      () => process.exit(exitAfterCleanup ? RUN_EXIT.ok : process.exitCode),
      exitAfterCleanup ? 100 : LINGER_AFTER_STOP_MS,
    ).unref();
  }
}

/** How long a stopped process may take to drain its last handles before it exits anyway. */
const LINGER_AFTER_STOP_MS = 1_000;

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
