/**
 * Starts a simulator server over the fixture store on 127.0.0.1 port 0 and sends
 * real HTTP requests to it (undici), with the headers a well-behaved client sends.
 */
import { request } from "undici";
import { API_BASE_PATH } from "../../src/api/contract.js";
import {
  createSimulatorServer,
  type SimulatorServer,
  type SimulatorServerOptions,
} from "../../src/simulator/http/simulator-server.js";
import { fixtureStore } from "./fixture-store.js";

export const TOKEN = "test-token";

/** Headers of a well-behaved client. */
export const CLIENT_HEADERS = {
  accept: "application/json",
  resourceversion: "v4",
  authorization: `Bearer ${TOKEN}`,
};

/** A response, body read as text. */
export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A running fixture server. */
export interface Harness {
  sim: SimulatorServer;
  store: ReturnType<typeof fixtureStore>["store"];
  clock: ReturnType<typeof fixtureStore>["clock"];
  origin: string;
  /** `origin` + the API base path. */
  base: string;
  /** GETs `base + path` (or an absolute URL) with the client headers, merged with `headers`. */
  get(path: string, headers?: Record<string, string | undefined>): Promise<TestResponse>;
  /** GETs and parses JSON, failing unless the status is 200. */
  json<T = unknown>(path: string): Promise<T>;
  close(): Promise<void>;
}

/** Sends one request and reads its body as text. */
export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<TestResponse> {
  const res = await request(url, {
    method: (init.method ?? "GET") as "GET",
    headers: init.headers,
    body: init.body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

/**
 * Starts a server with `options` merged over the defaults (token auth), over the
 * given fixture (default: a fresh fixture store).
 */
export async function startHarness(
  options: Partial<SimulatorServerOptions> = {},
  fixture: ReturnType<typeof fixtureStore> = fixtureStore(),
): Promise<Harness> {
  const { store, clock } = fixture;
  const sim = createSimulatorServer({ store, auth: { tokens: [TOKEN] }, ...options });
  const origin = await sim.listen(0);
  const base = `${origin}${API_BASE_PATH}`;
  const get = (path: string, headers: Record<string, string | undefined> = {}) => {
    const merged: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...CLIENT_HEADERS, ...headers })) {
      if (v !== undefined) merged[k] = v;
    }
    return send(path.startsWith("http") ? path : `${base}${path}`, { headers: merged });
  };
  return {
    sim,
    store,
    clock,
    origin,
    base,
    get,
    async json<T>(path: string): Promise<T> {
      const res = await get(path);
      if (res.status !== 200) {
        throw new Error(
          `GET ${path}: ${res.status} ${String(res.headers["x-simulator-reason"] ?? "")}`,
        );
      }
      return JSON.parse(res.text) as T;
    },
    close: () => sim.close(),
  };
}
