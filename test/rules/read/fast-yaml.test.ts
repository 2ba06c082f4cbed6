/**
 * The fast reader against the `yaml` package: whatever it accepts it must read exactly
 * as `yaml` does (values and offsets), and anything outside its subset it must refuse.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument, stringify } from "yaml";
import { readFastYaml } from "../../../src/rules/read/fast-yaml.js";
import { fromYamlDocument, type TreeNode } from "../../../src/rules/read/yaml-tree.js";
import { yamlStyle } from "../rule-arbitraries.js";

/** The tree `yaml` gives, or "error" when it reports any error. */
function viaYaml(text: string): TreeNode | "error" | undefined {
  const doc = parseDocument(text, { merge: true });
  return doc.errors.length > 0 ? "error" : fromYamlDocument(doc);
}

/** Fast result checked against `yaml`; returns whether the fast path took the text. */
function agrees(text: string, json = false): boolean {
  const fast = readFastYaml(text, { json });
  if (fast === undefined) return false;
  expect(fast).toEqual(viaYaml(text));
  if (json) expect(() => JSON.parse(text)).not.toThrow();
  return true;
}

describe("readFastYaml", () => {
  it.each([
    "rules:\n  - id: a\n    x: [1, 2]\n",
    "a: 1\nb:\n- x\n- y\nc: {d: 'e''f', g: \"h\\u00e9\\n\"}  # c\n",
    "# comment\n\na:   b c  # d\n\n# end\n",
    "a: -30m\nb: +3h\nc: 0601\nd: https://x.y/z?a=b#c\ne: a#b\nf: 1.50\ng: 1e3\nh: ~\ni: True\nj: NULL\n",
    "rules:\n- id: a\n  channels:\n  - type: x\n-  id: b\n",
    "a:\n  -\n  - b\n  - [c, {d: e}]\n",
    "a:\nb: {}\nc: []\nd: ''\ne: \"\"\n",
    "\"quoted key\": 1\n'single': 2\n",
    "a: { b: [1,\n    2], c: d }\n",
    "k: v,w [x] {y}\n",
    "- a\n- b: c\n  d: e\n",
  ])("reads %j as yaml does", (text) => {
    expect(agrees(text)).toBe(true);
  });

  it("reads JSON as yaml does, pretty or compact", () => {
    const value = {
      rules: [
        {
          id: "x",
          n: 1.5,
          m: -2,
          e: 1e21,
          t: true,
          z: null,
          s: 'a"b\\c/\u00e9\ud83d\ude00',
          l: [],
        },
      ],
    };
    expect(agrees(JSON.stringify(value), true)).toBe(true);
    expect(agrees(JSON.stringify(value, null, 2), true)).toBe(true);
    expect(agrees(JSON.stringify(value, null, 2).replace(/"\\u/g, '"\\u'), true)).toBe(true);
  });

  it.each([
    ["an anchor", "a: &x 1\nb: *x\n"],
    ["a merge key", "a:\n  <<: {b: 1}\n"],
    ["a tag", "a: !!str 1\n"],
    ["a block scalar", "a: |\n  text\n"],
    ["a folded scalar", "a: >\n  text\n"],
    ["a multi-line plain scalar", "a: one\n  two\n"],
    // yaml reads this as an error ("Implicit keys need to be on a single line").
    ["a plain scalar below its key, after a comment line", "b:\n#c\n  d\nf: 1\n"],
    ["a multi-line quoted scalar", "a: 'one\n  two'\n"],
    ["a multi-line plain scalar in flow", "a: [one\n  two]\n"],
    ["a document marker", "---\na: 1\n"],
    ["a document end", "a: 1\n...\n"],
    ["a second document", "a: 1\n---\nb: 2\n"],
    ["a tab", "a:\t1\n"],
    ["CRLF line ends", "a: 1\r\nb: 2\r\n"],
    ["a BOM", "\ufeffa: 1\n"],
    ["a duplicate key", "a: 1\na: 2\n"],
    ["a duplicate flow key", "{a: 1, a: 2}\n"],
    ["an explicit key", "? a\n: 1\n"],
    ["a complex key", "[a]: 1\n"],
    ["a nested mapping on one line", "a: b: c\n"],
    ["an indented top level", "  a: 1\n"],
    ["a mis-indented key", "a:\n    b: 1\n  c: 2\n"],
    ["a flow continuation not indented", "a: [1,\n2]\n"],
    ["a trailing comma", "a: [1, 2, ]\n"],
    ["a comment in flow", "a: [1, # one\n  2]\n"],
    ["an empty flow value", "a: {b: }\n"],
    ["a flow pair in a list", "a: [b: c]\n"],
    ["a comment without a space", "a: 'b'# c\n"],
    ["a hex number", "a: 0x1F\n"],
    ["an octal number", "a: 0o17\n"],
    ["infinity", "a: .inf\n"],
    ["an empty document", "# only a comment\n"],
    ["an unsupported escape", 'a: "\\x41"\n'],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["a plain scalar starting with an indicator", "a: @b\n"],
    ["a block list on a key's line", "a: - b\n"],
    ["a key over 1024 characters", `${"k".repeat(1100)}: 1\n`],
  ])("leaves %s to yaml", (_what, text) => {
    expect(readFastYaml(text, { json: false })).toBeUndefined();
  });

  it.each([
    ["a comment", '{"a": 1} # c\n'],
    ["a single-quoted string", "{'a': 1}"],
    ["an unquoted key", '{a: "1"}'],
    ["a bare word", '{"a": yes}'],
    ["a leading zero", '{"a": 01}'],
    ["block YAML", "a: 1\n"],
    ["a trailing comma", '{"a": [1,]}'],
  ])("leaves JSON with %s to the full path", (_what, text) => {
    expect(readFastYaml(text, { json: true })).toBeUndefined();
  });

  const scalar = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      "gate",
      "-30m",
      "+3h",
      "2026-11-21",
      "KL 0601",
      "a: b",
      "a #b",
      "x#y",
      "07",
      "1.50",
      "null",
      "True",
      "~",
      "",
      " lead",
      "trail ",
      "[x]",
      "{y}",
      "'q'",
      '"d"',
      "é😀",
      "https://h/p?q=1#f",
      "- item",
      "a,b",
    ),
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const key = fc.oneof(
    fc.constantFrom("id", "flights", "gate", "x-a", "with space", "1", "true", "a:b", "#k"),
    fc.string({ minLength: 1, maxLength: 8 }),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("list"), tie("map")),
    list: fc.array(tie("node"), { maxLength: 4 }),
    map: fc.dictionary(key, tie("node"), { maxKeys: 4 }),
  })).map;
  const styles = fc.record({
    ...yamlStyle,
    flowCollectionPadding: fc.boolean(),
    indent: fc.integer({ min: 1, max: 4 }),
  });

  it("agrees with yaml on random documents in random styles", () => {
    let taken = 0;
    let runs = 0;
    fc.assert(
      fc.property(value, styles, (doc, style) => {
        runs++;
        const text = stringify(doc, { ...style, lineWidth: 0, minContentWidth: 0 });
        if (agrees(text)) taken++;
      }),
      { numRuns: 400 },
    );
    // The test means something only if the fast path takes most documents.
    expect(taken / runs).toBeGreaterThan(0.5);
  });

  it("agrees with yaml on random JSON", () => {
    let taken = 0;
    fc.assert(
      fc.property(value, fc.constantFrom(0, 1, 2, 4), (doc, indent) => {
        if (agrees(JSON.stringify(doc, null, indent), true)) taken++;
      }),
      { numRuns: 300 },
    );
    expect(taken).toBeGreaterThan(250);
  });

  const mutation = fc.record({
    at: fc.nat({ max: 400 }),
    remove: fc.nat({ max: 3 }),
    insert: fc.constantFrom(
      "",
      ":",
      ": ",
      "#",
      " #",
      " ",
      "\n",
      "\n  ",
      "- ",
      "'",
      '"',
      "[",
      "]",
      "{",
      "}",
      ",",
      "&a ",
      "*a",
      "!",
      "|",
      ">",
      "?",
      "---\n",
      "\\",
      "0",
      "x",
    ),
  });
  const mutate = (
    base: string,
    mutations: { at: number; remove: number; insert: string }[],
  ): string => {
    let text = base;
    for (const m of mutations) {
      const at = Math.min(m.at, text.length);
      text = text.slice(0, at) + m.insert + text.slice(at + m.remove);
    }
    return text;
  };

  it("never reads a mutated random document differently from yaml", () => {
    fc.assert(
      fc.property(
        value,
        styles,
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        (doc, style, mutations) => {
          const text = mutate(
            stringify(doc, { ...style, lineWidth: 0, minContentWidth: 0 }),
            mutations,
          );
          const fast = readFastYaml(text, { json: false });
          if (fast !== undefined) expect(fast).toEqual(viaYaml(text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("never reads a mutated document differently from yaml", () => {
    const base = stringify(
      {
        rules: [
          {
            id: "a-1",
            flights: { flight: ["KL1", "kl 0601"], schedule: { from: "now", to: "+3h" } },
            changes: ["gate", { kind: "state", states: ["BRD"] }],
            channels: [{ type: "console" }],
            labels: { n: 1, b: true },
          },
        ],
      },
      { collectionStyle: "any" },
    );
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const text = mutate(base, mutations);
        const fast = readFastYaml(text, { json: false });
        if (fast !== undefined) expect(fast).toEqual(viaYaml(text));
      }),
      { numRuns: 3000 },
    );
  });
});
