/**
 * A dry run (`--console`) of a Slack channel of living messages: the console shows the
 * flight's message as it would stand — posted for the first notification about the
 * flight, updated in place after — with the changes as the reply in its thread; a
 * reminder only replies. Other channels print as ever.
 */
import { describe, expect, it } from "vitest";
import { ConsoleSender } from "../../src/deliver/console-sender.js";
import type { Alert } from "../../src/dispatch/alert.js";
import type { SlackApiChannelSpec } from "../../src/rules/rule.js";
import { alert, emailChannel, notificationOf, ruleWith, ZONE } from "./email-fixtures.js";

const board: SlackApiChannelSpec = {
  type: "slack",
  name: "board",
  token: "xoxb-1-2-secret",
  channelId: "C0123456789",
  source: { file: "test.yaml", line: 3, column: 5 },
};

describe("the console standing in for living messages", () => {
  it("shows the message posted, then updated in place, and a reminder as a reply only", async () => {
    let out = "";
    const sender = new ConsoleSender({
      write: (t) => {
        out += t;
      },
      json: false,
    });
    const rule = { ...ruleWith(emailChannel()), channels: [board] };
    const context = { rule, zone: ZONE, now: () => 0, attempt: 1 };
    await sender.send(notificationOf(alert("a1"), board), board, context);
    expect(out).toContain("→ slack board Slack channel C0123456789 (Web API)");
    expect(out).toContain(
      "     ✎ living message posted:\n     │ KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25\n     │ Gate D9\n     ↳ gate D7 → D9\n",
    );
    expect(out).not.toContain("xoxb");
    out = "";
    await sender.send(notificationOf(alert("a2"), board), board, context);
    expect(out).toContain("     ✎ living message updated in place:\n");
    out = "";
    const reminder: Alert = {
      ...alert("a3", []),
      reminder: { name: "boarding-30m", before: "boarding", byMinutes: 30, at: 0, inMinutes: 30 },
    };
    await sender.send(notificationOf(reminder, board), board, context);
    expect(out).toMatch(
      / {5}✎ living message left as it is:\n {5}↳ ⏰ Boarding for KL1001 starts in 30 min/,
    );
    // A reminder as the first word about a flight posts its message, as the sender does.
    out = "";
    const other = { ...reminder, flight: { ...reminder.flight, key: "D:2026-11-21:KL1002" } };
    await sender.send(notificationOf(other, board), board, context);
    expect(out).toContain("     ✎ living message posted:\n");
    // Piped: the same as JSON.
    let json = "";
    const piped = new ConsoleSender({
      write: (t) => {
        json += t;
      },
      json: true,
    });
    await piped.send(notificationOf(alert("a1"), board), board, context);
    expect(JSON.parse(json).living).toEqual({
      step: "posted",
      message: ["KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25", "Gate D9"],
    });
    // Another channel prints as ever.
    json = "";
    await piped.send(notificationOf(alert("a1"), emailChannel()), emailChannel(), context);
    expect(JSON.parse(json).living).toBeUndefined();
  });
});
