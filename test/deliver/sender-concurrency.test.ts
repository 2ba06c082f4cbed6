/**
 * The delivery workers run as many sends of a type at once as its sender asks for —
 * the email pool's size (twice SMTP_MAX_CONNECTIONS), not a fixed number.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readEmailSettings } from "../../src/config/email-settings.js";
import type { ChannelSender } from "../../src/deliver/channel-sender.js";
import { DeliveryWorkers } from "../../src/deliver/delivery-worker.js";
import { EmailSender } from "../../src/deliver/email-sender.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import { waitFor } from "../support/crash-run.js";
import { DeliveryRig, jobsOf, mailTo, pause, ruleWith } from "./delivery-rig.js";
import { alert, FROM, flight, gateChange, ZONE } from "./email-fixtures.js";

describe("sends in flight per channel type", () => {
  let rig: DeliveryRig;

  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });

  afterEach(async () => {
    await rig.close();
  });

  it("the email sender asks for twice the pool's connections (SMTP_MAX_CONNECTIONS, default 3)", () => {
    const env = { SMTP_URL: "smtp://127.0.0.1:2525", EMAIL_FROM: FROM };
    const senders = [
      new EmailSender(readEmailSettings({ ...env, SMTP_MAX_CONNECTIONS: "7" })),
      new EmailSender(readEmailSettings(env)),
      new EmailSender(undefined),
    ];
    expect(senders.map((s) => s.concurrency)).toEqual([14, 6, 6]);
  });

  it("are as many as the sender asks for", async () => {
    const r = ruleWith(mailTo(["ops@example.com"]));
    let inFlight = 0;
    let most = 0;
    const waiting: Array<() => void> = [];
    const sender: ChannelSender = {
      type: "email",
      concurrency: 3,
      async send() {
        most = Math.max(most, ++inFlight);
        await new Promise<void>((resolve) => waiting.push(resolve));
        inFlight--;
        return { status: "delivered" };
      },
      async close() {},
    };
    const workers = new DeliveryWorkers({
      connection: await rig.connection(true),
      keys: rig.keys,
      senders: { email: sender },
      rules: () => new RuleSet([r], { zone: ZONE }),
      zone: ZONE,
      log: rig.log,
    });
    try {
      await workers.ready();
      // Ten flights: ten orders, so nothing waits for its turn.
      const jobs = Array.from({ length: 10 }, (_, i) =>
        jobsOf(alert(`a${i}`, [gateChange("D7", "D9")], flight({ key: `KL10${i}-2026-11-21` })), r),
      ).flat();
      await rig.queues.enqueue(jobs);
      await waitFor(async () => waiting.length >= 3, 10_000);
      await pause(500); // time for more to start, were they allowed to
      expect(most).toBe(3);
      let sent = 0;
      while (sent < jobs.length) {
        await waitFor(async () => waiting.length > 0, 10_000);
        waiting.shift()?.();
        sent++;
      }
      await waitFor(async () => inFlight === 0, 10_000);
      expect(most).toBe(3);
    } finally {
      await workers.close();
    }
  });
});
