import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SendContext } from "../../src/deliver/channel-sender.js";
import { DestinationLimiter } from "../../src/deliver/destination-limiter.js";
import { postJson } from "../../src/deliver/http-post.js";
import { type Notification, notificationsOf } from "../../src/deliver/notification.js";
import { slackMessage } from "../../src/deliver/slack-message.js";
import { SlackSender, type SlackSenderOptions } from "../../src/deliver/slack-sender.js";
import type { Alert } from "../../src/dispatch/alert.js";
import type { Rule, SlackWebhookChannelSpec } from "../../src/rules/rule.js";
import type { RedisConnection } from "../../src/store/redis-connection.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { rule as buildRule } from "../rules/rule-builder.js";
import { alertChange, kl1001, alertOf as kl1001Alert } from "../support/alert-builder.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import { deleteByPattern, TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";
import { type SlackReceiver, startSlackReceiver } from "../support/slack-receiver.js";

const ZONE = "Europe/Amsterdam";
const T0 = Date.UTC(2026, 10, 21, 9, 0);
const PATH = "/services/T000/B000/secretsecret";

/** Alert `a<n>` with `gates` gate changes (long ones when several, to fill a message). */
function alertOf(n: number, gates = 1): Alert {
  return kl1001Alert({
    id: `a${n}`,
    ruleId: "pier-d",
    flight: kl1001({ flightNames: ["KL1001"], scheduled: T0 + 3_600_000 }),
    changes: Array.from({ length: gates }, (_, i) =>
      alertChange({
        kind: "gate",
        field: "gate",
        old: `D${n}`,
        new: `E${n}-${i}${"&".repeat(gates > 1 ? 400 : 0)}`,
      }),
    ),
    openedAt: T0,
    decidedAt: T0,
  });
}

describe("SlackSender against a Slack look-alike", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let slack: SlackReceiver;
  let channel: SlackWebhookChannelSpec;
  let rule: Rule;
  let now: number;
  let sleeps: number[];
  const senders: SlackSender[] = [];
  const connections: RedisConnection[] = [];

  beforeEach(async () => {
    t = await testRedis("slack");
    keys = redisKeys(t.prefix);
    slack = await startSlackReceiver();
    channel = {
      type: "slack",
      name: "ops",
      url: slack.url(PATH),
      source: { file: "t.yaml", line: 1, column: 1 },
    };
    rule = { ...buildRule("pier-d"), channels: [channel] };
    now = T0;
    sleeps = [];
  });
  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.close()));
    for (const c of connections.splice(0)) c.disconnect();
    await slack.close();
    await t.cleanup();
  });

  /** A sender on a fake clock that only sleeping moves on. */
  function fakeTimeSender(options: Partial<SlackSenderOptions> = {}): SlackSender {
    const sender = new SlackSender({
      limiter: new DestinationLimiter(t.redis, keys),
      outbound: LOOPBACK_OUTBOUND,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
      ...options,
    });
    senders.push(sender);
    return sender;
  }

  const context = (clock: () => number = () => now): SendContext => ({
    rule,
    zone: ZONE,
    now: clock,
    attempt: 1,
  });
  const notification = (n: number, gates = 1): Notification =>
    notificationsOf(alertOf(n, gates), rule)[0] as Notification;

  it("posts the Block Kit message and reads Slack's ok as delivered", async () => {
    const sender = fakeTimeSender();
    const outcome = await sender.send(notification(1), channel, context());
    expect(outcome).toEqual({ status: "delivered", code: 200 });
    const [received] = slack.messages(PATH);
    expect(received?.payload).toEqual(slackMessage(notification(1), channel, rule, ZONE));
    // Built by Slack's own client, @slack/webhook, which names itself.
    // Its name and version, and ours: not the host's Node version or kernel release.
    expect(received?.userAgent).toMatch(/^@slack:webhook\/8\.[0-9.]+ flightwatch$/);
  });

  it("posts formatting markers of flight data inert, as look-alikes", async () => {
    const alert = kl1001Alert({
      id: "a-marked",
      ruleId: "pier-d",
      flight: kl1001({ flightNames: ["KL1001"], scheduled: T0 + 3_600_000 }),
      changes: [
        alertChange({ kind: "gate", field: "gate", old: "D7", new: "*BOLD* _it_ ~s~ `code`" }),
      ],
      openedAt: T0,
      decidedAt: T0,
    });
    const marked = notificationsOf(alert, rule)[0] as Notification;
    expect(await fakeTimeSender().send(marked, channel, context())).toMatchObject({
      status: "delivered",
    });
    const payload = slack.messages(PATH)[0]?.payload as { text: string; blocks: unknown[] };
    expect(payload.text).toContain("gate D7 → ∗BOLD∗ ˍitˍ ∼s∼ ˋcodeˋ");
    expect(JSON.stringify(payload.blocks)).toContain("*gate:* D7 → ∗BOLD∗ ˍitˍ ∼s∼ ˋcodeˋ");
    expect(JSON.stringify(payload)).not.toMatch(/\*BOLD\*|_it_|~s~|`code`/);
  });

  it("keeps a big message within the limits the look-alike checks", async () => {
    const outcome = await fakeTimeSender().send(notification(1, 40), channel, context());
    expect(outcome).toEqual({ status: "delivered", code: 200 });
    // The look-alike does check: a header over 150 characters is refused.
    const tooLong = {
      text: "x",
      blocks: [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }],
    };
    const res = await postJson(slack.url(PATH), JSON.stringify(tooLong), {});
    expect(res).toMatchObject({ kind: "response", status: 400, body: "invalid_blocks" });
  });

  it("waits for the webhook's next slot (injected clock and sleep)", async () => {
    const sender = fakeTimeSender();
    for (let n = 1; n <= 3; n++) {
      expect(await sender.send(notification(n), channel, context())).toMatchObject({
        status: "delivered",
      });
    }
    expect(sleeps).toEqual([1000, 1000]);
    expect(slack.messages(PATH)).toHaveLength(3);
  });

  it("keeps two workers on one pace through Redis: one slot per interval between them", async () => {
    // Two workers, each with its own Redis connection and limiter, send six messages to
    // one webhook at the same (frozen) moment. Their sleeps are the slots they were given.
    const run = async (prefixes: [string, string]) => {
      const waits: number[] = [];
      const workers = prefixes.map((prefix, i) => {
        const redis = i === 0 ? t.redis : new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
        if (redis !== t.redis) connections.push(redis);
        const sender = new SlackSender({
          limiter: new DestinationLimiter(redis, redisKeys(prefix)),
          intervalMs: 200,
          outbound: LOOPBACK_OUTBOUND,
          sleep: async (ms) => {
            waits.push(ms);
          },
        });
        senders.push(sender);
        return sender;
      });
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (workers[i % 2] as SlackSender).send(
            notification(i),
            channel,
            context(() => T0),
          ),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill("delivered"));
      return waits.sort((a, b) => a - b);
    };
    // Shared: the first goes at once, every other one interval after the one before.
    expect(await run([t.prefix, t.prefix])).toEqual([200, 400, 600, 800, 1000]);
    // Control: limiters that do not share the pace let the workers send side by side.
    const apart: [string, string] = [`${t.prefix}-a`, `${t.prefix}-b`];
    try {
      expect(await run(apart)).toEqual([200, 200, 400, 400]);
    } finally {
      for (const prefix of apart) await deleteByPattern(t.redis, redisKeys(prefix).pattern);
    }
    expect(slack.messages(PATH)).toHaveLength(12);
  });

  it("on 429 honours Retry-After and pushes the webhook's slots back for every worker", async () => {
    slack.script(PATH, { status: 429, body: "rate_limited", retryAfter: 7 });
    const sender = fakeTimeSender();
    expect(await sender.send(notification(1), channel, context())).toEqual({
      status: "retry",
      reason: "rate_limited",
      detail: "Slack rate limit (HTTP 429: rate_limited)",
      code: 429,
      retryAfterMs: 7000,
    });
    // Another worker (its own limiter, same Redis) waits out the 7 s too.
    const other = fakeTimeSender();
    expect(await other.send(notification(2), channel, context())).toMatchObject({
      status: "delivered",
    });
    expect(sleeps).toEqual([7000]);
  });

  it("on 429 without Retry-After holds the webhook back one interval from the answer", async () => {
    slack.script(PATH, { status: 429, body: "rate_limited" });
    // The clock reads T0 when reserving and T0 + 400 ms when the 429 is in.
    let reads = 0;
    const slow = () => T0 + 400 * reads++;
    const outcome = await fakeTimeSender().send(notification(1), channel, context(slow));
    expect(outcome).toMatchObject({ status: "retry", reason: "rate_limited" });
    expect(outcome).not.toHaveProperty("retryAfterMs");
    now = T0 + 400;
    await fakeTimeSender().send(notification(2), channel, context());
    // Paced alone, the next slot would be T0 + 1000, 600 ms away.
    expect(sleeps).toEqual([1000]);
  });

  it.each([
    [400, "invalid_payload"],
    [403, "action_prohibited"],
    [404, "no_service"],
    [404, "channel_not_found"],
    [410, "channel_is_archived"],
    [400, "invalid_blocks"],
  ])("fails for good on %i %s, naming Slack's error", async (status, error) => {
    slack.script(PATH, { status, body: error });
    const outcome = await fakeTimeSender().send(notification(1), channel, context());
    expect(outcome).toEqual({
      status: "failed",
      reason: "slack_refused",
      detail: `Slack refused the message: ${error} (HTTP ${status})`,
      code: status,
    });
    expect(JSON.stringify(outcome)).not.toContain("secret");
  });

  it("retries 5xx, honouring a Retry-After", async () => {
    slack.script(
      PATH,
      { status: 500, body: "internal_error" },
      { status: 503, body: "", retryAfter: 30 },
    );
    const sender = fakeTimeSender();
    expect(await sender.send(notification(1), channel, context())).toMatchObject({
      status: "retry",
      reason: "server_error",
      code: 500,
    });
    expect(await sender.send(notification(1), channel, context())).toMatchObject({
      status: "retry",
      reason: "server_error",
      code: 503,
      retryAfterMs: 30_000,
    });
  });

  it("retries a timeout and a refused connection", async () => {
    slack.script(PATH, { status: 200, delayMs: 1000 });
    const sender = fakeTimeSender({ timeoutMs: 100 });
    expect(await sender.send(notification(1), channel, context())).toMatchObject({
      status: "retry",
      reason: "timeout",
    });
    const closed = await startSlackReceiver();
    const gone = { ...channel, url: closed.url(PATH) };
    await closed.close();
    expect(await sender.send(notification(2), gone, context())).toMatchObject({
      status: "retry",
      reason: "connection",
    });
  });

  it("hands the job back instead of waiting past maxWaitMs, without posting", async () => {
    const limiter = new DestinationLimiter(t.redis, keys);
    await limiter.pushBack(channel.url, T0 + 60_000, T0);
    const outcome = await fakeTimeSender({ limiter, maxWaitMs: 15_000 }).send(
      notification(1),
      channel,
      context(),
    );
    expect(outcome).toMatchObject({
      status: "retry",
      reason: "rate_limited",
      retryAfterMs: 60_000,
    });
    expect(slack.requests()).toHaveLength(0);
    expect(sleeps).toEqual([]);
  });
});
