/**
 * The simulator's HTTP server (node:http): the API operations of ApiRoutes behind
 * the contract's request rules (GET only, `Accept`, `ResourceVersion`, credentials),
 * fault injection in front of everything, and the admin interface when enabled.
 *
 * Order of checks for an API request: faults (latency, drop, 429, 5xx) → unknown
 * path 404 → method 405 → credentials 401 → `Accept` 406 → `ResourceVersion` 403 →
 * parameters 400 → the operation. Every error response has an empty body; a 400
 * names its reason in the `x-simulator-reason` header, which the real service lacks.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { API_BASE_PATH } from "../../api/contract.js";
import type { FlightStore } from "../flight-store.js";
import { type AdminContext, handleAdmin, type SimulatorControl } from "./admin-routes.js";
import { type ApiResponse, ApiRoutes, operationOf } from "./api-routes.js";
import { FaultInjector, type FaultPlan, type FaultSettings } from "./faults.js";
import { type AuthOptions, createAuthCheck, generateToken } from "./simulator-auth.js";

/** Options of createSimulatorServer. */
export interface SimulatorServerOptions {
  /** The data served. */
  store: FlightStore;
  /** The Simulator facade, for the admin interface's actions, schedule and clock. */
  simulator?: SimulatorControl;
  /** Items per page (default 20). */
  pageSize?: number;
  /**
   * Accepted credentials, or `false` to accept every request. Default: one freshly
   * generated bearer token, readable from `tokens`.
   */
  auth?: false | AuthOptions;
  /**
   * Refuse a request without an `Accept` header with 406 (default true: the contract
   * marks `Accept` required). An `Accept` that excludes application/json is always 406.
   */
  requireAccept?: boolean;
  /**
   * `optional` (default): `ResourceVersion` may be absent; `required`: a request
   * without it gets 403, as older upstream docs report. A value other than `v4` is 403 either way.
   */
  resourceVersion?: "optional" | "required";
  /** Initial fault settings. */
  faults?: Partial<FaultSettings>;
  /** Seed of the fault PRNG (default 0). */
  seed?: number;
  /** Serve the admin interface (default false). */
  admin?: boolean;
  /** Path prefix of the admin interface (default `/_admin`). */
  adminPrefix?: string;
  /** Origin for Link URLs (e.g. `https://sim.example`); default `http://` + the request's Host. */
  publicOrigin?: string;
  /** Waits `ms` before a delayed response; injectable for tests (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
  /** Called after each API response, for request logs. */
  onResponse?: (entry: ResponseLogEntry) => void;
}

/** One line of the request log. */
export interface ResponseLogEntry {
  method: string;
  url: string;
  /** HTTP status sent; 0 when the connection was dropped. */
  status: number;
  /** Injected fault, if any: `drop`, `rateLimit`, `serverError`, `truncate`. */
  fault?: string;
  durationMs: number;
}

/** A simulator server, not yet listening until `listen` is called. */
export interface SimulatorServer {
  readonly server: Server;
  readonly faults: FaultInjector;
  /** Bearer tokens accepted (empty when auth is off or only app credentials are set). */
  readonly tokens: readonly string[];
  readonly pageSize: number;
  /** Starts listening (port 0 = any free port); resolves to the origin, e.g. `http://127.0.0.1:41234`. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, ends open connections and pending delays; resolves when closed. */
  close(): Promise<void>;
}

const JSON_TYPE = "application/json";

/** Builds the simulator's HTTP server over a store. */
export function createSimulatorServer(options: SimulatorServerOptions): SimulatorServer {
  const { store } = options;
  const auth = options.auth ?? { tokens: [generateToken()] };
  const tokens = auth === false ? [] : [...(auth.tokens ?? [])];
  const isAuthorized = createAuthCheck(auth);
  const requireAccept = options.requireAccept ?? true;
  const requireVersion = options.resourceVersion === "required";
  const adminPrefix = options.adminPrefix ?? "/_admin";
  const routes = new ApiRoutes({ store, pageSize: options.pageSize });
  const faults = new FaultInjector({ seed: options.seed, settings: options.faults, store });
  const adminContext: AdminContext = { control: options.simulator ?? { store }, faults };
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  const sleep =
    options.sleep ??
    ((ms: number) =>
      new Promise<void>((resolve) => {
        const entry = {
          resolve,
          timer: setTimeout(() => {
            timers.delete(entry);
            resolve();
          }, ms),
        };
        timers.add(entry);
      }));

  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { "x-simulator-reason": headerSafe(`internal error: ${String(err)}`) });
        res.end();
      } else {
        res.destroy();
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (options.admin && (path === adminPrefix || path.startsWith(`${adminPrefix}/`))) {
      await handleAdmin(req, res, path.slice(adminPrefix.length) || "/", adminContext);
      return;
    }
    const log = (status: number, fault?: string): void =>
      options.onResponse?.({
        method: req.method ?? "",
        url,
        status,
        fault,
        durationMs: performance.now() - started,
      });

    const plan = faults.plan();
    if (plan.delayMs > 0) await sleep(plan.delayMs);
    if (res.destroyed || req.socket.destroyed) return;
    const faulted = faultResponse(plan);
    if (faulted === "drop") {
      req.socket.destroy();
      log(0, "drop");
      return;
    }
    if (faulted) {
      res.writeHead(faulted.status, faulted.headers);
      res.end();
      log(faulted.status, plan.action.kind);
      return;
    }

    const response = respond(req, path, q === -1 ? "" : url.slice(q + 1));
    // The simulator's own clock, as a real service's Date header gives its own: on
    // an accelerated or manual clock the wall clock says nothing about its stamps.
    res.sendDate = false;
    res.setHeader("date", new Date(store.clock.now()).toUTCString());
    const truncated = plan.truncate && response.status === 200 && response.body !== undefined;
    write(res, response, truncated);
    if (truncated) faults.countTruncated();
    log(response.status, truncated ? "truncate" : undefined);
  }

  function respond(req: IncomingMessage, path: string, search: string): ApiResponse {
    if (!path.startsWith(`${API_BASE_PATH}/`)) return { status: 404 };
    const subPath = path.slice(API_BASE_PATH.length);
    if (operationOf(subPath) === undefined) return { status: 404 };
    if (req.method !== "GET") return { status: 405 };
    if (!isAuthorized(req.headers)) return { status: 401 };
    if (!acceptsJson(req.headers.accept, requireAccept)) return { status: 406 };
    const version = req.headers.resourceversion;
    if (version === undefined ? requireVersion : version !== "v4") return { status: 403 };
    const origin = options.publicOrigin ?? `http://${req.headers.host ?? localOrigin()}`;
    return routes.handle(subPath, new URLSearchParams(search), origin) ?? { status: 404 };
  }

  function localOrigin(): string {
    const address = server.address() as AddressInfo | null;
    return address ? `127.0.0.1:${address.port}` : "localhost";
  }

  return {
    server,
    faults,
    tokens,
    pageSize: routes.pageSize,
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    close() {
      for (const entry of timers) {
        clearTimeout(entry.timer);
        entry.resolve();
      }
      timers.clear();
      return new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The canned response of an injected fault, `drop`, or undefined when none. */
function faultResponse(
  plan: FaultPlan,
): { status: number; headers: Record<string, string> } | "drop" | undefined {
  switch (plan.action.kind) {
    case "drop":
      return "drop";
    case "rateLimit":
      return {
        status: 429,
        headers: { "retry-after": String(plan.action.retryAfterSeconds), "content-length": "0" },
      };
    case "serverError":
      return { status: plan.action.status, headers: { "content-length": "0" } };
    default:
      return undefined;
  }
}

function write(res: ServerResponse, response: ApiResponse, truncate: boolean): void {
  const headers: Record<string, string | number> = {};
  if (response.status === 401) headers["www-authenticate"] = 'Bearer realm="flight-api"';
  if (response.status === 405) headers.allow = "GET";
  if (response.reason) headers["x-simulator-reason"] = headerSafe(response.reason);
  if (response.link) headers.link = response.link;
  if (response.body === undefined) {
    if (response.status !== 204) headers["content-length"] = 0;
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const body = Buffer.from(response.body, "utf8");
  headers["content-type"] = JSON_TYPE;
  headers["content-length"] = body.length;
  res.writeHead(response.status, headers);
  if (!truncate) {
    res.end(body);
    return;
  }
  // Promise the whole body, send half of it, then cut the connection: the client
  // sees a premature end of the body, never a shorter document that parses.
  res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))), () => res.destroy());
}

/**
 * Whether an `Accept` header admits application/json: a media range
 * `application/json`, `application/*` or `*\/*` with a non-zero quality.
 */
export function acceptsJson(accept: string | undefined, requireHeader: boolean): boolean {
  if (accept === undefined) return !requireHeader;
  for (const range of accept.split(",")) {
    const [type = "", ...params] = range.split(";").map((s) => s.trim().toLowerCase());
    if (type !== JSON_TYPE && type !== "application/*" && type !== "*/*") continue;
    const q = params.find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/** Header-safe text: printable ASCII only, bounded length. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 300);
}
