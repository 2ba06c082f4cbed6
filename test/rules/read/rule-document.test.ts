/**
 * Reading the file itself: YAML and JSON syntax errors with their positions, strict
 * JSON for .json files, anchors, aliases and merge keys.
 */
import { describe, expect, it } from "vitest";
import { load, oneRule, problemOf, problemsOf } from "./rule-text.js";

describe("syntax errors", () => {
  it("give the position yaml found", () => {
    const problem = problemOf("rules:\n  - id: a\n    channels: [{ type: console }\n");
    expect(problem.message).toMatch(/^invalid YAML: /);
    expect(problem.line).toBeGreaterThan(0);
    expect(problem.column).toBeGreaterThan(0);
  });

  it("report a duplicate key where it is repeated", () => {
    expect(problemOf("rules: []\nrules: []\n")).toMatchObject({
      line: 2,
      column: 1,
      message: "invalid YAML: Map keys must be unique",
      hint: "write each key once per mapping",
    });
  });

  it("report tabs used to indent", () => {
    expect(problemOf("rules:\n\t- id: a\n").hint).toBe("indent with spaces, not tabs");
  });

  it("refuse a second document", () => {
    expect(problemOf("rules: []\n---\nrules: []\n")).toMatchObject({
      line: 2,
      hint: expect.stringContaining("one document"),
    });
  });

  it("in a .json file give a position too", () => {
    const problem = problemOf('{\n  "rules": [\n    {"id": "a",}\n  ]\n}\n', {}, "r.json");
    expect(problem.message).toMatch(/^invalid JSON: /);
    expect(problem.line).toBe(3);
    expect(problem.column).toBeGreaterThan(1);
  });

  it("in a .json file include YAML that is not JSON", () => {
    const comment = problemOf('{"rules": [] # none\n}\n', {}, "r.json");
    expect(comment).toMatchObject({
      line: 1,
      column: 14,
      message: expect.stringMatching(/^invalid JSON/),
    });
    expect(comment.hint).toContain("strict JSON");
    expect(problemOf("{rules: []}", {}, "r.json")).toMatchObject({ line: 1, column: 2 });
    expect(problemOf("rules: []\n", {}, "r.json")).toMatchObject({ line: 1, column: 1 });
  });

  it("in a .json file report a key written twice, which JSON.parse would drop", () => {
    const text = '{\n  "rules": [\n    {"id": "a", "channels": [], "id": "b"}\n  ]\n}\n';
    expect(problemsOf(text, {}, "r.json")).toEqual([
      {
        file: "r.json",
        line: 3,
        column: 33,
        path: "",
        message: 'invalid JSON: key "id" written twice in one object',
        hint: "write each key once per object",
      },
    ]);
  });

  it("in a .json file refuse nesting deeper than any rule file needs, at the level too deep", () => {
    const deep = `{"rules": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    expect(problemOf(deep, {}, "r.json")).toMatchObject({
      line: 1,
      column: 10 + 256,
      message: "invalid JSON: nested deeper than 256 levels",
    });
    // Up to the limit, it is read (and found not to be rules).
    const fine = `{"rules": [${"[".repeat(254)}${"]".repeat(254)}]}`;
    expect(problemOf(fine, {}, "r.json").message).not.toMatch(/nested/);
  });

  it("in a .json file refuse an empty file as JSON does", () => {
    expect(problemOf("", {}, "r.json")).toMatchObject({
      line: 1,
      column: 1,
      message: "invalid JSON: Unexpected end of JSON input",
    });
  });

  it("JSON loads like YAML", () => {
    const rule = oneRule(
      JSON.stringify(
        { rules: [{ id: "j", flights: { flight: "kl 0601" }, channels: [{ type: "console" }] }] },
        null,
        2,
      ),
      {},
      "r.json",
    );
    expect(rule).toMatchObject({
      id: "j",
      flights: { flights: ["KL601"] },
      source: { file: "r.json", line: 4, column: 13 },
    });
  });
});

describe("anchors and merge keys", () => {
  const text = `x-defaults: &defaults
  channels: [{ type: console }]
  group_wait: 2m
x-slack: &slack
  type: slack
  url: https://hooks.example.com/a
rules:
  - id: a
    <<: *defaults
  - id: b
    <<: *defaults
    group_wait: 5m
  - id: c
    channels: [*slack, { <<: *slack, name: second }]
`;
  it("share channels and settings; a key written in the rule wins", () => {
    const result = load(text);
    expect(result.problems).toEqual([]);
    expect(result.rules.map((r) => [r.id, r.groupWaitMs])).toEqual([
      ["a", 120_000],
      ["b", 300_000],
      ["c", 0],
    ]);
    expect(result.rules[2]?.channels.map((c) => c.name)).toEqual(["slack-1", "second"]);
  });

  it("report a mistake in an anchored block once, where it is written", () => {
    const bad = text.replace("type: slack", "type: slak");
    expect(problemsOf(bad)).toEqual([
      expect.objectContaining({
        line: 5,
        column: 9,
        ruleId: "c",
        path: "rules[2].channels[0].type",
        hint: "did you mean `slack`?",
      }),
    ]);
    expect(load(bad).rules.map((r) => r.id)).toEqual(["a", "b"]);
  });

  it("merge a list of mappings, the earlier winning", () => {
    const rule = oneRule(`x-a: &a { group_wait: 1m }
x-b: &b { group_wait: 2m, cool_down: 3m }
rules:
  - id: r
    <<: [*a, *b]
    channels: [{ type: console }]
`);
    expect([rule.groupWaitMs, rule.coolDownMs]).toEqual([60_000, 180_000]);
  });

  it("merge mappings only", () => {
    expect(
      problemOf("rules:\n  - id: r\n    <<: 3\n    channels: [{ type: console }]\n"),
    ).toMatchObject({
      line: 3,
      column: 9,
      ruleId: "r",
      message: "`<<` merges mappings only",
    });
  });
});
