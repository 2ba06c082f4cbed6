/**
 * The delivery workers and queues on a real Redis with real BullMQ: what an outcome
 * means (done, retry on the schedule or after `Retry-After`, dead letter), enqueue
 * deduplication, dead letters sent again under the same id, endpoints disabled by a
 * 410, and email recipients carried across attempts. The sender is scripted: the
 * protocol sides are tested against real receivers in the channel tests. Delivery is
 * split over SHARDS delivery shards here (redis-keys.ts), so that every path of the
 * workers and queues runs on a sharded layout; the rest of the suite runs on one.
 */
import { Job, type Queue, UnrecoverableError, Worker } from "bullmq";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChannelSender, SendContext } from "../../src/deliver/channel-sender.js";
import { DeliveryLog, type DeliveryRecord } from "../../src/deliver/delivery-log.js";
import { DeliveryOrder, orderOf } from "../../src/deliver/delivery-order.js";
import {
  type BundleResult,
  type DeliveryBundle,
  type DeliveryJob,
  DeliveryQueues,
  isBundle,
  type QueuedDelivery,
} from "../../src/deliver/delivery-queues.js";
import { DeliveryWorkers, type DeliveryWorkersOptions } from "../../src/deliver/delivery-worker.js";
import { destinationOf } from "../../src/deliver/endpoint.js";
import { type Notification, notificationsOf } from "../../src/deliver/notification.js";
import type { SendOutcome } from "../../src/deliver/send-outcome.js";
import type { Alert } from "../../src/dispatch/alert.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type {
  ChannelSpec,
  EmailChannelSpec,
  RetrySchedule,
  Rule,
  WebhookChannelSpec,
} from "../../src/rules/rule.js";
import { connectRedis, type RedisConnection } from "../../src/store/redis-connection.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import type { Subscription } from "../../src/subscriptions/subscription.js";
import { SubscriptionRules } from "../../src/subscriptions/subscription-rules.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { rule as baseRule } from "../rules/rule-builder.js";
import { waitFor } from "../support/crash-run.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";
import { alert, flight, gateChange } from "./email-fixtures.js";

const ZONE = "Europe/Amsterdam";
const FAST: RetrySchedule = { delaysMs: [150], forMs: 1_000 };
/** Delivery shards of these tests. */
const SHARDS = 3;

/** One scripted answer per attempt (the last repeats); records every call. */
class ScriptedSender implements ChannelSender {
  readonly calls: Array<{ id: string; at: number; context: SendContext; channel: ChannelSpec }> =
    [];
  constructor(
    readonly type: ChannelSpec["type"],
    readonly script: (n: Notification, attempt: number) => SendOutcome,
  ) {}
  async send(n: Notification, channel: ChannelSpec, context: SendContext): Promise<SendOutcome> {
    this.calls.push({ id: n.id, at: Date.now(), context, channel });
    return this.script(n, this.calls.filter((c) => c.id === n.id).length);
  }
  async close(): Promise<void> {}
}

function hook(url = "http://127.0.0.1:9/hook", retry: RetrySchedule = FAST): WebhookChannelSpec {
  return {
    type: "webhook",
    name: "hook",
    url,
    format: "json",
    retry,
    source: { file: "t.yaml", line: 1, column: 1 },
  };
}

function ruleWith(id: string, channels: ChannelSpec[]): Rule {
  return { ...baseRule(id), channels };
}

// Each test runs twice: the notifications in jobs of their own (replays, re-sends,
// what a bundle spins off), and in bundles (the notifier's way: delivery-queues.ts).
describe.each([
  { mode: "own jobs", bundled: false },
  { mode: "bundles", bundled: true },
])("delivery workers ($mode)", ({ bundled }) => {
  let t: TestRedis;
  let keys: RedisKeys;
  let connections: RedisConnection[];
  let queues: DeliveryQueues;
  let log: DeliveryLog;
  let workers: DeliveryWorkers | undefined;
  let rules: RuleSet;
  const records: DeliveryRecord[] = [];

  beforeEach(async () => {
    t = await testRedis("deliver");
    keys = redisKeys(t.prefix, SHARDS);
    connections = [];
    queues = new DeliveryQueues(t.redis, keys);
    log = new DeliveryLog(t.redis, keys);
    records.length = 0;
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await workers?.close();
    workers = undefined;
    await queues.close();
    for (const c of connections) c.disconnect();
    await t.cleanup();
  });

  async function start(
    sender: ScriptedSender,
    ruleList: Rule[],
    subscriptions?: SubscriptionRules,
    now?: () => number,
    /** More settings (the test's queues, an error hook, a sweep period). */
    more: Partial<DeliveryWorkersOptions> = {},
  ): Promise<void> {
    rules = new RuleSet(ruleList, { zone: ZONE });
    const connection = await connectRedis(TEST_REDIS_URL, { forBullmq: true });
    connections.push(connection);
    workers = new DeliveryWorkers({
      connection,
      keys,
      senders: { [sender.type]: sender },
      rules: () => rules,
      zone: ZONE,
      log,
      onRecord: (r) => records.push(r),
      ...(subscriptions ? { subscriptions } : {}),
      ...(now ? { now } : {}),
      ...more,
    });
    await workers.ready();
  }

  /** Enqueues as the describe's mode says. */
  function enqueue(jobs: DeliveryJob[]): Promise<void> {
    return queues.enqueue(jobs, { bundled });
  }

  /**
   * Runs every queue's jobs with a stand-in worker that fails each bundle for good (as
   * after BUNDLE_ATTEMPTS runs Redis refused), after `before` (what the run did first),
   * until nothing waits; then stops it.
   */
  async function failBundles(
    before: (data: DeliveryBundle, jobId: string) => Promise<void> = async () => {},
  ): Promise<void> {
    const failing: Worker[] = [];
    for (const queue of queues.all()) {
      const connection = await connectRedis(TEST_REDIS_URL, { forBullmq: true });
      connections.push(connection);
      failing.push(
        new Worker(
          queue.name,
          async (job) => {
            const data = job.data as QueuedDelivery;
            if (isBundle(data)) await before(data, job.id as string);
            throw new UnrecoverableError("READONLY You can't write against a read only replica.");
          },
          { connection, prefix: queue.opts.prefix as string },
        ),
      );
    }
    const total = async (count: (q: Queue) => Promise<number>) =>
      (await Promise.all(queues.all().map(count))).reduce((a, b) => a + b, 0);
    await waitFor(
      async () =>
        (await total((q) => q.getFailedCount())) > 0 &&
        (await total((q) => q.getWaitingCount())) === 0 &&
        (await total((q) => q.getActiveCount())) === 0,
      5_000,
    );
    await Promise.all(failing.map((w) => w.close()));
  }

  /** One notification of rule r1, enqueued in a bundle that then failed for good. */
  async function oneInAFailedBundle(): Promise<{ r: Rule; job: DeliveryJob; id: string }> {
    const r = ruleWith("r1", [hook()]);
    const [job] = jobsOf(alert("a1"), r) as [DeliveryJob];
    await enqueue([job]);
    await failBundles();
    return { r, job, id: job.notification.id };
  }

  /** Starts workers that deliver, asks `retry(which)`, and checks each of `ids` is sent once. */
  async function sentOnRetry(r: Rule, which: string[] | "all", ids: string[]): Promise<void> {
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
    await start(sender, [r]);
    const { requeued, missing } = await queues.retry(which);
    expect([...requeued].sort()).toEqual([...ids].sort());
    expect(missing).toEqual([]);
    await waitFor(async () => records.length >= ids.length, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sender.calls.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(await queues.deadLetters()).toEqual([]);
  }

  function jobsOf(a: Alert, r: Rule): DeliveryJob[] {
    return notificationsOf(a, r).map((notification) => {
      const channel = r.channels.find((c) => c.name === notification.channel) as ChannelSpec;
      return { notification, retry: channel.retry ?? FAST, destination: destinationOf(channel) };
    });
  }

  it("delivers a notification enqueued twice once", async () => {
    const r = ruleWith("r1", [hook()]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
    await start(sender, [r]);
    const jobs = jobsOf(alert("a1"), r);
    await enqueue(jobs);
    await enqueue(jobs);
    await waitFor(async () => records.length >= 1, 5_000);
    await enqueue(jobs); // after completion, too
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sender.calls.map((c) => c.id)).toEqual([jobs[0]?.notification.id]);
    expect(records).toMatchObject([{ result: "delivered", attempt: 1, code: 204 }]);
    expect((await log.recent(10)).map((x) => x.result)).toEqual(["delivered"]);
  });

  it("sends each order's notifications oldest first, its orders spread over the shards", async () => {
    const r = ruleWith("r1", [hook()]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
    await start(sender, [r]);
    // Six flights (six orders), three alerts each, enqueued newest first in one batch.
    const jobs: DeliveryJob[] = [];
    const sequenceOf = new Map<string, number>();
    const flightOf = new Map<string, string>();
    for (let seq = 3; seq >= 1; seq--) {
      for (let f = 1; f <= 6; f++) {
        const a = alert(`a${f}-${seq}`, undefined, flight({ key: `F${f}`, id: `${f}` }));
        a.sequence = seq;
        for (const job of jobsOf(a, r)) {
          sequenceOf.set(job.notification.id, seq);
          flightOf.set(job.notification.id, `F${f}`);
          jobs.push(job);
        }
      }
    }
    await enqueue(jobs);
    await waitFor(async () => records.length >= 18, 10_000);
    const sent = sender.calls.map((c) => c.id);
    expect(new Set(sent).size).toBe(18);
    expect(sent.length).toBe(18);
    for (let f = 1; f <= 6; f++) {
      const ofFlight = sent.filter((id) => flightOf.get(id) === `F${f}`);
      expect(ofFlight.map((id) => sequenceOf.get(id))).toEqual([1, 2, 3]);
    }
    // Each order's jobs in one queue; the orders in more than one shard.
    const used = new Set(jobs.map((j) => queues.queueOf(j.notification)));
    expect(used.size).toBeGreaterThan(1);
    for (const queue of used) {
      expect(queue.opts.prefix).toMatch(new RegExp(`^\\{${t.prefix}(~d[12])?\\}:q$`));
    }
    // Delivered: by jobs of their own, and by bundles (each the ones it delivered itself).
    // A job completes just after its last record: on a busy machine, a moment later.
    const completedByQueue = () =>
      Promise.all(
        queues
          .all()
          .map(async (q) =>
            (await q.getCompleted()).reduce(
              (n, job) =>
                n + (isBundle(job.data) ? (job.returnvalue as BundleResult).delivered.length : 1),
              0,
            ),
          ),
      );
    const total = async () => (await completedByQueue()).reduce((a, b) => a + b, 0);
    await waitFor(async () => (await total()) >= 18, 5_000).catch(() => undefined);
    const completed = await completedByQueue();
    expect(completed.reduce((a, b) => a + b, 0)).toBe(18);
    expect(completed.filter((n) => n > 0).length).toBe(used.size);
  });

  it("holds a type's sends to its concurrency across every shard's worker", async () => {
    const r = ruleWith("r1", [hook()]);
    let inFlight = 0;
    let most = 0;
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
    const slow: ChannelSender = {
      type: "webhook",
      concurrency: 1,
      async send(n, channel, context) {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
        return sender.send(n, channel, context);
      },
      close: async () => undefined,
    };
    await start(slow as ScriptedSender, [r]);
    const jobs = Array.from({ length: 6 }, (_, f) =>
      jobsOf(alert(`c${f}`, undefined, flight({ key: `C${f}`, id: `c${f}` })), r),
    ).flat();
    expect(new Set(jobs.map((j) => queues.queueOf(j.notification))).size).toBeGreaterThan(1);
    await enqueue(jobs);
    await waitFor(async () => records.length >= 6, 10_000);
    expect(sender.calls).toHaveLength(6);
    expect(most).toBe(1);
  });

  it("retries on the schedule, with jitter, until delivered", async () => {
    const r = ruleWith("r1", [hook(undefined, { delaysMs: [200, 400], forMs: 10_000 })]);
    const sender = new ScriptedSender("webhook", (_n, attempt) =>
      attempt < 3
        ? { status: "retry", reason: "server_error", detail: "HTTP 503", code: 503 }
        : { status: "delivered" },
    );
    await start(sender, [r]);
    await enqueue(jobsOf(alert("a1"), r));
    await waitFor(async () => records.some((x) => x.result === "delivered"), 10_000);
    const [a, b, c] = sender.calls.map((x) => x.at) as [number, number, number];
    expect(sender.calls.map((x) => x.context.attempt)).toEqual([1, 2, 3]);
    expect(b - a).toBeGreaterThanOrEqual(200 * 0.8 - 5);
    expect(c - b).toBeGreaterThanOrEqual(400 * 0.8 - 5);
    expect(records.map((x) => x.result)).toEqual(["retrying", "retrying", "delivered"]);
  });

  it("waits as Retry-After says, and a 429 does not use up an attempt", async () => {
    // One attempt in all: a counted retry would make it a dead letter at once.
    const r = ruleWith("r1", [hook(undefined, { delaysMs: [], forMs: 60_000 })]);
    const sender = new ScriptedSender("webhook", (_n, attempt) =>
      attempt === 1
        ? {
            status: "retry",
            reason: "rate_limited",
            detail: "HTTP 429",
            code: 429,
            retryAfterMs: 700,
          }
        : { status: "delivered" },
    );
    await start(sender, [r]);
    await enqueue(jobsOf(alert("a1"), r));
    await waitFor(async () => records.some((x) => x.result === "delivered"), 10_000);
    const [a, b] = sender.calls.map((x) => x.at) as [number, number];
    expect(b - a).toBeGreaterThanOrEqual(690);
    expect(records[0]).toMatchObject({ result: "retrying", reason: "rate_limited" });
  });

  it("honours Retry-After on a counted retry (503) over the schedule", async () => {
    const r = ruleWith("r1", [hook(undefined, { delaysMs: [50], forMs: 60_000 })]);
    const sender = new ScriptedSender("webhook", (_n, attempt) =>
      attempt === 1
        ? {
            status: "retry",
            reason: "server_error",
            detail: "HTTP 503",
            code: 503,
            retryAfterMs: 600,
          }
        : { status: "delivered" },
    );
    await start(sender, [r]);
    await enqueue(jobsOf(alert("a1"), r));
    await waitFor(async () => records.some((x) => x.result === "delivered"), 10_000);
    const [a, b] = sender.calls.map((x) => x.at) as [number, number];
    expect(b - a).toBeGreaterThanOrEqual(590);
  });

  it("does not retry a permanent failure; the dead letter is sent again under the same id", async () => {
    const r = ruleWith("r1", [hook()]);
    let fixed = false;
    const sender = new ScriptedSender("webhook", () =>
      fixed
        ? { status: "delivered" }
        : { status: "failed", reason: "bad_request", detail: "HTTP 400: nope", code: 400 },
    );
    await start(sender, [r]);
    const [job] = jobsOf(alert("a1"), r) as [DeliveryJob];
    await enqueue([job]);
    await waitFor(async () => records.length >= 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(sender.calls).toHaveLength(1);
    const dead = await queues.deadLetters();
    expect(dead).toMatchObject([
      {
        id: job.notification.id,
        reason: "bad_request",
        detail: "HTTP 400: nope",
        ruleId: "r1",
        type: "webhook",
      },
    ]);
    fixed = true;
    expect(await queues.retry([job.notification.id, "msg_nothere"])).toEqual({
      requeued: [job.notification.id],
      missing: ["msg_nothere"],
    });
    await waitFor(async () => records.some((x) => x.result === "delivered"), 5_000);
    expect(sender.calls.map((c) => c.id)).toEqual([job.notification.id, job.notification.id]);
    expect(await queues.deadLetters()).toEqual([]);
  });

  it.runIf(bundled)(
    "lists what a bundle that failed for good had not sent as dead letters, and sends it on retry --all",
    async () => {
      const r = ruleWith("r1", [hook()]);
      const jobs = [1, 2, 3].flatMap((f) =>
        jobsOf(alert(`a${f}`, undefined, flight({ key: `F${f}`, id: `${f}` })), r),
      );
      const [sent, ...unsent] = jobs.map((j) => j.notification.id) as [string, ...string[]];
      await enqueue(jobs);
      // Every bundle fails for good (as after BUNDLE_ATTEMPTS runs Redis refused), one
      // of them after delivering its first notification.
      const order = new DeliveryOrder(t.redis, keys, 60_000);
      await failBundles(async (data, jobId) => {
        const first = data.bundle.find((d) => d.notification.id === sent);
        if (first) await order.done(first.notification, true, jobId);
      });
      const dead = await queues.deadLetters();
      expect(dead.map((d) => d.id).sort()).toEqual([...unsent].sort());
      expect(dead[0]).toMatchObject({ reason: "bundle_failed", ruleId: "r1", type: "webhook" });
      expect(dead[0]?.detail).toMatch(
        /^its bundle bundle_\d+_\S+ failed for good \(1 runs\) without noting it sent: READONLY/,
      );

      await sentOnRetry(r, "all", unsent);
      expect(await queues.retry("all")).toEqual({ requeued: [], missing: [] });
    },
  );

  it.runIf(bundled)(
    "keeps listing what a retry could not requeue (Redis refused it), and sends it on the next",
    async () => {
      const { r, job, id } = await oneInAFailedBundle();
      expect((await queues.deadLetters()).map((d) => d.id)).toEqual([id]);
      const add = vi.spyOn(queues.queueOf(job.notification), "add");
      // By id, then all of them: Redis refuses to add its job.
      add.mockRejectedValueOnce(new Error("READONLY"));
      await expect(queues.retry([id])).rejects.toThrow("READONLY");
      expect((await queues.deadLetters()).map((d) => [d.id, d.reason])).toEqual([
        [id, "bundle_failed"],
      ]);
      add.mockRejectedValueOnce(new Error("READONLY"));
      await expect(queues.retry("all")).rejects.toThrow("READONLY");
      expect((await queues.deadLetters()).map((d) => d.id)).toEqual([id]);
      add.mockRestore();
      await sentOnRetry(r, [id], [id]);
    },
  );

  it.runIf(bundled)(
    "lists what a failed bundle handed to a job of its own that never came, and sends it when named",
    async () => {
      const { r, job, id } = await oneInAFailedBundle();
      // Handed over to its own job, then a crash before the job was added.
      await new DeliveryOrder(t.redis, keys, 60_000).carry([job.notification]);
      expect((await queues.deadLetters()).map((d) => [d.id, d.reason])).toEqual([
        [id, "bundle_failed"],
      ]);
      await sentOnRetry(r, [id], [id]);
    },
  );

  it.runIf(bundled)(
    "sweeps a bundle that failed for good into dead letters of their own, kept after its carriers",
    async () => {
      // Failed where nothing made its dead letters (Redis refused that too, say).
      const { r, job, id } = await oneInAFailedBundle();
      const errors: Error[] = [];
      const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
      await start(sender, [r], undefined, undefined, {
        queues,
        sweepEveryMs: 200,
        onError: (err) => errors.push(err),
      });
      const queue = queues.queueOf(job.notification);
      await waitFor(
        async () => (await (await Job.fromId(queue, id))?.getState()) === "failed",
        5_000,
      );
      expect(errors.map((e) => e.message)).toContainEqual(
        expect.stringMatching(
          /^bundle bundle_1_\S+ had failed for good; the 1 notification\(s\) it had not sent are dead letters now: /,
        ),
      );
      // Listed as a dead letter of its own, also once its carrier is gone.
      await t.redis.del(keys.deliveryCarrier(keys.shardOf(orderOf(job.notification)), id));
      expect((await queues.deadLetters()).map((d) => [d.id, d.reason])).toEqual([
        [id, "bundle_failed"],
      ]);
      expect(sender.calls).toEqual([]);
      // Swept once: the next sweeps make none again.
      const said = errors.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(errors.length).toBe(said);
      expect(await queues.retry("all")).toEqual({ requeued: [id], missing: [] });
      await waitFor(async () => sender.calls.length >= 1, 5_000);
      expect(sender.calls.map((c) => c.id)).toEqual([id]);
    },
  );

  it.runIf(bundled)(
    "does not make a dead letter of what a retry sent while the failed bundle was read",
    async () => {
      const { id } = await oneInAFailedBundle();
      const [bundle] = (await Promise.all(queues.all().map((q) => q.getFailed()))).flat() as [
        Job<DeliveryBundle>,
      ];
      // Read as the bundle's; then a retry's job of its own took it and sent it.
      vi.spyOn(DeliveryOrder.prototype, "carriers").mockResolvedValueOnce([
        { job: bundle.id as string, ended: false, delivered: false },
      ]);
      const shard = keys.shardOf(orderOf(bundle.data.bundle[0]?.notification as Notification));
      await t.redis.set(keys.deliveryCarrier(shard, id), `~sent:${id}`, "KEEPTTL");
      expect(await queues.deadLetterStranded(bundle)).toBe(0);
      expect(
        await Job.fromId(queues.queueOf(bundle.data.bundle[0]?.notification as Notification), id),
      ).toBeUndefined();
      expect(await t.redis.get(keys.deliveryCarrier(shard, id))).toBe(`~sent:${id}`);
    },
  );

  it.runIf(bundled)(
    "sends what a bundle spun off before it failed for good, and lists a dead one once",
    async () => {
      const r = ruleWith("r1", [hook()]);
      const [waiting, dead] = [
        ...jobsOf(alert("a1", undefined, flight({ key: "F1", id: "1" })), r),
        ...jobsOf(alert("a2", undefined, flight({ key: "F2", id: "2" })), r),
      ] as [DeliveryJob, DeliveryJob];
      await enqueue([waiting, dead]);
      await failBundles();
      // Each spun off before (added as a job of its own, the dead one as a dead letter),
      // but the hand-over to it refused: their carriers still name the failed bundle.
      for (const d of [waiting, { ...dead, dead: "gone: HTTP 410" }]) {
        const n = d.notification;
        await queues.queueOf(n).add(n.ruleId, d, { jobId: n.id, attempts: 1 });
      }
      const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
      await start(sender, [r]);
      // The waiting one is sent by its own job, not held back by the bundle's carrier;
      // the dead one is listed once, as its own dead letter.
      await waitFor(async () => records.length >= 1, 5_000);
      await waitFor(async () => (await queues.deadLetters()).length > 0, 5_000);
      expect((await queues.deadLetters()).map((d) => [d.id, d.reason])).toEqual([
        [dead.notification.id, "gone"],
      ]);
      expect(await queues.retry("all")).toEqual({
        requeued: [dead.notification.id],
        missing: [],
      });
      await waitFor(async () => records.length >= 2, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sender.calls.map((c) => c.id).sort()).toEqual(
        [waiting.notification.id, dead.notification.id].sort(),
      );
      expect(await queues.deadLetters()).toEqual([]);
    },
  );

  it.runIf(bundled)(
    "makes what a bundle that failed for good had not sent dead letters, and says where",
    async () => {
      const errors: Error[] = [];
      const sender = new ScriptedSender("webhook", () => ({ status: "delivered" }));
      await start(sender, [], undefined, undefined, {
        queues,
        onError: (err) => errors.push(err),
      });
      // The first bundle to fail leaves three dead letters; the second cannot be read.
      const made = vi.spyOn(queues, "deadLetterStranded").mockResolvedValueOnce(3);
      const queue = queues.all().find((q) => q.name.startsWith("deliver-webhook")) as Queue;
      // Bundles that cannot be run (their notification is not one): each run throws. Their
      // last attempt stands for the last of BUNDLE_ATTEMPTS; a run before the last says nothing.
      await queue.add("bundle", { bundle: [{}] }, { jobId: "bundle_1_again", attempts: 3 });
      await queue.add("bundle", { bundle: [{}] }, { jobId: "bundle_1_broken", attempts: 2 });
      await waitFor(async () => (await queue.getFailedCount()) === 2, 15_000);
      await waitFor(async () => errors.length >= 2, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(made.mock.calls.map(([job]) => job.id).sort()).toEqual([
        "bundle_1_again",
        "bundle_1_broken",
      ]);
      const where = "`flightwatch deliveries` lists them, `deliveries retry --all` sends them";
      const said = errors.map((e) =>
        e.message.replace(/bundle_1_(again|broken) failed for good after [23] attempts/, "B"),
      );
      expect(said.sort()).toEqual([
        expect.stringMatching(
          /^bundle B \(Cannot destructure .*\); the 3 notification\(s\) it had not sent are dead letters now: /,
        ),
        expect.stringMatching(
          /^bundle B \(Cannot destructure .*\); what it had not sent could not be made dead letters \(.+\), and is listed only while its carriers are kept \(3 days\): /,
        ),
      ]);
      for (const message of said) expect(message.endsWith(where)).toBe(true);
      const all = errors.map((e) => e.message).join("\n");
      expect(all).toContain("bundle bundle_1_again failed for good after 3 attempts (");
      expect(all).toContain("bundle bundle_1_broken failed for good after 2 attempts (");
    },
  );

  it.runIf(bundled)(
    "keeps what a bundle that failed for good had not sent as dead letters of their own",
    async () => {
      const r = ruleWith("r1", [hook()]);
      const jobs = [1, 2].flatMap((f) =>
        jobsOf(alert(`a${f}`, undefined, flight({ key: `F${f}`, id: `${f}` })), r),
      );
      const ids = jobs.map((j) => j.notification.id);
      await enqueue(jobs);
      await failBundles();
      let made = 0;
      for (const queue of queues.all()) {
        for (const bundle of await queue.getFailed()) {
          made += await queues.deadLetterStranded(bundle as Job<DeliveryBundle>);
          // Made once: then each is its own job's.
          expect(await queues.deadLetterStranded(bundle as Job<DeliveryBundle>)).toBe(0);
        }
      }
      expect(made).toBe(2);
      // A worker takes each and fails it at once, unsent, as a dead letter of its own.
      const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
      await start(sender, [r]);
      await waitFor(async () => (await queues.deadLetters()).length === 2, 5_000);
      const dead = await queues.deadLetters();
      expect(dead.map((d) => d.id).sort()).toEqual([...ids].sort());
      for (const letter of dead) {
        expect(letter.reason).toBe("bundle_failed");
        expect(letter.detail).toMatch(
          /^its bundle bundle_\d+_\S+ failed for good \(1 runs\) without noting it sent: READONLY/,
        );
      }
      expect(sender.calls).toEqual([]);
      const { requeued } = await queues.retry("all");
      expect([...requeued].sort()).toEqual([...ids].sort());
      await waitFor(async () => records.length >= 2, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sender.calls.map((c) => c.id).sort()).toEqual([...ids].sort());
      expect(await queues.deadLetters()).toEqual([]);
    },
  );

  it("sends a delivered notification again under its id when asked, and nothing twice otherwise", async () => {
    const r = ruleWith("r1", [hook()]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
    await start(sender, [r]);
    const jobs = [...jobsOf(alert("a1"), r), ...jobsOf(alert("a2"), r)];
    const [first, second] = jobs.map((j) => j.notification.id) as [string, string];
    await enqueue(jobs);
    await waitFor(async () => records.length >= 2, 5_000);
    // Its job (or its bundle) finished: the record is written just before.
    await waitFor(
      async () =>
        (await Promise.all(queues.all().map((q) => q.getCompletedCount()))).some((n) => n > 0),
      5_000,
    );
    expect(await queues.retry([first])).toEqual({ requeued: [first], missing: [] });
    await waitFor(async () => records.length >= 3, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = sender.calls.map((c) => c.id);
    expect([...sent.slice(0, 2)].sort()).toEqual([first, second].sort());
    expect(sent.slice(2)).toEqual([first]);
    expect(records.map((x) => [x.id, x.result, x.attempt])).toContainEqual([
      second,
      "delivered",
      1,
    ]);
    expect(records.filter((x) => x.id === first).map((x) => [x.result, x.attempt])).toEqual([
      ["delivered", 1],
      ["delivered", 1],
    ]);
  });

  it("supersedes an older notification waiting to be retried with a newer one of its order, folding it in", async () => {
    const r = ruleWith("r1", [hook(undefined, { delaysMs: [5_000], forMs: 60_000 })]);
    const sender = new ScriptedSender("webhook", (n) =>
      n.alert.id === "a1"
        ? { status: "retry", reason: "server_error", detail: "HTTP 503", code: 503 }
        : { status: "delivered", code: 204 },
    );
    await start(sender, [r]);
    const older = alert("a1", [gateChange("D1", "D2")]);
    older.sequence = 1;
    const newer = alert("a2", [gateChange("D2", "D3")]);
    newer.sequence = 2;
    const [first] = jobsOf(older, r) as [DeliveryJob];
    const [second] = jobsOf(newer, r) as [DeliveryJob];
    await enqueue([first]);
    await waitFor(async () => records.some((x) => x.result === "retrying"), 5_000);
    // Its retry is 5 s away: the newer one takes its place now, carrying both changes.
    await enqueue([second]);
    await waitFor(async () => records.some((x) => x.result === "delivered"), 4_000);
    expect(sender.calls.map((c) => c.id)).toEqual([first.notification.id, second.notification.id]);
    expect(records.map((x) => [x.id, x.result])).toEqual([
      [first.notification.id, "retrying"],
      [first.notification.id, "superseded"],
      [second.notification.id, "delivered"],
    ]);
    expect(records[1]).toMatchObject({ attempt: 1, supersededBy: second.notification.id });
  });

  it("tries again, in a job of its own, a notification whose attempt threw", async () => {
    const r = ruleWith("r1", [hook(undefined, { delaysMs: [100], forMs: 60_000 })]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
    let thrown = 0;
    const throwing: ChannelSender = {
      type: "webhook",
      async send(n, channel, context) {
        if (n.alert.id === "a1" && thrown++ === 0) throw new Error("a bug in a sender");
        return sender.send(n, channel, context);
      },
      close: async () => undefined,
    };
    await start(throwing as ScriptedSender, [r]);
    const jobs = [...jobsOf(alert("a1"), r), ...jobsOf(alert("a2"), r)];
    await enqueue(jobs);
    await waitFor(async () => records.filter((x) => x.result === "delivered").length >= 2, 8_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Each delivered once; the one that threw at its second attempt.
    expect([...sender.calls.map((c) => c.id)].sort()).toEqual(
      jobs.map((j) => j.notification.id).sort(),
    );
    const retried = sender.calls.find((c) => c.id === jobs[0]?.notification.id);
    expect(retried?.context.attempt).toBe(2);
    expect(await queues.deadLetters()).toEqual([]);
  });

  it("gives up when the schedule is used up, naming the attempts", async () => {
    const r = ruleWith("r1", [hook(undefined, { delaysMs: [50], forMs: 100 })]);
    const sender = new ScriptedSender("webhook", () => ({
      status: "retry",
      reason: "timeout",
      detail: "no answer",
    }));
    await start(sender, [r]);
    await enqueue(jobsOf(alert("a1"), r));
    await waitFor(async () => records.some((x) => x.result === "dead"), 5_000);
    expect(sender.calls).toHaveLength(3);
    const [dead] = await queues.deadLetters();
    expect(dead).toMatchObject({
      reason: "timeout",
      detail: "no answer (gave up after 3 attempts)",
    });
  });

  it("disables an endpoint on 410 and sends nothing more to it until re-enabled", async () => {
    const channel = hook("http://127.0.0.1:9/gone");
    const r = ruleWith("r1", [channel]);
    let gone = true;
    const sender = new ScriptedSender("webhook", () =>
      gone
        ? { status: "failed", reason: "gone", detail: "HTTP 410", code: 410, disableEndpoint: true }
        : { status: "delivered" },
    );
    await start(sender, [r]);
    await enqueue(jobsOf(alert("a1"), r));
    await waitFor(async () => records.length >= 1, 5_000);
    const [endpoint] = await log.disabledEndpoints();
    expect(endpoint).toMatchObject({
      ruleId: "r1",
      channel: "hook",
      label: "http://127.0.0.1:9/gone",
    });
    await enqueue(jobsOf(alert("a2"), r));
    await waitFor(async () => records.length >= 2, 5_000);
    expect(sender.calls).toHaveLength(1); // the second was not attempted
    expect(records[1]).toMatchObject({ result: "dead", reason: "endpoint_disabled" });
    gone = false;
    expect(await log.enable(endpoint?.id as string)).toBe(true);
    const { requeued } = await queues.retry("all");
    expect(requeued).toHaveLength(2);
    await waitFor(async () => records.filter((x) => x.result === "delivered").length === 2, 5_000);
    expect(await log.disabledEndpoints()).toEqual([]);
  });

  it("dead-letters a notification whose channel is gone from the rules", async () => {
    const r = ruleWith("r1", [hook()]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered" }));
    await start(sender, [ruleWith("r1", [])]);
    await enqueue(jobsOf(alert("a1"), r));
    await waitFor(async () => records.length >= 1, 5_000);
    expect(sender.calls).toHaveLength(0);
    expect(records[0]).toMatchObject({ result: "dead", reason: "channel_removed" });
  });

  it("cancels a reminder that waited as long as it was early, and never replays one", async () => {
    const r1 = ruleWith("r1", [hook()]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered", code: 204 }));
    // The workers' clock is 30 minutes ahead of the jobs' creation: a 30-minute reminder is late.
    await start(sender, [r1], undefined, () => Date.now() + 30 * 60_000);
    const since = Date.now();
    // Two flights: one order each (the workers' clock would delay a turn 30 minutes).
    const reminder = (id: string, inMinutes: number): Alert => ({
      ...alert(id, [], flight({ key: `D:2026-11-21:${id}`, mainFlight: id }), "r1"),
      reminder: {
        name: `boarding-${inMinutes}m`,
        before: "boarding",
        byMinutes: inMinutes,
        at: 0,
        inMinutes,
      },
    });
    await enqueue([...jobsOf(reminder("late", 30), r1), ...jobsOf(reminder("early", 45), r1)]);
    await waitFor(async () => records.length >= 2, 5_000);
    const byAlert = new Map(records.map((x) => [x.flight.split(":").at(-1), x]));
    expect(byAlert.get("late")).toMatchObject({
      result: "cancelled",
      detail: "a reminder 30 min before boarding not sent by then: its moment has come",
    });
    expect(byAlert.get("early")).toMatchObject({ result: "delivered" });
    expect(sender.calls).toHaveLength(1);
    expect(await queues.replayable({ since, until: Date.now() })).toEqual([]);
  });

  it("replays what was delivered or dead-lettered in a window, under new ids marked as replays", async () => {
    const r1 = ruleWith("r1", [hook()]);
    const r2 = ruleWith("r2", [hook()]);
    const gone = ruleWith("sub:Gone-1", [hook()]);
    const sender = new ScriptedSender("webhook", (n) =>
      n.ruleId === "r2" && n.replayOf === undefined
        ? { status: "failed", reason: "bad_request", detail: "HTTP 400" }
        : { status: "delivered", code: 204 },
    );
    await start(sender, [r1, r2]);
    const since = Date.now();
    const first = jobsOf(alert("a1", undefined, undefined, "r1"), r1);
    const kl1002 = flight({
      key: "D:2026-11-21:KL1002",
      mainFlight: "KL1002",
      flightNames: ["KL1002", "DL42"],
    });
    const other = jobsOf(alert("a2", undefined, kl1002, "r2"), r2);
    const cancelled = jobsOf(alert("a3", undefined, undefined, gone.id), gone);
    await enqueue([...first, ...other, ...cancelled]);
    await waitFor(async () => records.length >= 3, 5_000);
    expect(records.map((x) => x.result).sort()).toEqual(["cancelled", "dead", "delivered"]);
    const until = Date.now();

    // Delivered and dead: yes; cancelled (never sent): no. Filters by rule and flight.
    const all = await queues.replayable({ since, until });
    expect(all.map((j) => j.notification.ruleId).sort()).toEqual(["r1", "r2"]);
    expect((await queues.replayable({ since, until, ruleId: "r2" })).length).toBe(1);
    expect(
      (await queues.replayable({ since, until, flight: "KL1002" })).map(
        (j) => j.notification.ruleId,
      ),
    ).toEqual(["r2"]);
    expect(await queues.replayable({ since: until + 1, until: until + 60_000 })).toEqual([]);

    const ids = await queues.replay(all, "run1");
    expect(ids).toHaveLength(2);
    expect(ids.some((id) => all.some((j) => j.notification.id === id))).toBe(false);
    await waitFor(async () => records.length >= 5, 5_000);
    const replayed = sender.calls.slice(-2);
    expect(replayed.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(records.slice(-2).map((x) => x.result)).toEqual(["delivered", "delivered"]);
    // Their records name what they replay.
    expect(
      records
        .slice(-2)
        .map((x) => x.replayOf)
        .sort(),
    ).toEqual(all.map((j) => j.notification.id).sort());
    expect(records.slice(0, 3).every((x) => x.replayOf === undefined)).toBe(true);
    // A later window that holds the originals and their replays: each original once.
    const later = await queues.replayable({ since, until: Date.now() });
    expect(later.map((j) => j.notification.replayOf ?? j.notification.id).sort()).toEqual(
      all.map((j) => j.notification.id).sort(),
    );
    const stored = await queues
      .queueOf({ ...(all[0] as DeliveryJob).notification, id: ids[0] as string })
      .getJob(ids[0] as string);
    expect(all.map((j) => j.notification.id)).toContain(
      (stored?.data as DeliveryJob | undefined)?.notification.replayOf,
    );
    // Another run of the same replay: other ids again.
    const again = await queues.replay(all, "run2");
    expect(again.some((id) => ids.includes(id))).toBe(false);
  });

  it("dead-letters, not cancels, an active subscription's notification whose channel is refused now", async () => {
    const store = new SubscriptionStore(t.redis, keys, { zone: ZONE });
    const date = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const made = (id: string, status: Subscription["status"]): Subscription => ({
      id,
      flight: "KL1001",
      date,
      preset: "essentials",
      // Loopback: allowed when stored (OUTBOUND_ALLOW then), refused by the strict policy now.
      channel: { type: "webhook", url: "http://127.0.0.1:9/hook" },
      labels: {},
      status,
      createdAt: Date.now(),
    });
    await store.add([made("Active-1", "active"), made("Left-1", "unsubscribed")]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered" }));
    await start(sender, [], new SubscriptionRules(store, { zone: ZONE }));
    const active = ruleWith("sub:Active-1", [hook()]);
    const left = ruleWith("sub:Left-1", [hook()]);
    await enqueue([
      ...jobsOf(alert("a1", undefined, undefined, active.id), active),
      ...jobsOf(alert("a2", undefined, undefined, left.id), left),
    ]);
    await waitFor(async () => records.length >= 2, 5_000);
    expect(sender.calls).toHaveLength(0);
    const byRule = new Map(records.map((r) => [r.ruleId, r]));
    expect(byRule.get("sub:Left-1")).toMatchObject({ result: "cancelled" });
    expect(byRule.get("sub:Active-1")).toMatchObject({
      result: "dead",
      reason: "channel_removed",
      detail: expect.stringMatching(
        /^subscription Active-1 is active, but its channel cannot be used: /,
      ),
    });
    // In a bundle, the dead letter is a job spun off, failed once a worker takes it.
    await waitFor(async () => (await queues.deadLetters()).length > 0, 5_000).catch(
      () => undefined,
    );
    expect((await queues.deadLetters()).map((d) => d.ruleId)).toEqual(["sub:Active-1"]);
  });

  it("cancels, without a dead letter, a notification whose subscription ended", async () => {
    // A passenger subscription's rule is `sub:<id>`; once unsubscribed it is found nowhere.
    const r = ruleWith("sub:Pax-7", [hook()]);
    const sender = new ScriptedSender("webhook", () => ({ status: "delivered" }));
    await start(sender, [ruleWith("r1", [hook()])]);
    await enqueue(jobsOf(alert("a1", undefined, undefined, r.id), r));
    await waitFor(async () => records.length >= 1, 5_000);
    expect(sender.calls).toHaveLength(0);
    expect(records[0]).toMatchObject({
      result: "cancelled",
      detail: "subscription Pax-7 is not active any more (unsubscribed, removed or expired)",
    });
    expect(records[0]?.reason).toBeUndefined();
    expect(await queues.deadLetters()).toEqual([]);
    expect((await queues.outstanding()).count).toBe(0);
  });

  it("counts and names the notifications outstanding, those a bundle spun off once", async () => {
    const r = ruleWith("r1", [hook()]);
    // No worker: everything waits. Three flights, so three orders over the shards.
    const jobs = [1, 2, 3].flatMap((f) =>
      jobsOf(alert(`o${f}`, undefined, flight({ key: `O${f}`, id: `o${f}` })), r),
    );
    const ids = jobs.map((j) => j.notification.id);
    await enqueue(jobs);
    expect(await queues.outstanding()).toEqual({ count: 3, ids: expect.any(Array) });
    expect((await queues.outstanding()).ids.sort()).toEqual([...ids].sort());
    if (!bundled) return;
    // One spun off to a job of its own (not added here): the bundle no longer carries it.
    const [spun] = jobs as [DeliveryJob];
    await t.redis.set(
      keys.deliveryCarrier(keys.shardOf(orderOf(spun.notification)), spun.notification.id),
      spun.notification.id,
    );
    const now = await queues.outstanding();
    expect(now.ids.sort()).toEqual(ids.filter((id) => id !== spun.notification.id).sort());
    expect(now.count).toBe(2);
    // Past the ids asked for, a bundle counts as many as it was enqueued with.
    expect((await queues.outstanding(1)).ids).toHaveLength(1);
    // A bundle's notifications are read once while it is outstanding (a look a second
    // would otherwise parse every waiting bundle again): its carriers are what changes.
    expect((await queues.outstanding()).count).toBe(2);
    const reads = vi.spyOn(Job, "fromId");
    try {
      expect((await queues.outstanding()).count).toBe(2);
      expect(reads).not.toHaveBeenCalled();
      const more = jobsOf(alert("o4", undefined, flight({ key: "O4", id: "o4" })), r);
      await enqueue(more);
      expect((await queues.outstanding()).count).toBe(3);
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  it.runIf(bundled)(
    "a bundle run again sends nothing it ended, keeps its dead letter listed and its deliveries replayable",
    async () => {
      const r = ruleWith("r1", [hook(undefined, { delaysMs: [100], forMs: 60_000 })]);
      const sender = new ScriptedSender("webhook", (n, attempt) =>
        n.alert.id === "a2"
          ? { status: "failed", reason: "bad_request", detail: "HTTP 400", code: 400 }
          : n.alert.id === "a3" && attempt === 1
            ? { status: "retry", reason: "server_error", detail: "HTTP 503", code: 503 }
            : { status: "delivered", code: 204 },
      );
      await start(sender, [r]);
      const since = Date.now();
      const jobs = ["a1", "a2", "a3"].flatMap((id) => jobsOf(alert(id), r));
      const [one, two, three] = jobs.map((j) => j.notification.id) as [string, string, string];
      await enqueue(jobs);
      await waitFor(async () => records.filter((x) => x.result === "delivered").length >= 2, 8_000);
      const bundleOf = async () => {
        for (const queue of queues.all()) {
          const found = (await queue.getCompleted()).find((j) => isBundle(j.data));
          if (found) return found;
        }
        return undefined;
      };
      await waitFor(async () => (await bundleOf()) !== undefined, 5_000);
      const bundle = await bundleOf();
      expect(bundle?.returnvalue).toEqual({ delivered: [one] });
      const calls = sender.calls.length;
      const recorded = records.length;

      // Run again, as after its worker died: every notification is carried or ended.
      await bundle?.retry("completed");
      await waitFor(async () => (await bundle?.getState()) === "completed", 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sender.calls).toHaveLength(calls);
      expect(records).toHaveLength(recorded);
      expect((await queues.deadLetters()).map((d) => [d.id, d.reason, d.attempts])).toEqual([
        [two, "bad_request", 1],
      ]);
      const again = await bundleOf();
      expect(again?.returnvalue).toEqual({ delivered: [one] });
      const replayable = await queues.replayable({ since, until: Date.now() });
      expect(replayable.map((j) => j.notification.id).sort()).toEqual([one, two, three].sort());
    },
  );

  it("tries again only the email recipients that asked for it", async () => {
    const email: EmailChannelSpec = {
      type: "email",
      name: "email",
      to: ["a@x.example", "b@x.example", "c@x.example"],
      retry: FAST,
      source: { file: "t.yaml", line: 1, column: 1 },
    };
    const r = ruleWith("r1", [email]);
    const sender = new ScriptedSender("email", (_n, attempt) =>
      attempt === 1
        ? {
            status: "retry",
            reason: "smtp_transient",
            detail: "451 try later",
            retryRecipients: ["b@x.example"],
            refused: [{ recipient: "c@x.example", reason: "550 no such user" }],
          }
        : { status: "delivered" },
    );
    await start(sender, [r]);
    await enqueue(jobsOf(alert("a1", [gateChange("D1", "D2")]), r));
    await waitFor(async () => records.some((x) => x.result === "delivered"), 5_000);
    expect(sender.calls.map((c) => c.context.recipients)).toEqual([undefined, ["b@x.example"]]);
    expect(records[0]?.refused).toEqual([{ recipient: "c@x.example", reason: "550 no such user" }]);
  });
});
