/**
 * Issue 6's "done when", end to end through the real delivery queues and workers on
 * a real Redis, with the real senders and real receivers on loopback: a webhook
 * receiver that checks Standard Webhooks signatures, a Slack look-alike and an SMTP
 * server. Retry schedules are cut to fractions of a second; timings are read on the
 * receivers' clocks, with the schedule's jitter (±20 %) as tolerance.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryJob } from "../../src/deliver/delivery-queues.js";
import { AlertConsumer, NOTIFY_GROUP, Notifier } from "../../src/deliver/notifier.js";
import type { Alert } from "../../src/dispatch/alert.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { ChannelSpec } from "../../src/rules/rule.js";
import { ALERT_FIELD } from "../../src/store/alert-store.js";
import { waitFor } from "../support/crash-run.js";
import {
  DeliveryRig,
  gaps,
  hook,
  jobsOf,
  mailTo,
  PACE_MS,
  pause,
  ruleWith,
  SHORT,
  slackTo,
} from "./delivery-rig.js";
import { alert } from "./email-fixtures.js";

const A = "anna@example.com";
const B = "bob@example.com";
/**
 * The limiter spaces the sends; arrivals come closer when the previous send left late
 * (a busy event loop: this one process runs the workers and the receivers alike, and
 * the suite runs two files at once on two cores — 197 ms was seen for a 300 ms pace).
 * Unpaced sends arrive within a few ms of each other, so half the pace still tells.
 */
const PACE_SLACK_MS = PACE_MS / 2;

describe("delivery to real receivers", () => {
  let rig: DeliveryRig;

  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });

  afterEach(async () => {
    await rig.close();
  });

  it("delivers each notification once to each receiver, however often it is enqueued", async () => {
    const hooks = await rig.webhookReceiver();
    const smtp = await rig.smtpReceiver();
    const path = "/services/T0/B0/once";
    const r = ruleWith(hook(hooks.url), slackTo(rig.slack.url(path)), mailTo([A, B]));
    await rig.start([r], smtp);
    const alerts = [alert("a1"), alert("a2"), alert("a3")];

    // The notifier's path: alerts on the stream (a1 twice, as a re-run dispatcher would).
    const consumer = new AlertConsumer({
      redis: await rig.connection(),
      keys: rig.keys,
      group: NOTIFY_GROUP,
      consumer: "test",
      blockMs: 50,
    });
    await consumer.ensureGroup();
    const notifier = new Notifier({ consumer, queues: rig.queues, rules: () => new RuleSet([r]) });
    for (const a of [...alerts, alerts[0] as Alert]) {
      await rig.redis.xadd(rig.keys.alerts, "*", ALERT_FIELD, JSON.stringify(a));
    }
    expect((await notifier.step()).length).toBe(12);
    // And the same jobs enqueued again, as after a crash before the alerts were acknowledged.
    await rig.queues.enqueue(alerts.flatMap((a) => jobsOf(a, r)));
    await rig.settled(9);
    await rig.queues.enqueue(alerts.flatMap((a) => jobsOf(a, r))); // after delivery, too
    await pause(PACE_MS * 2);

    const ids = (type: ChannelSpec["type"]) =>
      alerts.map((a) => jobsOf(a, r).find((j) => j.notification.type === type)?.notification.id);
    expect(hooks.deliveries.map((d) => d.id).sort()).toEqual(ids("webhook").sort());
    expect(hooks.deliveries.every((d) => d.verified && d.status === 204)).toBe(true);
    expect(rig.slack.requests(path)).toHaveLength(3);
    expect(rig.slack.messages(path)).toHaveLength(3);
    for (const gap of gaps(rig.slack.messages(path).map((m) => m.receivedAt))) {
      expect(gap).toBeGreaterThanOrEqual(PACE_MS - PACE_SLACK_MS);
    }
    // One message per recipient, each under its own Message-ID of the notification's.
    const messageIds = smtp.messages.map((m) => m.headers["message-id"] ?? "");
    expect(messageIds).toHaveLength(6);
    expect(new Set(messageIds).size).toBe(6);
    for (const id of ids("email"))
      expect(messageIds.filter((m) => m.startsWith(`<${id}.`))).toHaveLength(2);
    expect(smtp.messages.map((m) => m.to.join()).sort()).toEqual([A, A, A, B, B, B]);
    expect(rig.records.every((x) => x.result === "delivered" && x.attempt === 1)).toBe(true);
    expect(rig.records).toHaveLength(9);
  });

  it("retries a failing webhook on the schedule, under the same webhook-id", async () => {
    const hooks = await rig.webhookReceiver((_d, n) => ({ status: n <= 2 ? 503 : 204 }));
    const r = ruleWith(hook(hooks.url));
    await rig.start([r]);
    const [job] = jobsOf(alert("a1"), r) as [DeliveryJob];
    await rig.queues.enqueue([job]);
    await rig.settled(1);

    expect(hooks.deliveries.map((d) => [d.id, d.verified, d.status])).toEqual([
      [job.notification.id, true, 503],
      [job.notification.id, true, 503],
      [job.notification.id, true, 204],
    ]);
    const [first, second] = gaps(hooks.deliveries.map((d) => d.receivedAt)) as [number, number];
    expect(first).toBeGreaterThanOrEqual(300 * 0.8);
    expect(first).toBeLessThan(300 * 1.2 + 500);
    expect(second).toBeGreaterThanOrEqual(600 * 0.8);
    expect(second).toBeLessThan(600 * 1.2 + 500);
    const logged = (await rig.log.recent(10)).reverse();
    expect(logged.map((x) => [x.attempt, x.result, x.reason, x.code])).toEqual([
      [1, "retrying", "server_error", 503],
      [2, "retrying", "server_error", 503],
      [3, "delivered", undefined, 204],
    ]);
  });

  it("waits as a webhook's Retry-After says, not as the schedule would", async () => {
    const hooks = await rig.webhookReceiver((_d, n) =>
      n === 1 ? { status: 429, headers: { "retry-after": "1" } } : { status: 204 },
    );
    const r = ruleWith(hook(hooks.url, "hook", { delaysMs: [100], forMs: 10_000 }));
    await rig.start([r]);
    await rig.queues.enqueue(jobsOf(alert("a1"), r));
    await rig.settled(1);
    expect(hooks.deliveries.map((d) => d.status)).toEqual([429, 204]);
    const [gap] = gaps(hooks.deliveries.map((d) => d.receivedAt)) as [number];
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(gap).toBeLessThan(2_000);
    expect(rig.resultsOf(rig.records[0]?.id as string)).toEqual(["retrying", "delivered"]);
  });

  it("holds every message to a Slack webhook that answered 429 until its Retry-After", async () => {
    const path = "/services/T0/B0/busy";
    rig.slack.script(path, { status: 429, body: "rate_limited", retryAfter: 1 });
    const r = ruleWith(slackTo(rig.slack.url(path)));
    await rig.start([r]);
    // Two notifications at once: the second has its slot before the 429 comes back.
    await rig.queues.enqueue([...jobsOf(alert("a1"), r), ...jobsOf(alert("a2"), r)]);
    await rig.settled(2);
    await rig.queues.enqueue(jobsOf(alert("a3"), r));
    await rig.settled(3);

    const [refused, ...later] = rig.slack.requests(path);
    expect(refused?.status).toBe(429);
    for (const request of later) {
      expect(request.receivedAt - (refused?.receivedAt as number)).toBeGreaterThanOrEqual(950);
    }
    expect(rig.slack.messages(path)).toHaveLength(3);
    for (const gap of gaps(rig.slack.messages(path).map((m) => m.receivedAt))) {
      expect(gap).toBeGreaterThanOrEqual(PACE_MS - PACE_SLACK_MS);
    }
  });

  it("does not retry permanent refusals: each lands in the dead letters with its reason", async () => {
    const hooks = await rig.webhookReceiver(() => ({ status: 400, body: "unknown event type" }));
    const smtp = await rig.smtpReceiver({
      rcpt: () => ({ code: 550, message: "5.1.1 No such user" }),
    });
    rig.slack.script("/gone", { status: 404, body: "no_service" });
    rig.slack.script("/archived", { status: 410, body: "channel_is_archived" });
    const r = ruleWith(
      hook(hooks.url),
      slackTo(rig.slack.url("/gone"), "gone"),
      slackTo(rig.slack.url("/archived"), "archived"),
      mailTo([A]),
    );
    await rig.start([r], smtp);
    await rig.queues.enqueue(jobsOf(alert("a1"), r));
    await rig.settled(4);
    await pause(SHORT.delaysMs[0] as number); // a retry, were one scheduled, would come now

    expect(hooks.deliveries).toHaveLength(1);
    expect(rig.slack.requests("/gone")).toHaveLength(1);
    expect(rig.slack.requests("/archived")).toHaveLength(1);
    expect(smtp.rcptCount(A)).toBe(1);
    expect(rig.records.map((x) => [x.attempt, x.result])).toEqual(Array(4).fill([1, "dead"]));
    const dead = await rig.queues.deadLetters();
    const reasons = Object.fromEntries(dead.map((d) => [d.channel, [d.reason, d.attempts]]));
    expect(reasons).toEqual({
      hook: ["bad_request", 1],
      gone: ["slack_refused", 1],
      archived: ["slack_refused", 1],
      mail: ["smtp_permanent", 1],
    });
    const detail = (channel: string) => dead.find((d) => d.channel === channel)?.detail;
    expect(detail("gone")).toContain("no_service");
    expect(detail("archived")).toContain("channel_is_archived");
  });

  it("tries again only the email recipient whose server said 451", async () => {
    const smtp = await rig.smtpReceiver({
      rcpt: (address, n) =>
        address === B && n === 1 ? { code: 451, message: "4.7.1 Later" } : undefined,
    });
    const r = ruleWith(mailTo([A, B]));
    await rig.start([r], smtp);
    await rig.queues.enqueue(jobsOf(alert("a1"), r));
    await rig.settled(1);
    expect(smtp.messages.map((m) => m.to)).toEqual([[A], [B]]);
    expect([smtp.rcptCount(A), smtp.rcptCount(B)]).toEqual([1, 2]);
    const [first, second] = smtp.messages;
    const [job] = jobsOf(alert("a1"), r) as [DeliveryJob];
    expect(first?.headers["message-id"]?.startsWith(`<${job.notification.id}.`)).toBe(true);
    expect(second?.headers["message-id"]?.startsWith(`<${job.notification.id}.`)).toBe(true);
    expect(second?.headers.to).toBe(B);
    expect(rig.records.map((x) => [x.result, x.reason])).toEqual([
      ["retrying", "smtp_transient"],
      ["delivered", undefined],
    ]);
  });

  it("sends dead letters again under the same webhook-id, one by one or all", async () => {
    let fixed = false;
    const hooks = await rig.webhookReceiver(() => ({ status: fixed ? 204 : 400 }));
    const r = ruleWith(hook(hooks.url));
    await rig.start([r]);
    const jobs = ["a1", "a2", "a3"].flatMap((id) => jobsOf(alert(id), r));
    const [one, ...rest] = jobs.map((j) => j.notification.id) as [string, ...string[]];
    await rig.queues.enqueue(jobs);
    await rig.settled(3);
    // The record is written before BullMQ moves the job to the failed set.
    await waitFor(async () => (await rig.queues.deadLetters()).length === 3, 8_000);
    expect((await rig.queues.deadLetters()).map((d) => d.reason)).toEqual(
      Array(3).fill("bad_request"),
    );

    fixed = true;
    expect(await rig.queues.retry([one])).toEqual({ requeued: [one], missing: [] });
    await hooks.waitForIds(1);
    expect((await rig.queues.deadLetters()).map((d) => d.id).sort()).toEqual([...rest].sort());
    expect((await rig.queues.retry("all")).requeued.sort()).toEqual([...rest].sort());
    await hooks.waitForIds(3);
    await rig.settled(6);

    expect(await rig.queues.deadLetters()).toEqual([]);
    expect(hooks.deliveries).toHaveLength(6);
    expect(hooks.deliveries.every((d) => d.verified)).toBe(true);
    for (const id of [one, ...rest]) {
      expect(hooks.deliveries.filter((d) => d.id === id).map((d) => d.status)).toEqual([400, 204]);
      expect(rig.resultsOf(id)).toEqual(["dead", "delivered"]);
    }
  });

  it("disables a webhook endpoint that answered 410 until it is enabled again", async () => {
    let gone = true;
    const hooks = await rig.webhookReceiver(() => ({ status: gone ? 410 : 204 }));
    const r = ruleWith(hook(hooks.url));
    await rig.start([r]);
    await rig.queues.enqueue(jobsOf(alert("a1"), r));
    await rig.settled(1);
    const [endpoint] = await rig.log.disabledEndpoints();
    expect(endpoint).toMatchObject({ ruleId: "r1", channel: "hook" });

    await rig.queues.enqueue([...jobsOf(alert("a2"), r), ...jobsOf(alert("a3"), r)]);
    await rig.settled(3);
    expect(hooks.deliveries).toHaveLength(1);
    expect(rig.records.map((x) => x.reason)).toEqual([
      "gone",
      "endpoint_disabled",
      "endpoint_disabled",
    ]);

    gone = false;
    expect(await rig.log.enable(endpoint?.id as string)).toBe(true);
    expect((await rig.queues.retry("all")).requeued).toHaveLength(3);
    await hooks.waitForIds(3);
    expect(hooks.deliveries).toHaveLength(4);
    expect(hooks.uniqueIds()).toEqual(new Set(rig.records.slice(0, 3).map((x) => x.id)));
    expect(await rig.log.disabledEndpoints()).toEqual([]);
  });
});
