/** The directory loader: which files, in which order, cross-file ids, and whole-dir problems. */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ErrorCode, formatRuleProblem, RuleInvalidError } from "../../../src/errors.js";
import {
  loadRuleDir,
  loadRulesOrThrow,
  parseRuleFile,
} from "../../../src/rules/read/rule-loader.js";
import type { Rule } from "../../../src/rules/rule.js";
import { ZONE } from "./rule-text.js";

const options = { vars: { values: {} }, zone: ZONE };
const oneRuleFile = (...ids: string[]) =>
  `rules:\n${ids.map((id) => `  - id: ${id}\n    channels: [{ type: console }]\n`).join("")}`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fw-rules-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("loadRuleDir", () => {
  it("reads .yaml, .yml and .json files in name order, not subdirectories or other files", async () => {
    await writeFile(join(dir, "b.yml"), oneRuleFile("b1"));
    await writeFile(join(dir, "a.yaml"), oneRuleFile("a1", "a2"));
    await writeFile(
      join(dir, "c.json"),
      JSON.stringify({ rules: [{ id: "c1", channels: [{ type: "console" }] }] }),
    );
    await writeFile(join(dir, "README.md"), "# not rules");
    await writeFile(join(dir, "notes.txt"), "rules: nonsense");
    await mkdir(join(dir, "sub.yaml"));
    await mkdir(join(dir, "nested"));
    await writeFile(join(dir, "nested", "z.yaml"), oneRuleFile("z1"));
    const load = await loadRuleDir(dir, options);
    expect(load.problems).toEqual([]);
    expect(load.files).toEqual([join(dir, "a.yaml"), join(dir, "b.yml"), join(dir, "c.json")]);
    expect(load.rules.map((r) => r.id)).toEqual(["a1", "a2", "b1", "c1"]);
    expect(load.rules[2]?.source).toEqual({ file: join(dir, "b.yml"), line: 2, column: 9 });
  });

  it("keeps the directory as given in file names", async () => {
    await writeFile(join(dir, "a.yaml"), oneRuleFile("a"));
    expect((await loadRuleDir(`${dir}/`, options)).files).toEqual([`${dir}/a.yaml`]);
  });

  it("follows a symlink to a file (as mounted config maps are)", async () => {
    await writeFile(join(dir, "real.txt"), oneRuleFile("linked"));
    await symlink(join(dir, "real.txt"), join(dir, "link.yaml"));
    await symlink(join(dir, "nowhere"), join(dir, "broken.yaml"));
    expect((await loadRuleDir(dir, options)).rules.map((r) => r.id)).toEqual(["linked"]);
  });

  it("reports a missing directory, naming FLIGHTWATCH_RULES", async () => {
    const missing = join(dir, "nope");
    const load = await loadRuleDir(missing, options);
    expect(load.problems).toEqual([
      {
        file: missing,
        line: 0,
        column: 0,
        path: "",
        message: `the rules directory ${missing} does not exist`,
        hint: "create it, or set FLIGHTWATCH_RULES to the directory holding the rule files",
      },
    ]);
    expect(formatRuleProblem(load.problems[0] as never)).toBe(
      `${missing}: the rules directory ${missing} does not exist — create it, or set FLIGHTWATCH_RULES to the directory holding the rule files`,
    );
  });

  it("reports a file given as the directory", async () => {
    await writeFile(join(dir, "f.yaml"), oneRuleFile("a"));
    const load = await loadRuleDir(join(dir, "f.yaml"), options);
    expect(load.problems).toEqual([
      expect.objectContaining({ line: 0, message: `${join(dir, "f.yaml")} is not a directory` }),
    ]);
  });

  it("reports a directory without rule files", async () => {
    await writeFile(join(dir, "README.md"), "# rules go here");
    const load = await loadRuleDir(dir, options);
    expect(load.problems).toEqual([
      expect.objectContaining({
        file: dir,
        line: 0,
        message: `no rule files (.yaml, .yml, .json) in ${dir}`,
      }),
    ]);
    expect(load.problems[0]?.hint).toContain("FLIGHTWATCH_RULES");
  });

  it("reports a duplicate id in a later file, as docs/rules.md shows, and keeps the first", async () => {
    await writeFile(join(dir, "a.yaml"), oneRuleFile("x", "anna"));
    await writeFile(
      join(dir, "b.yaml"),
      `${oneRuleFile("y")}  - id: anna\n    channels: [{ type: console }]\n`,
    );
    const load = await loadRuleDir(dir, options);
    expect(load.problems.map(formatRuleProblem)).toEqual([
      `${join(dir, "b.yaml")}:4:9: duplicate rule id \`anna\` (first defined at ${join(dir, "a.yaml")}:4:9) — rule ids must be unique over all files`,
    ]);
    expect(load.problems[0]?.ruleId).toBeUndefined();
    expect(load.problems[0]?.path).toBe("rules[1].id");
    expect(load.rules.map((r) => `${r.id}@${r.source.file.slice(-6)}`)).toEqual([
      "x@a.yaml",
      "anna@a.yaml",
      "y@b.yaml",
    ]);
  });

  it("reports one problem for an id repeated within a later file too", async () => {
    await writeFile(join(dir, "a.yaml"), oneRuleFile("anna"));
    await writeFile(join(dir, "b.yaml"), oneRuleFile("anna", "anna"));
    const load = await loadRuleDir(dir, options);
    expect(load.problems.map((p) => [p.file.slice(-6), p.line, p.message.slice(0, 24)])).toEqual([
      ["b.yaml", 2, "duplicate rule id `anna`"],
      ["b.yaml", 4, "duplicate rule id `anna`"],
    ]);
    expect(load.problems[0]?.message).toContain("a.yaml:2:9");
    expect(load.problems[1]?.message).toContain("b.yaml:2:9");
  });

  it("counts disabled rules in the duplicate check and lists them", async () => {
    await writeFile(
      join(dir, "a.yaml"),
      "rules:\n  - id: off\n    enabled: false\n    channels: [{ type: console }]\n",
    );
    await writeFile(join(dir, "b.yaml"), oneRuleFile("on"));
    expect(await loadRuleDir(dir, options)).toMatchObject({ disabled: ["off"], problems: [] });
    await writeFile(join(dir, "c.yaml"), oneRuleFile("off"));
    expect((await loadRuleDir(dir, options)).problems).toHaveLength(1);
  });

  it("lists problems file by file, each in position order", async () => {
    await writeFile(
      join(dir, "b.yaml"),
      "rules:\n  - id: b\n    channels: [{ type: x }]\n    grup: 1\n",
    );
    await writeFile(
      join(dir, "a.yaml"),
      "rules:\n  - id: a\n    flights: { pier: DDD }\n    channels: [{ type: console }]\n  - nope\n",
    );
    const load = await loadRuleDir(dir, options);
    expect(load.problems.map((p) => `${p.file.slice(-6)}:${p.line}:${p.column}`)).toEqual([
      "a.yaml:3:22",
      "a.yaml:5:5",
      "b.yaml:3:24",
      "b.yaml:4:5",
    ]);
    expect(load.rules).toEqual([]);
  });
});

describe("loadRulesOrThrow", () => {
  it("returns the rules of a valid directory", async () => {
    await writeFile(join(dir, "a.yaml"), oneRuleFile("a"));
    expect((await loadRulesOrThrow(dir, options)).map((r) => r.id)).toEqual(["a"]);
  });

  it("throws RuleInvalidError with every problem", async () => {
    await writeFile(
      join(dir, "a.yaml"),
      "rules:\n  - id: a\n    channels: [{ type: slak }]\n  - id: b\n",
    );
    const error = await loadRulesOrThrow(dir, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuleInvalidError);
    expect(error).toMatchObject({ code: ErrorCode.RULE_INVALID });
    expect((error as RuleInvalidError).problems).toHaveLength(2);
    expect((error as RuleInvalidError).message).toContain("did you mean `slack`?");
  });
});

describe("big files", () => {
  const passengers = (n: number) => {
    let text = "rules:\n";
    for (let i = 0; i < n; i++) {
      text += `  - id: pax-${i}
    labels: { passenger: p${i}, booking: B${i} }
    flights:
      flight: KL${1000 + (i % 5000)}
      schedule: { from: 2026-11-21, to: 2026-11-21 }
    changes:
      - { kind: gate, within: 3h }
      - { kind: departure_time, shift_at_least: 10m }
      - cancelled
    channels:
      - type: email
        to: [p${i}@example.com]
    group_wait: 1m
`;
    }
    return text;
  };

  /** The same rules written as JSON, one rule a line as a generator writes them. */
  const asJson = (yamlText: string): string => {
    const { rules } = parse(yamlText) as { rules: unknown[] };
    return `{"rules": [\n${rules.map((r) => JSON.stringify(r)).join(",\n")}\n]}\n`;
  };
  const withoutSources = (rules: Rule[]) =>
    rules.map((r) => ({
      ...r,
      source: undefined,
      channels: r.channels.map((c) => ({ ...c, source: undefined })),
    }));

  it("load the same from YAML and from JSON, each with its own positions", () => {
    const text = passengers(300);
    const yaml = parseRuleFile(text, "p.yaml", options);
    const json = parseRuleFile(asJson(text), "p.json", options);
    expect(yaml.problems).toEqual([]);
    expect(json.problems).toEqual([]);
    expect(yaml.rules).toHaveLength(300);
    expect(withoutSources(json.rules)).toEqual(withoutSources(yaml.rules));
    // Rule i is on line i + 2 of the JSON file, its id after `{"id":`; in YAML on 2 + 13i.
    expect(json.rules[7]?.source).toEqual({ file: "p.json", line: 9, column: 7 });
    expect(yaml.rules[7]?.source).toEqual({ file: "p.yaml", line: 93, column: 9 });
    const compact = JSON.stringify({ rules: [{ id: "a", channels: [{ type: "console" }] }] });
    const pretty = JSON.stringify(JSON.parse(compact), null, 2);
    expect(withoutSources(parseRuleFile(pretty, "j.json", options).rules)).toEqual(
      withoutSources(parseRuleFile(pretty.replace(/\n/g, "\r\n"), "j.json", options).rules),
    );
  });

  it("report the same problems from YAML and from JSON, each where it is written", () => {
    const text = passengers(20)
      .replace("pax-7\n", "pax-7\n    grup_wait: 1m\n")
      .replace("KL1013", "KL")
      .replace("3h }", "3 }");
    const yaml = parseRuleFile(text, "p.yaml", options);
    expect(yaml.problems.map((p) => [p.line, p.column, p.ruleId])).toEqual([
      [8, 31, "pax-0"],
      [94, 5, "pax-7"],
      [175, 15, "pax-13"],
    ]);
    const json = parseRuleFile(asJson(text), "p.json", options);
    expect(json.problems.map((p) => [p.line, p.ruleId, p.path, p.message])).toEqual(
      yaml.problems.map((p) => [Number(p.ruleId?.slice(4)) + 2, p.ruleId, p.path, p.message]),
    );
    expect(json.problems.map((p) => p.column)).toEqual([174, 15, 81]);
  });
});
