/**
 * One `flightwatch watch`-like process for the webhook delivery benchmark: it enqueues
 * its share of the notifications through DeliveryQueues, in batches of 100 as the
 * notifier enqueues one read of the alerts stream, and runs DeliveryWorkers with the
 * WebhookSender on the same queues. With two of them, each enqueues half (the alerts
 * stream's consumer group splits the alerts so) and the queues spread the sends over
 * both processes' workers.
 *
 * Driven over IPC by the benchmark: settings first (answered `{ ready: true }` once
 * the workers take jobs), then `{ run: "burst" | "steady" }` (answered with the ids
 * enqueued and when), `{ cpu: true }` and `{ stop: true }` (answered with the CPU time
 * used since ready, ms).
 */
import { DeliveryLog } from "../src/deliver/delivery-log.js";
import { type DeliveryJob, DeliveryQueues } from "../src/deliver/delivery-queues.js";
import { DeliveryWorkers } from "../src/deliver/delivery-worker.js";
import { destinationOf } from "../src/deliver/endpoint.js";
import { type Notification, notificationsOf } from "../src/deliver/notification.js";
import { WebhookSender } from "../src/deliver/webhook-sender.js";
import { DEFAULT_RETRY_SCHEDULE } from "../src/rules/retry-schedule.js";
import type { ChannelSpec, Rule } from "../src/rules/rule.js";
import { connectRedis, type RedisConnection } from "../src/store/redis-connection.js";
import { redisKeys } from "../src/store/redis-keys.js";
import { BENCH_ZONE, benchAlerts } from "./delivery-alerts.js";
import { benchRules } from "./delivery-webhook-rules.js";
import { LOOPBACK_OUTBOUND } from "./support/outbound.js";

/** What the benchmark tells a process. */
export interface ProcessSettings {
  redisUrl: string;
  prefix: string;
  /** The receiver's URL. */
  url: string;
  /** This process enqueues every `of`-th notification from the `index`-th on. */
  index: number;
  of: number;
  burst: number;
  /** Notifications per second of all processes together in the steady run, for `seconds`. */
  steadyRate: number;
  steadySeconds: number;
  concurrency: number;
}

/** A request after the settings. */
export type ProcessRequest = { run: "burst" | "steady" } | { cpu: true } | { stop: true };

/** What a run answers: the ids this process enqueued, when, and how long enqueueing took. */
export interface EnqueueReport {
  ids: string[];
  /** Epoch ms of each id's enqueue call. */
  at: number[];
  enqueueMs: number;
}

/** Notifications per enqueue call: what the notifier enqueues from one read of 100 alerts. */
const BATCH = 100;

/** Enqueues `jobs` in batches, `rate` per second (as fast as possible when undefined). */
async function enqueueAll(
  queues: DeliveryQueues,
  jobs: readonly DeliveryJob[],
  rate: number | undefined,
): Promise<EnqueueReport> {
  const report: EnqueueReport = { ids: [], at: [], enqueueMs: 0 };
  const start = Date.now();
  for (let i = 0; i < jobs.length; i += BATCH) {
    if (rate !== undefined) {
      const wait = start + (i / rate) * 1000 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const batch = jobs.slice(i, i + BATCH);
    const at = Date.now();
    for (const job of batch) {
      report.ids.push(job.notification.id);
      report.at.push(at);
    }
    await queues.enqueue(batch);
  }
  report.enqueueMs = Date.now() - start;
  return report;
}

/** The job of the notification of an alert through its rule's one webhook. */
function jobOf(rule: Rule, notification: Notification): DeliveryJob {
  return {
    notification,
    retry: DEFAULT_RETRY_SCHEDULE,
    destination: destinationOf(rule.channels[0] as ChannelSpec),
  };
}

if (!process.send) throw new Error("run by the delivery benchmark (IPC)");
const send = process.send.bind(process);

process.once("message", async (settings: ProcessSettings) => {
  const steadyCount = settings.steadyRate * settings.steadySeconds;
  const built = benchAlerts(settings.burst + steadyCount);
  const rules = benchRules(built.ruleIds, settings.url);
  const jobs = built.alerts.map((alert) => {
    const rule = rules.get(alert.ruleId) as Rule;
    return jobOf(rule, notificationsOf(alert, rule)[0] as Notification);
  });
  const share = (part: readonly DeliveryJob[]) =>
    part.filter((_, i) => i % settings.of === settings.index);
  const keys = redisKeys(settings.prefix);
  const plain = await connectRedis(settings.redisUrl);
  const bullmq: RedisConnection = await connectRedis(settings.redisUrl, { forBullmq: true });
  const queues = new DeliveryQueues(plain, keys);
  // The receiver is on loopback: allowed explicitly, as OUTBOUND_ALLOW=127.0.0.1 would.
  const sender = new WebhookSender({ outbound: LOOPBACK_OUTBOUND });
  const workers = new DeliveryWorkers({
    connection: bullmq,
    keys,
    senders: { webhook: sender },
    rules: () => rules,
    zone: BENCH_ZONE,
    log: new DeliveryLog(plain, keys),
    concurrency: { webhook: settings.concurrency },
  });
  await workers.ready();
  const start = process.cpuUsage();
  const cpuMs = () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  process.on("message", async (request: ProcessRequest) => {
    if ("run" in request) {
      const burst = request.run === "burst";
      const part = burst ? jobs.slice(0, settings.burst) : jobs.slice(settings.burst);
      const rate = burst ? undefined : settings.steadyRate / settings.of;
      send(await enqueueAll(queues, share(part), rate));
      return;
    }
    if ("stop" in request) {
      await workers.close();
      await queues.close();
      await sender.close();
      plain.disconnect();
      bullmq.disconnect();
    }
    send({ cpuMs: cpuMs() });
    if ("stop" in request) process.disconnect();
  });
  send({ ready: true });
});
