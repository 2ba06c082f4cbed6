/**
 * A notification whose delivery Redis could not record — a Redis out of memory refuses
 * the record and the job's completion — comes back to the worker; the process that sent
 * it does not send it again. (Before, 11 webhooks were sent twice in an OOM run.) An
 * operator's deliberate re-send (`deliveries retry`) still sends.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeliveryLog, type DeliveryRecord } from "../../src/deliver/delivery-log.js";
import { DeliveryWorkers } from "../../src/deliver/delivery-worker.js";
import { WebhookSender } from "../../src/deliver/webhook-sender.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import { waitFor } from "../support/crash-run.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import { DeliveryRig, hook, jobsOf, ruleWith } from "./delivery-rig.js";
import { alert, ZONE } from "./email-fixtures.js";

/** A delivery log whose next `failures` records are refused as Redis refuses writes when full. */
class RefusingLog extends DeliveryLog {
  failures = 0;
  override async record(record: DeliveryRecord): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error("OOM command not allowed when used memory > 'maxmemory'.");
    }
    await super.record(record);
  }
}

// In a job of its own, and in a bundle (whose attempt that threw goes on in a job of its own).
describe.each([
  { mode: "own job", bundled: false },
  { mode: "bundle", bundled: true },
])("a delivery whose record Redis refused ($mode)", ({ bundled }) => {
  let rig: DeliveryRig;
  let workers: DeliveryWorkers | undefined;
  let sender: WebhookSender | undefined;

  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });
  afterEach(async () => {
    await workers?.close();
    await sender?.close();
    await rig.close();
  });

  it("is not sent again by the worker that sent it, and is recorded once Redis takes it", async () => {
    const receiver = await rig.webhookReceiver();
    const rule = ruleWith(hook(receiver.url));
    const log = new RefusingLog(rig.redis, rig.keys);
    log.failures = 1;
    const records: DeliveryRecord[] = [];
    sender = new WebhookSender({ outbound: LOOPBACK_OUTBOUND });
    workers = new DeliveryWorkers({
      connection: await rig.connection(true),
      keys: rig.keys,
      senders: { webhook: sender },
      rules: () => new RuleSet([rule], { zone: ZONE }),
      zone: ZONE,
      log,
      onRecord: (r) => records.push(r),
    });
    await workers.ready();
    const [job] = jobsOf(alert("a1"), rule);
    if (!job) throw new Error("no job");
    await rig.queues.enqueue([job], { bundled });
    // The record is written before BullMQ marks the job completed: wait for both.
    const queue = rig.queues.queue("webhook");
    await waitFor(
      async () =>
        records.some((r) => r.result === "delivered") &&
        (await queue.getJobState(job.notification.id)) === "completed",
      10_000,
    );
    expect(receiver.deliveries).toHaveLength(1);
    expect(records.map((r) => r.result)).toEqual(["delivered"]);

    // An operator sends it again on purpose: that is sent.
    expect((await rig.queues.retry([job.notification.id])).requeued).toEqual([job.notification.id]);
    await waitFor(async () => receiver.deliveries.length === 2, 10_000);
    expect(receiver.uniqueIds()).toEqual(new Set([job.notification.id]));
  });
});
