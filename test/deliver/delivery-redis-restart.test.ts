import { describe, expect, it } from "vitest";
import type { DeliveryRecord } from "../../src/deliver/delivery-log.js";
import { WebhookSender } from "../../src/deliver/webhook-sender.js";
import { DEFAULT_DETECTOR_SETTINGS } from "../../src/detect/detector.js";
import { type Pipeline, startPipeline } from "../../src/pipeline/pipeline.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import { sleep, waitFor } from "../support/crash-run.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import { redisServerForSuite } from "../support/redis-server.js";
import { startWebhookReceiver } from "../support/webhook-receiver.js";
import { hook, jobsOf, ruleWith } from "./delivery-rig.js";
import { alertOf, gate, SECRET, ZONE } from "./webhook-fixtures.js";

describe("delivery across a Redis restart", () => {
  const server = redisServerForSuite();

  it("a webhook delivered while Redis is down is recorded when it is back, not sent again", async () => {
    let restart: Promise<void> | undefined;
    // The first request takes Redis down (SIGKILL) and is answered while it is away:
    // down longer than the three retries a plain command gets.
    const receiver = await startWebhookReceiver({
      secret: SECRET,
      respond: (_delivery, n) => {
        if (n === 1) restart = server().restart({ hard: true, downMs: 2_500 });
        return { status: 204, delayMs: 300 };
      },
    });
    const rule = ruleWith(hook(receiver.url));
    const rules = new RuleSet([rule], { zone: ZONE });
    const records: DeliveryRecord[] = [];
    let worker: Pipeline | undefined;
    try {
      worker = await startPipeline({
        role: "worker",
        client: { baseUrl: "" },
        redis: { url: server().url, prefix: "fwtest-delivery-restart" },
        detector: DEFAULT_DETECTOR_SETTINGS,
        zone: ZONE,
        rules: () => rules,
        senders: { webhook: new WebhookSender({ outbound: LOOPBACK_OUTBOUND }) },
        consumer: "restart-test",
        now: Date.now,
        observer: { delivered: (r) => records.push(r) },
      });
      const { queues, deliveryLog } = worker;
      if (!queues || !deliveryLog) throw new Error("a worker has queues and a delivery log");
      const jobs = jobsOf(alertOf([gate("D7", "D9", 1)]), rule);
      await queues.enqueue(jobs);
      await waitFor(async () => restart !== undefined, 10_000);
      await restart;
      const id = jobs[0]?.notification.id as string;
      const job = await queues.queue("webhook").getJob(id);
      await waitFor(async () => (await job?.getState()) === "completed", 15_000);
      // A retry would come 300 ms after the failed attempt (the SHORT schedule).
      await sleep(1_500);
      expect(receiver.deliveries.map((d) => d.id)).toEqual([id]);
      expect(records.map((r) => [r.id, r.attempt, r.result])).toEqual([[id, 1, "delivered"]]);
      expect((await deliveryLog.recent(10)).map((r) => r.result)).toEqual(["delivered"]);
    } finally {
      await worker?.stop();
      await receiver.close();
    }
  }, 60_000);
});
