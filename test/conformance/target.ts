/**
 * The service the conformance suite runs against. With `FLIGHT_API_CONFORMANCE_URL`
 * set (the API base, e.g. `https://api.example/public/public-flights/v4`) it is that
 * service, authenticated with `FLIGHT_API_CONFORMANCE_TOKEN` or
 * `FLIGHT_API_CONFORMANCE_APP_ID`/`_APP_KEY`; otherwise the simulator is started
 * in-process on port 0. Tests discover their data from the service, never assume it.
 *
 * Where the contract says "may" (Link absent on a single page, 204 past the end),
 * `simulator` is true for the in-process simulator, whose choices are then asserted.
 */
import { request } from "undici";
import { API_BASE_PATH } from "../../src/api/contract.js";
import { startSimulator } from "../../src/simulator/http/start-simulator.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../../src/time/local-time.js";

/** A response with its body read as text. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The service under test. */
export interface ConformanceTarget {
  /** API base URL, without a trailing slash. */
  base: string;
  /** Airport IANA zone, for local date-times. */
  zone: string;
  /** True for the in-process simulator: its documented choices are asserted too. */
  simulator: boolean;
  /** Credentials headers. */
  credentials: Record<string, string>;
  /** GETs `base + path` (or an absolute URL) with Accept, ResourceVersion and credentials; `headers` override. */
  get(path: string, headers?: Record<string, string | undefined>): Promise<Reply>;
  close(): Promise<void>;
}

/** Starts (or connects to) the target. */
export async function startTarget(): Promise<ConformanceTarget> {
  const env = process.env;
  const url = env.FLIGHT_API_CONFORMANCE_URL;
  const zone = env.AIRPORT_TIMEZONE || DEFAULT_AIRPORT_TIMEZONE;
  if (url) {
    const credentials: Record<string, string> = {};
    if (env.FLIGHT_API_CONFORMANCE_TOKEN) {
      credentials.authorization = `Bearer ${env.FLIGHT_API_CONFORMANCE_TOKEN}`;
    } else if (env.FLIGHT_API_CONFORMANCE_APP_ID && env.FLIGHT_API_CONFORMANCE_APP_KEY) {
      credentials.app_id = env.FLIGHT_API_CONFORMANCE_APP_ID;
      credentials.app_key = env.FLIGHT_API_CONFORMANCE_APP_KEY;
    }
    return target(url.replace(/\/+$/, ""), zone, false, credentials, async () => {});
  }
  // Live evolution off: the data must not change under a test walking its pages.
  const running = await startSimulator({ seed: 20260310, zone, live: false });
  return target(
    running.baseUrl,
    zone,
    true,
    { authorization: `Bearer ${running.token}` },
    running.close,
  );
}

function target(
  base: string,
  zone: string,
  simulator: boolean,
  credentials: Record<string, string>,
  close: () => Promise<void>,
): ConformanceTarget {
  return {
    base,
    zone,
    simulator,
    credentials,
    async get(path, headers = {}) {
      const merged: Record<string, string> = {};
      const all = { accept: "application/json", resourceversion: "v4", ...credentials, ...headers };
      for (const [k, v] of Object.entries(all)) if (v !== undefined) merged[k] = v;
      const res = await request(path.startsWith("http") ? path : `${base}${path}`, {
        headers: merged,
      });
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    },
    close,
  };
}

/** The API base path, for tests that check absolute link URLs. */
export const BASE_PATH = API_BASE_PATH;
