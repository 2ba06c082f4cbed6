/**
 * The JSON reader against the `yaml` package: for any JSON text it must give the tree
 * `yaml` gives (values and offsets), refuse what `JSON.parse` refuses, and name every key
 * written twice in one object.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { readJsonTree } from "../../../src/rules/read/json-tree.js";
import { fromYamlDocument, type TreeNode } from "../../../src/rules/read/yaml-tree.js";

/** The tree `yaml` gives (JSON is YAML 1.2), or "error" when it reports any error. */
function viaYaml(text: string): TreeNode | "error" | undefined {
  const doc = parseDocument(text);
  return doc.errors.length > 0 ? "error" : fromYamlDocument(doc);
}

/** The JSON reader's tree, checked against `yaml`'s. */
function agrees(text: string): void {
  const read = readJsonTree(text);
  if (!read.ok) throw new Error(`duplicates in ${text}`);
  expect(read.root).toEqual(viaYaml(text));
}

describe("readJsonTree", () => {
  it("reads JSON as yaml does, pretty or compact", () => {
    const value = {
      rules: [
        {
          id: "x",
          n: 1.5,
          m: -2,
          e: 1e21,
          f: 1.0,
          t: true,
          z: null,
          s: 'a"b\\c/\u00e9\ud83d\ude00\n\t',
          l: [],
          o: {},
          "": "empty key",
          'k\\"': [[], [{}], [1, [2]]],
        },
      ],
    };
    agrees(JSON.stringify(value));
    agrees(JSON.stringify(value, null, 2));
    agrees(JSON.stringify(value, null, 2).replace(/\n/g, "\r\n"));
    agrees(` \n${JSON.stringify(value, null, 1)}\n\n `);
  });

  it("keeps a number as written, for where a string is wanted", () => {
    const read = readJsonTree('{"a": 1.50, "b": 1E3, "c": -0, "d": 601}');
    expect(read.ok && read.root.kind === "map" && read.root.pairs.map((p) => p.value)).toEqual([
      { kind: "scalar", offset: 6, value: 1.5, plain: "1.50" },
      { kind: "scalar", offset: 17, value: 1000, plain: "1E3" },
      { kind: "scalar", offset: 27, value: -0, plain: "-0" },
      { kind: "scalar", offset: 36, value: 601, plain: "601" },
    ]);
  });

  it("counts the depth of empty and full collections alike, and refuses past 256", () => {
    // Hundreds of empty ones side by side are one level each.
    expect(readJsonTree(`[${"[],".repeat(300)}[]]`)).toMatchObject({ ok: true });
    expect(readJsonTree(`[${"{},".repeat(300)}{}]`)).toMatchObject({ ok: true });
    expect(readJsonTree(`[${'{"a":[1]},'.repeat(300)}0]`)).toMatchObject({ ok: true });
    expect(readJsonTree(`${"[".repeat(256)}${"]".repeat(256)}`)).toMatchObject({ ok: true });
    expect(readJsonTree(`${"[".repeat(257)}${"]".repeat(257)}`)).toEqual({
      ok: false,
      duplicates: [],
      tooDeep: 256,
    });
  });

  it("reads a bare scalar as the whole document", () => {
    agrees('"text"');
    agrees(" 12 ");
    agrees("null");
  });

  it.each([
    ["a comment", '{"a": 1} // c'],
    ["a single-quoted string", "{'a': 1}"],
    ["an unquoted key", '{a: "1"}'],
    ["a bare word", '{"a": yes}'],
    ["a leading zero", '{"a": 01}'],
    ["block YAML", "a: 1\n"],
    ["a trailing comma", '{"a": [1,]}'],
    ["nothing", ""],
    ["a BOM", '\ufeff{"a": 1}'],
    ["a raw control character", '{"a": "x\u0001"}'],
  ])("refuses JSON with %s as JSON.parse does", (_what, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => readJsonTree(text)).toThrow(SyntaxError);
  });

  it("names every key written twice in one object, at its second writing", () => {
    const text = '{"a": 1, "b": {"a": 2, "c": 3, "c": 4}, "a": 5, "a": 6, "d\\u0061": 0}';
    const read = readJsonTree(text);
    expect(read).toEqual({
      ok: false,
      duplicates: [
        { offset: text.indexOf('"c": 4'), key: "c" },
        { offset: text.indexOf('"a": 5'), key: "a" },
        { offset: text.indexOf('"a": 6'), key: "a" },
      ],
    });
    // The escaped `da` is read as itself, not confused with `a`; the same key in another
    // object is no duplicate.
    expect(readJsonTree('{"da": 1, "d\\u0061": 2}')).toMatchObject({ ok: false });
    expect(readJsonTree('[{"a": 1}, {"a": 2}]')).toMatchObject({ ok: true });
  });

  const scalar = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.constantFrom("gate", "KL 0601", "a: b", "07", "null", "\\", '"', "\u2028", "é😀"),
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const key = fc.oneof(
    fc.constantFrom("id", "flights", "x-a", "with space", "1", "true", "a:b", "<<", "__proto__"),
    fc.string({ minLength: 0, maxLength: 8 }),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("list"), tie("map")),
    list: fc.array(tie("node"), { maxLength: 4 }),
    map: fc.dictionary(key, tie("node"), { maxKeys: 4 }),
  })).node;

  it("agrees with yaml on random JSON, indented or not", () => {
    fc.assert(
      fc.property(value, fc.constantFrom(0, 1, 2, 4), (doc, indent) => {
        const text = JSON.stringify(doc, null, indent);
        // `<<` is a merge key to `yaml`'s default schema only when asked for; JSON has none.
        agrees(text);
      }),
      { numRuns: 400 },
    );
  });

  const mutation = fc.record({
    at: fc.nat({ max: 200 }),
    remove: fc.nat({ max: 3 }),
    insert: fc.constantFrom("", ":", " ", "\n", "\t", '"', "[", "]", "{", "}", ",", "\\", "0", "x"),
  });

  it("never reads a mutated JSON text that JSON.parse refuses, nor otherwise than yaml", () => {
    fc.assert(
      fc.property(value, fc.array(mutation, { minLength: 1, maxLength: 3 }), (doc, mutations) => {
        let text = JSON.stringify(doc, null, 2);
        for (const m of mutations) {
          const at = Math.min(m.at, text.length);
          text = text.slice(0, at) + m.insert + text.slice(at + m.remove);
        }
        let parsed = true;
        try {
          JSON.parse(text);
        } catch {
          parsed = false;
        }
        if (!parsed) {
          expect(() => readJsonTree(text)).toThrow(SyntaxError);
          return;
        }
        const read = readJsonTree(text);
        if (!read.ok) return;
        const yamlTree = viaYaml(text);
        // A tab is JSON whitespace anywhere, but YAML refuses it where it would indent.
        if (yamlTree === "error") expect(text).toContain("\t");
        else expect(read.root).toEqual(yamlTree);
      }),
      { numRuns: 1000 },
    );
  });
});
