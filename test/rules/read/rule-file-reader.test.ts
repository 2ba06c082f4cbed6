// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the syntax under test
/**
 * The file and rule levels of the loader: the top-level mapping, syntax errors, rule
 * keys, ids, labels, noise control — each problem with its path, position, rule id
 * and hint.
 */
import { describe, expect, it } from "vitest";
import { formatRuleProblem } from "../../../src/errors.js";
import { load, oneRule, problemOf, problemsOf, ruleWith } from "./rule-text.js";

describe("the top level", () => {
  it("takes `rules` and ignores x- keys", () => {
    const result = load(
      "x-anything: { whatever: [1, 2] }\nrules:\n  - id: a\n    channels: [{ type: console }]\n",
    );
    expect(result.problems).toEqual([]);
    expect(result.rules.map((r) => r.id)).toEqual(["a"]);
    expect(result.files).toEqual(["t.yaml"]);
  });

  it("takes an empty rules list", () => {
    expect(load("rules: []\n")).toMatchObject({ rules: [], problems: [] });
  });

  it("refuses another top-level key, with a did-you-mean", () => {
    expect(problemsOf("rules: []\nrule: []\nextra: 1\n")).toEqual([
      {
        file: "t.yaml",
        line: 2,
        column: 1,
        path: "rule",
        message: "unknown top-level key `rule`",
        hint: "did you mean `rules`?",
      },
      expect.objectContaining({
        line: 3,
        column: 1,
        path: "extra",
        hint: expect.stringContaining("x-"),
      }),
    ]);
  });

  it("needs a `rules` list", () => {
    expect(problemOf("x-a: 1\n")).toMatchObject({
      line: 1,
      column: 1,
      path: "",
      message: "the file has no `rules` list",
    });
    expect(problemOf("rules: 3\n")).toMatchObject({
      line: 1,
      column: 8,
      path: "rules",
      message: "`rules` must be a list of rules",
    });
    expect(problemOf("rules:\n")).toMatchObject({ line: 1, column: 1, path: "rules" });
  });

  it("needs a mapping at the top", () => {
    expect(problemOf("- id: a\n")).toMatchObject({
      line: 1,
      column: 1,
      path: "",
      message: "a rule file must be a mapping, not a list",
    });
    expect(problemOf("just text\n")).toMatchObject({
      message: "a rule file must be a mapping, not `just text`",
    });
  });

  it("reports an empty file as a whole", () => {
    expect(problemOf("")).toMatchObject({
      line: 0,
      column: 0,
      path: "",
      message: "the file is empty",
    });
    expect(problemOf("# nothing here\n")).toMatchObject({ line: 0, message: "the file is empty" });
  });
});

describe("a rule", () => {
  it("is a mapping", () => {
    expect(problemOf("rules:\n  - just-a-name\n")).toMatchObject({
      line: 2,
      column: 5,
      path: "rules[0]",
      message: "a rule must be a mapping, not `just-a-name`",
    });
  });

  it("needs an id", () => {
    expect(problemOf("rules:\n  - channels: [{ type: console }]\n")).toMatchObject({
      line: 2,
      column: 5,
      path: "rules[0]",
      message: "rule has no `id`",
    });
  });

  it.each([
    ["-starts-with-dash", "is not a valid rule id"],
    ["has space", "is not a valid rule id"],
    ["ünïcode", "is not a valid rule id"],
    ["x".repeat(129), "is longer than 128 characters"],
  ])("refuses the id %j", (id, message) => {
    const problem = problemOf(`rules:\n  - id: "${id}"\n    channels: [{ type: console }]\n`);
    expect(problem).toMatchObject({ line: 2, column: 9, path: "rules[0].id", ruleId: id });
    expect(problem.message).toContain(message);
  });

  it.each([["a"], ["A.b_c-d"], ["0"], ["x".repeat(128)]])("takes the id %j", (id) => {
    expect(oneRule(`rules:\n  - id: "${id}"\n    channels: [{ type: console }]\n`).id).toBe(id);
  });

  it("takes a numeric id as written", () => {
    expect(oneRule("rules:\n  - id: 0601\n    channels: [{ type: console }]\n").id).toBe("0601");
    expect(
      problemOf("rules:\n  - wait: 1\n    id: 0601\n    channels: [{ type: console }]\n").ruleId,
    ).toBe("0601");
  });

  it("refuses an id that is not text", () => {
    expect(problemOf("rules:\n  - id: [a]\n    channels: [{ type: console }]\n")).toMatchObject({
      line: 2,
      column: 9,
      message: "`id` must be a single value, not a list",
    });
    expect(problemOf("rules:\n  - id:\n    channels: [{ type: console }]\n")).toMatchObject({
      line: 2,
      column: 5, // the key: there is no value to point at
      message: "`id` has no value",
    });
  });

  it("refuses unknown keys with a did-you-mean, and names the rule even before its id", () => {
    expect(
      problemsOf("rules:\n  - grup_wait: 1m\n    id: pier-d\n    channels: [{ type: console }]\n"),
    ).toEqual([
      {
        file: "t.yaml",
        line: 2,
        column: 5,
        ruleId: "pier-d",
        path: "rules[0].grup_wait",
        message: "unknown key `grup_wait`",
        hint: "did you mean `group_wait`?",
      },
    ]);
  });

  it("says where a flight criterion written on the rule belongs", () => {
    expect(problemOf(ruleWith("pier: D")).hint).toBe(
      "`pier` is a flight criterion: put it under `flights:`",
    );
    expect(problemOf(ruleWith("kind: gate")).hint).toBe("`kind` belongs in a `changes` entry");
    expect(problemOf(ruleWith("colour: red")).hint).toContain("expected one of `id`");
  });

  it("needs channels", () => {
    expect(problemOf("rules:\n  - id: r\n")).toMatchObject({
      line: 2,
      column: 5,
      ruleId: "r",
      path: "rules[0]",
      message: "rule has no `channels`",
    });
  });

  it("takes a description as text", () => {
    expect(oneRule(ruleWith("description: Anna's flight")).description).toBe("Anna's flight");
    expect(problemOf(ruleWith("description: [a]"))).toMatchObject({ path: "rules[0].description" });
  });

  it("gets neutral defaults", () => {
    const rule = oneRule("rules:\n  - id: r\n    channels: [{ type: console }]\n");
    expect(rule).toEqual({
      id: "r",
      labels: {},
      source: { file: "t.yaml", line: 2, column: 9 },
      flights: {},
      channels: [
        { type: "console", name: "console", source: { file: "t.yaml", line: 3, column: 16 } },
      ],
      groupWaitMs: 0,
      coolDownMs: 0,
    });
  });

  it("with problems is left out while the file's other rules stay", () => {
    const result = load(`rules:
  - id: good-1
    channels: [{ type: console }]
  - id: bad
    channels: [{ type: consol }]
  - id: good-2
    channels: [{ type: console }]
`);
    expect(result.rules.map((r) => r.id)).toEqual(["good-1", "good-2"]);
    expect(result.problems).toHaveLength(1);
  });

  it("reports every problem, in position order", () => {
    const problems = problemsOf(`rules:
  - id: a
    group_wat: 1m
    channels: [{ type: slak }]
  - id: b
    flights: { pier: DDD, gate: "!" }
    channels: [{ type: console }]
`);
    expect(problems.map((p) => [p.line, p.column, p.ruleId])).toEqual([
      [3, 5, "a"],
      [4, 24, "a"],
      [6, 22, "b"],
      [6, 33, "b"],
    ]);
  });
});

describe("enabled", () => {
  it("false keeps the rule out, validated, and lists it as disabled", () => {
    const result = load(
      "rules:\n  - id: off\n    enabled: false\n    channels: [{ type: console }]\n  - id: on\n    enabled: true\n    channels: [{ type: console }]\n",
    );
    expect(result.rules.map((r) => r.id)).toEqual(["on"]);
    expect(result.disabled).toEqual(["off"]);
    expect(result.problems).toEqual([]);
  });

  it("does not excuse a disabled rule's problems", () => {
    expect(
      problemOf("rules:\n  - id: off\n    enabled: false\n    channels: [{ type: nope }]\n"),
    ).toMatchObject({ ruleId: "off", line: 4 });
  });

  it("must be a boolean", () => {
    expect(problemOf(ruleWith("enabled: maybe"))).toMatchObject({
      path: "rules[0].enabled",
      message: "`enabled` must be true or false, not `maybe`",
    });
    expect(problemOf(ruleWith("enabled: 1"))).toMatchObject({
      message: "`enabled` must be true or false, not 1",
    });
  });
});

describe("labels", () => {
  it("are stored as text: strings, numbers as written, booleans", () => {
    expect(
      oneRule(
        ruleWith(
          "labels: { passenger: anna, booking: 0042, vip: true, ratio: 1.50, team.name-x_y: ops }",
        ),
      ).labels,
    ).toEqual({
      passenger: "anna",
      booking: "0042",
      vip: "true",
      ratio: "1.50",
      "team.name-x_y": "ops",
    });
  });

  it("may be named like Object's own properties", () => {
    const labels = oneRule(ruleWith('labels: { __proto__: x, constructor: "y" }')).labels;
    expect(Object.entries(labels)).toEqual([
      ["__proto__", "x"],
      ["constructor", "y"],
    ]);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });

  it("refuse a bad name, a missing value and a structured value", () => {
    expect(
      problemsOf(ruleWith('labels: { "a b": x, empty: , list: [1], map: { a: 1 }, nul: null }')),
    ).toEqual([
      expect.objectContaining({
        path: "rules[0].labels.a b",
        message: "`a b` is not a label name",
        column: 15,
      }),
      expect.objectContaining({
        path: "rules[0].labels.empty",
        message: "label `empty` has no value",
      }),
      expect.objectContaining({
        path: "rules[0].labels.list",
        message: "label `list` must be a single value, not a list",
      }),
      expect.objectContaining({
        path: "rules[0].labels.map",
        message: "label `map` must be a single value, not a mapping",
      }),
      expect.objectContaining({ path: "rules[0].labels.nul", message: "label `nul` has no value" }),
    ]);
  });

  it("must be a mapping", () => {
    expect(problemOf(ruleWith("labels: [a]"))).toMatchObject({
      path: "rules[0].labels",
      message: "`labels` must be a mapping, not a list",
    });
  });
});

describe("noise control", () => {
  it("reads durations", () => {
    const rule = oneRule(
      ruleWith("group_wait: 1m30s\ncool_down: 30m\nflapping: { window: 10m, action: correct }"),
    );
    expect(rule).toMatchObject({
      groupWaitMs: 90_000,
      coolDownMs: 1_800_000,
      flapping: { windowMs: 600_000, action: "correct" },
    });
    expect(oneRule(ruleWith("flapping: { window: 1m, action: suppress }")).flapping).toEqual({
      windowMs: 60_000,
      action: "suppress",
    });
  });

  it("refuses a bare number, naming the units", () => {
    expect(problemOf(ruleWith("group_wait: 90"))).toMatchObject({
      path: "rules[0].group_wait",
      line: 4,
      column: 17,
      ruleId: "r",
      message: "`90` has no unit",
      hint: "durations need a unit: say 90s or 90m (units ms, s, m, h, d)",
    });
  });

  it("refuses what is not a duration", () => {
    expect(problemOf(ruleWith("cool_down: soon"))).toMatchObject({
      path: "rules[0].cool_down",
      message: "`soon` is not a duration",
    });
    expect(problemOf(ruleWith("cool_down: -5m"))).toMatchObject({
      message: "`-5m` is not a duration",
    });
  });

  it("keeps group_wait within a day", () => {
    expect(problemOf(ruleWith("group_wait: 25h"))).toMatchObject({
      message: "`group_wait` is longer than a day",
    });
    expect(oneRule(ruleWith("group_wait: 1d")).groupWaitMs).toBe(86_400_000);
  });

  it("needs both flapping keys, a known action and a sensible window", () => {
    expect(problemOf(ruleWith("flapping: { window: 10m }"))).toMatchObject({
      path: "rules[0].flapping",
      message: "`flapping` needs `action`",
    });
    expect(problemOf(ruleWith("flapping: { action: correct }"))).toMatchObject({
      message: "`flapping` needs `window`",
    });
    expect(problemOf(ruleWith("flapping: { window: 10m, action: supress }"))).toMatchObject({
      path: "rules[0].flapping.action",
      message: "unknown flapping action `supress`",
      hint: "did you mean `suppress`?",
    });
    expect(problemOf(ruleWith("flapping: { window: 0s, action: correct }"))).toMatchObject({
      path: "rules[0].flapping.window",
    });
    expect(
      problemOf(ruleWith("flapping: { window: 10m, action: correct, windw: 1 }")),
    ).toMatchObject({ hint: "did you mean `window`?" });
    expect(problemOf(ruleWith("flapping: on"))).toMatchObject({
      message: "`flapping` must be a mapping, not `on`",
    });
    // Both a bad window and a bad action are reported, not just the first.
    expect(
      problemsOf(ruleWith("flapping: { window: 0s, action: ignore }")).map((p) => p.path),
    ).toEqual(["rules[0].flapping.window", "rules[0].flapping.action"]);
  });
});

describe("duplicate ids in one file", () => {
  it("are reported at the second, as docs/rules.md shows", () => {
    const result = load(
      "rules:\n  - id: anna\n    channels: [{ type: console }]\n  - id: anna\n    channels: [{ type: console }]\n",
      {},
      "rules/passenger.yaml",
    );
    expect(result.problems.map(formatRuleProblem)).toEqual([
      "rules/passenger.yaml:4:9: duplicate rule id `anna` (first defined at rules/passenger.yaml:2:9) — rule ids must be unique over all files",
    ]);
    expect(result.problems[0]?.path).toBe("rules[1].id");
    expect(result.rules.map((r) => r.source.line)).toEqual([2]);
  });

  it("count disabled rules too", () => {
    expect(
      problemsOf(
        "rules:\n  - id: a\n    enabled: false\n    channels: [{ type: console }]\n  - id: a\n    channels: [{ type: console }]\n",
      ),
    ).toHaveLength(1);
  });
});

describe("formatted problems", () => {
  it("read as in docs/rules.md", () => {
    const text = `rules:
  - id: pier-d
    flights: { pier: D }
    changes: [gat]
    grup_wait: 1m
    channels:
      - type: email
        to: \${RULE_ANNA_EMAIL}
        subject: "tok \${FLIGHT_API_TOKEN}"
`;
    expect(problemsOf(text, {}, "rules/ops.yaml").map(formatRuleProblem)).toEqual([
      "rules/ops.yaml:4:15 rule `pier-d`: unknown change kind `gat` — did you mean `gate`?",
      "rules/ops.yaml:5:5 rule `pier-d`: unknown key `grup_wait` — did you mean `group_wait`?",
      "rules/ops.yaml:8:13 rule `pier-d`: rule variable `RULE_ANNA_EMAIL` is not set — set it, or write ${RULE_ANNA_EMAIL:-default}",
      "rules/ops.yaml:9:18 rule `pier-d`: `${FLIGHT_API_TOKEN}` is a flightwatch setting, which rule files may not read — give the rule a variable of its own (a name in the --vars-file, or RULE_… in the environment); settings and their secrets stay with the daemon",
    ]);
  });
});
