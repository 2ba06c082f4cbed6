/**
 * The Bull Board dashboard served by the ops server against real delivery queues on
 * a real Redis: the page, the static assets it references (CSS and JS, from
 * @bull-board/ui), the queue API with a job counted, and read-only by default.
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
      dashboard: { queues: queues.all(), ...(readOnly === undefined ? {} : { readOnly }) },
    });
    return { get, put };
  }

  async function get(path: string) {
    const res = await request(`${server?.url}${path}`);
    return {
      status: res.statusCode,
      type: String(res.headers["content-type"]),
      body: await res.body.text(),
    };
  }

  async function put(path: string) {
    const res = await request(`${server?.url}${path}`, { method: "PUT" });
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

  it("allows actions when readOnly is false", async () => {
    const { get, put } = await startWith(false);
    const body = JSON.parse((await get("/queues/api/queues")).body) as QueuesApi;
    expect(body.queues.every((q) => !q.readOnlyMode)).toBe(true);
    expect(await put("/queues/api/queues/deliver-webhook/pause")).toBe(200);
    expect(await queues?.queue("webhook").isPaused()).toBe(true);
  });
});
