/**
 * The console channel: a readable block in a terminal, one JSON object per line when
 * piped, and — standing in for another channel in a dry run — where the notification
 * would have gone (never the secret part of a URL).
 */
import { describe, expect, it } from "vitest";
import { ConsoleSender } from "../../src/deliver/console-sender.js";
import { notificationsOf } from "../../src/deliver/notification.js";
import type { ChannelSpec, Rule } from "../../src/rules/rule.js";
import { rule as baseRule } from "../rules/rule-builder.js";
import { alert, gateChange } from "./email-fixtures.js";

const ZONE = "Europe/Amsterdam";
const source = { file: "t.yaml", line: 1, column: 1 };

function sendWith(channel: ChannelSpec, json: boolean) {
  const out: string[] = [];
  const sender = new ConsoleSender({ write: (text) => void out.push(text), json });
  const rule: Rule = { ...baseRule("pier-d"), channels: [channel] };
  const a = {
    ...alert("a1", [gateChange("D7", "D9")]),
    ruleId: "pier-d",
    decidedAt: Date.UTC(2026, 10, 21, 8, 26),
  };
  const [notification] = notificationsOf(a, rule);
  if (!notification) throw new Error("no notification");
  const context = { rule, zone: ZONE, now: () => 0, attempt: 1 };
  return { out, run: () => sender.send(notification, channel, context), notification };
}

describe("console channel", () => {
  it("prints a block per notification in a terminal", async () => {
    const { out, run } = sendWith({ type: "console", name: "console", source }, false);
    expect(await run()).toEqual({ status: "delivered" });
    expect(out.join("")).toBe(
      "📣 09:26:00 pier-d: KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25\n     gate D7 → D9\n",
    );
  });

  it("prints one JSON object per line when piped", async () => {
    const { out, run, notification } = sendWith({ type: "console", name: "console", source }, true);
    await run();
    expect(out).toHaveLength(1);
    expect(out[0]?.endsWith("\n")).toBe(true);
    expect(JSON.parse(out[0] as string)).toMatchObject({
      id: notification.id,
      rule: "pier-d",
      channel: "console",
      type: "console",
      changes: [{ kind: "gate", old: "D7", new: "D9" }],
      summary: "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9",
    });
  });

  it("stands in for another channel, naming it without its secret", async () => {
    const slack: ChannelSpec = {
      type: "slack",
      name: "slack",
      url: "https://hooks.slack.com/services/T000/B000/SECRETSECRET",
      source,
    };
    const text = sendWith(slack, false);
    await text.run();
    expect(text.out[0]).toContain("pier-d → slack https://hooks.slack.com/services…:");
    expect(text.out.join("")).not.toContain("SECRET");
    const json = sendWith(slack, true);
    await json.run();
    expect(JSON.parse(json.out[0] as string)).toMatchObject({
      type: "slack",
      destination: "https://hooks.slack.com/services…",
    });
    expect(json.out[0]).not.toContain("SECRET");
  });

  it("hands a failed write back as a retry", async () => {
    const sender = new ConsoleSender({
      write: () => Promise.reject(new Error("stdout is closed")),
      json: true,
    });
    const channel: ChannelSpec = { type: "console", name: "console", source };
    const rule: Rule = { ...baseRule("r1"), channels: [channel] };
    const [n] = notificationsOf(alert("a1"), rule);
    const outcome = await sender.send(n as NonNullable<typeof n>, channel, {
      rule,
      zone: ZONE,
      now: () => 0,
      attempt: 1,
    });
    expect(outcome).toMatchObject({ status: "retry", reason: "connection" });
  });
});
