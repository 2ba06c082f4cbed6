// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the syntax under test
/** Channels: each type's keys, URLs, addresses, secrets, names, and each way they can be wrong. */
import { describe, expect, it } from "vitest";
import { maskerFor } from "../../../src/cli/rule-masking.js";
import { isDaemonVariable } from "../../../src/config/config-variables.js";
import { readOutboundAllow } from "../../../src/outbound/outbound-policy.js";
import type { ChannelSpec } from "../../../src/rules/rule.js";
import { load, oneRule, problemOf, problemsOf } from "./rule-text.js";

const withChannels = (channels: string): string => `rules:\n  - id: r\n    channels: ${channels}\n`;
const channelsOf = (channels: string): ChannelSpec[] => oneRule(withChannels(channels)).channels;
const SECRET = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;

describe("channels", () => {
  it("reads each type with its options and its position", () => {
    expect(
      channelsOf(`
      - { type: slack, url: "https://hooks.slack.com/services/T/B/x", template: "{flight} {changes}" }
      - type: email
        to: [anna@example.com, "b.c+d@mail.example.org"]
        subject: "Your flight {flight}"
        template: body
        unsubscribe_url: https://example.com/u/anna
      - { type: webhook, url: "https://partner.example.com/hooks", secret: "${SECRET}", format: json }
      - { type: console }`),
    ).toEqual([
      {
        type: "slack",
        name: "slack",
        url: "https://hooks.slack.com/services/T/B/x",
        template: "{flight} {changes}",
        source: { file: "t.yaml", line: 4, column: 9 },
      },
      {
        type: "email",
        name: "email",
        to: ["anna@example.com", "b.c+d@mail.example.org"],
        subject: "Your flight {flight}",
        template: "body",
        unsubscribeUrl: "https://example.com/u/anna",
        source: { file: "t.yaml", line: 5, column: 9 },
      },
      {
        type: "webhook",
        name: "webhook",
        url: "https://partner.example.com/hooks",
        secret: SECRET,
        format: "json",
        source: { file: "t.yaml", line: 10, column: 9 },
      },
      { type: "console", name: "console", source: { file: "t.yaml", line: 11, column: 9 } },
    ]);
  });

  it("checks the placeholders of templates and subjects", () => {
    expect(
      problemOf(withChannels('[{ type: email, to: [a@example.com], subject: "Flight {flihgt}" }]')),
    ).toMatchObject({
      path: "rules[0].channels[0].subject",
      line: 3,
      message: "unknown placeholder `{flihgt}` in `subject`",
      hint: "did you mean `flight`?",
    });
    expect(
      problemOf(
        withChannels('[{ type: slack, url: "https://h.example.com/x", template: "{flight} {" }]'),
      ),
    ).toMatchObject({
      path: "rules[0].channels[0].template",
      message: "unmatched brace in `template`",
    });
    expect(
      channelsOf(
        '[{ type: slack, url: "https://h.example.com/x", template: "{label.booking} {{x}}" }]',
      )[0],
    ).toMatchObject({ template: "{label.booking} {{x}}" });
  });

  it("takes {recipient} in an unsubscribe URL, and no other placeholder", () => {
    const url = "https://app.example.com/u/{recipient}?list=kl";
    expect(
      channelsOf(
        `[{ type: email, to: [a@example.com, b@example.com], unsubscribe_url: "${url}" }]`,
      )[0],
    ).toMatchObject({ unsubscribeUrl: url });
    expect(
      problemOf(
        withChannels(
          '[{ type: email, to: [a@example.com], unsubscribe_url: "https://app.example.com/u?e={recipent}" }]',
        ),
      ),
    ).toMatchObject({
      path: "rules[0].channels[0].unsubscribe_url",
      line: 3,
      message: "unknown placeholder `{recipent}` in `unsubscribe_url`",
      hint: expect.stringContaining("{recipient}"),
    });
  });

  it("defaults a webhook to CloudEvents, unsigned", () => {
    expect(channelsOf("[{ type: webhook, url: https://x.example.com/h }]")[0]).toEqual({
      type: "webhook",
      name: "webhook",
      url: "https://x.example.com/h",
      format: "cloudevents",
      source: expect.anything(),
    });
  });

  it("takes one address or one channel without a list", () => {
    expect(channelsOf("{ type: email, to: anna@example.com }")[0]).toMatchObject({
      to: ["anna@example.com"],
    });
  });

  it("allows plain http only to hosts OUTBOUND_ALLOW names", () => {
    const outbound = readOutboundAllow({ OUTBOUND_ALLOW: "127.0.0.1,::1,hooks.internal" });
    for (const url of [
      "http://127.0.0.1:9000/h",
      "http://localhost/h",
      "http://[::1]:80/h",
      "http://hooks.internal/h",
    ]) {
      const text = withChannels(`[{ type: slack, url: "${url}" }]`);
      expect(load(text, {}, "t.yaml", outbound).rules[0]?.channels[0]).toMatchObject({ url });
    }
    expect(
      problemOf(withChannels('[{ type: webhook, url: "http://partner.example.com/h" }]')),
    ).toMatchObject({
      message: "`url` must be an https:// URL (it is http://partner.example.com)",
      hint: expect.stringContaining("OUTBOUND_ALLOW"),
    });
  });

  it("names channels: the type, numbered when several, or as given", () => {
    expect(
      channelsOf(
        "[{ type: console }, { type: slack, url: https://a.example.com }, { type: console, name: debug }, { type: console }]",
      ).map((c) => c.name),
    ).toEqual(["console-1", "slack", "debug", "console-3"]);
  });

  it("shares an anchored channel, with the source of each use", () => {
    const rule = oneRule(`x-ops: &ops { type: slack, url: https://hooks.example.com/a }
rules:
  - id: r
    channels: [*ops]
`);
    expect(rule.channels[0]).toMatchObject({ name: "slack", source: { line: 4, column: 16 } });
  });
});

describe("channel problems", () => {
  it("an unknown type, with a did-you-mean", () => {
    expect(problemOf(withChannels("[{ type: slak }]"))).toMatchObject({
      path: "rules[0].channels[0].type",
      line: 3,
      column: 24,
      ruleId: "r",
      message: "unknown channel type `slak`",
      hint: "did you mean `slack`?",
    });
    expect(problemOf(withChannels("[{ type: pager }]")).hint).toBe(
      "expected one of `slack`, `email`, `webhook`, `console`",
    );
  });

  it("a channel without a type, or not a mapping", () => {
    expect(problemOf(withChannels("[{ url: https://x.example.com }]"))).toMatchObject({
      message: "channel has no `type`",
      column: 16,
    });
    expect(problemOf(withChannels("[console]"))).toMatchObject({
      message: "a channel must be a mapping, not `console`",
    });
    expect(problemOf(withChannels("[]"))).toMatchObject({
      path: "rules[0].channels",
      message: "`channels` is empty: a rule needs at least one channel",
    });
  });

  it("a key of another type, or an unknown key", () => {
    expect(
      problemOf(withChannels("[{ type: slack, url: https://a.example.com, to: x@y.com }]")),
    ).toMatchObject({
      path: "rules[0].channels[0].to",
      message: "unknown key `to`",
      hint: "`to` is for email channels; slack channels take `url`, `token`, `channel`, `template`, `retry`",
    });
    expect(problemOf(withChannels("[{ type: console, url: https://a.example.com }]")).hint).toBe(
      "`url` is for slack channels; console channels take `retry`",
    );
    expect(problemOf(withChannels("[{ type: email, to: a@b.co, subjet: x }]")).hint).toBe(
      "did you mean `subject`?",
    );
  });

  it("a missing url or address", () => {
    expect(problemOf(withChannels("[{ type: slack }]"))).toMatchObject({
      message: "slack channel has no `url`",
      path: "rules[0].channels[0]",
    });
    expect(problemOf(withChannels("[{ type: webhook }]"))).toMatchObject({
      message: "webhook channel has no `url`",
    });
    expect(problemOf(withChannels("[{ type: email }]"))).toMatchObject({
      message: "email channel has no `to`",
    });
    expect(problemOf(withChannels("[{ type: email, to: [] }]"))).toMatchObject({
      message: "`to` is empty",
      path: "rules[0].channels[0].to",
    });
  });

  it.each([
    [
      "http://hooks.example.com/x",
      "`url` must be an https:// URL (it is http://hooks.example.com)",
    ],
    ["ftp://hooks.example.com/x", "`url` must be an https:// URL (it is ftp://…)"],
    ["not a url", "`url` is not a URL"],
    ["hooks.example.com/x", "`url` is not a URL"],
  ])("a bad url %s", (url, message) => {
    expect(problemOf(withChannels(`[{ type: slack, url: "${url}" }]`))).toMatchObject({
      path: "rules[0].channels[0].url",
      column: 36,
      message,
    });
  });

  it("a bad unsubscribe URL", () => {
    expect(
      problemOf(
        withChannels("[{ type: email, to: a@b.co, unsubscribe_url: http://example.com/u }]"),
      ),
    ).toMatchObject({
      path: "rules[0].channels[0].unsubscribe_url",
    });
  });

  it("never repeats a URL's path or a secret in a message", () => {
    const problems = problemsOf(
      withChannels(
        '[{ type: webhook, url: "http://h.example.com/secret-token", secret: "whsec_c2VjcmV0LXZhbHVl!" }]',
      ),
    );
    expect(problems).toHaveLength(2);
    for (const p of problems) expect(`${p.message} ${p.hint}`).not.toMatch(/secret-token|c2VjcmV0/);
  });

  it.each([
    ["anna"],
    ["anna@"],
    ["@example.com"],
    ["anna@example"],
    ["a b@example.com"],
    ["<anna@example.com>"],
  ])("a bad address %s", (address) => {
    expect(
      problemOf(withChannels(`[{ type: email, to: [ok@example.com, "${address}"] }]`)),
    ).toMatchObject({
      path: "rules[0].channels[0].to[1]",
      message: `\`${address}\` is not an email address`,
    });
  });

  it.each([
    ["abc", "`secret` must be `whsec_` followed by base64"],
    ["whsec_", "`secret` must be `whsec_` followed by base64"],
    ["whsec_not base64!", "`secret` must be `whsec_` followed by base64"],
    [`whsec_${Buffer.alloc(8).toString("base64")}`, "`secret` is shorter than 16 bytes"],
  ])("a bad webhook secret %s", (secret, message) => {
    expect(
      problemOf(
        withChannels(`[{ type: webhook, url: https://h.example.com, secret: "${secret}" }]`),
      ),
    ).toMatchObject({
      path: "rules[0].channels[0].secret",
      message,
    });
  });

  it("an unknown webhook format", () => {
    expect(
      problemOf(
        withChannels("[{ type: webhook, url: https://h.example.com, format: cloudevent }]"),
      ),
    ).toMatchObject({
      path: "rules[0].channels[0].format",
      message: "unknown webhook format `cloudevent`",
      hint: "did you mean `cloudevents`?",
    });
  });

  it("a bad or repeated name", () => {
    expect(problemOf(withChannels("[{ type: console, name: 'my channel' }]"))).toMatchObject({
      path: "rules[0].channels[0].name",
      message: "`my channel` is not a channel name",
    });
    expect(
      problemOf(withChannels("[{ type: console, name: a }, { type: console, name: a }]")),
    ).toMatchObject({
      path: "rules[0].channels[1].name",
      message: "two channels of this rule are named `a`",
      column: 67,
    });
    expect(
      problemOf(withChannels("[{ type: console, name: console-2 }, { type: console }]")),
    ).toMatchObject({
      path: "rules[0].channels[1]",
      message: "two channels of this rule are named `console-2`",
    });
  });
});

describe("slack channels through the Web API (token and channel)", () => {
  const TOKEN = "xoxb-1234-5678-Zq9Wv8Ux7Ts6";

  it("reads the bot token and the channel id, with a template and a retry", () => {
    expect(
      channelsOf(
        `[{ type: slack, token: "${TOKEN}", channel: C0123ABCDEF, template: "{flight}", retry: { delays: [1m], for: 1h } }]`,
      ),
    ).toEqual([
      {
        type: "slack",
        name: "slack",
        token: TOKEN,
        channelId: "C0123ABCDEF",
        template: "{flight}",
        retry: { delaysMs: [60_000], forMs: 3_600_000 },
        source: { file: "t.yaml", line: 3, column: 16 },
      },
    ]);
    // Private channels and direct messages have ids of their own kinds.
    expect(channelsOf(`{ type: slack, token: "${TOKEN}", channel: G01ABCDEF9 }`)[0]).toMatchObject({
      channelId: "G01ABCDEF9",
    });
  });

  it("records a variable read into the token as secret, and masks the token in output", () => {
    const text = withChannels(
      '[{ type: slack, token: "${OPS_BOT}", channel: C0123ABCDEF }, { type: slack, token: "xoxb-9999-literal-token", channel: C0123ABCDEF }]',
    );
    const values = { OPS_BOT: TOKEN };
    const loaded = load(text, values);
    expect(loaded.problems).toEqual([]);
    expect([...loaded.secretVariables]).toEqual(["OPS_BOT"]);
    const mask = maskerFor(loaded, { values, reserved: isDaemonVariable });
    expect(mask(`posted with ${TOKEN} and xoxb-9999-literal-token`)).toBe(
      "posted with [redacted] and [redacted]",
    );
  });

  it.each([
    [
      `{ type: slack, token: "${TOKEN}" }`,
      {
        path: "rules[0].channels[0]",
        message: "slack channel has `token` but no `channel`",
        hint: "add the Slack channel's id, e.g. channel: C0123ABCDEF (in Slack: the channel's details, at the bottom of About)",
      },
    ],
    [
      "{ type: slack, channel: C0123ABCDEF }",
      {
        path: "rules[0].channels[0]",
        message: "slack channel has `channel` but no `token`",
        hint: 'add the Slack app\'s bot token, e.g. token: ${SLACK_BOT_TOKEN} (docs/delivery.md, "Living messages")',
      },
    ],
    [
      `{ type: slack, url: "https://hooks.slack.com/services/T/B/x", token: "${TOKEN}", channel: C0123ABCDEF }`,
      {
        path: "rules[0].channels[0].token",
        line: 3,
        column: 78,
        message:
          "a slack channel takes `url` (an incoming webhook) or `token` and `channel` (the Web API), not both",
      },
    ],
    [
      '{ type: slack, url: "https://hooks.slack.com/services/T/B/x", channel: C0123ABCDEF }',
      {
        path: "rules[0].channels[0].channel",
        message:
          "a slack channel takes `url` (an incoming webhook) or `token` and `channel` (the Web API), not both",
      },
    ],
    [
      "{ type: slack }",
      {
        path: "rules[0].channels[0]",
        message: "slack channel has no `url`",
        hint: 'add the incoming-webhook URL, e.g. url: ${RULE_SLACK_URL}, or a bot token and channel id for living messages, e.g. token: ${SLACK_BOT_TOKEN} and channel: C0123ABCDEF (docs/delivery.md, "Living messages")',
      },
    ],
    [
      '{ type: slack, token: "xoxp-1234-5678-usertokenvalue", channel: C0123ABCDEF }',
      {
        path: "rules[0].channels[0].token",
        message: "`token` is not a Slack bot token (it starts with `xoxp-`)",
      },
    ],
    [
      '{ type: slack, token: "xoxb-", channel: C0123ABCDEF }',
      {
        path: "rules[0].channels[0].token",
        message: "`token` is not a Slack bot token (`xoxb-` and then letters, digits and dashes)",
      },
    ],
    [
      '{ type: slack, token: "Bearer abc.def.ghi", channel: C0123ABCDEF }',
      {
        path: "rules[0].channels[0].token",
        message: "`token` is not a Slack bot token (it starts with something other than `xoxb-`)",
      },
    ],
    [
      `{ type: slack, token: "${TOKEN}", channel: "#ops-gates" }`,
      {
        path: "rules[0].channels[0].channel",
        message:
          "`channel` must be a Slack channel id such as C0123ABCDEF, not a name (`#ops-gates`)",
        hint: "in Slack, open the channel's details: its id is at the bottom of About",
      },
    ],
    [
      `{ type: slack, token: "${TOKEN}", channel: c0123abcdef }`,
      {
        path: "rules[0].channels[0].channel",
        message:
          "`channel` must be a Slack channel id such as C0123ABCDEF, not a name (`c0123abcdef`)",
      },
    ],
    [
      `{ type: slack, token: "${TOKEN}", channel: "${TOKEN}" }`,
      {
        path: "rules[0].channels[0].channel",
        message: "`channel` holds a Slack token, not a channel id such as C0123ABCDEF",
      },
    ],
  ])("a problem: %s", (channel, problem) => {
    expect(problemOf(withChannels(`[${channel}]`))).toMatchObject(problem);
  });

  it("never repeats a token in a message", () => {
    const problems = problemsOf(
      withChannels(
        '[{ type: slack, token: "xoxp-1234-5678-usertokenvalue", channel: C0123ABCDEF }, { type: slack, token: "xoxb-ab cd-s3cr3tv4lue" , channel: C0123ABCDEF }]',
      ),
    );
    expect(problems).toHaveLength(2);
    for (const p of problems) {
      expect(`${p.message} ${p.hint}`).not.toMatch(/usertokenvalue|s3cr3tv4lue/);
    }
  });
});
