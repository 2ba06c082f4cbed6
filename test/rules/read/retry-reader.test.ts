// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the syntax under test
/** A channel's `retry`: its forms, its defaults, and each way it can be wrong. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_RETRY_ATTEMPTS } from "../../../src/rules/read/retry-reader.js";
import {
  attemptsOf,
  DEFAULT_RETRY_SCHEDULE,
  describeSchedule,
} from "../../../src/rules/retry-schedule.js";
import type { RetrySchedule } from "../../../src/rules/rule.js";
import { oneRule, problemOf, problemsOf } from "./rule-text.js";

const H = 3_600_000;
/** A console channel on line 3 whose `retry` value starts at column 40. */
const withRetry = (retry: string): string =>
  `rules:\n  - id: r\n    channels: [{ type: console, retry: ${retry} }]\n`;
const retryOf = (retry: string, env: Record<string, string> = {}): RetrySchedule | undefined =>
  oneRule(withRetry(retry), env).channels[0]?.retry;
/** A webhook written out as a block; `retry:` on line 6, its keys from line 7 at column 11. */
const block = (...lines: string[]): string =>
  [
    "rules:",
    "  - id: r",
    "    channels:",
    "      - type: webhook",
    "        url: https://partner.example.com/h",
    "        retry:",
    ...lines.map((l) => `          ${l}`),
    "",
  ].join("\n");
const NO_RETRIES: RetrySchedule = { delaysMs: [], forMs: 24 * H };

describe("retry", () => {
  it("reads delays and for, for the channel it is written in", () => {
    const rule = oneRule(block("delays: [10s, 1m, 5m, 30m]", "for: 12h"));
    expect(rule.channels).toEqual([
      {
        type: "webhook",
        name: "webhook",
        url: "https://partner.example.com/h",
        format: "cloudevents",
        retry: { delaysMs: [10_000, 60_000, 300_000, 1_800_000], forMs: 12 * H },
        source: { file: "t.yaml", line: 4, column: 9 },
      },
    ]);
    expect(describeSchedule(rule.channels[0]?.retry as RetrySchedule)).toBe(
      "10s, 1m, 5m, 30m, then every 30m up to 12h (27 attempts)",
    );
  });

  it("is taken by every channel type", () => {
    const rule = oneRule(`rules:
  - id: r
    channels:
      - { type: slack, url: https://hooks.example.com/a, retry: { for: 1h } }
      - { type: email, to: a@example.com, retry: { for: 2h } }
      - { type: webhook, url: https://partner.example.com/h, retry: { for: 3h } }
      - { type: console, retry: { for: 4h } }
`);
    expect(rule.channels.map((c) => c.retry?.forMs)).toEqual([H, 2 * H, 3 * H, 4 * H]);
  });

  it("defaults what is left out: the default delays, for 24h", () => {
    expect(retryOf("{ for: 12h }")).toEqual({ ...DEFAULT_RETRY_SCHEDULE, forMs: 12 * H });
    expect(retryOf("{ delays: [1m, 10m] }")).toEqual({
      delaysMs: [60_000, 600_000],
      forMs: 24 * H,
    });
    expect(retryOf("{}")).toEqual(DEFAULT_RETRY_SCHEDULE);
    expect(oneRule(withRetry("{}").replace(", retry: {}", "")).channels[0]).not.toHaveProperty(
      "retry",
    );
  });

  it("no retries: delays: [] or none, one attempt", () => {
    for (const retry of ["{ delays: [] }", "none", "None", '" none "', '"${RETRY}"']) {
      const schedule = retryOf(retry, { RETRY: "none" });
      expect(schedule).toEqual(NO_RETRIES);
      expect(attemptsOf(schedule as RetrySchedule)).toBe(1);
    }
    expect(retryOf("{ delays: [], for: 1h }")).toEqual({ delaysMs: [], forMs: H });
  });

  it("takes one delay without a list, zero delays, and the largest bounds", () => {
    expect(retryOf("{ delays: 30s, for: 1h }")).toEqual({ delaysMs: [30_000], forMs: H });
    expect(retryOf("{ delays: [0s, 1h30m] }")?.delaysMs).toEqual([0, 1.5 * H]);
    expect(retryOf("{ delays: [24h], for: 7d }")).toEqual({ delaysMs: [24 * H], forMs: 168 * H });
  });

  it("takes a schedule of exactly the most attempts, not one more", () => {
    const most = retryOf(`{ delays: [1m], for: ${MAX_RETRY_ATTEMPTS - 1}m }`);
    expect(attemptsOf(most as RetrySchedule)).toBe(MAX_RETRY_ATTEMPTS);
    expect(problemsOf(withRetry(`{ delays: [1m], for: ${MAX_RETRY_ATTEMPTS}m }`))).toHaveLength(1);
  });

  it("shares an anchored schedule, merged or whole", () => {
    const rule = oneRule(`x-patient: &patient { delays: [1m, 1h], for: 3d }
rules:
  - id: r
    channels:
      - { type: console, name: a, retry: *patient }
      - { type: console, name: b, retry: { <<: *patient, for: 1d } }
`);
    expect(rule.channels.map((c) => c.retry)).toEqual([
      { delaysMs: [60_000, H], forMs: 72 * H },
      { delaysMs: [60_000, H], forMs: 24 * H },
    ]);
  });

  it("accepts a schedule exactly when it gives a retry and at most the most attempts", () => {
    const delay = fc.oneof(
      fc.constantFrom("0s", "1s", "1m", "24h"),
      fc.integer({ min: 1, max: 90 }).map((n) => `${n}m`),
    );
    const within = fc.integer({ min: 1, max: 7 * 24 }).map((n) => `${n}h`);
    fc.assert(
      fc.property(fc.array(delay, { minLength: 1, maxLength: 4 }), within, (delays, span) => {
        const problems = problemsOf(withRetry(`{ delays: [${delays.join(", ")}], for: ${span} }`));
        const retries = retriesOf(delays.map(ms), ms(span), MAX_RETRY_ATTEMPTS);
        expect(problems.length === 0).toBe(retries >= 1 && retries < MAX_RETRY_ATTEMPTS);
      }),
    );
  });
});

/** Milliseconds of `<n><unit>` (the forms the property writes). */
function ms(text: string): number {
  const n = Number.parseInt(text, 10);
  return n * (text.endsWith("h") ? H : text.endsWith("m") ? 60_000 : 1000);
}

/** Retries by walking the schedule (independently of nominalDelay), counting up to `cap`. */
function retriesOf(delays: number[], forMs: number, cap: number): number {
  let elapsed = 0;
  for (let n = 0; n < cap; n++) {
    const delay = delays[Math.min(n, delays.length - 1)] as number;
    if (n >= delays.length && delay === 0) return n;
    elapsed += delay;
    if (elapsed > forMs) return n;
  }
  return cap;
}

describe("retry problems", () => {
  const at = (path: string, line: number, column: number) => ({
    file: "t.yaml",
    ruleId: "r",
    path: `rules[0].channels[0].retry${path}`,
    line,
    column,
  });

  it.each([
    ["3", "3"],
    ["often", "`often`"],
    ["false", "false"],
    ["", "nothing"],
  ])("a retry that is neither a mapping nor none: %s", (value, shown) => {
    expect(problemOf(withRetry(value))).toEqual({
      ...at("", 3, value === "" ? 33 : 40),
      message: `\`retry\` must be a mapping or \`none\`, not ${shown}`,
      hint: "e.g. retry: { delays: [10s, 1m, 5m, 30m], for: 12h }, or retry: none",
    });
  });

  it("a list of delays where the mapping belongs", () => {
    expect(problemOf(withRetry("[10s, 1m]"))).toEqual({
      ...at("", 3, 40),
      message: "`retry` must be a mapping or `none`, not a list",
      hint: "put the list under `delays`: retry: { delays: [10s, 1m] }",
    });
  });

  it("an unknown key, with a did-you-mean or what to write instead", () => {
    expect(problemOf(block("delay: [10s, 1m]", "for: 12h"))).toEqual({
      ...at(".delay", 7, 11),
      message: "unknown key `delay`",
      hint: "did you mean `delays`?",
    });
    expect(problemOf(block("max_attempts: 5"))).toEqual({
      ...at(".max_attempts", 7, 11),
      message: "unknown key `max_attempts`",
      hint: "the attempts follow from `delays` and `for`; e.g. retry: { delays: [10s, 1m, 5m, 30m], for: 12h }, or retry: none",
    });
    expect(problemOf(block("until: 1h")).hint).toBe("expected one of `delays`, `for`");
  });

  it.each([
    ["10", "`10` has no unit", "durations need a unit: say 10s or 10m (units ms, s, m, h, d)"],
    [
      "soon",
      "`soon` is not a duration",
      "write a number and a unit, e.g. 500ms, 30s, 15m, 3h, 1d, or combined 1h30m",
    ],
    [
      "-5s",
      "`-5s` is not a duration",
      "write a number and a unit, e.g. 500ms, 30s, 15m, 3h, 1d, or combined 1h30m",
    ],
    [
      "25h",
      "a delay of 25h is longer than a day",
      "retry at least daily; for a long outage let `for` cover it, e.g. delays: [1m, 1h], for: 3d",
    ],
  ])("a bad delay %s", (delay, message, hint) => {
    expect(problemOf(block(`delays: [10s, ${delay}]`))).toEqual({
      ...at(".delays[1]", 7, 25),
      message,
      hint,
    });
  });

  it("delays that are not a list", () => {
    const hint = "e.g. delays: [10s, 1m, 5m, 30m]; delays: [] for no retries";
    expect(problemOf(block("delays: { first: 10s }"))).toEqual({
      ...at(".delays", 7, 19),
      message: "`delays` must be a list of durations, not a mapping",
      hint,
    });
    expect(problemOf(block("delays:", "for: 1h"))).toEqual({
      ...at(".delays", 7, 11),
      message: "`delays` must be a list of durations, not nothing",
      hint,
    });
  });

  it.each([
    ["0s", "for a single attempt write retry: none; e.g. for: 12h"],
    ["8d", "e.g. for: 3d"],
  ])("a for out of bounds: %s", (span, hint) => {
    expect(problemOf(block(`for: ${span}`))).toEqual({
      ...at(".for", 7, 16),
      message: "`for` must be more than 0 and at most 7 days",
      hint,
    });
  });

  it("a for without a unit", () => {
    expect(problemOf(block("for: 12"))).toEqual({
      ...at(".for", 7, 16),
      message: "`12` has no unit",
      hint: "durations need a unit: say 12s or 12m (units ms, s, m, h, d)",
    });
  });

  it("a for shorter than the first delay", () => {
    expect(problemOf(block("delays: [1h]", "for: 30m"))).toEqual({
      ...at(".for", 8, 16),
      message: "`for` is shorter than the first delay (1h): no retry would be made",
      hint: "make `for` longer, or write retry: none for a single attempt",
    });
  });

  it("a schedule of too many attempts", () => {
    expect(problemOf(block("delays: [1s, 10s]", "for: 12h"))).toEqual({
      ...at("", 7, 11),
      message: `\`retry\` would make more than ${MAX_RETRY_ATTEMPTS} attempts (every 10s for up to 12h)`,
      hint: "the last delay repeats until `for` is used up: make it longer (e.g. 1h) or `for` shorter",
    });
  });

  it("a bad delay and a bad for at once, and the rule is not loaded", () => {
    const load = problemsOf(block("delays: [2d]", "for: 0s"));
    expect(load.map((p) => [p.path, p.line, p.column])).toEqual([
      ["rules[0].channels[0].retry.delays[0]", 7, 20],
      ["rules[0].channels[0].retry.for", 8, 16],
    ]);
  });

  it("a variable in retry: unset, or not none", () => {
    expect(problemOf(withRetry('"${RULE_RETRY}"'))).toEqual({
      ...at("", 3, 40),
      message: "rule variable `RULE_RETRY` is not set",
      hint: "set it, or write ${RULE_RETRY:-default}",
    });
    expect(problemOf(withRetry('"${RULE_RETRY}"'), { RULE_RETRY: "off" })).toEqual({
      ...at("", 3, 40),
      message: "`retry` must be a mapping or `none`, not `off`",
      hint: "e.g. retry: { delays: [10s, 1m, 5m, 30m], for: 12h }, or retry: none",
    });
  });
});
