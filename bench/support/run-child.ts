/**
 * A `flightwatch run` child pointed at a simulator, a test Redis prefix and a rules
 * directory: the settings it gets (fast polls, short timeouts, no HTTP port) and the
 * readers of its ops server. Shared by test/cli/run-harness.ts and the whole-pipeline
 * benchmarks (bench/daemon-rig.ts).
 */
import type { RunningSimulator } from "../../src/simulator/http/start-simulator.js";
import { testRedisEnv } from "./cli-process.js";
import { type PrometheusSample, parsePrometheusText } from "./prometheus-text.js";
import type { TestRedis } from "./redis.js";

/** The webhook secret of the gate rules; it must never appear in any output. */
export const HOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

/** What a `run` child polls and where it keeps its state and finds its rules. */
export interface RunTarget {
  sim: RunningSimulator;
  /** The simulator's bearer token (FLIGHT_API_TOKEN). */
  token: string;
  t: TestRedis;
  rulesDir: string;
}

/** The settings every `run` child gets: fast polls, short timeouts, no HTTP port. */
export function runEnv(target: RunTarget): Record<string, string> {
  return {
    ...testRedisEnv(target.t.prefix),
    FLIGHT_API_BASE_URL: target.sim.baseUrl,
    FLIGHT_API_TOKEN: target.token,
    FLIGHTWATCH_RULES: target.rulesDir,
    RULE_HOOK_SECRET: HOOK_SECRET,
    AIRPORT_TIMEZONE: "Europe/Amsterdam",
    POLL_INTERVAL: "300ms",
    // A failed request fails its poll at once: readiness tests count intervals.
    FLIGHT_API_MAX_ATTEMPTS: "1",
    FLIGHT_API_TIMEOUT: "5s",
    // A dead worker's notification goes to another after 1 s instead of 30 s.
    DELIVERY_STALL_TIMEOUT: "2s",
    HTTP_PORT: "off",
    HTTP_HOST: "127.0.0.1",
    LOG_LEVEL: "info",
  };
}

/** GET `url`: status and body text; a refused connection is status 0. */
export async function get(url: string): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, text: await res.text() };
  } catch {
    return { status: 0, text: "" };
  }
}

/** /metrics, parsed (strictly: a malformed line throws). */
export async function scrape(base: string): Promise<PrometheusSample[]> {
  const { status, text } = await get(`${base}/metrics`);
  if (status !== 200) throw new Error(`/metrics answered ${status}`);
  return parsePrometheusText(text);
}
