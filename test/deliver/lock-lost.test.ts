/**
 * A worker that lost its job's lock does not send. A Slack job waits for its
 * webhook's pace slot inside the sender; a worker taken for dead meanwhile (lock
 * renewals late under load) has had the job handed to another, and Slack and mail
 * cannot tell two sends apart. Real BullMQ, Redis, senders and receivers; the lock is
 * lost the way it is in production — its key expires, or another worker's token is in it.
 */

import { Job } from "bullmq";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readEmailSettings } from "../../src/config/email-settings.js";
import { isLockLost } from "../../src/daemon/redis-trouble.js";
import {
  type ChannelSender,
  type SendContext,
  stillMine,
} from "../../src/deliver/channel-sender.js";
import type { DeliveryJob } from "../../src/deliver/delivery-queues.js";
import { DeliveryWorkers } from "../../src/deliver/delivery-worker.js";
import { DestinationLimiter, destinationHash } from "../../src/deliver/destination-limiter.js";
import { EmailSender } from "../../src/deliver/email-sender.js";
import { SlackSender } from "../../src/deliver/slack-sender.js";
import { WebhookSender } from "../../src/deliver/webhook-sender.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { ChannelSpec } from "../../src/rules/rule.js";
import { waitFor } from "../support/crash-run.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import {
  DeliveryRig,
  hook,
  jobsOf,
  mailTo,
  PACE_MS,
  pause,
  ruleWith,
  slackTo,
} from "./delivery-rig.js";
import { alert, FROM, ZONE } from "./email-fixtures.js";

/** Long enough that the lock is lost well within it, short enough for a test. */
const PACE_WAIT_MS = 2_500;

describe("a worker that lost its job's lock", () => {
  let rig: DeliveryRig;

  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });

  afterEach(async () => {
    await rig.close();
  });

  /** Takes the webhook's slots for the next `ms`, as sends of other workers would. */
  const holdSlots = (url: string, ms: number) =>
    new DestinationLimiter(rig.redis, rig.keys).reserve(url, Date.now(), { intervalMs: ms });

  const lockKey = (id: string) => `${rig.keys.queuePrefix}:deliver-slack:${id}:lock`;

  /** Resolves once the job is running and waiting for its pace slot (it reserved one). */
  async function waitingForSlot(job: DeliveryJob, url: string): Promise<string> {
    const queue = rig.queues.queue("slack");
    const pace = rig.keys.deliveryPace(destinationHash(url));
    const heldUntil = Number(await rig.redis.get(pace));
    await waitFor(async () => {
      const state = await queue.getJobState(job.notification.id);
      // The job's reservation moves the next free slot one pace interval on.
      return state === "active" && Number(await rig.redis.get(pace)) > heldUntil;
    }, 5_000);
    const token = await rig.redis.get(lockKey(job.notification.id));
    expect(token).not.toBeNull();
    return token as string;
  }

  it("does not post when another worker holds the lock at the end of the pace wait, and leaves the job alone", async () => {
    const path = "/services/T0/B0/stolen";
    const r = ruleWith(slackTo(rig.slack.url(path)));
    const abandoned: Array<{ id: string; attempt: number }> = [];
    const errors: Error[] = [];
    await rig.start([r], undefined, {
      onAbandoned: (job, attempt) => abandoned.push({ id: job.notification.id, attempt }),
      onError: (err) => errors.push(err),
    });
    await holdSlots(rig.slack.url(path), PACE_WAIT_MS);
    const [job] = jobsOf(alert("a1"), r) as [DeliveryJob];
    await rig.queues.enqueue([job]);
    const mine = await waitingForSlot(job, rig.slack.url(path));

    // What a second worker taking the job after a stall amounts to: its token in the lock.
    await rig.redis.set(lockKey(job.notification.id), "another-worker", "PX", 60_000);
    await waitFor(async () => abandoned.length > 0, PACE_WAIT_MS + 5_000);
    await pause(PACE_MS * 2);

    expect(mine).not.toBe("another-worker");
    expect(rig.slack.requests(path)).toEqual([]);
    expect(abandoned).toEqual([{ id: job.notification.id, attempt: 1 }]);
    expect(rig.records).toEqual([]);
    // The job is the other worker's: still active under its lock, no attempt used up.
    const held = await rig.queues.queue("slack").getJob(job.notification.id);
    expect(await held?.getState()).toBe("active");
    expect(held?.attemptsMade).toBe(0);
    expect(held?.failedReason).toBeUndefined();
    expect(await rig.redis.get(lockKey(job.notification.id))).toBe("another-worker");
    // No attempt to finish a job under a lock it no longer holds.
    expect(errors).toEqual([]);
  });

  it("is sent once when its lock expires during the pace wait: by the worker that takes it over, not by the one it stalled on", async () => {
    const path = "/services/T0/B0/stalled";
    const r = ruleWith(slackTo(rig.slack.url(path)));
    const lock = { lockDurationMs: 1_000, stalledIntervalMs: 250 };
    const abandonedA: string[] = [];
    const errorsA: Error[] = [];
    // Worker A runs one Slack job at a time, so the job, once stalled, goes to worker B.
    await rig.start([r], undefined, {
      ...lock,
      concurrency: { slack: 1 },
      onAbandoned: (job) => abandonedA.push(job.notification.id),
      onError: (err) => errorsA.push(err),
    });
    await holdSlots(rig.slack.url(path), PACE_WAIT_MS);
    const [job] = jobsOf(alert("a1"), r) as [DeliveryJob];
    await rig.queues.enqueue([job]);
    const tokenA = await waitingForSlot(job, rig.slack.url(path));

    const recordsB: string[] = [];
    const errorsB: Error[] = [];
    await rig.start([r], undefined, {
      ...lock,
      onAbandoned: (j) => recordsB.push(`abandoned ${j.notification.id}`),
      onRecord: (rec) => recordsB.push(`${rec.result} ${rec.id}`),
      onError: (err) => errorsB.push(err),
    });
    // A's lock expires, as when its renewals come late; the stalled check hands the job on.
    await rig.redis.del(lockKey(job.notification.id));
    await rig.settled(1, PACE_WAIT_MS + 10_000);
    await pause(PACE_MS * 3);

    expect(rig.slack.requests(path)).toHaveLength(1);
    expect(rig.slack.messages(path)).toHaveLength(1);
    expect(abandonedA).toEqual([job.notification.id]);
    expect(recordsB).toEqual([`delivered ${job.notification.id}`]);
    expect(rig.records.map((rec) => rec.result)).toEqual(["delivered"]);
    // The record is written before BullMQ marks the job completed.
    await waitFor(
      async () =>
        (await rig.queues.queue("slack").getJobState(job.notification.id)) === "completed",
      10_000,
    );
    expect(tokenA).toBeTruthy();
    // A only failed to renew the lock it had lost; it never tried to finish the job.
    expect(errorsA.length).toBeGreaterThan(0);
    for (const err of errorsA) {
      expect(isLockLost(err)).toBe(true);
      expect(err.message).toMatch(/^could not renew lock for job /);
    }
    expect(errorsB).toEqual([]);
  });

  it("asks Redis about its lock only when the send waited or comes late: not right after taking the job", async () => {
    const hooks = await rig.webhookReceiver();
    const path = "/services/T0/B0/asked";
    const r = ruleWith(hook(hooks.url), slackTo(rig.slack.url(path)));
    const asked: string[] = [];
    const original = Job.prototype.extendLock;
    const spy = vi.spyOn(Job.prototype, "extendLock").mockImplementation(function (
      this: Job,
      token: string,
      duration: number,
    ) {
      asked.push(String((this.data as DeliveryJob).notification.type));
      return original.call(this, token, duration);
    });
    try {
      // A quarter of the lock (5 s) is far more than a send right after the take needs;
      // the Slack job waits for its pace slot (a second), so it asks all the same.
      await rig.start([r], undefined, { lockDurationMs: 20_000, stalledIntervalMs: 5_000 });
      await holdSlots(rig.slack.url(path), 1_000);
      await rig.queues.enqueue(jobsOf(alert("a1"), r));
      await rig.settled(2, 20_000);
      expect(hooks.deliveries).toHaveLength(1);
      expect(rig.slack.messages(path)).toHaveLength(1);
      expect(asked).toEqual(["slack"]);
    } finally {
      spy.mockRestore();
    }
  });

  it("asks Redis about its lock when a send that did not wait comes late (a stalled attempt)", async () => {
    // A sender that takes its time before asking, without a pace wait: the attempt
    // stalled (a busy event loop) for more than a quarter of the lock.
    const asked: boolean[] = [];
    const stalling: ChannelSender = {
      type: "webhook",
      async send(_n, _c, context) {
        await pause(context.attempt === 1 && asked.length === 0 ? 1_500 : 0);
        const mine = await stillMine(context);
        asked.push(mine);
        return mine ? { status: "delivered" } : { status: "abandoned" };
      },
      async close() {},
    };
    const r = ruleWith(hook("http://127.0.0.1:9/unused"));
    const original = Job.prototype.extendLock;
    let extended = 0;
    const spy = vi.spyOn(Job.prototype, "extendLock").mockImplementation(function (
      this: Job,
      token: string,
      duration: number,
    ) {
      extended++;
      return original.call(this, token, duration);
    });
    const workers = new DeliveryWorkers({
      connection: await rig.connection(true),
      keys: rig.keys,
      senders: { webhook: stalling },
      rules: () => new RuleSet([r], { zone: ZONE }),
      zone: ZONE,
      log: rig.log,
      // A quarter of the lock is 1 s: the stalled send (1.5 s) asks, the next one not.
      lockDurationMs: 4_000,
      stalledIntervalMs: 2_000,
    });
    try {
      await workers.ready();
      const [first] = jobsOf(alert("a1"), r) as [DeliveryJob];
      await rig.queues.enqueue([first]);
      await waitFor(async () => asked.length === 1, 10_000);
      expect(extended).toBe(1);
      const [second] = jobsOf(alert("a2"), r) as [DeliveryJob];
      await rig.queues.enqueue([second]);
      await waitFor(async () => asked.length === 2, 10_000);
      expect(asked).toEqual([true, true]);
      expect(extended).toBe(1);
    } finally {
      spy.mockRestore();
      await workers.close();
    }
  });

  it("still sends after a pace wait when the lock is its own, once", async () => {
    const path = "/services/T0/B0/mine";
    const r = ruleWith(slackTo(rig.slack.url(path)));
    const abandoned: string[] = [];
    const errors: Error[] = [];
    await rig.start([r], undefined, {
      lockDurationMs: 1_000,
      stalledIntervalMs: 250,
      onAbandoned: (job) => abandoned.push(job.notification.id),
      onError: (err) => errors.push(err),
    });
    await holdSlots(rig.slack.url(path), PACE_WAIT_MS);
    const [job] = jobsOf(alert("a1"), r) as [DeliveryJob];
    await rig.queues.enqueue([job]);
    await rig.settled(1, PACE_WAIT_MS + 8_000);
    await pause(PACE_MS * 2);

    expect(rig.slack.messages(path)).toHaveLength(1);
    expect(rig.slack.requests(path)).toHaveLength(1);
    expect(rig.records.map((rec) => rec.result)).toEqual(["delivered"]);
    expect(abandoned).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe("senders ask last thing before the network send", () => {
  let rig: DeliveryRig;

  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });

  afterEach(async () => {
    await rig.close();
  });

  it("send nothing when the job is no longer theirs, and send once when it is", async () => {
    const hooks = await rig.webhookReceiver();
    const smtp = await rig.smtpReceiver();
    const path = "/services/T0/B0/senders";
    const r = ruleWith(hook(hooks.url), slackTo(rig.slack.url(path)), mailTo(["anna@example.com"]));
    const senders: Record<"webhook" | "slack" | "email", ChannelSender> = {
      webhook: new WebhookSender({ outbound: LOOPBACK_OUTBOUND }),
      slack: new SlackSender({
        limiter: new DestinationLimiter(rig.redis, rig.keys),
        intervalMs: PACE_MS,
        outbound: LOOPBACK_OUTBOUND,
      }),
      email: new EmailSender(readEmailSettings({ SMTP_URL: smtp.url(), EMAIL_FROM: FROM })),
    };
    try {
      for (const mine of [false, true]) {
        const asked: string[] = [];
        for (const job of jobsOf(alert(`a-${mine}`), r)) {
          const { notification } = job;
          const type = notification.type as "webhook" | "slack" | "email";
          const channel = r.channels.find((c) => c.name === notification.channel);
          const context: SendContext = {
            rule: r,
            zone: ZONE,
            now: Date.now,
            attempt: 1,
            stillMine: async () => {
              asked.push(type);
              return mine;
            },
          };
          const outcome = await senders[type].send(notification, channel as ChannelSpec, context);
          expect(outcome.status, type).toBe(mine ? "delivered" : "abandoned");
        }
        expect(asked.sort()).toEqual(["email", "slack", "webhook"]);
        const sent = mine ? 1 : 0;
        expect(hooks.deliveries).toHaveLength(sent);
        expect(rig.slack.requests(path)).toHaveLength(sent);
        expect(smtp.messages).toHaveLength(sent);
      }
    } finally {
      await Promise.all(Object.values(senders).map((s) => s.close()));
    }
  });
});
