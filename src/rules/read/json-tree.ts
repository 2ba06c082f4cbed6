/**
 * The tree of a `.json` rule file. `JSON.parse` reads the file — it alone decides
 * whether the text is JSON, and it reads every escaped string — and then one walk over
 * the text, already known to be valid, notes where each value starts, so that problems
 * and rule sources name a line and column as they do for YAML. The tree is the one the
 * `yaml` package would give for the same text (a test checks the two against each
 * other), except that a key written twice in one object is reported, not silently
 * overwritten as `JSON.parse` does.
 */
import type { TreeMap, TreeNode, TreeScalar, TreeSeq } from "./yaml-tree.js";

/** A JSON text as a tree, or what is wrong with it beyond syntax. */
export type JsonTree =
  | { ok: true; root: TreeNode }
  | { ok: false; duplicates: Array<{ offset: number; key: string }>; tooDeep?: number };

/** Nesting deeper than this is refused (no rule file needs a tenth of it). */
export const MAX_JSON_DEPTH = 256;

/** Thrown inside the walk at MAX_JSON_DEPTH; never escapes this module. */
class TooDeep {
  constructor(readonly offset: number) {}
}

const SPACE = 32;
const TAB = 9;
const NEWLINE = 10;
const RETURN = 13;
const DQUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const LBRACKET = 91;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;

/**
 * Reads a JSON text into a tree; throws `SyntaxError` (from `JSON.parse`) when the text
 * is not JSON.
 */
export function readJsonTree(text: string): JsonTree {
  JSON.parse(text);
  try {
    return new JsonWalk(text).document();
  } catch (err) {
    // Stryker disable next-line ConditionalExpression: nothing else is thrown in a walk of text JSON.parse took; the check only keeps a future bug from reading as "too deep"
    if (err instanceof TooDeep) return { ok: false, duplicates: [], tooDeep: err.offset };
    throw err;
  }
}

/** A walk over text `JSON.parse` has accepted: it never meets a syntax error. */
class JsonWalk {
  readonly #t: string;
  #p = 0;
  #depth = 0;
  readonly #duplicates: Array<{ offset: number; key: string }> = [];

  constructor(text: string) {
    this.#t = text;
  }

  document(): JsonTree {
    const root = this.#value();
    return this.#duplicates.length === 0
      ? { ok: true, root }
      : { ok: false, duplicates: this.#duplicates };
  }

  #skipSpace(): void {
    const t = this.#t;
    let p = this.#p;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c !== SPACE && c !== NEWLINE && c !== RETURN && c !== TAB) break;
      p++;
    }
    this.#p = p;
  }

  #value(): TreeNode {
    this.#skipSpace();
    const c = this.#t.charCodeAt(this.#p);
    if (c === LBRACE) return this.#object();
    if (c === LBRACKET) return this.#array();
    if (c === DQUOTE) {
      const offset = this.#p;
      return { kind: "scalar", offset, value: this.#string() };
    }
    return this.#literal();
  }

  /** Into a mapping or a sequence: refused past MAX_JSON_DEPTH, before the stack would be. */
  #enter(): void {
    if (++this.#depth > MAX_JSON_DEPTH) throw new TooDeep(this.#p);
  }

  #object(): TreeMap {
    this.#enter();
    const map: TreeMap = { kind: "map", offset: this.#p, pairs: [] };
    const seen = new Set<string>();
    this.#p++;
    this.#skipSpace();
    if (this.#t.charCodeAt(this.#p) === RBRACE) {
      this.#p++;
      this.#depth--;
      return map;
    }
    for (;;) {
      this.#skipSpace();
      const offset = this.#p;
      const name = this.#string();
      if (seen.has(name)) this.#duplicates.push({ offset, key: name });
      else seen.add(name);
      const key: TreeScalar = { kind: "scalar", offset, value: name };
      this.#skipSpace();
      this.#p++; // the colon
      map.pairs.push({ key, value: this.#value() });
      this.#skipSpace();
      if (this.#t.charCodeAt(this.#p++) !== COMMA) {
        this.#depth--;
        return map; // past the closing brace
      }
    }
  }

  #array(): TreeSeq {
    this.#enter();
    const seq: TreeSeq = { kind: "seq", offset: this.#p, items: [] };
    this.#p++;
    this.#skipSpace();
    if (this.#t.charCodeAt(this.#p) === RBRACKET) {
      this.#p++;
      this.#depth--;
      return seq;
    }
    for (;;) {
      seq.items.push(this.#value());
      this.#skipSpace();
      if (this.#t.charCodeAt(this.#p++) !== COMMA) {
        this.#depth--;
        return seq; // past the closing bracket
      }
    }
  }

  /** A string at the cursor, read by `JSON.parse` when it holds an escape. */
  #string(): string {
    const t = this.#t;
    const start = this.#p;
    // Stryker disable next-line BooleanLiteral: a fast path; JSON.parse of an unescaped string gives the same slice
    let escaped = false;
    let p = start + 1;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === DQUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        p++;
      }
      p++;
    }
    this.#p = p + 1;
    return escaped ? (JSON.parse(t.slice(start, p + 1)) as string) : t.slice(start + 1, p);
  }

  /** A number, `true`, `false` or `null`: up to the next delimiter. */
  #literal(): TreeScalar {
    const t = this.#t;
    const offset = this.#p;
    let p = offset;
    for (;;) {
      const c = t.charCodeAt(p);
      if (
        Number.isNaN(c) ||
        c === COMMA ||
        c === RBRACE ||
        c === RBRACKET ||
        c === SPACE ||
        c === NEWLINE ||
        c === RETURN ||
        c === TAB
      ) {
        break;
      }
      p++;
    }
    this.#p = p;
    const plain = t.slice(offset, p);
    const value =
      plain === "true" ? true : plain === "false" ? false : plain === "null" ? null : Number(plain);
    return { kind: "scalar", offset, value, plain };
  }
}
