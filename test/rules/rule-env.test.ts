// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the syntax under test
/** `${NAME}` in rule files: values only, before validation, problems at the value. */
import { describe, expect, it } from "vitest";
import { oneRule, problemOf, ruleWith } from "./rule-text.js";

const slack = (url: string) =>
  `rules:\n  - id: r\n    channels:\n      - type: slack\n        url: ${url}\n`;

describe("environment variables in rule files", () => {
  it("substitute a set variable", () => {
    const rule = oneRule(slack("${OPS_SLACK_WEBHOOK_URL}"), {
      OPS_SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/A/B/C",
    });
    expect(rule.channels[0]).toMatchObject({ url: "https://hooks.slack.com/services/A/B/C" });
  });

  it("use the default when the variable is unset or empty", () => {
    const text = ruleWith('labels: { team: "${TEAM:-ops}", who: "${WHO:-nobody}" }');
    expect(oneRule(text, { WHO: "" }).labels).toEqual({ team: "ops", who: "nobody" });
    expect(oneRule(text, { TEAM: "pier-d" }).labels.team).toBe("pier-d");
  });

  it("write $$ as $", () => {
    expect(
      oneRule(ruleWith('description: "costs $$5, $$${X} or $${X}"'), { X: "x" }).description,
    ).toBe("costs $5, $x or ${X}");
  });

  it("name a missing variable at its value, with the rule and the docs' hint", () => {
    const text =
      'rules:\n  - id: anna\n    channels:\n      - type: email\n        to: ["${ANNA_EMAIL}"]\n';
    expect(problemOf(text)).toEqual({
      file: "t.yaml",
      line: 5,
      column: 14,
      ruleId: "anna",
      path: "rules[0].channels[0].to[0]",
      message: "environment variable `ANNA_EMAIL` is not set",
      hint: "set it, or write ${ANNA_EMAIL:-default}",
    });
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
