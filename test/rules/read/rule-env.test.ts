// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the syntax under test
/**
 * `${NAME}` in rule files: rule variables only (a vars-file name or RULE_…, never the
 * daemon's settings), values only, before validation, problems at the value.
 */
import { describe, expect, it } from "vitest";
import { load, oneRule, problemOf, ruleWith } from "./rule-text.js";

const slack = (url: string) =>
  `rules:\n  - id: r\n    channels:\n      - type: slack\n        url: ${url}\n`;

describe("variables in rule files", () => {
  it("substitute a set variable", () => {
    const rule = oneRule(slack("${OPS_SLACK_WEBHOOK_URL}"), {
      OPS_SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/A/B/C",
    });
    expect(rule.channels[0]).toMatchObject({ url: "https://hooks.slack.com/services/A/B/C" });
  });

  it("use the default when the variable is unset or empty", () => {
    const text = ruleWith('labels: { team: "${RULE_TEAM:-ops}", who: "${WHO:-nobody}" }');
    expect(oneRule(text, { WHO: "" }).labels).toEqual({ team: "ops", who: "nobody" });
    expect(oneRule(text, { WHO: "", RULE_TEAM: "pier-d" }).labels.team).toBe("pier-d");
  });

  it("write $$ as $", () => {
    expect(
      oneRule(ruleWith('description: "costs $$5, $$${X} or $${X}"'), { X: "x" }).description,
    ).toBe("costs $5, $x or ${X}");
  });

  it("name a missing variable at its value, with the rule and the docs' hint", () => {
    const text =
      'rules:\n  - id: anna\n    channels:\n      - type: email\n        to: ["${RULE_ANNA_EMAIL}"]\n';
    expect(problemOf(text)).toEqual({
      file: "t.yaml",
      line: 5,
      column: 14,
      ruleId: "anna",
      path: "rules[0].channels[0].to[0]",
      message: "rule variable `RULE_ANNA_EMAIL` is not set",
      hint: "set it, or write ${RULE_ANNA_EMAIL:-default}",
    });
  });

  it.each([
    ["FLIGHT_API_TOKEN", 'subject: "tok ${FLIGHT_API_TOKEN}"'],
    ["REDIS_URL", 'subject: "${REDIS_URL}"'],
    ["SMTP_URL", 'template: "mail via ${SMTP_URL:-none}"'],
  ])("refuse the daemon's %s with file, line and variable, even when defined", (name, line) => {
    const text = `rules:\n  - id: leak\n    channels:\n      - type: email\n        to: [a@example.com]\n        ${line}\n`;
    const problem = {
      file: "t.yaml",
      line: 6,
      ruleId: "leak",
      message: `\`\${${name}}\` is a flightwatch setting, which rule files may not read`,
    };
    expect(problemOf(text)).toMatchObject(problem);
    // A vars file is refused for defining it (config/rule-variables.ts); here as if it had.
    expect(problemOf(text, { [name]: "hunter2-secret-value" })).toMatchObject(problem);
  });

  it("refuse a name that is no rule variable, set or not, with the hint to fix it", () => {
    const text = ruleWith('description: "home ${HOME_DIR:-/home}"');
    expect(problemOf(text)).toMatchObject({
      line: 4,
      message: "`${HOME_DIR}` is not a rule variable",
      hint: "define it in the --vars-file, or name it RULE_HOME_DIR in the environment",
    });
  });

  it("record the variables read into a URL or secret, not those of other fields", () => {
    const secret = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;
    const text = `rules:
  - id: r
    description: "\${RULE_TEAM}"
    channels:
      - { type: webhook, url: "https://\${RULE_HOST}/hook?key=\${RULE_KEY_VALUE}", secret: "\${SIGNING}" }
      - { type: slack, url: "\${RULE_SLACK}" }
      - { type: email, to: ["\${RULE_TO}"], unsubscribe_url: "https://\${RULE_HOST}/u/{recipient}" }
`;
    const loaded = load(text, {
      RULE_TEAM: "ops",
      RULE_HOST: "partner.example.com",
      RULE_KEY_VALUE: "k",
      SIGNING: secret,
      RULE_SLACK: "https://hooks.slack.com/services/A/B/C",
      RULE_TO: "a@example.com",
    });
    expect(loaded.problems).toEqual([]);
    expect([...loaded.secretVariables].sort()).toEqual([
      "RULE_HOST",
      "RULE_KEY_VALUE",
      "RULE_SLACK",
      "SIGNING",
    ]);
  });

  it("report a malformed reference", () => {
    expect(problemOf(ruleWith('description: "${OOPS"'))).toMatchObject({
      path: "rules[0].description",
      message: "unterminated `${` in `${OOPS`",
    });
    expect(problemOf(ruleWith('description: "${1X}"')).message).toBe(
      "`${1X}` is not a variable reference",
    );
  });

  it("validate the substituted value like any other", () => {
    expect(problemOf(ruleWith("flights: { terminal: '${T}' }"), { T: "abc" })).toMatchObject({
      path: "rules[0].flights.terminal",
      message: "a terminal must be a whole number from 1, not `abc`",
    });
    expect(
      oneRule(ruleWith("flights: { terminal: '${T}' }"), { T: "2" }).flights.terminals,
    ).toEqual([2]);
    expect(problemOf(slack("${URL}"), { URL: "http://example.com" }).message).toContain(
      "must be an https:// URL",
    );
    expect(oneRule(ruleWith("enabled: '${ON}'"), { ON: "true" }).id).toBe("r");
    expect(problemOf(ruleWith("group_wait: '${WAIT}'"), { WAIT: "90" }).message).toBe(
      "`90` has no unit",
    );
    expect(
      oneRule(ruleWith("flights: { flight: '${FLIGHT}' }"), { FLIGHT: "kl 0601" }).flights.flights,
    ).toEqual(["KL601"]);
  });

  it("apply to values only, never to keys", () => {
    expect(problemOf(ruleWith("labels:\n  ${KEY}: x"), { KEY: "team" })).toMatchObject({
      message: "`${KEY}` is not a label name",
    });
  });

  it("leave numbers and booleans alone (they are not text)", () => {
    expect(oneRule(ruleWith("labels: { n: 5, b: false }"), {}).labels).toEqual({
      n: "5",
      b: "false",
    });
  });

  it("is not reported for an unused x- anchor", () => {
    expect(oneRule(`x-unused: { url: "\${NOT_SET}" }\n${ruleWith("")}`).id).toBe("r");
  });
});
