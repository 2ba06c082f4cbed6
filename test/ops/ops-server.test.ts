/**
 * The ops server on a real loopback port: routes and status codes, readiness
 * transitions (ready, not ready, a check that throws or hangs, shutting down),
 * metrics, the port-in-use error, closing with keep-alive connections open, and that
 * a server without the dashboard never loads Bull Board or Hono.
 */
import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { networkInterfaces } from "node:os";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, ErrorCode } from "../../src/errors.js";
import { FlightwatchMetrics } from "../../src/ops/flightwatch-metrics.js";
import { type OpsServer, type Readiness, startOpsServer } from "../../src/ops/ops-server.js";
import { alertOf } from "../support/alert-builder.js";
import { parsePrometheusText, sampleValue } from "../support/prometheus-text.js";

const READY: Readiness = {
  ready: true,
  checks: { redis: { ok: true, detail: "PONG" }, poll: { ok: true, detail: "2 s ago" } },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An IPv4 address of this machine other than loopback, if it has one. */
const EXTERNAL = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;

/** The status of GET /healthz at `host:port`, or the error code of a refused connection. */
async function statusAt(host: string, port: number): Promise<number | string> {
  try {
    const res = await request(`http://${host}:${port}/healthz`);
    await res.body.dump();
    return res.statusCode;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

async function call(server: OpsServer, path: string, method = "GET"): Promise<Answer> {
  const res = await request(`${server.url}${path}`, { method: method as "GET" });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe("ops server", () => {
  const servers: OpsServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  async function start(
    options: Partial<Parameters<typeof startOpsServer>[0]> = {},
  ): Promise<OpsServer> {
    const server = await startOpsServer({
      port: 0,
      host: "127.0.0.1",
      readiness: async () => READY,
      ...options,
    });
    servers.push(server);
    return server;
  }

  it("answers /healthz, an index at /, 404 for unknown paths and 405 for other methods; HEAD too", async () => {
    const server = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);

    const health = await call(server, "/healthz");
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "ok" });
    expect(health.headers["content-type"]).toMatch(/^application\/json/);
    expect(health.headers["cache-control"]).toBe("no-store");
    expect((await call(server, "/healthz?probe=k8s")).status).toBe(200);

    const head = await call(server, "/healthz", "HEAD");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(Number(head.headers["content-length"])).toBe(Buffer.byteLength(health.body));

    const index = await call(server, "/");
    expect(index.status).toBe(200);
    expect(JSON.parse(index.body)).toEqual({
      service: "flightwatch",
      endpoints: ["/healthz", "/readyz"],
    });

    const post = await call(server, "/healthz", "POST");
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
    expect((await call(server, "/readyz", "DELETE")).status).toBe(405);

    expect((await call(server, "/nope")).status).toBe(404);
    expect((await call(server, "/healthz/extra")).status).toBe(404);
    // Without metrics, and without the dashboard, those paths do not exist.
    expect((await call(server, "/metrics")).status).toBe(404);
    expect((await call(server, "/queues")).status).toBe(404);
  });

  it("turns /readyz to 503 when a check fails, the callback throws or hangs, and when shutting down", async () => {
    let readiness: () => Promise<Readiness> = async () => READY;
    const server = await start({ readiness: () => readiness(), readinessTimeoutMs: 100 });

    let ready = await call(server, "/readyz");
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual(READY);

    const stale: Readiness = {
      ready: false,
      checks: {
        redis: { ok: true, detail: "PONG" },
        poll: { ok: false, detail: "last successful poll 95 s ago; limit 90 s" },
      },
    };
    readiness = async () => stale;
    ready = await call(server, "/readyz");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual(stale);
    expect((await call(server, "/readyz", "HEAD")).status).toBe(503);

    readiness = async () => {
      throw new Error("Connection is closed.");
    };
    ready = await call(server, "/readyz");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({
      ready: false,
      checks: { readiness: { ok: false, detail: "failed: Connection is closed." } },
    });

    readiness = () => new Promise(() => undefined);
    const started = performance.now();
    ready = await call(server, "/readyz");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({
      ready: false,
      checks: { readiness: { ok: false, detail: "no answer within 100 ms" } },
    });

    readiness = async () => READY;
    expect((await call(server, "/readyz")).status).toBe(200);
    server.setShuttingDown();
    ready = await call(server, "/readyz");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({
      ready: false,
      checks: { shutdown: { ok: false, detail: "shutting down" } },
    });
    // Still alive while it drains.
    expect((await call(server, "/healthz")).status).toBe(200);
  });

  it("waits 2 s for readiness by default", async () => {
    let answered = false;
    const server = await start({
      readiness: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            answered = true;
            resolve(READY);
          }, 1_500),
        ),
    });
    expect((await call(server, "/readyz")).status).toBe(200);
    expect(answered).toBe(true);
  });

  it("serves the Prometheus text at /metrics, also when a scrape-time source throws", async () => {
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    metrics.alert(alertOf());
    metrics.observeQueues(() => {
      throw new Error("redis is down");
    });
    const server = await start({ metrics });
    const answer = await call(server, "/metrics");
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe(metrics.contentType);
    const samples = parsePrometheusText(answer.body);
    expect(sampleValue(samples, "flightwatch_alerts_total")).toBe(1);
    expect(sampleValue(samples, "flightwatch_scrape_errors_total", { source: "queues" })).toBe(1);
    expect(JSON.parse((await call(server, "/")).body).endpoints).toContain("/metrics");
    expect((await call(server, "/metrics", "HEAD")).status).toBe(200);
  });

  it.skipIf(EXTERNAL === undefined)(
    "listens on loopback only by default, and on every interface with 0.0.0.0",
    async () => {
      const loopback = await startOpsServer({ port: 0, readiness: async () => READY });
      servers.push(loopback);
      expect(loopback.url).toBe(`http://127.0.0.1:${loopback.port}`);
      expect(await statusAt(EXTERNAL!, loopback.port)).toBe("ECONNREFUSED");
      const every = await start({ host: "0.0.0.0" });
      expect(await statusAt(EXTERNAL!, every.port)).toBe(200);
      expect(await statusAt("127.0.0.1", every.port)).toBe(200);
    },
  );

  it("serves /metrics to anyone by default, and only with METRICS_TOKEN when it is set", async () => {
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    const open = await start({ metrics });
    expect((await call(open, "/metrics")).status).toBe(200);

    const token = "metrics-token-0c4f1a9e7d";
    const closed = await start({ metrics, metricsToken: token });
    const get = async (headers: Record<string, string>) => {
      const res = await request(`${closed.url}/metrics`, { headers });
      return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
    };
    const refused = await get({});
    expect(refused.status).toBe(401);
    expect(refused.headers["www-authenticate"]).toBe('Basic realm="flightwatch", charset="UTF-8"');
    expect(refused.body).toContain("METRICS_TOKEN");
    expect(refused.body).not.toContain("flightwatch_");
    expect((await get({ authorization: "Bearer metrics-token-0c4f1a9e7" })).status).toBe(401);
    const basic = (password: string) =>
      `Basic ${Buffer.from(`prometheus:${password}`).toString("base64")}`;
    expect((await get({ authorization: basic("nope-nope-nope-nope") })).status).toBe(401);
    // Prometheus' `authorization` (a bearer) and `basic_auth` settings both work.
    for (const authorization of [`Bearer ${token}`, basic(token)]) {
      const answer = await get({ authorization });
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe(metrics.contentType);
    }
    // The probes and the index stay open.
    for (const path of ["/healthz", "/readyz", "/"]) {
      expect((await call(closed, path)).status, path).toBe(200);
    }
  });

  it("refuses a port in use with a ConfigError naming HTTP_PORT", async () => {
    const first = await start();
    const err = await startOpsServer({
      port: first.port,
      host: "127.0.0.1",
      readiness: async () => READY,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: ErrorCode.CONFIG_INVALID, setting: "HTTP_PORT" });
    expect((err as Error).message).toContain(String(first.port));
  });

  it("refuses a host that is not this machine's, or no host at all, naming HTTP_HOST", async () => {
    for (const host of ["192.0.2.1", "no-such-host.invalid"]) {
      const err = await startOpsServer({ port: 0, host, readiness: async () => READY }).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: ErrorCode.CONFIG_INVALID, setting: "HTTP_HOST" });
    }
  });

  it("closes promptly with an idle keep-alive connection and a request in flight, idempotently", async () => {
    let asked: () => void = () => undefined;
    const inReadiness = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const server = await startOpsServer({
      port: 0,
      host: "127.0.0.1",
      readiness: () => {
        asked();
        return new Promise(() => undefined);
      },
      readinessTimeoutMs: 30_000,
    });
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const res = await request(`${server.url}/healthz`, { dispatcher: agent });
    await res.body.text();
    const inFlight = new Promise<string>((resolve) => {
      const req = httpRequest(`${server.url}/readyz`, { agent: false }, () => resolve("answered"));
      req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
      req.end();
    });
    await inReadiness;
    const started = performance.now();
    await Promise.all([server.close(), server.close()]);
    await server.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await inFlight).toBe("ECONNRESET");
    const after = await request(`${server.url}/healthz`).catch((e: { code?: string }) => e);
    expect(after).toMatchObject({ code: "ECONNREFUSED" });
    await agent.close();
  });

  it("never loads Bull Board or Hono without the dashboard", async () => {
    // A resolve hook that refuses those packages; the server must start without them.
    const hook = encodeURIComponent(
      "export async function resolve(s, c, next) {" +
        " if (/^(@bull-board|hono|@hono)(\\/|$)/.test(s)) throw new Error('loaded ' + s);" +
        " return next(s, c); }",
    );
    const entry = (dashboard: boolean) =>
      [
        "import { register } from 'node:module';",
        `register(${JSON.stringify(`data:text/javascript,${hook}`)});`,
        "const { startOpsServer } = await import('./src/ops/ops-server.ts');",
        "const s = await startOpsServer({ port: 0, host: '127.0.0.1',",
        "  readiness: async () => ({ ready: true, checks: {} }),",
        `  ${dashboard ? "dashboard: { queues: [], token: 'dashboard-token-0123456789' }," : ""} });`,
        "console.log((await fetch(s.url + '/healthz')).status);",
        "await s.close();",
      ].join("\n");
    const run = (dashboard: boolean) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ["--import", "tsx", "--input-type=module", "-e", entry(dashboard)],
          { cwd: new URL("../..", import.meta.url), stdio: ["ignore", "pipe", "pipe"] },
        );
        let out = "";
        child.stdout.on("data", (chunk) => {
          out += String(chunk);
        });
        child.stderr.on("data", (chunk) => {
          out += String(chunk);
        });
        child.on("exit", (code) => resolve({ code, out }));
      });
    const [without, withDashboard] = await Promise.all([run(false), run(true)]);
    expect(without).toMatchObject({ code: 0, out: "200\n" });
    // The hook does refuse them: the same start with the dashboard fails on the first one.
    expect(withDashboard.code).not.toBe(0);
    expect(withDashboard.out).toMatch(/loaded (@bull-board|hono|@hono)/);
  });
});
