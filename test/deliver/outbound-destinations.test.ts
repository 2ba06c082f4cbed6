/**
 * The outbound policy where a send connects: a host name that resolves to loopback
 * (through DNS, or an injected resolver playing a rebinding name) is refused before any
 * socket reaches the real loopback receiver — a retried attempt whose reason,
 * `destination_refused`, is in the delivery log and `flightwatch deliveries` — and is
 * delivered once OUTBOUND_ALLOW lists the address. A literal address the policy refuses
 * fails for good. Redirects are never followed, so they cannot lead inside either.
 */
import type { LookupFunction } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DestinationLimiter } from "../../src/deliver/destination-limiter.js";
import { SlackSender } from "../../src/deliver/slack-sender.js";
import { WebhookSender } from "../../src/deliver/webhook-sender.js";
import { DestinationRefusedError } from "../../src/errors.js";
import { guardedAgent, guardedLookup } from "../../src/outbound/guarded-agent.js";
import { OutboundPolicy } from "../../src/outbound/outbound-policy.js";
import { spawnCli, testRedisEnv } from "../support/cli-process.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";
import { DeliveryRig, hook, jobsOf, ruleWith, slackTo } from "./delivery-rig.js";
import { alert } from "./email-fixtures.js";
import {
  alertOf,
  gate,
  notificationOf,
  SECRET,
  sendContext,
  webhookChannel,
  webhookRule,
} from "./webhook-fixtures.js";

const STRICT = OutboundPolicy.STRICT;

/** A resolver that answers `addresses` for every name, as a rebinding DNS server would. */
function resolvingTo(...addresses: string[]): LookupFunction & { asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname, options, callback) => {
    asked.push(hostname);
    const all = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    if (options.all) callback(null, all);
    else callback(null, all[0]?.address ?? "", all[0]?.family ?? 4);
  }) as LookupFunction & { asked: string[] };
  lookup.asked = asked;
  return lookup;
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver({ secret: SECRET });
  open.push(r);
  return r;
}

/** One attempt through a webhook sender built with `options`. */
async function sendTo(url: string, options: ConstructorParameters<typeof WebhookSender>[0]) {
  const sender = new WebhookSender(options);
  open.push(sender);
  const spec = webhookChannel(url, { secret: SECRET });
  const rule = webhookRule(spec);
  const notification = notificationOf(alertOf([gate("D7", "D9", 1)]), rule);
  return sender.send(
    notification,
    spec,
    sendContext(rule, () => Date.now()),
  );
}

describe("webhook sender: the address connected to", () => {
  it("refuses localhost (resolved to loopback) by default, and delivers with 127.0.0.1 allowed", async () => {
    const hookServer = await receiver();
    const url = hookServer.url.replace("127.0.0.1", "localhost");
    expect(await sendTo(url, {})).toEqual({
      status: "retry",
      reason: "destination_refused",
      detail: expect.stringMatching(
        /^destination refused: localhost resolved to (127\.0\.0\.1|::1), a loopback address; .*OUTBOUND_ALLOW/,
      ),
    });
    expect(hookServer.deliveries).toHaveLength(0);

    expect(await sendTo(url, { outbound: LOOPBACK_OUTBOUND })).toMatchObject({
      status: "delivered",
    });
    expect(hookServer.deliveries).toHaveLength(1);
  });

  it("fails for good on a literal address the policy refuses, without connecting", async () => {
    const hookServer = await receiver();
    for (const url of [hookServer.url, hookServer.url.replace("127.0.0.1", "[::ffff:127.0.0.1]")]) {
      expect(await sendTo(url, {})).toEqual({
        status: "failed",
        reason: "destination_refused",
        detail: expect.stringContaining("a loopback address"),
      });
    }
    expect(hookServer.deliveries).toHaveLength(0);
  });

  it("checks a name on every connect: a name that passed the rule check and now resolves to loopback is refused", async () => {
    const hookServer = await receiver();
    const url = hookServer.url.replace("127.0.0.1", "hooks.rebind.example");
    const lookup = resolvingTo("127.0.0.1");
    const strict = guardedAgent(STRICT, { lookup });
    open.push(strict);
    expect(await sendTo(url, { dispatcher: strict })).toMatchObject({
      status: "retry",
      reason: "destination_refused",
      detail: expect.stringContaining(
        "hooks.rebind.example resolved to 127.0.0.1, a loopback address",
      ),
    });
    expect(lookup.asked).toEqual(["hooks.rebind.example"]);
    expect(hookServer.deliveries).toHaveLength(0);

    const allowing = guardedAgent(LOOPBACK_OUTBOUND, { lookup });
    open.push(allowing);
    expect(await sendTo(url, { dispatcher: allowing })).toMatchObject({ status: "delivered" });
    expect(hookServer.deliveries[0]?.headers.host).toBe(new URL(url).host);
  });
});

describe("guarded lookup", () => {
  const lookupOf = (policy: OutboundPolicy, ...answer: string[]) => {
    const lookup = guardedLookup(policy, resolvingTo(...answer));
    return (all: boolean) =>
      new Promise<{ err: unknown; result: unknown }>((resolve) =>
        lookup("hooks.example.com", { all }, (err, address, family) =>
          resolve({ err, result: all ? address : [address, family] }),
        ),
      );
  };

  it("keeps only the allowed addresses of an answer, in its order", async () => {
    const mixed = lookupOf(STRICT, "10.0.0.1", "93.184.215.14", "::1", "2606:4700::1111");
    expect((await mixed(true)).result).toEqual([
      { address: "93.184.215.14", family: 4 },
      { address: "2606:4700::1111", family: 6 },
    ]);
    expect((await mixed(false)).result).toEqual(["93.184.215.14", 4]);
  });

  it("fails with a DestinationRefusedError when nothing allowed is left", async () => {
    const { err } = await lookupOf(STRICT, "169.254.169.254", "fd00::1")(true);
    expect(err).toBeInstanceOf(DestinationRefusedError);
    expect(err).toMatchObject({
      code: "FW_ERR_DESTINATION_REFUSED",
      address: "169.254.169.254",
      hostname: "hooks.example.com",
      permanent: false,
      message: expect.stringContaining("the cloud metadata service"),
    });
  });
});

describe("slack sender: the address connected to", () => {
  let rig: DeliveryRig;
  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });
  afterEach(async () => {
    await rig.close();
  });

  it("refuses a Slack URL on localhost by default and delivers with 127.0.0.1 allowed", async () => {
    const url = rig.slack.url("/services/T0/B0/outbound").replace("127.0.0.1", "localhost");
    const spec = slackTo(url);
    const r = ruleWith(spec);
    const [job] = jobsOf(alert("s1"), r);
    const send = async (outbound: OutboundPolicy) => {
      const sender = new SlackSender({
        limiter: new DestinationLimiter(rig.redis, rig.keys),
        intervalMs: 10,
        outbound,
      });
      open.push(sender);
      return sender.send(
        job?.notification as NonNullable<typeof job>["notification"],
        spec as Parameters<SlackSender["send"]>[1],
        sendContext(r, () => Date.now()),
      );
    };
    expect(await send(STRICT)).toMatchObject({ status: "retry", reason: "destination_refused" });
    expect(rig.slack.messages("/services/T0/B0/outbound")).toHaveLength(0);
    expect(await send(LOOPBACK_OUTBOUND)).toMatchObject({ status: "delivered" });
    expect(rig.slack.messages("/services/T0/B0/outbound")).toHaveLength(1);
  });
});

describe("the delivery log", () => {
  let rig: DeliveryRig;
  beforeEach(async () => {
    rig = await DeliveryRig.create();
  });
  afterEach(async () => {
    await rig.close();
  });

  it("records each refused attempt, retried on the channel's schedule, and `deliveries` shows why", async () => {
    const hookServer = await rig.webhookReceiver();
    const url = hookServer.url.replace("127.0.0.1", "hooks.rebind.example");
    // Two retries, then a dead letter.
    const r = ruleWith(hook(url, "hook", { delaysMs: [200, 300], forMs: 500 }));
    await rig.start([r], undefined, { outbound: STRICT, lookup: resolvingTo("127.0.0.1") });
    await rig.queues.enqueue(jobsOf(alert("a1"), r));
    await rig.settled(1);

    expect(rig.records.map((x) => [x.result, x.reason])).toEqual([
      ["retrying", "destination_refused"],
      ["retrying", "destination_refused"],
      ["dead", "destination_refused"],
    ]);
    expect(rig.records[0]?.detail).toContain(
      "hooks.rebind.example resolved to 127.0.0.1, a loopback address",
    );
    expect(hookServer.deliveries).toHaveLength(0);

    const cli = spawnCli(["deliveries"], testRedisEnv(rig.keys.prefix.replace(/^\{|\}$/g, "")));
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toContain("destination_refused");
    expect(cli.stdout()).toContain("hooks.rebind.example resolved to 127.0.0.1");
  }, 30_000);
});
