/**
 * Living Slack messages end to end through the real delivery queues and workers on a
 * real Redis, against the Web API look-alike: a flight's alerts, delivered in order,
 * make one message updated in place with each change in its thread; a message someone
 * deleted is posted anew, and the delivery record says so.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SlackApiChannelSpec } from "../../src/rules/rule.js";
import { type SlackApi, startSlackApi } from "../support/slack-api.js";
import { DeliveryRig, jobsOf, ruleWith, SHORT } from "./delivery-rig.js";
import { alert, gateChange } from "./email-fixtures.js";

const CHANNEL_ID = "C0LIVING01";

const living: SlackApiChannelSpec = {
  type: "slack",
  name: "live",
  token: "xoxb-1111-2222-deliverytoken",
  channelId: CHANNEL_ID,
  retry: SHORT,
  source: { file: "t.yaml", line: 1, column: 1 },
};

describe("living Slack messages through the delivery workers", () => {
  let rig: DeliveryRig;
  let api: SlackApi;

  beforeEach(async () => {
    rig = await DeliveryRig.create();
    api = await startSlackApi();
  });
  afterEach(async () => {
    await rig.close();
    await api.close();
  });

  it("one message per flight, updated in order, each change in its thread; a deleted one posted anew", async () => {
    const r = ruleWith(living);
    await rig.start([r], undefined, { slackApiUrl: api.url });
    const a1 = { ...alert("a1", [gateChange("D7", "D9")]), sequence: 1 };
    const a2 = { ...alert("a2", [gateChange("D9", "D11")]), sequence: 2 };
    const a3 = { ...alert("a3", [gateChange("D11", "D12")]), sequence: 3 };
    // Enqueued together: the workers send them one at a time, oldest first.
    await rig.queues.enqueue([...jobsOf(a1, r), ...jobsOf(a2, r)]);
    await rig.settled(2);

    const [main, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    expect(main?.edits).toBe(1);
    expect(api.replies(main?.ts ?? "").map((m) => m.text)).toEqual([
      expect.stringContaining("gate D7 → D9"),
      expect.stringContaining("gate D9 → D11"),
    ]);

    api.deleteMessage(main?.ts ?? "");
    await rig.queues.enqueue(jobsOf(a3, r));
    await rig.settled(3);
    const [fresh, ...more] = api.topLevel(CHANNEL_ID);
    expect(more).toEqual([]);
    expect(fresh?.ts).not.toBe(main?.ts);
    expect(api.replies(fresh?.ts ?? "")).toHaveLength(1);
    expect(rig.records.map((x) => [x.result, x.destination])).toEqual(
      Array(3).fill(["delivered", `Slack channel ${CHANNEL_ID} (Web API)`]),
    );
    expect(rig.records[2]?.detail).toContain("was gone (message_not_found)");
  });
});
