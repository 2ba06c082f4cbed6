/**
 * A fast reader for the plain subset of YAML (and JSON) that large generated rule files
 * use: block mappings and sequences, flow collections, single-line plain and quoted
 * scalars, comments. The `yaml` package reads such files at about 1 MB/s, so 100,000
 * passenger rules would take half a minute; this reads them some 30 times faster.
 *
 * It never guesses: at anything outside the subset (anchors, tags, block or multi-line
 * scalars, document markers, tabs, a duplicate key, any syntax error …) it gives up and
 * the caller parses the file with `yaml`, which then also reports the errors. What it
 * accepts it reads exactly as `yaml` does — the same values and offsets (a test checks
 * the two against each other).
 */
import { isJsonLiteral, JSON_ESCAPES, resolvePlain } from "./plain-scalar.js";
import type { TreeMap, TreeNode, TreePair, TreeScalar, TreeSeq } from "./yaml-tree.js";

/** Thrown inside the reader to give up; never escapes this module. */
const GIVE_UP = Symbol("give up");

/** Characters the subset leaves to `yaml`: controls, tab, CR, BOM. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNSUPPORTED = /[\u0000-\u0009\u000b-\u001f\u007f\ufeff]/;

const SPACE = 32;
const NEWLINE = 10;
const HASH = 35;
const COLON = 58;
const COMMA = 44;
const DASH = 45;
const DOT = 46;
const DQUOTE = 34;
const SQUOTE = 39;
const BACKSLASH = 92;
const LBRACKET = 91;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;

/** Indicators a plain scalar cannot start with (YAML 1.2 `c-indicator`, bar `-?:`). */
const PLAIN_FIRST_FORBIDDEN = new Set(Array.from(",[]{}#&*!|>'\"%@`", (c) => c.charCodeAt(0)));

const isFlowIndicator = (c: number): boolean =>
  c === COMMA || c === LBRACKET || c === RBRACKET || c === LBRACE || c === RBRACE;

/** What `readFastYaml` reads. */
export interface FastYamlOptions {
  /** Accept only JSON syntax (a `.json` file): anything else is left to the full path. */
  json: boolean;
}

/**
 * The tree of a document in the supported subset, or undefined when the text is
 * outside it (or empty, or invalid): then parse it with `yaml`.
 */
export function readFastYaml(text: string, options: FastYamlOptions): TreeNode | undefined {
  if (UNSUPPORTED.test(text)) return undefined;
  try {
    return new FastReader(text, options.json).document();
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    throw err;
  }
}

function giveUp(): never {
  throw GIVE_UP;
}

/** A scalar token: where it starts, its value and, when plain, its text. */
interface Token {
  offset: number;
  text: string;
  quote: number;
}

class FastReader {
  readonly #t: string;
  readonly #n: number;
  readonly #json: boolean;
  /** Cursor; block readers return with it at the next content line (or the end). */
  #p = 0;
  #lineStart = 0;
  /** Keys of large mappings, for the duplicate check. */
  readonly #keySets = new WeakMap<readonly TreePair[], Set<unknown>>();

  constructor(text: string, json: boolean) {
    this.#t = text;
    this.#n = text.length;
    this.#json = json;
  }

  document(): TreeNode {
    this.#skipSpaces();
    if (!this.#atContent()) this.#nextContent();
    if (this.#p >= this.#n || this.#col() !== 0 || this.#isDocumentMarker()) giveUp();
    const c = this.#code();
    let root: TreeNode;
    if (c === LBRACE || c === LBRACKET) {
      root = this.#flowNode(-1);
      this.#endLine();
    } else {
      if (this.#json) giveUp();
      root = this.#blockNode(-1, false);
    }
    if (this.#p < this.#n) giveUp();
    return root;
  }

  #code(at = this.#p): number {
    return at < this.#n ? this.#t.charCodeAt(at) : -1;
  }

  #col(): number {
    return this.#p - this.#lineStart;
  }

  /** Space, newline or end of text at `at`: what must follow `-`, `:` as indicators. */
  #blankAt(at: number): boolean {
    const c = this.#code(at);
    return c === SPACE || c === NEWLINE || c === -1;
  }

  #skipSpaces(): void {
    while (this.#code() === SPACE) this.#p++;
  }

  /** True when the cursor is on something other than a blank or comment line's rest. */
  #atContent(): boolean {
    const c = this.#code();
    return c !== -1 && c !== NEWLINE && c !== HASH;
  }

  /**
   * Moves from the end of a line's content to the first character of the next content
   * line, skipping blank and comment lines; stays at the end of the text if none.
   */
  #nextContent(): void {
    const t = this.#t;
    for (;;) {
      const nl = t.indexOf("\n", this.#p);
      if (nl < 0) {
        this.#p = this.#n;
        return;
      }
      this.#p = nl + 1;
      this.#lineStart = this.#p;
      this.#skipSpaces();
      if (!this.#atContent()) continue;
      if (this.#col() === 0 && this.#isDocumentMarker()) giveUp();
      return;
    }
  }

  #isDocumentMarker(): boolean {
    const c = this.#code();
    if (c !== DASH && c !== DOT) return false;
    return this.#code(this.#p + 1) === c && this.#code(this.#p + 2) === c;
  }

  /** After a value: only spaces and a comment may follow on its line; then the next line. */
  #endLine(): void {
    this.#skipSpaces();
    const c = this.#code();
    if (c === HASH) {
      // `#` starts a comment only after a space (or at the start of a line).
      if (this.#json || (this.#p > this.#lineStart && this.#code(this.#p - 1) !== SPACE)) giveUp();
    } else if (c !== NEWLINE && c !== -1) {
      giveUp();
    }
    this.#nextContent();
  }

  /**
   * A block node starting at the cursor, indented more than `parentIndent`. `ownLine`:
   * it starts a line of its own below its key or `-`, where `yaml` reads a plain scalar
   * followed by a comment line and another key as an error: such files go to `yaml`.
   */
  #blockNode(parentIndent: number, ownLine: boolean): TreeNode {
    const c = this.#code();
    if (c === DASH && this.#blankAt(this.#p + 1)) return this.#blockSeq(this.#col());
    if (c === LBRACE || c === LBRACKET) {
      const node = this.#flowNode(parentIndent);
      this.#endLine();
      return node;
    }
    const start = this.#p;
    const startCol = this.#col();
    const token = this.#scalarToken(false);
    if (this.#code() === COLON && this.#blankAt(this.#p + 1)) {
      this.#p = start;
      return this.#blockMap(startCol);
    }
    if (ownLine && token.quote === 0) giveUp();
    this.#endLine();
    return this.#scalar(token);
  }

  #blockMap(indent: number): TreeMap {
    const map: TreeMap = { kind: "map", offset: this.#p, pairs: [] };
    for (;;) {
      const token = this.#scalarToken(false);
      if (this.#code() !== COLON || !this.#blankAt(this.#p + 1)) giveUp();
      if (token.quote === 0 && token.text === "<<") giveUp();
      if (this.#p - token.offset > 1024) giveUp();
      const key = this.#scalar(token);
      this.#unique(map.pairs, key);
      this.#p++;
      this.#skipSpaces();
      let value: TreeNode;
      if (!this.#atContent()) {
        this.#endLine();
        const col = this.#col();
        if (this.#p < this.#n && col > indent) value = this.#blockNode(indent, true);
        else if (this.#p < this.#n && col === indent && this.#atSeqItem()) {
          value = this.#blockSeq(indent);
        } else value = { kind: "scalar", offset: key.offset, value: null, empty: true };
      } else {
        value = this.#inlineValue(indent);
      }
      map.pairs.push({ key, value });
      if (this.#p >= this.#n || this.#col() < indent) return map;
      if (this.#col() > indent || this.#atSeqItem()) giveUp();
    }
  }

  #atSeqItem(): boolean {
    return this.#code() === DASH && this.#blankAt(this.#p + 1);
  }

  /** A value on the same line as its key. */
  #inlineValue(indent: number): TreeNode {
    const c = this.#code();
    let node: TreeNode;
    if (c === LBRACE || c === LBRACKET) node = this.#flowNode(indent);
    else {
      if (c === DASH && this.#blankAt(this.#p + 1)) giveUp();
      node = this.#scalar(this.#scalarToken(false));
      if (this.#code() === COLON) giveUp();
    }
    this.#endLine();
    return node;
  }

  #blockSeq(indent: number): TreeSeq {
    const seq: TreeSeq = { kind: "seq", offset: this.#p, items: [] };
    for (;;) {
      this.#p++;
      this.#skipSpaces();
      // An empty item sits where its value would start, as in `yaml`.
      const empty = this.#p;
      let item: TreeNode;
      if (!this.#atContent()) {
        this.#endLine();
        item =
          this.#p < this.#n && this.#col() > indent
            ? this.#blockNode(indent, true)
            : { kind: "scalar", offset: empty, value: null, empty: true };
      } else if (this.#atSeqItem()) {
        giveUp();
      } else {
        item = this.#blockNode(indent, false);
      }
      seq.items.push(item);
      if (this.#p >= this.#n || this.#col() < indent) return seq;
      if (this.#col() > indent) giveUp();
      if (!this.#atSeqItem()) return seq;
    }
  }

  /** A flow collection; lines it continues on must be indented more than `minIndent`. */
  #flowNode(minIndent: number): TreeMap | TreeSeq {
    const open = this.#code();
    const offset = this.#p;
    this.#p++;
    this.#skipFlowSpace(minIndent);
    if (open === LBRACE) {
      const map: TreeMap = { kind: "map", offset, pairs: [] };
      if (this.#code() === RBRACE) {
        this.#p++;
        return map;
      }
      for (;;) {
        const c = this.#code();
        if (c === LBRACE || c === LBRACKET) giveUp();
        const token = this.#scalarToken(true);
        if (this.#json && token.quote !== DQUOTE) giveUp();
        if (token.quote === 0 && token.text === "<<") giveUp();
        const key = this.#scalar(token);
        this.#unique(map.pairs, key);
        this.#skipSpaces();
        if (this.#code() !== COLON) giveUp();
        this.#p++;
        this.#skipFlowSpace(minIndent);
        const value = this.#flowValue(minIndent);
        map.pairs.push({ key, value });
        if (this.#flowNext(minIndent, RBRACE)) return map;
      }
    }
    const seq: TreeSeq = { kind: "seq", offset, items: [] };
    if (this.#code() === RBRACKET) {
      this.#p++;
      return seq;
    }
    for (;;) {
      seq.items.push(this.#flowValue(minIndent));
      if (this.#flowNext(minIndent, RBRACKET)) return seq;
    }
  }

  /** After a flow entry: true at the closing bracket (consumed), false after a comma. */
  #flowNext(minIndent: number, close: number): boolean {
    this.#skipFlowSpace(minIndent);
    const c = this.#code();
    if (c === close) {
      this.#p++;
      return true;
    }
    if (c !== COMMA) giveUp();
    this.#p++;
    this.#skipFlowSpace(minIndent);
    // A trailing comma is YAML but not JSON: leave it to the full path.
    if (this.#code() === close) giveUp();
    return false;
  }

  #flowValue(minIndent: number): TreeNode {
    const c = this.#code();
    if (c === LBRACE || c === LBRACKET) return this.#flowNode(minIndent);
    if (c === COMMA || c === RBRACE || c === RBRACKET || c === -1) giveUp();
    return this.#scalar(this.#scalarToken(true));
  }

  /** Spaces and line breaks inside a flow collection (no comments: left to `yaml`). */
  #skipFlowSpace(minIndent: number): void {
    for (;;) {
      const c = this.#code();
      if (c === SPACE) this.#p++;
      else if (c === NEWLINE) {
        this.#p++;
        this.#lineStart = this.#p;
        this.#skipSpaces();
        const next = this.#code();
        if (next !== NEWLINE && next !== -1) {
          if (this.#col() <= minIndent) giveUp();
          if (this.#col() === 0 && this.#isDocumentMarker()) giveUp();
        }
      } else if (c === HASH) giveUp();
      else return;
    }
  }

  /** A quoted or plain scalar on one line; the cursor ends right after it. */
  #scalarToken(flow: boolean): Token {
    const c = this.#code();
    if (c === DQUOTE) return this.#doubleQuoted();
    if (c === SQUOTE) {
      if (this.#json) giveUp();
      return this.#singleQuoted();
    }
    return this.#plain(flow);
  }

  #plain(flow: boolean): Token {
    const t = this.#t;
    const start = this.#p;
    const first = this.#code();
    if (first === -1 || first === NEWLINE || first === SPACE || PLAIN_FIRST_FORBIDDEN.has(first)) {
      giveUp();
    }
    if (first === DASH || first === COLON || first === 63 /* ? */) {
      const next = this.#code(start + 1);
      if (next === -1 || next === SPACE || next === NEWLINE || (flow && isFlowIndicator(next))) {
        giveUp();
      }
      if (first !== DASH) giveUp();
    }
    let end = start;
    let i = start;
    for (;;) {
      const ch = i < this.#n ? t.charCodeAt(i) : -1;
      if (ch === -1 || ch === NEWLINE) break;
      if (ch === SPACE) {
        if (t.charCodeAt(i + 1) === HASH) break;
        i++;
        continue;
      }
      if (ch === COLON) {
        const next = i + 1 < this.#n ? t.charCodeAt(i + 1) : -1;
        if (next === -1 || next === SPACE || next === NEWLINE || (flow && isFlowIndicator(next))) {
          break;
        }
      } else if (flow && isFlowIndicator(ch)) break;
      i++;
      end = i;
    }
    this.#p = end;
    const text = t.slice(start, end);
    if (this.#json && !isJsonLiteral(text)) giveUp();
    return { offset: start, text, quote: 0 };
  }

  #singleQuoted(): Token {
    const t = this.#t;
    const start = this.#p;
    let out = "";
    let from = start + 1;
    for (;;) {
      const q = t.indexOf("'", from);
      const nl = t.indexOf("\n", from);
      if (q < 0 || (nl >= 0 && nl < q)) giveUp();
      out += t.slice(from, q);
      if (t.charCodeAt(q + 1) === SQUOTE) {
        out += "'";
        from = q + 2;
        continue;
      }
      this.#p = q + 1;
      return { offset: start, text: out, quote: SQUOTE };
    }
  }

  #doubleQuoted(): Token {
    const t = this.#t;
    const start = this.#p;
    let out = "";
    let i = start + 1;
    let from = i;
    for (;;) {
      if (i >= this.#n) giveUp();
      const ch = t.charCodeAt(i);
      if (ch === DQUOTE) break;
      if (ch === NEWLINE) giveUp();
      if (ch !== BACKSLASH) {
        i++;
        continue;
      }
      out += t.slice(from, i);
      const e = t[i + 1];
      const simple = e === undefined ? undefined : JSON_ESCAPES.get(e);
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (e === "u") {
        const hex = t.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) giveUp();
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 6;
      } else giveUp();
      from = i;
    }
    out += t.slice(from, i);
    this.#p = i + 1;
    return { offset: start, text: out, quote: DQUOTE };
  }

  #scalar(token: Token): TreeScalar {
    if (token.quote !== 0) return { kind: "scalar", offset: token.offset, value: token.text };
    const value = resolvePlain(token.text);
    if (value === undefined) giveUp();
    return { kind: "scalar", offset: token.offset, value, plain: token.text };
  }

  /** Duplicate keys are an error `yaml` reports with its position: leave them to it. */
  #unique(pairs: readonly TreePair[], key: TreeScalar): void {
    const value = key.value;
    // Rule mappings have a handful of keys: a scan is cheaper than a Set per mapping.
    if (pairs.length < 16) {
      for (let i = 0; i < pairs.length; i++) {
        if (((pairs[i] as TreePair).key as TreeScalar).value === value) giveUp();
      }
      return;
    }
    let seen = this.#keySets.get(pairs);
    if (seen === undefined) {
      seen = new Set(pairs.map((pair) => (pair.key as TreeScalar).value));
      this.#keySets.set(pairs, seen);
    }
    if (seen.has(value)) giveUp();
    seen.add(value);
  }
}
