/**
 * One rule's notifications about one flight through one channel reach the receiver in
 * the order of their changes, never an older one after a newer one: real BullMQ, Redis,
 * webhook sender and a loopback receiver. An older notification still being sent goes
 * first; one that failed and waits to be retried is superseded by the newer (its
 * changes folded in, recorded as superseded); one older than a notification already
 * delivered is never sent. (An ops channel got "gate H25 → Z1" 40 s after "now
 * cancelled"; a passenger "gate change + 23 min late" after "now cancelled".)
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AlertChange } from "../../src/dispatch/alert.js";
import type { RetrySchedule } from "../../src/rules/rule.js";
import { waitFor } from "../support/crash-run.js";
import type { WebhookDelivery } from "../support/webhook-receiver.js";
import { DeliveryRig, hook, jobsOf, pause, ruleWith } from "./delivery-rig.js";
import { alert, gateChange } from "./email-fixtures.js";

/** One retry, far enough away that a newer notification comes first. */
const LATER: RetrySchedule = { delaysMs: [20_000], forMs: 60_000 };

const sequenced = (id: string, changes: AlertChange[], sequence: number) => ({
  ...alert(id, changes),
  sequence,
});

const gates = (d: WebhookDelivery) =>
  ((d.body as { data?: { changes?: { old?: string; new?: string }[] } }).data?.changes ?? []).map(
    (c) => `${c.old}→${c.new}`,
  );

describe("the order of a rule's notifications about a flight", () => {
  let rig: DeliveryRig;
  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });
  afterEach(async () => {
    await rig.close();
  });

  it("sends an older one first, even when the newer is taken first and the receiver is slow", async () => {
    const receiver = await rig.webhookReceiver((d) => ({
      status: 204,
      // The older one takes a while to be answered: the newer must not overtake it.
      delayMs: gates(d).includes("D7→D8") ? 1_500 : 0,
    }));
    const rule = ruleWith(hook(receiver.url));
    const older = jobsOf(sequenced("a1", [gateChange("D7", "D8")], 100), rule);
    const newer = jobsOf(sequenced("a2", [gateChange("D8", "D9")], 200), rule);
    await rig.queues.enqueue([...older, ...newer]);
    await rig.start([rule]);
    await rig.settled(2, 15_000);
    const [first, second] = receiver.deliveries;
    expect([first, second].map((d) => d && gates(d))).toEqual([["D7→D8"], ["D8→D9"]]);
    // The newer arrived only once the older had been answered.
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1_400);
    expect(rig.records.map((r) => r.result)).toEqual(["delivered", "delivered"]);
  });

  it("supersedes an older one waiting to be retried: the newer carries its change, the older never comes", async () => {
    let down = true;
    const receiver = await rig.webhookReceiver(() => ({ status: down ? 503 : 204 }));
    const rule = ruleWith(hook(receiver.url, "hook", LATER));
    const [older] = jobsOf(sequenced("a1", [gateChange("H25", "Z1")], 100), rule);
    if (!older) throw new Error("no job");
    await rig.start([rule]);
    await rig.queues.enqueue([older]);
    await waitFor(async () => rig.records.some((r) => r.result === "retrying"), 10_000);
    down = false;
    const [newer] = jobsOf(sequenced("a2", [gateChange("Z1", "Z2")], 200), rule);
    if (!newer) throw new Error("no job");
    await rig.queues.enqueue([newer]);
    await waitFor(async () => rig.records.some((r) => r.result === "delivered"), 10_000);
    await pause(1_000);
    // One delivery: the newer, from the older's old gate.
    expect(receiver.deliveries.filter((d) => d.status === 204).map(gates)).toEqual([["H25→Z2"]]);
    // The older was tried once (refused), never again.
    expect(receiver.deliveries.map((d) => [d.id, d.status])).toEqual([
      [older.notification.id, 503],
      [newer.notification.id, 204],
    ]);
    const byId = (id: string) => rig.records.filter((r) => r.id === id).map((r) => r.result);
    expect(byId(older.notification.id)).toEqual(["retrying", "superseded"]);
    expect(rig.records.find((r) => r.result === "superseded")?.supersededBy).toBe(
      newer.notification.id,
    );
    expect(byId(newer.notification.id)).toEqual(["delivered"]);
    expect(await rig.queues.queue("webhook").getJob(older.notification.id)).toBeUndefined();
  });

  it("never sends one older than a notification already delivered", async () => {
    const receiver = await rig.webhookReceiver();
    const rule = ruleWith(hook(receiver.url));
    await rig.start([rule]);
    const newer = jobsOf(sequenced("a2", [gateChange("D8", "D9")], 200), rule);
    await rig.queues.enqueue(newer);
    await rig.settled(1);
    // Enqueued late (another notifier, say): it must not follow the newer.
    const late = jobsOf(sequenced("a1", [gateChange("D7", "D8")], 100), rule);
    await rig.queues.enqueue(late);
    await rig.settled(2);
    expect(receiver.deliveries.map(gates)).toEqual([["D8→D9"]]);
    expect(rig.records.map((r) => r.result)).toEqual(["delivered", "superseded"]);
    expect(rig.records[1]?.detail).toMatch(/newer notification .* was delivered already/);
  });

  it("drops the newer too when what it supersedes cancels it out: nothing to say", async () => {
    let down = true;
    const receiver = await rig.webhookReceiver(() => ({ status: down ? 503 : 204 }));
    const rule = ruleWith(hook(receiver.url, "hook", LATER));
    await rig.start([rule]);
    await rig.queues.enqueue(jobsOf(sequenced("a1", [gateChange("D7", "D8")], 100), rule));
    await waitFor(async () => rig.records.some((r) => r.result === "retrying"), 10_000);
    down = false;
    await rig.queues.enqueue(jobsOf(sequenced("a2", [gateChange("D8", "D7")], 200), rule));
    await waitFor(
      async () => rig.records.filter((r) => r.result === "superseded").length === 2,
      10_000,
    );
    expect(receiver.deliveries.filter((d) => d.status === 204)).toEqual([]);
  });
});
