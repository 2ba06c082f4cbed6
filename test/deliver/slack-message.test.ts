import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Notification, notificationId } from "../../src/deliver/notification.js";
import {
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  slackMessage,
  truncateMrkdwn,
} from "../../src/deliver/slack-message.js";
import type { Alert } from "../../src/dispatch/alert.js";
import { describeAlert } from "../../src/render/alert-text.js";
import type { Rule, SlackChannelSpec } from "../../src/rules/rule.js";
import { rule as buildRule } from "../rules/rule-builder.js";
import {
  alertChange as change,
  KL1001_SCHEDULED,
  alertOf as kl1001Alert,
} from "../support/alert-builder.js";

const ZONE = "Europe/Amsterdam";

/** An alert of rule pier-d, opened an hour before KL1001's departure and decided a minute later. */
const alertOf = (parts: Partial<Alert> = {}): Alert =>
  kl1001Alert({
    ruleId: "pier-d",
    openedAt: KL1001_SCHEDULED - 3_600_000,
    decidedAt: KL1001_SCHEDULED - 3_540_000,
    ...parts,
  });

const RULE: Rule = { ...buildRule("pier-d"), description: "Pier D gate changes" };
const CHANNEL: SlackChannelSpec = {
  type: "slack",
  name: "slack",
  url: "https://hooks.slack.invalid/services/T/B/x",
  source: { file: "test.yaml", line: 3, column: 1 },
};

function render(alert: Alert, channel: SlackChannelSpec = CHANNEL, rule: Rule = RULE) {
  const notification: Notification = {
    id: notificationId(alert.id, channel.name),
    ruleId: rule.id,
    channel: channel.name,
    type: "slack",
    alert,
  };
  return slackMessage(notification, channel, rule, ZONE);
}

/** Every text of a message that Slack parses as mrkdwn. */
function mrkdwnTexts(message: SlackMessage): string[] {
  const texts = [message.text];
  for (const block of message.blocks) {
    if (block.type === "section") {
      if (block.text) texts.push(block.text.text);
      for (const f of block.fields ?? []) texts.push(f.text);
    }
    if (block.type === "context") texts.push(...block.elements.map((e) => e.text));
  }
  return texts;
}

function headerOf(message: SlackMessage): string {
  const header = message.blocks[0] as Extract<SlackBlock, { type: "header" }>;
  return header.text.text;
}

/** Slack's limits, as the look-alike receiver also checks them. */
function expectWithinLimits(message: SlackMessage): void {
  expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.textChars);
  for (const block of message.blocks) {
    if (block.type === "header") {
      expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerChars);
      expect(block.text.text).toMatch(/^\S(.*\S)?$/);
    } else if (block.type === "section") {
      expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.sectionChars);
      expect(block.fields?.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.fields);
      for (const f of block.fields ?? []) {
        expect(f.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldChars);
      }
    } else {
      expect(block.elements.length).toBeLessThanOrEqual(SLACK_LIMITS.contextElements);
    }
  }
}

/** No markup that flight data could have smuggled in: every `&` starts an entity, no `<` `>`. */
function expectInert(text: string): void {
  expect(text).not.toMatch(/[<>]/);
  expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
}

describe("slackMessage", () => {
  it("says TEST or Replay in its header when it is one", () => {
    const plain = headerOf(render(alertOf()));
    expect(headerOf(render(alertOf({ test: true })))).toBe(`TEST — ${plain}`);
    const a = alertOf();
    const replay = slackMessage(
      {
        id: "msg_new",
        replayOf: "msg_old",
        ruleId: RULE.id,
        channel: CHANNEL.name,
        type: "slack",
        alert: a,
      },
      CHANNEL,
      RULE,
      ZONE,
    );
    expect(headerOf(replay)).toBe(`Replay — ${plain}`);
  });

  it("has a header, one field per change, local times and the rule, and the plain fallback", () => {
    const alert = alertOf({
      changes: [
        change({ kind: "gate", field: "gate", old: "D7", new: "D9" }),
        change({ kind: "state", field: "publicFlightState", action: "added", state: "BRD" }),
        change({
          kind: "time",
          field: "publicEstimatedOffBlockTime",
          old: "2026-11-21T10:25:00.000+01:00",
          new: "2026-11-21T10:50:00.000+01:00",
          delayMinutes: 25,
        }),
      ],
    });
    const message = render(alert);
    expect(message.blocks).toEqual([
      { type: "header", text: { type: "plain_text", text: "KL1001 (DL9341) to WAW" } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: "*gate:* D7 → D9" },
          { type: "mrkdwn", text: "*status:* now boarding" },
          { type: "mrkdwn", text: "*estimated departure:* 10:25 → 10:50 (25 min late)" },
        ],
      },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: "Scheduled Sat 21 Nov 10:25 · alert Sat 21 Nov 09:26 (Europe/Amsterdam)",
          },
          { type: "mrkdwn", text: "Rule `pier-d`: Pier D gate changes" },
        ],
      },
    ]);
    expect(message.text).toBe(describeAlert(alert, ZONE));
    expect(message.text).toBe(
      "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9; now boarding; estimated departure 10:25 → 10:50 (25 min late)",
    );
  });

  it("marks corrections and names arrivals by their origin", () => {
    const alert = alertOf({
      flight: { ...alertOf().flight, direction: "A", flightNames: ["KL1001"] },
      current: { route: ["LHR"] },
      changes: [
        change({ kind: "belt", field: "baggageClaim", old: ["12"], new: ["11"], correction: true }),
      ],
    });
    const message = render(alert);
    expect(headerOf(message)).toBe("KL1001 from LHR");
    expect(message.blocks[1]).toEqual({
      type: "section",
      fields: [{ type: "mrkdwn", text: "*belt:* 12 → 11 (correction)" }],
    });
  });

  it("escapes flight data in every mrkdwn text, so it can neither ping nor link", () => {
    const alert = alertOf({
      flight: { ...alertOf().flight, flightNames: ["KL1001", "<!channel>"] },
      current: { route: ["<http://evil.example|WAW>"] },
      changes: [change({ kind: "gate", field: "gate", old: "A&B", new: "<!here>" })],
    });
    const message = render(alert);
    for (const text of mrkdwnTexts(message)) expectInert(text);
    expect(message.blocks[1]).toEqual({
      type: "section",
      fields: [{ type: "mrkdwn", text: "*gate:* A&amp;B → &lt;!here&gt;" }],
    });
    expect(message.text).toContain("&lt;http://evil.example∣WAW&gt;");
    // The header is plain text: Slack shows it as it is and parses nothing in it.
    expect(headerOf(message)).toBe("KL1001 (<!channel>) to <http://evil.example|WAW>");
  });

  it("shows formatting markers in flight data as they are written, never as formatting", () => {
    const marked = "*BOLD* _it_ ~s~ `code`";
    const alert = alertOf({
      flight: { ...alertOf().flight, flightNames: ["KL1001", "*DL*9341"] },
      current: { route: ["_WAW_"] },
      changes: [
        change({ kind: "gate", field: "gate", old: "D7", new: marked }),
        change({ kind: "gate", field: "gate", old: "＊X＊ ＿y＿ ｀z｀", new: "> quoted\n> too" }),
      ],
    });
    const message = render(alert);
    const inert = "∗BOLD∗ ˍitˍ ∼s∼ ˋcodeˋ";
    expect(message.blocks[1]).toEqual({
      type: "section",
      fields: [
        { type: "mrkdwn", text: `*gate:* D7 → ${inert}` },
        // A `>` that starts a line of the value would quote it: a soft hyphen goes first.
        { type: "mrkdwn", text: "*gate:* ﹡X﹡ ⸏y⸏ ˋzˋ → &gt; quoted\n\u00ad&gt; too" },
      ],
    });
    expect(message.text).toContain(`KL1001 (∗DL∗9341) to ˍWAWˍ`);
    expect(message.text).toContain(`gate D7 → ${inert}`);
    // Our own formatting stays: the bold labels, and the rule id as code.
    const context = message.blocks.at(-1) as Extract<SlackBlock, { type: "context" }>;
    expect(context.elements[1]?.text).toBe("Rule `pier-d`: Pier D gate changes");
    // Nothing of the markers reaches a mrkdwn text but our bold labels and the rule's code.
    const fields = mrkdwnTexts(message).map((t) => t.replace(/^\*gate:\* /, ""));
    for (const text of fields.filter((t) => !t.startsWith("Rule `"))) {
      expect(text).not.toMatch(/[*_~`＊＿｀]/);
    }

    // The same in a channel template: its values are inert, its own markup is not.
    const templated = render(alert, { ...CHANNEL, template: "*{flight}*: {changes} ({route})" });
    expect(templated.text).toBe(
      `*KL1001*: gate D7 → ${inert}; gate ﹡X﹡ ⸏y⸏ ˋzˋ → &gt; quoted\n\u00ad&gt; too (ˍWAWˍ)`,
    );
    // A value the template puts at the start of a line does not quote either.
    const quoting = render(alertOf({ labels: { note: "> look" } }), {
      ...CHANNEL,
      template: "{label.note}",
    });
    expect(quoting.text).toBe("\u00ad&gt; look");
    // Nor after a carriage return or a Unicode line separator.
    const separated = render(alertOf({ labels: { note: "a\r> b\u2028> c" } }), {
      ...CHANNEL,
      template: "{label.note}",
    });
    expect(separated.text).toBe("a\r\u00ad&gt; b\u2028\u00ad&gt; c");
    // A value inside a template's link cannot end its URL and take over its text.
    const linked = render(
      alertOf({ flight: { ...alertOf().flight, mainFlight: "KL1|Verify your login" } }),
      { ...CHANNEL, template: "<https://ops.example/flights/{flight}|{flight}>" },
    );
    expect(linked.text).toBe(
      "<https://ops.example/flights/KL1∣Verify your login|KL1∣Verify your login>",
    );
  });

  it("renders a channel template as the main text, escaping its values but not the template", () => {
    const channel = {
      ...CHANNEL,
      template: "<!here> *{flight}* gate news: {changes} ({label.note})",
    };
    const rule = { ...RULE, labels: {} };
    const alert = alertOf({
      labels: { note: "<@U123>" },
      changes: [change({ kind: "gate", field: "gate", old: "D7", new: "<#C1>" })],
    });
    const message = render(alert, channel, rule);
    const expected = "<!here> *KL1001* gate news: gate D7 → &lt;#C1&gt; (&lt;@U123&gt;)";
    expect(message.text).toBe(expected);
    expect(message.blocks.map((b) => b.type)).toEqual(["header", "section", "context"]);
    expect(message.blocks[1]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: expected },
    });
  });

  it("falls back to the fields when a template renders to nothing", () => {
    const message = render(alertOf(), { ...CHANNEL, template: "{label.none}" });
    expect(message.text).toBe(describeAlert(alertOf(), ZONE));
    expect(message.blocks[1]).toMatchObject({ type: "section", fields: [{ type: "mrkdwn" }] });
  });

  it("lists a few codeshares in the header and counts the rest", () => {
    const names = ["KL1001", "DL9341", "AF5512", "KE6021", "MU7710", "G39311", "XY1234"];
    const message = render(alertOf({ flight: { ...alertOf().flight, flightNames: names } }));
    expect(headerOf(message)).toBe("KL1001 (DL9341, AF5512, KE6021, MU7710, +2) to WAW");
  });

  it("keeps within Slack's limits however much there is to say", () => {
    const many = Array.from({ length: 600 }, (_, i) =>
      change({ kind: "gate", field: "gate", old: `G${i}`, new: `&${"<".repeat(3000)}` }),
    );
    const alert = alertOf({
      flight: {
        ...alertOf().flight,
        flightNames: ["KL1001", ...Array.from({ length: 200 }, (_, i) => `X${"&".repeat(20)}${i}`)],
      },
      current: { route: Array.from({ length: 100 }, (_, i) => `A${i}`) },
      changes: many,
    });
    const message = render(alert, CHANNEL, { ...RULE, description: "<".repeat(5000) });
    expectWithinLimits(message);
    for (const text of mrkdwnTexts(message)) expectInert(text);
    const sections = message.blocks.filter((b) => b.type === "section");
    expect(sections).toHaveLength(SLACK_LIMITS.blocks - 2);
    const last = sections.at(-1) as Extract<SlackBlock, { type: "section" }>;
    expect(last.fields?.at(-1)?.text).toBe("_…and 121 more changes_");

    const long = render(alertOf(), {
      ...CHANNEL,
      template: `${"x".repeat(2990)}{changes}${"y".repeat(2000)}`,
    });
    expectWithinLimits(long);
    const section = long.blocks[1] as { text: { text: string } };
    expect(section.text.text).toHaveLength(SLACK_LIMITS.sectionChars);
    expect(section.text.text.endsWith("…")).toBe(true);
  });

  it("truncates mrkdwn without breaking an entity, a link or a surrogate pair", () => {
    expect(truncateMrkdwn("abc", 3)).toBe("abc");
    expect(truncateMrkdwn("ab&amp;cd", 6)).toBe("ab…");
    expect(truncateMrkdwn("ab&lt;cd", 7)).toBe("ab&lt;…");
    expect(truncateMrkdwn("see <https://x.example/a|here> now", 12)).toBe("see …");
    expect(truncateMrkdwn("ab😀cd", 4)).toBe("ab…");
  });

  it("keeps limits and inertness for any flight data (property)", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 400 });
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 30 }),
        fc.array(text, { maxLength: 20 }),
        fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 40 }),
        (names, route, gates) => {
          const alert = alertOf({
            flight: { ...alertOf().flight, mainFlight: names[0] ?? "", flightNames: names },
            current: { route },
            changes: gates.map(([old, now]) =>
              change({ kind: "gate", field: "gate", old, new: now }),
            ),
          });
          const message = render(alert);
          expectWithinLimits(message);
          for (const t of mrkdwnTexts(message)) expectInert(t);
        },
      ),
      { numRuns: 200 },
    );
  });
});
