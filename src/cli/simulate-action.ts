/**
 * What `flightwatch simulate` does, loaded when it runs (simulate-command.ts is the
 * definition). Wiring only: flags become StartSimulatorOptions (every bad value is a
 * ConfigError naming its flag), startSimulator does the work, and the command
 * prints what to point a client at.
 */
import { ConfigError } from "../errors.js";
import type { FaultSettings } from "../simulator/http/faults.js";
import {
  type RunningSimulator,
  type StartSimulatorOptions,
  startSimulator,
} from "../simulator/http/start-simulator.js";
import { parseDuration } from "../time/duration.js";
import { airportZone, DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import { simulatedStart } from "./embedded-simulator.js";
import { integer, number, SEED_MAX, SEED_MIN } from "./flag-values.js";
import { DEFAULT_PORT, type SimulateFlags } from "./simulate-command.js";

/** `simulate`: runs the simulator from the flags until SIGINT or SIGTERM. */
export async function runSimulateCommand(
  flags: SimulateFlags,
  env: Record<string, string | undefined>,
): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await runSimulate(simulateOptions(flags, env), {
      write: (text) => process.stdout.write(text),
      log: flags.logRequests ? (text) => process.stderr.write(text) : undefined,
      signal: controller.signal,
    });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

/** Turns flags (and environment defaults) into startSimulator options; throws ConfigError naming the flag. */
export function simulateOptions(
  flags: SimulateFlags,
  env: Record<string, string | undefined> = {},
): StartSimulatorOptions {
  const zone = flags.zone || env.AIRPORT_TIMEZONE || DEFAULT_AIRPORT_TIMEZONE;
  try {
    airportZone(zone);
  } catch {
    throw new ConfigError("--zone", `"${zone}" is not an IANA time zone (e.g. Europe/Amsterdam)`);
  }
  const options: StartSimulatorOptions = {
    port: integer("--port", flags.port ?? String(DEFAULT_PORT), 0, 65_535),
    host: flags.host ?? "127.0.0.1",
    pageSize: integer("--page-size", flags.pageSize ?? "20", 1, 10_000),
    seed: integer("--seed", flags.seed ?? "1", SEED_MIN, SEED_MAX),
    flightsPerDay: integer("--flights-per-day", flags.flightsPerDay ?? "1400", 0, 1_000_000),
    speed: number("--speed", flags.speed ?? "1", (x) => x > 0, "a number > 0"),
    changeRate: number("--change-rate", flags.changeRate ?? "1", (x) => x >= 0, "a number ≥ 0"),
    zone,
    live: flags.live ?? true,
    codesharesMarkedOperational: flags.codesharesOperational ?? false,
    admin: flags.admin ?? false,
    resourceVersion: flags.requireResourceVersion ? "required" : "optional",
    requireAccept: flags.requireAccept ?? true,
  };
  if (flags.start !== undefined) options.startMs = simulatedStart(flags.start, zone);
  if (flags.faultSeed !== undefined) {
    options.faultSeed = integer("--fault-seed", flags.faultSeed, SEED_MIN, SEED_MAX);
  }
  if (flags.auth === false) {
    options.auth = false;
  } else {
    const tokens = flags.token ?? (env.FLIGHT_API_TOKEN ? [env.FLIGHT_API_TOKEN] : undefined);
    const appId = flags.appId ?? env.FLIGHT_API_APP_ID;
    const appKey = flags.appKey ?? env.FLIGHT_API_APP_KEY;
    if ((appId === undefined) !== (appKey === undefined)) {
      throw new ConfigError("--app-id/--app-key", "give both an app id and an app key, or neither");
    }
    if (tokens) options.tokens = tokens;
    if (appId !== undefined && appKey !== undefined) options.appCredentials = [{ appId, appKey }];
  }
  options.faults = faultSettings(flags);
  return options;
}

function faultSettings(flags: SimulateFlags): Partial<FaultSettings> {
  const faults: Partial<FaultSettings> = {};
  const rate = (flag: string, text: string | undefined): number | undefined =>
    text === undefined
      ? undefined
      : number(flag, text, (x) => x >= 0 && x <= 1, "a rate from 0 to 1");
  const duration = (flag: string, text: string | undefined): number | undefined =>
    text === undefined ? undefined : parseDuration(text, flag);
  const set = <K extends keyof FaultSettings>(
    key: K,
    value: FaultSettings[K] | undefined,
  ): void => {
    if (value !== undefined) faults[key] = value;
  };
  set("serverErrorRate", rate("--fault-5xx", flags.fault5xx));
  set("rateLimitRate", rate("--fault-429", flags.fault429));
  set("truncateRate", rate("--truncate", flags.truncate));
  set("dropRate", rate("--drop", flags.drop));
  set("latencyMs", duration("--latency", flags.latency));
  set("jitterMs", duration("--jitter", flags.jitter));
  set("stampLagMs", duration("--stamp-lag", flags.stampLag));
  if (flags.retryAfter !== undefined) {
    set("retryAfterSeconds", integer("--retry-after", flags.retryAfter, 0, 86_400));
  }
  if (flags.fault5xxStatuses !== undefined) {
    set(
      "serverErrorStatuses",
      flags.fault5xxStatuses
        .split(",")
        .map((s) => integer("--fault-5xx-statuses", s.trim(), 500, 599)),
    );
  }
  return faults;
}

/** Where runSimulate writes, and what stops it. */
export interface SimulateIo {
  /** Start-up report (stdout in the CLI). */
  write(text: string): void;
  /** Request log lines, when wanted. */
  log?: (text: string) => void;
  /** Aborting stops the simulator; runSimulate resolves once it is closed. */
  signal: AbortSignal;
}

/** Starts the simulator, reports how to reach it, and runs until the signal aborts. */
export async function runSimulate(options: StartSimulatorOptions, io: SimulateIo): Promise<void> {
  const started = performance.now();
  const log = io.log;
  let running: RunningSimulator;
  try {
    running = await startSimulator({
      ...options,
      onResponse: log
        ? (e) =>
            log(
              `${new Date().toISOString()} ${e.method} ${e.url} ${e.status}${e.fault ? ` [${e.fault}]` : ""} ${e.durationMs.toFixed(1)}ms\n`,
            )
        : undefined,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new ConfigError(
        "--port",
        `port ${options.port} is in use; choose another, or 0 for any free port`,
      );
    }
    throw err;
  }
  io.write(report(running, options, performance.now() - started));
  if (!io.signal.aborted) {
    await new Promise<void>((resolve) =>
      io.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
  }
  await running.close();
  io.write("flightwatch simulator stopped\n");
}

function report(
  running: RunningSimulator,
  options: StartSimulatorOptions,
  startupMs: number,
): string {
  const { simulator, server } = running;
  const f = running.faults.settings;
  const faults: string[] = [];
  if (f.serverErrorRate > 0)
    faults.push(`5xx ${pct(f.serverErrorRate)} (${f.serverErrorStatuses.join("/")})`);
  if (f.rateLimitRate > 0)
    faults.push(`429 ${pct(f.rateLimitRate)} (Retry-After ${f.retryAfterSeconds}s)`);
  if (f.latencyMs > 0 || f.jitterMs > 0)
    faults.push(`latency ${f.latencyMs}ms${f.jitterMs > 0 ? ` + up to ${f.jitterMs}ms` : ""}`);
  if (f.truncateRate > 0) faults.push(`truncated bodies ${pct(f.truncateRate)}`);
  if (f.dropRate > 0) faults.push(`dropped connections ${pct(f.dropRate)}`);
  if (f.stampLagMs > 0) faults.push(`lastUpdatedAt lag ${f.stampLagMs}ms`);
  const lines = [
    `flightwatch simulator: Flight API v4 on ${running.url} (started in ${Math.round(startupMs)} ms)`,
    "",
    `  FLIGHT_API_BASE_URL=${running.baseUrl}`,
  ];
  if (options.auth === false) lines.push("  (no credentials needed: --no-auth)");
  else {
    for (const token of server.tokens) lines.push(`  FLIGHT_API_TOKEN=${token}`);
    for (const pair of options.appCredentials ?? []) {
      lines.push(`  FLIGHT_API_APP_ID=${pair.appId}`, `  FLIGHT_API_APP_KEY=${pair.appKey}`);
    }
  }
  lines.push(
    "",
    `  data    seed ${simulator.seed}, ${options.flightsPerDay ?? 1400} records/day, ${simulator.store.size} loaded, ` +
      `zone ${simulator.store.zone}, speed ${options.speed ?? 1}x, ${options.live === false ? "frozen" : "live"}`,
    `  pages   ${server.pageSize} items; Link URLs follow the request's Host header`,
    `  faults  ${faults.length > 0 ? faults.join(", ") : "none"}`,
    `  admin   ${options.admin ? `${running.url}/_admin` : "off (--admin)"}`,
    "",
    `Try: curl -H 'Accept: application/json'${running.token ? ` -H 'Authorization: Bearer ${running.token}'` : ""} ${running.baseUrl}/flights`,
    "Ctrl-C stops.",
    "",
  );
  return lines.join("\n");
}

const pct = (rate: number): string => `${Math.round(rate * 1000) / 10}%`;
