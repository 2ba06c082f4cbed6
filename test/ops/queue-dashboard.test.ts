/**
 * The Bull Board dashboard served by the ops server against real delivery queues on
 * a real Redis: the page, the static assets it references (CSS and JS, from
 * @bull-board/ui), the queue API with a job counted, read-only by default, and
 * nothing of it without DASHBOARD_TOKEN (bearer, or basic auth as a browser sends it).
 */
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { DeliveryQueues } from "../../src/deliver/delivery-queues.js";
import { destinationOf } from "../../src/deliver/endpoint.js";
import { notificationsOf } from "../../src/deliver/notification.js";
import { type OpsServer, startOpsServer } from "../../src/ops/ops-server.js";
import type { ChannelSpec, Rule } from "../../src/rules/rule.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { rule as baseRule } from "../rules/rule-builder.js";
import { alertOf } from "../support/alert-builder.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const hook: ChannelSpec = {
  type: "webhook",
  name: "hook",
  url: "http://127.0.0.1:9/hook",
  format: "json",
  retry: { delaysMs: [1_000], forMs: 10_000 },
  source: { file: "t.yaml", line: 1, column: 1 },
};

const TOKEN = "dashboard-token-5b1e9c7a2f";
const BEARER = { authorization: `Bearer ${TOKEN}` };

/** Basic auth as a browser sends it once the user typed a name and a password. */
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});

interface QueuesApi {
  queues: Array<{ name: string; readOnlyMode: boolean; counts: Record<string, number> }>;
}

describe("queue dashboard", () => {
  let t: TestRedis | undefined;
  let queues: DeliveryQueues | undefined;
  let server: OpsServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await queues?.close();
    await t?.cleanup();
  });

  async function startWith(readOnly?: boolean): Promise<{ get: typeof get; put: typeof put }> {
    t = await testRedis("ops-dashboard");
    queues = new DeliveryQueues(t.redis, redisKeys(t.prefix));
    server = await startOpsServer({
      port: 0,
      host: "127.0.0.1",
      readiness: async () => ({ ready: true, checks: {} }),
      dashboard: {
        queues: queues.all(),
        token: TOKEN,
        ...(readOnly === undefined ? {} : { readOnly }),
      },
    });
    return { get, put };
  }

  async function get(path: string, headers: Record<string, string> = BEARER) {
    const res = await request(`${server?.url}${path}`, { headers });
    return {
      status: res.statusCode,
      type: String(res.headers["content-type"]),
      challenge: res.headers["www-authenticate"],
      body: await res.body.text(),
    };
  }

  async function put(path: string, headers: Record<string, string> = BEARER) {
    const res = await request(`${server?.url}${path}`, { method: "PUT", headers });
    await res.body.dump();
    return res.statusCode;
  }

  it("serves the page, its CSS and JS assets, and the queues with their jobs; read-only by default", async () => {
    const { get, put } = await startWith();
    const r: Rule = { ...baseRule("r1"), channels: [hook] };
    await queues?.enqueue(
      notificationsOf(alertOf(), r).map((notification) => ({
        notification,
        retry: { delaysMs: [1_000], forMs: 10_000 },
        destination: destinationOf(hook),
      })),
    );

    for (const path of ["/queues", "/queues/", "/queues/queue/deliver-webhook"]) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(page.type).toMatch(/^text\/html/);
      expect(page.body).toContain('<base href="/queues/"');
    }
    const html = (await get("/queues")).body;
    expect(html).toContain("<title>flightwatch</title>");
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+\.(?:js|css))"/g)].map(
      (m) => m[1] as string,
    );
    expect(assets.filter((a) => a.endsWith(".js")).length).toBeGreaterThan(0);
    expect(assets.filter((a) => a.endsWith(".css")).length).toBeGreaterThan(0);
    for (const asset of assets) {
      const answer = await get(`/queues/${asset}`);
      expect(answer.status, asset).toBe(200);
      expect(answer.type, asset).toMatch(asset.endsWith(".js") ? /javascript/ : /text\/css/);
      expect(answer.body.length, asset).toBeGreaterThan(100);
    }
    expect((await get("/queues/static/nope.js")).status).toBe(404);
    // No escaping the UI's folder.
    expect((await get("/queues/static/..%2F..%2Fpackage.json")).status).toBe(404);

    const api = await get("/queues/api/queues");
    expect(api.status).toBe(200);
    const body = JSON.parse(api.body) as QueuesApi;
    expect(body.queues.map((q) => q.name).sort()).toEqual([
      "deliver-console",
      "deliver-email",
      "deliver-slack",
      "deliver-webhook",
    ]);
    expect(body.queues.every((q) => q.readOnlyMode)).toBe(true);
    expect(body.queues.find((q) => q.name === "deliver-webhook")?.counts.waiting).toBe(1);

    // Read-only: actions are refused and change nothing.
    expect(await put("/queues/api/queues/deliver-webhook/pause")).toBe(405);
    expect(await queues?.queue("webhook").isPaused()).toBe(false);

    // The ops routes are still there beside it.
    expect((await get("/healthz")).status).toBe(200);
    expect(JSON.parse((await get("/")).body).endpoints).toContain("/queues/");
    expect((await get("/queuesX")).status).toBe(404);
  });

  it("answers 401 with a basic auth challenge without the token, anywhere under /queues; the probes stay open", async () => {
    const { get, put } = await startWith();
    const html = (await get("/queues")).body;
    const asset = /(?:src|href)="(static\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const paths = ["/queues", "/queues/", `/queues/${asset}`, "/queues/api/queues", "/queues/x"];
    const wrong = [
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: TOKEN },
      { authorization: `Token ${TOKEN}` },
      basic("admin", "wrong-password-123456"),
      // The token as the user name is not the token as the password.
      basic(TOKEN, ""),
    ];
    for (const path of paths) {
      for (const headers of wrong) {
        const answer = await get(path, headers);
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(answer.challenge).toBe('Basic realm="flightwatch", charset="UTF-8"');
        expect(answer.body).toContain("DASHBOARD_TOKEN");
        expect(answer.body).not.toContain("deliver-");
      }
    }
    expect(await put("/queues/api/queues/deliver-webhook/pause", {})).toBe(401);
    // With the token: as a bearer (scripts), or as the password of any user (a browser).
    for (const headers of [BEARER, basic("ops", TOKEN), basic("", TOKEN)]) {
      expect((await get(`/queues/${asset}`, headers)).status).toBe(200);
    }
    expect((await get("/queues/api/queues", basic("ops", TOKEN))).status).toBe(200);
    // Liveness, readiness and the index need nothing.
    for (const path of ["/healthz", "/readyz", "/"]) expect((await get(path, {})).status).toBe(200);
  });

  it("allows actions when readOnly is false", async () => {
    const { get, put } = await startWith(false);
    const body = JSON.parse((await get("/queues/api/queues")).body) as QueuesApi;
    expect(body.queues.every((q) => !q.readOnlyMode)).toBe(true);
    expect(await put("/queues/api/queues/deliver-webhook/pause")).toBe(200);
    expect(await queues?.queue("webhook").isPaused()).toBe(true);
  });
});
