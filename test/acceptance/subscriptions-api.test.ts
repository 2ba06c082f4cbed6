/**
 * The subscriptions API end to end, as an app backend's operator and developer would
 * use it: the operator makes an API key with the real CLI (`flightwatch api-keys
 * create`) while `flightwatch run` polls the simulator; the app creates a webhook
 * subscription to a flight over HTTP (undici) on the daemon's own HTTP port, with its
 * booking reference as a label; the flight's gate changes, and the app's receiver gets
 * one webhook, signed with the app's secret, carrying the change and the label. After
 * the app deletes the subscription, a second change reaches it no more.
 */
import { request } from "undici";
import { expect as assert, describe, it } from "vitest";
import { spawnCli } from "../support/cli-process.js";
import { waitFor } from "../support/crash-run.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { departure } from "./cast.js";
import { timeline, WEBHOOK_SECRET, type World } from "./timeline.js";

const RULES = `
rules:
  - id: ops-gates
    flights: { flight: KL1891 }
    changes: [gate]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`;

/** `flightwatch api-keys create` against the timeline's Redis: the key it printed. */
async function createApiKey(w: World): Promise<string> {
  const proc = spawnCli(["api-keys", "create", "--name", "booking-app"], {
    REDIS_URL: TEST_REDIS_URL,
    FLIGHTWATCH_PREFIX: w.redis.prefix,
  });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`api-keys create: exit ${code}\n${proc.stderr()}`);
  return proc.stdout().trim();
}

/** The daemon's HTTP URL, from its "running" log line. */
function daemonUrl(w: World): string {
  for (const line of (w.daemons[0]?.stdout() ?? "").split("\n")) {
    const http = line.includes('"http"') ? (JSON.parse(line) as { http?: string }).http : undefined;
    if (http !== undefined) return http;
  }
  throw new Error("the daemon did not say where its HTTP port is");
}

/** The rule of a webhook body (plain JSON, or a CloudEvent's `data`). */
function ruleOf(body: unknown): { id?: string; labels?: unknown } | undefined {
  const b = body as { data?: { rule?: object }; rule?: object } | undefined;
  return (b?.data ?? b)?.rule;
}

describe("acceptance: the subscriptions API", () => {
  it("a subscription made over HTTP with a key from the CLI gets the flight's signed webhooks until deleted", async () => {
    let id = "";
    let key = "";
    const hookOf = (w: World) =>
      w.webhook.deliveries.filter((d) => ruleOf(d.body)?.id === `sub:${id}`);
    const tl = timeline({
      name: "subscriptions-api",
      cast: [
        departure("KL1890", { gate: "D4", in: "2h" }),
        departure("KL1891", { gate: "D5", in: "3h" }),
      ],
      rules: RULES,
      env: { HTTP_PORT: "0" },
      // The subscription's id is the API's to choose: its deliveries are checked below.
      strict: false,
    });
    tl.at("0s").do("make an API key (CLI); subscribe the app to KL1890 (API)", async (w) => {
      key = await createApiKey(w);
      const res = await request(`${daemonUrl(w)}/api/v1/subscriptions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "idempotency-key": "booking-X7Q2LM-KL1890",
        },
        body: JSON.stringify({
          flight: "KL1890",
          date: w.record("KL1890").scheduleDate,
          webhook: w.webhook.url,
          secret: WEBHOOK_SECRET,
          labels: { booking: "X7Q2LM" },
        }),
      });
      const created = (await res.body.json()) as { id: string; status: string };
      assert(res.statusCode, JSON.stringify(created)).toBe(201);
      assert(created.status).toBe("active");
      id = created.id;
      w.note(`subscription ${id}`);
    });
    tl.at("2s").gate("KL1890", "D7");
    tl.at("2s").do("wait for the app's webhook", async (w) => {
      await waitFor(async () => hookOf(w).length > 0, 30_000);
    });
    tl.at("4s").do("delete the subscription (API)", async (w) => {
      const res = await request(`${daemonUrl(w)}/api/v1/subscriptions/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` },
      });
      assert(res.statusCode).toBe(204);
      await res.body.dump();
    });
    // Both flights change together: once the rule files' rule has been heard of, a
    // webhook for the deleted subscription would have been too.
    tl.at("6s").gate("KL1890", "D8").gate("KL1891", "E2");
    tl.at("6s").do("wait for the ops rule's webhook", async (w) => {
      await waitFor(
        async () => w.webhook.deliveries.some((d) => ruleOf(d.body)?.id === "ops-gates"),
        30_000,
      );
    });
    let labels: unknown;
    tl.at("6s").do("read the app's webhook", (w) => {
      labels = ruleOf(hookOf(w)[0]?.body)?.labels;
      assert(hookOf(w).every((d) => d.verified)).toBe(true);
    });
    const result = await tl.run();

    const hooks = result.deliveries.filter((d) => d.ruleId === `sub:${id}`);
    assert(hooks, result.report).toHaveLength(1);
    const [hook] = hooks;
    assert(hook?.channel).toBe("webhook");
    assert(hook?.flight).toBe("KL1890");
    assert(hook?.changes).toContainEqual(
      assert.objectContaining({ kind: "gate", old: "D4", new: "D7" }),
    );
    // The booking reference comes back with it, signed with the app's secret (the
    // receiver verified it; a bad signature fails the run).
    assert(labels).toEqual({ booking: "X7Q2LM" });
    assert(result.deliveries.filter((d) => d.ruleId === "ops-gates")).toHaveLength(1);
  }, 90_000);
});
