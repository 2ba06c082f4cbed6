/**
 * The document tree the rule validator walks: mappings, sequences, scalars and aliases,
 * each with the offset where it was written. The `yaml` package builds it for YAML files
 * (below) and json-tree.ts for JSON files, so the validator, and every position it
 * reports, is the same whichever read the file.
 */
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, Scalar } from "yaml";

/** A node of a parsed rule file. */
export type TreeNode = TreeMap | TreeSeq | TreeScalar | TreeAlias;

/** A scalar: its value as YAML 1.2 (core schema) reads it. */
export interface TreeScalar {
  kind: "scalar";
  /** Offset in the text (a quoted scalar starts at its quote; an empty value at its key). */
  offset: number;
  value: string | number | boolean | null;
  /** The text as written, for plain (unquoted) scalars: `0601` stays `0601` where a string is wanted. */
  plain?: string;
  /** No value was written at all (`key:` followed by nothing). */
  empty?: true;
}

/** A mapping; merge keys (`<<`) are kept as pairs marked `merge`. */
export interface TreeMap {
  kind: "map";
  offset: number;
  pairs: TreePair[];
}

/** One key and its value. */
export interface TreePair {
  key: TreeNode;
  value: TreeNode;
  /** A `<<` merge key: the value is a mapping (or list of them) to merge in. */
  merge?: true;
}

/** A sequence. */
export interface TreeSeq {
  kind: "seq";
  offset: number;
  items: TreeNode[];
}

/** A use of an anchor (`*name`): where it was written and what it stands for. */
export interface TreeAlias {
  kind: "alias";
  offset: number;
  target: TreeNode;
}

/** Line starts of a text, to turn offsets into 1-based line and column. */
export class LineTable {
  readonly #starts: number[] = [0];

  constructor(text: string) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
      this.#starts.push(i + 1);
    }
  }

  /** 1-based line and column (in UTF-16 units, as editors and `yaml` count) of an offset. */
  position(offset: number): { line: number; column: number } {
    const starts = this.#starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
  }
}

/**
 * The tree of a `yaml` document (already checked for errors), or undefined when the
 * document is empty. Aliases stay aliases, pointing at the converted anchor node.
 */
export function fromYamlDocument(doc: Document): TreeNode | undefined {
  const done = new Map<Node, TreeNode>();
  // `fallback`: an offset for nodes without a range; `emptyAt`: where an empty value
  // sits (its key, for mapping values; else where `yaml` puts it, after the indicator).
  const convert = (node: unknown, fallback: number, emptyAt?: number): TreeNode => {
    if (isAlias(node)) {
      const offset = node.range?.[0] ?? fallback;
      const target = node.resolve(doc);
      const alias: TreeAlias = {
        kind: "alias",
        offset,
        target: { kind: "scalar", offset, value: null },
      };
      // A cycle (`&a [*a]`) gets its own node back through `done`.
      if (target !== undefined) alias.target = done.get(target) ?? convert(target, offset);
      return alias;
    }
    if (isMap(node)) {
      const map: TreeMap = { kind: "map", offset: node.range?.[0] ?? fallback, pairs: [] };
      done.set(node, map);
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = convert(pair.key, map.offset, map.offset);
        const value = convert(pair.value, key.offset, key.offset);
        const isMerge = isScalar(pair.key) && typeof pair.key.value === "symbol";
        map.pairs.push(isMerge ? { key, value, merge: true } : { key, value });
      }
      return map;
    }
    if (isSeq(node)) {
      const seq: TreeSeq = { kind: "seq", offset: node.range?.[0] ?? fallback, items: [] };
      done.set(node, seq);
      for (const item of node.items) seq.items.push(convert(item, seq.offset));
      return seq;
    }
    if (isScalar(node)) return scalarOf(node, fallback, emptyAt);
    // `? ` with no key, or a pair without a value node.
    return { kind: "scalar", offset: emptyAt ?? fallback, value: null, empty: true };
  };
  const contents = doc.contents;
  if (contents === null) return undefined;
  return convert(contents, 0);
}

function scalarOf(node: Scalar, fallback: number, emptyAt: number | undefined): TreeScalar {
  const range = node.range;
  if (range && range[0] === range[1] && node.value === null) {
    return { kind: "scalar", offset: emptyAt ?? range[0], value: null, empty: true };
  }
  const offset = range?.[0] ?? fallback;
  const raw = node.value;
  let value: TreeScalar["value"];
  if (typeof raw === "symbol") value = "<<";
  else if (
    raw === null ||
    typeof raw === "string" ||
    typeof raw === "number" ||
    typeof raw === "boolean"
  ) {
    value = raw;
  } else value = String(raw);
  const scalar: TreeScalar = { kind: "scalar", offset, value };
  if (node.type === Scalar.PLAIN && node.source !== undefined) scalar.plain = node.source;
  return scalar;
}
