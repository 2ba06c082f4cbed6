/**
 * Living messages through the Web API, against a loopback look-alike of Slack's
 * `chat.postMessage` and `chat.update` and a real Redis: one message per flight,
 * updated in place, its changes in the thread; kept across restarts, retries that skip
 * what Slack has, a deleted (or no longer editable) message posted anew — found by an
 * update or by a reply — an update refused for its content alone, Slack's refusals and
 * rate limits.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SendContext } from "../../src/deliver/channel-sender.js";
import { DestinationLimiter } from "../../src/deliver/destination-limiter.js";
import { type Notification, notificationsOf } from "../../src/deliver/notification.js";
import { slackLivingMessage } from "../../src/deliver/slack-living-message.js";
import { slackMessage } from "../../src/deliver/slack-message.js";
import { SlackSender, type SlackSenderOptions } from "../../src/deliver/slack-sender.js";
import { SlackThreads, slackThreadOf } from "../../src/deliver/slack-threads.js";
import type { Alert } from "../../src/dispatch/alert.js";
import type { Rule, SlackApiChannelSpec } from "../../src/rules/rule.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { rule as buildRule } from "../rules/rule-builder.js";
import { alertChange, KL1001_SCHEDULED, alertOf as kl1001Alert } from "../support/alert-builder.js";
import { LOOPBACK_OUTBOUND } from "../support/outbound.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { type SlackApi, startSlackApi } from "../support/slack-api.js";

const ZONE = "Europe/Amsterdam";
const T0 = KL1001_SCHEDULED - 3_600_000;
const TOKEN = "xoxb-1111-2222-livingsecrettoken";
const CHANNEL_ID = "C0123ABCDEF";
const BOARDING_REMINDER = {
  name: "boarding-30m",
  before: "boarding" as const,
  byMinutes: 30,
  at: KL1001_SCHEDULED - 40 * 60_000,
  inMinutes: 25,
};

/** Alert `a<n>` of sequence n: the gate moves to D<n>, boarding from 10:00. */
function alertOf(n: number, parts: Partial<Alert> = {}): Alert {
  return kl1001Alert({
    id: `a${n}`,
    ruleId: "pier-d",
    sequence: n,
    current: {
      route: ["WAW"],
      gate: `D${n}`,
      states: ["SCH"],
      times: { publicEstimatedOffBlockTime: KL1001_SCHEDULED + n * 5 * 60_000 },
    },
    changes: [alertChange({ kind: "gate", field: "gate", old: `D${n - 1}`, new: `D${n}` })],
    openedAt: T0,
    decidedAt: T0 + n * 60_000,
    ...parts,
  });
}

describe("living Slack messages through the Web API", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let api: SlackApi;
  let channel: SlackApiChannelSpec;
  let rule: Rule;
  let now: number;
  let sleeps: number[];
  const senders: SlackSender[] = [];

  beforeEach(async () => {
    t = await testRedis("slack-living");
    keys = redisKeys(t.prefix);
    api = await startSlackApi();
    channel = {
      type: "slack",
      name: "ops",
      token: TOKEN,
      channelId: CHANNEL_ID,
      source: { file: "t.yaml", line: 1, column: 1 },
    };
    rule = { ...buildRule("pier-d"), channels: [channel] };
    now = T0;
    sleeps = [];
  });
  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.close()));
    await api.close();
    await t.cleanup();
  });

  /** A sender (a process of its own: its own limiter and threads) on a fake clock that sleeping moves on. */
  function sender(options: Partial<SlackSenderOptions> = {}): SlackSender {
    const made = new SlackSender({
      limiter: new DestinationLimiter(t.redis, keys),
      threads: new SlackThreads(t.redis, keys),
      slackApiUrl: api.url,
      outbound: LOOPBACK_OUTBOUND,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
      ...options,
    });
    senders.push(made);
    return made;
  }

  const context = (): SendContext => ({ rule, zone: ZONE, now: () => now, attempt: 1 });
  const notification = (alert: Alert): Notification =>
    notificationsOf(alert, rule)[0] as Notification;
  const stored = async (n: Notification) =>
    t.redis.hgetall(keys.slackThread(slackThreadOf(n, channel)));

  it("posts the flight's message, then the change as a reply in its thread", async () => {
    const first = notification(alertOf(1));
    expect(await sender().send(first, channel, context())).toEqual({
      status: "delivered",
      code: 200,
    });
    const [main, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    expect(main).toMatchObject(slackLivingMessage(first.alert, rule, ZONE));
    expect(main?.text).toContain("KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25");
    expect(main?.text).toContain("Estimated departure 10:30 (5 min late)");
    expect(main?.text).toContain("Gate D1");
    const replies = api.replies(main?.ts ?? "");
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject(slackMessage(first, channel, rule, ZONE));
    expect(replies[0]?.text).toContain("gate D0 → D1");

    // Built by Slack's own client: form-encoded, the token as a bearer, its name.
    const calls = api.calls();
    expect(calls.map((c) => [c.method, c.args.thread_ts])).toEqual([
      ["chat.postMessage", undefined],
      ["chat.postMessage", main?.ts],
    ]);
    for (const call of calls) {
      expect(call.token).toBe(TOKEN);
      expect(call.contentType).toBe("application/x-www-form-urlencoded");
      expect(call.userAgent).toMatch(/^@slack:web-api\/8\.[0-9.]+ flightwatch$/);
    }
    // Where the message is, under the prefix, expiring (days, as snapshots do).
    expect(await stored(first)).toEqual({ channel: CHANNEL_ID, ts: main?.ts, seq: "1" });
    const ttl = await t.redis.pttl(keys.slackThread(slackThreadOf(first, channel)));
    expect(ttl).toBeGreaterThan(2 * 86_400_000);
    expect(JSON.stringify(await t.redis.keys(`{${t.prefix}}*`))).not.toContain(TOKEN);
  });

  it("updates the message in place for the next alert, and replies again", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    const second = notification(alertOf(2));
    expect(await slack.send(second, channel, context())).toMatchObject({ status: "delivered" });

    const [main, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    expect(main?.edits).toBe(1);
    expect(main).toMatchObject(slackLivingMessage(second.alert, rule, ZONE));
    expect(main?.text).toContain("Gate D2");
    expect(api.replies(main?.ts ?? "").map((m) => m.text)).toEqual([
      expect.stringContaining("gate D0 → D1"),
      expect.stringContaining("gate D1 → D2"),
    ]);
    expect(api.calls().map((c) => c.method)).toEqual([
      "chat.postMessage",
      "chat.postMessage",
      "chat.update",
      "chat.postMessage",
    ]);
    expect(api.calls("chat.update")[0]?.args).toMatchObject({ channel: CHANNEL_ID, ts: main?.ts });
    expect(await stored(second)).toMatchObject({ ts: main?.ts, seq: "2" });
  });

  it("keeps updating the same message after a restart (a new sender, same Redis)", async () => {
    await sender().send(notification(alertOf(1)), channel, context());
    const before = api.topLevel(CHANNEL_ID)[0]?.ts;
    await senders.splice(0)[0]?.close();

    const restarted = sender();
    expect(await restarted.send(notification(alertOf(2)), channel, context())).toMatchObject({
      status: "delivered",
    });
    expect(api.topLevel(CHANNEL_ID).map((m) => [m.ts, m.edits])).toEqual([[before, 1]]);
    expect(api.replies(before ?? "")).toHaveLength(2);
  });

  it("does not post the reply again when a retry comes after it was posted", async () => {
    const slack = sender();
    const first = notification(alertOf(1));
    await slack.send(first, channel, context());
    const calls = api.calls().length;
    // The same notification again: its job came back after the worker died having sent it.
    expect(await sender().send(first, channel, { ...context(), attempt: 2 })).toEqual({
      status: "delivered",
    });
    expect(api.calls()).toHaveLength(calls);
    expect(api.messages()).toHaveLength(2);
  });

  it("retries only the reply when the main message got through and the reply did not", async () => {
    api.script("chat.postMessage", { pass: true }, { status: 500 });
    const slack = sender();
    const first = notification(alertOf(1));
    expect(await slack.send(first, channel, context())).toMatchObject({
      status: "retry",
      reason: "server_error",
      code: 500,
    });
    expect(api.messages()).toHaveLength(1);
    // The retry (another process, after a restart) posts the reply alone: no second
    // main message, no update.
    expect(await sender().send(first, channel, { ...context(), attempt: 2 })).toEqual({
      status: "delivered",
      code: 200,
    });
    const [main, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    expect(main?.edits).toBe(0);
    expect(api.replies(main?.ts ?? "")).toHaveLength(1);
    expect(api.calls().map((c) => [c.method, c.status])).toEqual([
      ["chat.postMessage", 200],
      ["chat.postMessage", 500],
      ["chat.postMessage", 200],
    ]);
  });

  it("posts a new main message when someone deleted it, and goes on with that one", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    const gone = api.topLevel(CHANNEL_ID)[0]?.ts as string;
    api.deleteMessage(gone);

    const outcome = await slack.send(notification(alertOf(2)), channel, context());
    expect(outcome).toMatchObject({ status: "delivered", code: 200 });
    expect(outcome.status === "delivered" && outcome.detail).toBe(
      `the living message ${gone} was gone (message_not_found); posted a new one in its place`,
    );
    const [main, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    expect(main?.ts).not.toBe(gone);
    expect(main?.text).toContain("Gate D2");
    expect(api.replies(main?.ts ?? "").map((m) => m.text)).toEqual([
      expect.stringContaining("gate D1 → D2"),
    ]);
    expect(
      api
        .calls()
        .slice(2)
        .map((c) => c.method),
    ).toEqual(["chat.update", "chat.postMessage", "chat.postMessage"]);
    // The next alert updates the new message: no loop, no further posts.
    expect(await slack.send(notification(alertOf(3)), channel, context())).toEqual({
      status: "delivered",
      code: 200,
    });
    expect(api.topLevel(CHANNEL_ID).map((m) => [m.ts, m.edits])).toEqual([[main?.ts, 1]]);
  });

  it("treats cant_update_message as a message gone too", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    api.script("chat.update", { error: "cant_update_message" });
    const outcome = await slack.send(notification(alertOf(2)), channel, context());
    expect(outcome).toMatchObject({ status: "delivered" });
    expect(api.topLevel(CHANNEL_ID)).toHaveLength(2);
  });

  it("starts a new living message when the old one's edit window closed", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    const old = api.topLevel(CHANNEL_ID)[0]?.ts as string;
    api.closeEditWindow(old);

    const outcome = await slack.send(notification(alertOf(2)), channel, context());
    expect(outcome).toEqual({
      status: "delivered",
      code: 200,
      detail: `the living message ${old} can no longer be edited (edit_window_closed); posted a new one in its place`,
    });
    const [kept, fresh, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    // The old one keeps its thread as it was; the new one shows the flight as it is now.
    expect(kept).toMatchObject({ ts: old, edits: 0 });
    expect(kept?.text).toContain("Gate D1");
    expect(api.replies(old)).toHaveLength(1);
    expect(fresh?.text).toContain("Gate D2");
    expect(api.replies(fresh?.ts ?? "").map((m) => m.text)).toEqual([
      expect.stringContaining("gate D1 → D2"),
    ]);
    expect(await stored(notification(alertOf(2)))).toMatchObject({ ts: fresh?.ts, seq: "2" });
    // The next alert updates the new message in place.
    expect(await slack.send(notification(alertOf(3)), channel, context())).toEqual({
      status: "delivered",
      code: 200,
    });
    expect(api.topLevel(CHANNEL_ID).map((m) => [m.ts, m.edits])).toEqual([
      [old, 0],
      [fresh?.ts, 1],
    ]);
    expect(api.replies(fresh?.ts ?? "")).toHaveLength(2);
  });

  it.each(["msg_too_long", "invalid_blocks", "update_failed"])(
    "still posts the reply when chat.update answers %s, saying the message was not updated",
    async (error) => {
      const slack = sender();
      await slack.send(notification(alertOf(1)), channel, context());
      const main = api.topLevel(CHANNEL_ID)[0]?.ts as string;
      api.script("chat.update", { error });

      const second = notification(alertOf(2));
      expect(await slack.send(second, channel, context())).toEqual({
        status: "delivered",
        code: 200,
        detail: `the living message ${main} could not be updated (${error}); the change was posted in its thread`,
      });
      expect(api.topLevel(CHANNEL_ID).map((m) => [m.ts, m.edits])).toEqual([[main, 0]]);
      expect(api.replies(main).map((m) => m.text)).toEqual([
        expect.stringContaining("gate D0 → D1"),
        expect.stringContaining("gate D1 → D2"),
      ]);
      // The message still shows alert 1: the next alert updates it.
      expect(await stored(second)).toMatchObject({ ts: main, seq: "1" });
      expect(await slack.send(notification(alertOf(3)), channel, context())).toEqual({
        status: "delivered",
        code: 200,
      });
      expect(api.topLevel(CHANNEL_ID).map((m) => [m.ts, m.edits])).toEqual([[main, 1]]);
    },
  );

  it("fails for good when chat.update is refused for the channel, before any reply", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    api.script("chat.update", { error: "not_in_channel" });
    expect(await slack.send(notification(alertOf(2)), channel, context())).toMatchObject({
      status: "failed",
      reason: "slack_refused",
    });
    expect(api.calls().map((c) => c.method)).toEqual([
      "chat.postMessage",
      "chat.postMessage",
      "chat.update",
    ]);
  });

  it("posts a new message when a reminder's thread was deleted, and replies in its thread", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    const gone = api.topLevel(CHANNEL_ID)[0]?.ts as string;
    api.deleteMessage(gone);

    const reminder = notification(alertOf(2, { changes: [], reminder: BOARDING_REMINDER }));
    const outcome = await slack.send(reminder, channel, context());
    expect(outcome).toEqual({
      status: "delivered",
      code: 200,
      detail: `the living message ${gone} was gone (thread_not_found); posted a new one in its place`,
    });
    const [fresh, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    expect(fresh?.ts).not.toBe(gone);
    expect(fresh).toMatchObject(slackLivingMessage(reminder.alert, rule, ZONE));
    expect(api.replies(fresh?.ts ?? "")).toEqual([
      expect.objectContaining(slackMessage(reminder, channel, rule, ZONE)),
    ]);
    expect(
      api
        .calls()
        .slice(2)
        .map((c) => [c.method, c.args.thread_ts, c.answer.error]),
    ).toEqual([
      ["chat.postMessage", gone, "thread_not_found"],
      ["chat.postMessage", undefined, undefined],
      ["chat.postMessage", fresh?.ts, undefined],
    ]);
    expect(await stored(reminder)).toEqual({ channel: CHANNEL_ID, ts: fresh?.ts, seq: "2" });
    // The next alert updates the new message: the thread is repaired for good.
    expect(await slack.send(notification(alertOf(3)), channel, context())).toEqual({
      status: "delivered",
      code: 200,
    });
    expect(api.topLevel(CHANNEL_ID).map((m) => [m.ts, m.edits])).toEqual([[fresh?.ts, 1]]);
    expect(api.replies(fresh?.ts ?? "")).toHaveLength(2);
  });

  it("posts a new message when an older alert's reply finds the thread deleted", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    await slack.send(notification(alertOf(3)), channel, context());
    const gone = api.topLevel(CHANNEL_ID)[0]?.ts as string;
    api.deleteMessage(gone);

    // Alert 2 after 3 (a replay): no update, only its reply — whose thread is gone.
    const older = notification(alertOf(2));
    expect(await slack.send(older, channel, context())).toMatchObject({
      status: "delivered",
      detail: expect.stringContaining(`${gone} was gone (thread_not_found)`),
    });
    const [fresh, ...others] = api.topLevel(CHANNEL_ID);
    expect(others).toEqual([]);
    expect(api.replies(fresh?.ts ?? "")).toHaveLength(1);
    // It shows alert 2 (all this attempt knows) until a newer alert updates it.
    expect(await stored(older)).toMatchObject({ ts: fresh?.ts, seq: "2" });
    await slack.send(notification(alertOf(4)), channel, context());
    expect(api.topLevel(CHANNEL_ID).map((m) => [m.ts, m.edits])).toEqual([[fresh?.ts, 1]]);
  });

  it("repairs a deleted thread once per attempt, never in a loop", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    const main = api.topLevel(CHANNEL_ID)[0]?.ts as string;
    const reminder = notification(alertOf(2, { changes: [], reminder: BOARDING_REMINDER }));
    // The reply, the new message, and the reply in its thread all answered as if gone.
    api.script(
      "chat.postMessage",
      { error: "message_not_found" },
      { pass: true },
      { error: "thread_not_found" },
    );
    expect(await slack.send(reminder, channel, context())).toMatchObject({
      status: "failed",
      reason: "slack_refused",
      detail: expect.stringMatching(/^thread_not_found: /),
    });
    const calls = api.calls().slice(2);
    expect(calls.map((c) => [c.method, c.args.thread_ts])).toEqual([
      ["chat.postMessage", main],
      ["chat.postMessage", undefined],
      ["chat.postMessage", calls[1]?.answer.ts],
    ]);
    // The new message was recorded: a later attempt replies in its thread, posting nothing else.
    const fresh = calls[1]?.answer.ts;
    expect(await slack.send(reminder, channel, { ...context(), attempt: 2 })).toEqual({
      status: "delivered",
      code: 200,
    });
    expect(
      api
        .calls()
        .slice(5)
        .map((c) => [c.method, c.args.thread_ts]),
    ).toEqual([["chat.postMessage", fresh]]);
    expect(api.replies(String(fresh))).toHaveLength(1);
  });

  it("does not repair the thread of a message it has just posted", async () => {
    api.script("chat.postMessage", { pass: true }, { error: "thread_not_found" });
    expect(await sender().send(notification(alertOf(1)), channel, context())).toMatchObject({
      status: "failed",
      detail: expect.stringMatching(/^thread_not_found: /),
    });
    expect(api.calls()).toHaveLength(2);
  });

  it("takes pace slots for the calls a repair adds", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    api.deleteMessage(api.topLevel(CHANNEL_ID)[0]?.ts as string);
    await slack.send(
      notification(alertOf(2, { changes: [], reminder: BOARDING_REMINDER })),
      channel,
      context(),
    );
    // The reminder's one slot waits for alert 1's two; its repair (a post and the
    // reply again) waits for the reminder's slot.
    expect(sleeps).toEqual([2000, 1000]);
  });

  it("fails for good on a revoked token, saying what to do, never naming the token", async () => {
    api.script("chat.postMessage", { error: "token_revoked" });
    const outcome = await sender().send(notification(alertOf(1)), channel, context());
    expect(outcome).toEqual({
      status: "failed",
      reason: "slack_refused",
      detail: `token_revoked: the bot token was revoked; install the app again and update the rule's token (chat.postMessage, channel ${CHANNEL_ID})`,
    });
    expect(JSON.stringify(outcome)).not.toContain("livingsecret");
  });

  it.each([
    ["invalid_auth", "the bot token is not valid"],
    ["account_inactive", "deactivated"],
    ["not_authed", "no token reached Slack"],
    ["missing_scope", "chat:write"],
    ["channel_not_found", "check the rule's channel id"],
    ["not_in_channel", "invite it"],
    ["is_archived", "archived"],
  ])("fails for good on %s", async (error, advice) => {
    api.script("chat.postMessage", { error });
    const outcome = await sender().send(notification(alertOf(1)), channel, context());
    expect(outcome).toMatchObject({ status: "failed", reason: "slack_refused" });
    expect(outcome.status === "failed" && outcome.detail).toMatch(
      new RegExp(`^${error}: .*${advice.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
  });

  it("on 429 retries after Retry-After and holds the channel back for every worker", async () => {
    api.script("chat.postMessage", { status: 429, retryAfter: 7 });
    const outcome = await sender().send(notification(alertOf(1)), channel, context());
    expect(outcome).toEqual({
      status: "retry",
      reason: "rate_limited",
      detail: "Slack rate limit on chat.postMessage (HTTP 429, Retry-After 7 s)",
      code: 429,
      retryAfterMs: 7000,
    });
    expect(api.messages()).toHaveLength(0);
    // Another worker (its own limiter, same Redis) waits the 7 s out before its calls.
    expect(await sender().send(notification(alertOf(1)), channel, context())).toMatchObject({
      status: "delivered",
    });
    expect(sleeps).toEqual([7000]);
  });

  it("retries Slack's 5xx and a refused connection", async () => {
    api.script("chat.postMessage", { status: 502 });
    const slack = sender();
    expect(await slack.send(notification(alertOf(1)), channel, context())).toMatchObject({
      status: "retry",
      reason: "server_error",
      code: 502,
    });
    const closed = await startSlackApi();
    await closed.close();
    const elsewhere = sender({ slackApiUrl: closed.url });
    expect(await elsewhere.send(notification(alertOf(1)), channel, context())).toMatchObject({
      status: "retry",
      reason: "connection",
    });
  });

  it("never lets an older alert overwrite what a newer one wrote", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    const newer = notification(alertOf(3));
    await slack.send(newer, channel, context());
    // Alert 2 comes after 3 (a replay of it, say): its change goes in the thread, but
    // the message keeps showing alert 3.
    const older = notification(alertOf(2));
    expect(await slack.send(older, channel, context())).toMatchObject({ status: "delivered" });
    const [main] = api.topLevel(CHANNEL_ID);
    expect(main?.edits).toBe(1);
    expect(main).toMatchObject(slackLivingMessage(newer.alert, rule, ZONE));
    expect(api.calls("chat.update")).toHaveLength(1);
    expect(api.replies(main?.ts ?? "")).toHaveLength(3);
    expect(await stored(older)).toMatchObject({ seq: "3" });
  });

  it("posts only a thread reply for an alert without changes (a reminder)", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    const reminder = notification(alertOf(2, { changes: [] }));
    expect(await slack.send(reminder, channel, context())).toMatchObject({ status: "delivered" });
    const [main] = api.topLevel(CHANNEL_ID);
    expect(main?.edits).toBe(0);
    expect(api.replies(main?.ts ?? "")).toHaveLength(2);
  });

  it("paces a channel's calls: one slot per call, the group's slots taken at once", async () => {
    const slack = sender();
    await slack.send(notification(alertOf(1)), channel, context());
    await slack.send(notification(alertOf(2)), channel, context());
    // Two calls each: the second notification waits for the first's two slots.
    expect(sleeps).toEqual([2000]);
  });

  it("gives a test sample a message of its own and remembers nothing of it", async () => {
    const sample = notification(alertOf(1, { test: true }));
    expect(await sender().send(sample, channel, context())).toMatchObject({ status: "delivered" });
    expect(api.messages()).toHaveLength(2);
    expect(api.topLevel(CHANNEL_ID)[0]?.text).toContain("TEST");
    expect(await stored(sample)).toEqual({});
    expect(
      await t.redis.keys(keys.slackProgress("*").replace("{", "\\{").replace("}", "\\}")),
    ).toEqual([]);
  });

  it("without a place to remember living messages, says so in a dead letter", async () => {
    const plain = new SlackSender({
      limiter: new DestinationLimiter(t.redis, keys),
      outbound: LOOPBACK_OUTBOUND,
    });
    senders.push(plain);
    expect(await plain.send(notification(alertOf(1)), channel, context())).toMatchObject({
      status: "failed",
      reason: "not_configured",
    });
    expect(api.calls()).toHaveLength(0);
  });
});

describe("SlackThreads", () => {
  let t: TestRedis;
  let threads: SlackThreads;
  let keys: RedisKeys;
  beforeEach(async () => {
    t = await testRedis("slack-threads");
    keys = redisKeys(t.prefix);
    threads = new SlackThreads(t.redis, keys, { ttlMs: 60_000 });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("lets a new message replace the one it replaces, never one showing a newer alert", async () => {
    const first = { channel: CHANNEL_ID, ts: "1.000001", seq: 5 };
    expect(await threads.posted("th", "msg_a", first, undefined)).toEqual(first);
    // Written meanwhile by an older alert's attempt (a replay): the newer message stays.
    const stale = { channel: CHANNEL_ID, ts: "1.000002", seq: 3 };
    expect(await threads.posted("th", "msg_b", stale, undefined)).toEqual(first);
    // The one that was gone is replaced, whatever it showed.
    const fresh = { channel: CHANNEL_ID, ts: "1.000003", seq: 4 };
    expect(await threads.posted("th", "msg_c", fresh, "1.000001")).toEqual(fresh);
    expect(await threads.read("th", "msg_c")).toEqual({
      thread: fresh,
      progress: { main: true },
    });
  });

  it("raises a message's sequence on update, never lowers it, and only for that message", async () => {
    await threads.posted("th", "msg_a", { channel: CHANNEL_ID, ts: "1.000001", seq: 5 }, undefined);
    await threads.updated("th", "msg_b", "1.000001", 4);
    expect((await threads.read("th", "msg_b")).thread?.seq).toBe(5);
    await threads.updated("th", "msg_c", "1.000009", 9);
    expect((await threads.read("th", "msg_c")).thread?.seq).toBe(5);
    await threads.updated("th", "msg_d", "1.000001", 7);
    expect(await threads.read("th", "msg_d")).toEqual({
      thread: { channel: CHANNEL_ID, ts: "1.000001", seq: 7 },
      progress: { main: true },
    });
    await threads.replied("th", "msg_d", "1.000010");
    expect((await threads.read("th", "msg_d")).progress).toEqual({
      main: true,
      replyTs: "1.000010",
    });
    const ttl = await t.redis.pttl(keys.slackProgress("msg_d"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
