/**
 * The operations HTTP server on HTTP_PORT: liveness (`/healthz`), readiness
 * (`/readyz`), Prometheus metrics (`/metrics`) and, when enabled, the queue dashboard
 * under `/queues`. Plain node:http: these routes must answer while the rest of the
 * process struggles, so they carry no framework and no dependency on Redis except
 * through the readiness callback, which is bounded in time.
 *
 * The dashboard shows recipients' addresses and whole payloads: every request under
 * it (page, assets, API) needs its token. /metrics needs one when given one; the
 * probes stay open, since orchestrators call them without credentials. An API mounted
 * under its base path (the subscriptions API, /api/v1) authenticates its own requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../errors.js";
import type { FlightwatchMetrics } from "./flightwatch-metrics.js";
import { CREDENTIAL_CHALLENGE, type CredentialCheck, credentialCheck } from "./http-credential.js";
import type { QueueDashboard, QueueDashboardOptions } from "./queue-dashboard.js";
import { sendBody } from "./send-body.js";

/** One readiness check's verdict. */
export interface ReadinessCheck {
  ok: boolean;
  /** For people: what was found ("PONG in 2 ms", "last poll 95 s ago, limit 90 s"). */
  detail: string;
}

/** Whether the process should receive work, and why, check by check. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, ReadinessCheck>;
}

/** Whether the process works (or should be restarted), and why. */
export interface Liveness {
  live: boolean;
  detail: string;
}

/**
 * An API served under a base path of this server: it gets every request under the
 * path and answers each itself (authentication included).
 */
export interface MountedApi {
  /** E.g. `/api/v1`. */
  readonly basePath: string;
  /** Answers the request; never rejects. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Options of the ops server. */
export interface OpsServerOptions {
  /** HTTP_PORT; 0 picks a free port (tests). */
  port: number;
  /** Interface to listen on (default 127.0.0.1: loopback unless asked otherwise). */
  host?: string;
  /** Served at /metrics; without it /metrics is 404. */
  metrics?: FlightwatchMetrics;
  /** When given, /metrics answers 401 to requests without it (METRICS_TOKEN). */
  metricsToken?: string;
  /**
   * Decides /healthz (default: always live). Unlike readiness, a throw or a late answer
   * counts as live: a probe that restarts the process must have a reason.
   */
  liveness?: () => Promise<Liveness>;
  /** Decides /readyz; a throw or no answer within `readinessTimeoutMs` is "not ready". */
  readiness: () => Promise<Readiness>;
  /** Longest wait for `readiness` (default 2 s): probes must get an answer, not hang. */
  readinessTimeoutMs?: number;
  /**
   * The Bull Board dashboard under its base path (default /queues); loaded only when
   * given. Every request under it needs `token` (DASHBOARD_TOKEN).
   */
  dashboard?: QueueDashboardOptions & { token: string };
  /**
   * The passenger pages (src/web), with PUBLIC_URL: they answer the requests that are
   * theirs (under /passenger/), resolving false for the others.
   */
  pages?: { handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> };
  /** The subscriptions API, when this process serves it. */
  api?: MountedApi;
}

/** A running ops server. */
export interface OpsServer {
  /** Base URL to reach it, e.g. `http://127.0.0.1:9464`. */
  url: string;
  port: number;
  /** Stops listening and closes every connection, idle keep-alive ones included; idempotent. */
  close(): Promise<void>;
  /** From now on /readyz answers 503 `shutting down`, so load balancers stop sending work. */
  setShuttingDown(): void;
}

const DEFAULT_READINESS_TIMEOUT_MS = 2_000;
const ROUTES = ["/healthz", "/readyz", "/metrics"] as const;

/** Starts the ops server; rejects with a ConfigError naming HTTP_PORT when the port is taken. */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const host = options.host ?? "127.0.0.1";
  const readinessTimeoutMs = options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;
  if (options.dashboard && !options.dashboard.token) {
    throw new ConfigError("DASHBOARD_TOKEN", "is not set; the dashboard needs a credential");
  }
  const dashboardCredential = options.dashboard && credentialCheck(options.dashboard.token);
  const metricsCredential =
    options.metricsToken === undefined ? undefined : credentialCheck(options.metricsToken);
  // Imported only when enabled: a daemon without the dashboard never loads Bull Board.
  const dashboard: QueueDashboard | undefined = options.dashboard
    ? await (await import("./queue-dashboard.js")).createQueueDashboard(options.dashboard)
    : undefined;
  let shuttingDown = false;

  const server = createServer((req, res) => {
    const path = pathOf(req);
    const api = options.api;
    if (api && (path === api.basePath || path.startsWith(`${api.basePath}/`))) {
      api.handle(req, res).catch((err: unknown) => fail(res, err));
      return;
    }
    if (dashboard && (path === dashboard.basePath || path.startsWith(`${dashboard.basePath}/`))) {
      if (!authorized(req, res, dashboardCredential, "the dashboard", "DASHBOARD_TOKEN")) return;
      dashboard.handle(req, res).catch((err: unknown) => fail(res, err));
      return;
    }
    if (options.pages) {
      options.pages
        .handle(req, res)
        .then((answered) => (answered ? undefined : route(req, res, path)))
        .catch((err: unknown) => fail(res, err));
      return;
    }
    route(req, res, path).catch((err: unknown) => fail(res, err));
  });

  async function route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const known = path === "/" || (ROUTES as readonly string[]).includes(path);
    if (!known) {
      send(res, 404, json({ error: `no route ${path}; see / for the endpoints` }));
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, json({ error: `${req.method} is not allowed on ${path}; use GET` }), {
        allow: "GET, HEAD",
      });
      return;
    }
    switch (path) {
      case "/healthz": {
        const liveness = await livenessOf(options.liveness, readinessTimeoutMs);
        send(
          res,
          liveness.live ? 200 : 503,
          json(liveness.live ? { status: "ok" } : { status: "stuck", detail: liveness.detail }),
        );
        return;
      }
      case "/readyz": {
        const readiness = shuttingDown
          ? { ready: false, checks: { shutdown: { ok: false, detail: "shutting down" } } }
          : await readinessOf(options.readiness, readinessTimeoutMs);
        send(res, readiness.ready ? 200 : 503, json(readiness));
        return;
      }
      case "/metrics":
        if (!authorized(req, res, metricsCredential, "/metrics", "METRICS_TOKEN")) return;
        if (!options.metrics) {
          send(res, 404, json({ error: "metrics are not enabled in this process" }));
          return;
        }
        send(res, 200, {
          type: options.metrics.contentType,
          body: await options.metrics.metrics(),
        });
        return;
      default:
        send(
          res,
          200,
          json({
            service: "flightwatch",
            endpoints: [
              "/healthz",
              "/readyz",
              ...(options.metrics ? ["/metrics"] : []),
              ...(dashboard ? [`${dashboard.basePath}/`] : []),
              ...(options.api ? [`${options.api.basePath}/openapi.json`] : []),
            ],
          }),
        );
    }
  }

  await listen(server, options.port, host);
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${port}`,
    port,
    setShuttingDown() {
      shuttingDown = true;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections (a scraper's, a probe's) would hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The readiness verdict, bounded in time; a throw or a timeout is a failed check named `readiness`. */
async function readinessOf(read: () => Promise<Readiness>, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          ready: false,
          checks: {
            readiness: { ok: false, detail: `no answer within ${timeoutMs} ms` },
          },
        }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([read(), timeout]);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ready: false, checks: { readiness: { ok: false, detail: `failed: ${detail}` } } };
  } finally {
    clearTimeout(timer);
  }
}

/** The liveness verdict, bounded in time; no verdict (none given, late, failed) is "live". */
async function livenessOf(
  read: (() => Promise<Liveness>) | undefined,
  timeoutMs: number,
): Promise<Liveness> {
  if (!read) return { live: true, detail: "ok" };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Liveness>((resolve) => {
    timer = setTimeout(() => resolve({ live: true, detail: "no verdict in time" }), timeoutMs);
  });
  try {
    return await Promise.race([read(), timeout]);
  } catch {
    return { live: true, detail: "no verdict" };
  } finally {
    clearTimeout(timer);
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (err.code === "EADDRINUSE") {
        reject(
          new ConfigError(
            "HTTP_PORT",
            `port ${port} on ${host} is already in use; set HTTP_PORT to a free port or stop the process using it`,
          ),
        );
      } else if (err.code === "EACCES") {
        reject(
          new ConfigError(
            "HTTP_PORT",
            `not allowed to listen on port ${port} on ${host}; ports below 1024 need privileges, set HTTP_PORT to 1024 or above`,
          ),
        );
      } else if (
        err.code === "EADDRNOTAVAIL" ||
        err.code === "ENOTFOUND" ||
        err.code === "EAI_AGAIN"
      ) {
        reject(
          new ConfigError(
            "HTTP_HOST",
            `${host} is not an address of this machine; use 0.0.0.0 (every interface) or 127.0.0.1`,
          ),
        );
      } else {
        reject(err);
      }
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/**
 * Whether the request may go on: no credential is asked for, or it presents the right
 * one. Otherwise answers 401 with the basic auth challenge (a browser then asks for
 * the token as the password) and says how to present it — never what was presented.
 */
function authorized(
  req: IncomingMessage,
  res: ServerResponse,
  credential: CredentialCheck | undefined,
  what: string,
  variable: string,
): boolean {
  if (credential === undefined || credential.allows(req)) return true;
  send(
    res,
    401,
    json({
      error: `${what} needs the token of ${variable}: send "Authorization: Bearer <token>", or log in with any user name and the token as the password`,
    }),
    { "www-authenticate": CREDENTIAL_CHALLENGE },
  );
  return false;
}

/** The path of a request, without its query. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/** A host to put in a URL: wildcard addresses are reached on loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

interface Body {
  type: string;
  body: string;
}

function json(value: unknown): Body {
  return { type: "application/json; charset=utf-8", body: `${JSON.stringify(value)}\n` };
}

function send(
  res: ServerResponse,
  status: number,
  { type, body }: Body,
  headers: Record<string, string> = {},
): void {
  sendBody(res, status, type, body, headers);
}

/** A handler failed (metrics could not be rendered, the dashboard threw): 500, once. */
function fail(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const detail = err instanceof Error ? err.message : String(err);
  send(res, 500, json({ error: detail }));
}
