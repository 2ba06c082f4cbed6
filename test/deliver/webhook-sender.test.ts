import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type CloudEvent, HTTP } from "cloudevents";
import { Webhook } from "standardwebhooks";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { WEBHOOK_USER_AGENT, WebhookSender } from "../../src/deliver/webhook-sender.js";
import type { WebhookChannelSpec } from "../../src/rules/rule.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import {
  type ReceiverResponse,
  startWebhookReceiver,
  type WebhookDelivery,
  type WebhookReceiver,
} from "../support/webhook-receiver.js";
import {
  alertOf,
  gate,
  notificationOf,
  OTHER_SECRET,
  SECRET,
  sendContext,
  webhookChannel,
  webhookRule,
} from "./webhook-fixtures.js";

// Real time to the second: receivers check the timestamp against their own clock.
const NOW = Math.floor(Date.now() / 1000) * 1000;
const clock = () => NOW;

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

async function receiver(
  secret: string | undefined,
  respond?: (d: WebhookDelivery, n: number) => ReceiverResponse,
): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver({
    ...(secret !== undefined ? { secret } : {}),
    ...(respond ? { respond } : {}),
  });
  open.push(r);
  return r;
}

function sender(timeoutMs?: number): WebhookSender {
  const s = new WebhookSender({
    outbound: LOOPBACK_OUTBOUND,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  open.push(s);
  return s;
}

/** Sends the gate-change notification through a channel to `url` once. */
async function sendOnce(
  url: string,
  channel: Partial<WebhookChannelSpec> = { secret: SECRET },
  options: { sender?: WebhookSender; now?: () => number; attempt?: number } = {},
) {
  const spec = webhookChannel(url, channel);
  const rule = webhookRule(spec);
  const notification = notificationOf(alertOf([gate("D7", "D9", 1)]), rule);
  const outcome = await (options.sender ?? sender()).send(
    notification,
    spec,
    sendContext(rule, options.now ?? clock, options.attempt),
  );
  return { outcome, notification };
}

describe("webhook sender: signing and body", () => {
  it("delivers a signed CloudEvent that the receiver verifies, with the notification id as webhook-id", async () => {
    const hook = await receiver(SECRET);
    const { outcome, notification } = await sendOnce(hook.url);
    expect(outcome).toStrictEqual({ status: "delivered", code: 204 });
    expect(hook.deliveries).toHaveLength(1);
    const [d] = hook.deliveries as [WebhookDelivery];
    expect(d.verified).toBe(true);
    expect(d.id).toBe(notification.id);
    expect(d.timestamp).toBe(NOW / 1000);
    expect(d.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(d.headers["user-agent"]).toBe(WEBHOOK_USER_AGENT);
    expect(WEBHOOK_USER_AGENT).toMatch(/^flightwatch\/\d+\.\d+\.\d+/);
    expect(d.headers["content-type"]).toBe("application/cloudevents+json");
    const event = HTTP.toEvent({ headers: d.headers, body: d.rawBody }) as CloudEvent;
    expect(event.validate()).toBe(true);
    expect(event.id).toBe(notification.id);
    expect(event.type).toBe("flight.gate.changed");
    expect(hook.uniqueIds()).toEqual(new Set([notification.id]));
  });

  it("signs exactly as the standardwebhooks package does: non-ASCII bodies, secrets without whsec_", async () => {
    for (const secret of [SECRET, SECRET.slice("whsec_".length)]) {
      const hook = await receiver(secret);
      const spec = webhookChannel(hook.url, { secret });
      const rule = { ...webhookRule(spec), description: "Zürich → Kraków ✈" };
      const notification = notificationOf(alertOf([gate("D7", "D9", 1)]), rule);
      const outcome = await sender().send(notification, spec, sendContext(rule, clock));
      expect(outcome.status).toBe("delivered");
      const [d] = hook.deliveries as [WebhookDelivery];
      expect(d.verified).toBe(true);
      expect(d.rawBody).toContain("Zürich → Kraków ✈");
      expect(d.headers["webhook-signature"]).toBe(
        new Webhook(secret).sign(d.id, new Date(NOW), d.rawBody),
      );
    }
  });

  it("is rejected by a receiver holding another secret", async () => {
    const hook = await receiver(OTHER_SECRET);
    const { outcome } = await sendOnce(hook.url, { secret: SECRET });
    expect(hook.deliveries[0]?.verified).toBe(false);
    expect(hook.deliveries[0]?.verifyError).toMatch(/signature/i);
    expect(outcome).toMatchObject({ status: "failed", reason: "auth", code: 401 });
    expect(hook.uniqueIds().size).toBe(0);
  });

  it("sends id and timestamp unsigned when the channel has no secret (a signing receiver refuses it)", async () => {
    const plain = await receiver(undefined);
    const { outcome, notification } = await sendOnce(plain.url, { format: "json" });
    expect(outcome.status).toBe("delivered");
    const [d] = plain.deliveries as [WebhookDelivery];
    expect(d.id).toBe(notification.id);
    expect(d.timestamp).toBe(NOW / 1000);
    expect(d.headers).not.toHaveProperty("webhook-signature");
    expect(d.headers["content-type"]).toBe("application/json");
    expect(d.body).toMatchObject({ id: notification.id, type: "flight.gate.changed" });

    const signing = await receiver(SECRET);
    expect((await sendOnce(signing.url, {})).outcome.status).toBe("failed");
    expect(signing.deliveries[0]?.verified).toBe(false);
  });

  it("keeps the webhook-id across attempts, with each attempt's own timestamp and signature", async () => {
    const hook = await receiver(SECRET, (_d, n) => ({ status: n === 1 ? 500 : 200 }));
    const s = sender();
    const first = await sendOnce(hook.url, { secret: SECRET }, { sender: s });
    const second = await sendOnce(
      hook.url,
      { secret: SECRET },
      {
        sender: s,
        now: () => NOW + 5_000,
        attempt: 2,
      },
    );
    expect(first.outcome).toMatchObject({ status: "retry", reason: "server_error", code: 500 });
    expect(second.outcome).toStrictEqual({ status: "delivered", code: 200 });
    const [a, b] = hook.deliveries as [WebhookDelivery, WebhookDelivery];
    expect(a.id).toBe(first.notification.id);
    expect(b.id).toBe(a.id);
    expect(b.timestamp - a.timestamp).toBe(5);
    expect(b.headers["webhook-signature"]).not.toBe(a.headers["webhook-signature"]);
    expect(a.verified && b.verified).toBe(true);
    expect(hook.uniqueIds().size).toBe(1);
  });

  it("fails without sending when the secret is not a Standard Webhooks secret", async () => {
    const hook = await receiver(undefined);
    const { outcome } = await sendOnce(hook.url, { secret: "whsec_" });
    expect(outcome).toMatchObject({ status: "failed", reason: "not_configured" });
    expect(hook.deliveries).toHaveLength(0);
  });
});

describe("webhook sender: connections", () => {
  it("delivers concurrent sends once each, and the receiver counts them", async () => {
    const hook = await receiver(SECRET);
    const s = sender();
    const spec = webhookChannel(hook.url, { secret: SECRET });
    const rule = webhookRule(spec);
    const notifications = Array.from({ length: 60 }, (_, i) =>
      notificationOf(alertOf([gate("D7", `E${i}`, i + 1)]), rule),
    );
    const outcomes = await Promise.all(
      notifications.map((n) => s.send(n, spec, sendContext(rule, clock))),
    );
    expect(outcomes.every((o) => o.status === "delivered")).toBe(true);
    await hook.waitForIds(60, 1_000);
    expect(hook.uniqueIds()).toEqual(new Set(notifications.map((n) => n.id)));
    await expect(hook.waitFor(61, 50)).rejects.toThrow(/61 requests expected, 60 arrived/);
  });

  it("closes only its own agent: a dispatcher it was given stays usable", async () => {
    const hook = await receiver(SECRET);
    const agent = new Agent();
    open.push(agent);
    const borrowing = new WebhookSender({ dispatcher: agent });
    await borrowing.close();
    const { outcome } = await sendOnce(
      hook.url,
      { secret: SECRET },
      {
        sender: new WebhookSender({ dispatcher: agent }),
      },
    );
    expect(outcome.status).toBe("delivered");

    const owning = new WebhookSender({ outbound: LOOPBACK_OUTBOUND });
    await owning.close();
    const after = await sendOnce(hook.url, { secret: SECRET }, { sender: owning });
    expect(after.outcome.status).toBe("retry");
    expect(hook.deliveries).toHaveLength(1);
  });
});

describe("webhook sender: verdicts", () => {
  const answer = async (reply: ReceiverResponse, timeoutMs?: number) => {
    const hook = await receiver(SECRET, () => reply);
    const { outcome } = await sendOnce(hook.url, { secret: SECRET }, { sender: sender(timeoutMs) });
    return { outcome, hook };
  };

  it("does not follow a redirect: 3xx is a failure", async () => {
    const { outcome, hook } = await answer({ status: 302, headers: { location: "/elsewhere" } });
    expect(outcome).toMatchObject({ status: "failed", reason: "http_status", code: 302 });
    expect(hook.deliveries).toHaveLength(1);
  });

  it("disables the endpoint on 410 Gone", async () => {
    const { outcome } = await answer({ status: 410, body: "endpoint deleted" });
    expect(outcome).toStrictEqual({
      status: "failed",
      reason: "gone",
      detail: "HTTP 410: endpoint deleted",
      code: 410,
      disableEndpoint: true,
    });
  });

  it("retries 429 after Retry-After in seconds", async () => {
    const { outcome } = await answer({ status: 429, headers: { "retry-after": "7" } });
    expect(outcome).toMatchObject({ status: "retry", reason: "rate_limited", retryAfterMs: 7_000 });
  });

  it("retries 429 after a Retry-After HTTP date, measured on the injected clock", async () => {
    const date = new Date(NOW + 120_000).toUTCString();
    const { outcome } = await answer({ status: 429, headers: { "retry-after": date } });
    expect(outcome).toMatchObject({
      status: "retry",
      reason: "rate_limited",
      retryAfterMs: 120_000,
    });
  });

  it("retries 500 and 503 (with its Retry-After)", async () => {
    expect((await answer({ status: 500 })).outcome).toMatchObject({
      status: "retry",
      reason: "server_error",
      code: 500,
    });
    expect((await answer({ status: 503, headers: { "retry-after": "30" } })).outcome).toMatchObject(
      { status: "retry", reason: "server_error", retryAfterMs: 30_000 },
    );
  });

  it("fails for good on 400 and other 4xx, without disabling the endpoint", async () => {
    const bad = (await answer({ status: 400, body: "nope" })).outcome;
    expect(bad).toMatchObject({ status: "failed", reason: "bad_request", code: 400 });
    expect(bad).not.toHaveProperty("disableEndpoint");
    expect((await answer({ status: 422 })).outcome).toMatchObject({
      status: "failed",
      reason: "http_status",
    });
  });

  it("retries when the receiver does not answer within the timeout", async () => {
    const started = Date.now();
    const { outcome, hook } = await answer({ status: 200, delayMs: 20_000 }, 150);
    expect(outcome).toMatchObject({ status: "retry", reason: "timeout" });
    // Long before the receiver would have answered (seconds of slack for a loaded machine).
    expect(Date.now() - started).toBeLessThan(10_000);
    // The receiver got it but never answered: not accepted.
    expect(hook.deliveries).toHaveLength(1);
    expect(hook.uniqueIds().size).toBe(0);
  });

  it("bounds the whole exchange: an answer trickling in past the timeout is cut off", async () => {
    // Headers at once, then a byte every 50 ms: neither undici's headers nor its body
    // timeout (the gaps are shorter) ends it; the bound on the whole exchange does.
    const trickle = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/plain" });
      const tick = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(tick));
      setTimeout(() => {
        clearInterval(tick);
        res.end();
      }, 20_000).unref();
    });
    await new Promise<void>((resolve) => trickle.listen(0, "127.0.0.1", resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          trickle.closeAllConnections();
          trickle.close(() => resolve());
        }),
    });
    const { port } = trickle.address() as AddressInfo;
    const started = Date.now();
    const { outcome } = await sendOnce(
      `http://127.0.0.1:${port}/hook`,
      { secret: SECRET },
      { sender: sender(300) },
    );
    expect(outcome).toMatchObject({
      status: "retry",
      reason: "timeout",
      detail: "no answer within 300 ms",
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("retries when the connection is refused", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { outcome } = await sendOnce(`http://127.0.0.1:${port}/hook`);
    expect(outcome).toMatchObject({ status: "retry", reason: "connection" });
  });
});
