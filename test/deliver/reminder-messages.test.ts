/**
 * A reminder in every channel's words: the email's subject and body ("Reminder:" and the
 * flight), the Slack message's section, the console's line — each says what it is,
 * with the moment's time, in the rule's language.
 */
import { describe, expect, it } from "vitest";
import { consoleBlock } from "../../src/deliver/console-sender.js";
import { emailMessage } from "../../src/deliver/email-message.js";
import { slackMessage } from "../../src/deliver/slack-message.js";
import type { Alert } from "../../src/dispatch/alert.js";
import type { SlackChannelSpec } from "../../src/rules/rule.js";
import { alert, emailChannel, FROM, notificationOf, ruleWith, ZONE } from "./email-fixtures.js";

const BOARDING = Date.parse("2026-11-21T08:45:00Z"); // 09:45 in Amsterdam
const reminder = (): Alert => ({
  ...alert("a1", []),
  reminder: {
    name: "boarding-30m",
    before: "boarding",
    byMinutes: 30,
    at: BOARDING,
    inMinutes: 25,
  },
});

describe("a reminder's words", () => {
  it("in an email: the reminder as subject and headline, the flight under `Reminder:`", () => {
    const channel = emailChannel();
    const rule = ruleWith(channel);
    const n = notificationOf(reminder(), channel);
    const mail = emailMessage(n, channel, rule, ZONE, FROM, "anna@example.com");
    expect(mail.subject).toBe(
      "KL1001 2026-11-21: Boarding for KL1001 starts in 25 min at gate D9 (09:45)",
    );
    expect(mail.text).toContain(
      "Boarding for KL1001 starts in 25 min at gate D9 (09:45)\n\nReminder:\n- KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25\n",
    );
    expect(mail.text).not.toContain("Changes:");
    const dutch = emailMessage(
      n,
      channel,
      { ...rule, language: "nl" },
      ZONE,
      FROM,
      "anna@example.com",
    );
    expect(dutch.subject).toContain("Instappen voor KL1001 begint over 25 min bij gate D9 (09:45)");
    expect(dutch.text).toContain("Herinnering:");
  });

  it("in Slack and on the console: one line that says what it is", () => {
    const slack: SlackChannelSpec = {
      type: "slack",
      name: "slack",
      url: "https://hooks.slack.com/services/T0/B0/x",
      source: { file: "test.yaml", line: 3, column: 5 },
    };
    const rule = { ...ruleWith(emailChannel()), channels: [slack] };
    const n = notificationOf(reminder(), slack);
    const message = JSON.stringify(slackMessage(n, slack, rule, ZONE));
    expect(message).toContain(
      ":alarm_clock: Boarding for KL1001 starts in 25 min at gate D9 (09:45)",
    );
    expect(consoleBlock(n, slack, rule, ZONE)).toContain(
      "\n     ⏰ Boarding for KL1001 starts in 25 min at gate D9 (09:45)\n",
    );
  });
});
