/**
 * Reading values out of a rule file's tree with positioned problems: every read that
 * fails records a RuleProblem (file, line, column, rule id, path, message, hint) and
 * returns undefined, so the validator goes on and reports every problem in one pass.
 * Aliases are followed, merge keys (`<<`) applied, and `${NAME}` substituted into
 * string values as they are read. Strings read are copied out of the file text, and
 * parts that rules write alike are read once and shared (`shared`).
 */
import type { RuleProblem } from "../../errors.js";
import type { SourcePosition } from "../rule.js";
import { suggestionHint } from "./did-you-mean.js";
import { RuleInterner } from "./rule-interner.js";
import { readRuleDuration } from "./rule-time.js";
import { type RuleVariables, substituteVariables } from "./variable-substitution.js";
import type { LineTable, TreeMap, TreeNode, TreeScalar, TreeSeq } from "./yaml-tree.js";

/** One key of a mapping (after merges): its name, key node and value node. */
export interface Entry {
  name: string;
  key: TreeNode;
  value: TreeNode;
}

/** Aliases deeper than this are a loop (`&a [*a]`) or abuse, not a rule file. */
const MAX_ALIAS_DEPTH = 32;
/**
 * Nesting `TreeReader.shared` writes keys for: a rule's parts nest a few levels (`not`
 * filters up to four); a part nested deeper is read each time, unshared.
 */
const MAX_WRITTEN_DEPTH = 8;

/** Reads one file's tree, collecting problems. */
export class TreeReader {
  readonly file: string;
  readonly problems: RuleProblem[] = [];
  /** The rule being read, for the problems found in it. */
  ruleId: string | undefined;
  /** Rule variables read into a credential (an endpoint URL, a signing secret). */
  readonly secretVariables = new Set<string>();
  /** What the rules of this load share; strings kept in rules go through it (see `string`). */
  readonly interner: RuleInterner;
  readonly #lines: LineTable;
  readonly #vars: RuleVariables;
  #inCredential = false;
  readonly #reported = new Set<string>();
  #failed = false;
  #failures = 0;

  constructor(
    file: string,
    lines: LineTable,
    vars: RuleVariables,
    interner: RuleInterner = new RuleInterner(),
  ) {
    this.file = file;
    this.#lines = lines;
    this.#vars = vars;
    this.interner = interner;
  }

  /** Starts a rule: problems from now on carry its id, and `failed` tells whether it had any. */
  beginRule(ruleId: string | undefined): void {
    this.ruleId = ruleId;
    this.#failed = false;
  }

  /** Whether a problem was recorded since `beginRule`. */
  get failed(): boolean {
    return this.#failed;
  }

  /** How many problems were found so far, counting repeats reported once. */
  get failures(): number {
    return this.#failures;
  }

  /** File, line and column of a node (or offset). */
  position(at: TreeNode | number): SourcePosition {
    const { line, column } = this.#lines.position(typeof at === "number" ? at : at.offset);
    return { file: this.file, line, column };
  }

  /**
   * Records a problem at a node. The same message at the same place is recorded once:
   * a mistake in an anchored block shared by many rules is one mistake.
   */
  problem(at: TreeNode | number, path: string, message: string, hint?: string): void {
    this.#failed = true;
    this.#failures++;
    const offset = typeof at === "number" ? at : at.offset;
    const key = `${offset}\u0000${message}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    const problem: RuleProblem = { ...this.position(offset), path, message };
    if (this.ruleId !== undefined) problem.ruleId = this.ruleId;
    if (hint !== undefined) problem.hint = hint;
    this.problems.push(problem);
  }

  /** The node an alias stands for (the node itself otherwise). */
  resolve(node: TreeNode): TreeMap | TreeSeq | TreeScalar {
    let current = node;
    for (let depth = 0; current.kind === "alias"; depth++) {
      if (depth > MAX_ALIAS_DEPTH) return { kind: "scalar", offset: node.offset, value: null };
      current = current.target;
    }
    return current;
  }

  /** The node as a mapping, or a problem naming what was expected. */
  map(node: TreeNode, path: string, what: string): TreeMap | undefined {
    const n = this.resolve(node);
    if (n.kind === "map") return n;
    this.problem(node, path, `${what} must be a mapping, not ${describe(n)}`);
    return undefined;
  }

  /**
   * The keys of a mapping with merges applied (own keys win, then merge sources in
   * order). Keys outside `allowed` are problems with a did-you-mean hint, or the hint
   * `unknownHint` gives; `allowed` undefined takes any key.
   */
  entries(
    map: TreeMap,
    path: string,
    allowed?: readonly string[],
    unknownHint?: (name: string) => string | undefined,
  ): Map<string, Entry> {
    const out = new Map<string, Entry>();
    this.#collect(map, path, out, 0, true);
    if (allowed !== undefined) {
      for (const entry of out.values()) {
        if (allowed.includes(entry.name)) continue;
        out.delete(entry.name);
        const hint = unknownHint?.(entry.name) ?? suggestionHint(entry.name, allowed);
        this.problem(entry.key, join(path, entry.name), `unknown key \`${entry.name}\``, hint);
      }
    }
    return out;
  }

  /** One key of a mapping (merges applied), without reporting anything. */
  peek(map: TreeMap, name: string): Entry | undefined {
    const out = new Map<string, Entry>();
    this.#collect(map, "", out, 0, false);
    return out.get(name);
  }

  #collect(
    map: TreeMap,
    path: string,
    out: Map<string, Entry>,
    depth: number,
    report: boolean,
  ): void {
    const merges: TreeNode[] = [];
    for (const pair of map.pairs) {
      if (pair.merge) {
        merges.push(pair.value);
        continue;
      }
      const key = this.resolve(pair.key);
      const name = key.kind === "scalar" && key.value !== null ? keyName(key) : undefined;
      if (name === undefined) {
        if (report) this.problem(pair.key, path, "keys must be plain names", "write `name: value`");
        continue;
      }
      // Own keys come first, so a merged key never replaces one written here.
      out.set(name, { name, key: pair.key, value: pair.value });
    }
    for (const source of merges) {
      const resolved = this.resolve(source);
      const sources = resolved.kind === "seq" ? resolved.items : [source];
      for (const item of sources) {
        const m = this.resolve(item);
        if (m.kind !== "map" || depth >= MAX_ALIAS_DEPTH) {
          const hint = "write `<<: *anchor` or `<<: [*a, *b]`";
          if (report) this.problem(item, path, "`<<` merges mappings only", hint);
          continue;
        }
        const merged = new Map<string, Entry>();
        this.#collect(m, path, merged, depth + 1, report);
        for (const [name, entry] of merged) if (!out.has(name)) out.set(name, entry);
      }
    }
  }

  /** The items of a list; a single value counts as a list of one. */
  list(node: TreeNode, path: string, what: string): TreeNode[] | undefined {
    const n = this.resolve(node);
    if (n.kind === "seq") return n.items;
    if (n.kind === "map") {
      this.problem(node, path, `${what} must be a value or a list, not a mapping`);
      return undefined;
    }
    if (n.value === null) {
      this.problem(node, path, `${what} has no value`);
      return undefined;
    }
    return [node];
  }

  /**
   * A string value, `${NAME}` substituted. Numbers are taken as written (`gate: 07` is
   * `07`); booleans, null, mappings and lists are problems. The string is one of its
   * own, not a view into the file text (see `RuleInterner.string`): rules keep it.
   */
  string(node: TreeNode, path: string, what: string): string | undefined {
    const n = this.resolve(node);
    if (n.kind !== "scalar") {
      this.problem(node, path, `${what} must be a single value, not ${describe(n)}`);
      return undefined;
    }
    const value = n.value;
    if (typeof value === "string") {
      const text = this.substitute(n, value, path);
      return text === undefined ? undefined : this.interner.string(text);
    }
    if (typeof value === "number") return this.interner.string(n.plain ?? String(value));
    this.problem(
      node,
      path,
      value === null ? `${what} has no value` : `${what} must be text, not ${value}`,
    );
    return undefined;
  }

  /** `${NAME}` substitution of one value, problems recorded at its node. */
  substitute(node: TreeNode, text: string, path: string): string | undefined {
    const result = substituteVariables(text, this.#vars);
    if (result.ok) {
      if (this.#inCredential) for (const name of result.names) this.secretVariables.add(name);
      return result.value;
    }
    for (const p of result.problems) this.problem(node, path, p.message, p.hint);
    return undefined;
  }

  /**
   * Runs `read` on a credential (an endpoint URL, a signing secret): the variables it
   * substitutes are recorded in `secretVariables`, so that output can mask their values.
   */
  credential<T>(read: () => T): T {
    this.#inCredential = true;
    try {
      return read();
    } finally {
      this.#inCredential = false;
    }
  }

  /**
   * What `read` makes of `node`, shared with the rules of this load that wrote the same
   * before (`kind` names the part: equal text means the same value only for the same
   * reader). The first read without problems is kept (frozen, see `RuleInterner.keep`)
   * and given to every later node written alike, which is then not read at all. Only
   * for parts whose value is what is written, never where (no source positions), and
   * that record no secret variables; a node with merge keys or deep nesting is read
   * each time.
   */
  shared<T extends object>(kind: string, node: TreeNode, read: () => T | undefined): T | undefined {
    const written = this.#writtenKey(node, 0);
    if (written === undefined) return read();
    const key = `${kind}${written}`;
    const known = this.interner.known(key);
    if (known !== undefined) return known as T;
    const failures = this.#failures;
    const value = read();
    return value === undefined || this.#failures !== failures
      ? value
      : this.interner.keep(key, value);
  }

  /**
   * `node` as written, types and nesting included (aliases followed), so that equal keys
   * read alike; undefined for merge keys (whose reading can report) and nesting deeper
   * than a rule's parts go.
   */
  #writtenKey(node: TreeNode, depth: number): string | undefined {
    if (depth > MAX_WRITTEN_DEPTH) return undefined;
    const n = this.resolve(node);
    if (n.kind === "scalar") {
      const value = n.value;
      // Strings are self-delimiting by their length; other scalars end with `;`.
      if (typeof value === "string") return `s${value.length}:${value}`;
      if (value === null) return n.empty ? "e;" : "z;";
      return `${typeof value === "number" ? "n" : "b"}${n.plain ?? String(value)};`;
    }
    let key = n.kind === "seq" ? "[" : "{";
    if (n.kind === "seq") {
      for (const item of n.items) {
        const inner = this.#writtenKey(item, depth + 1);
        if (inner === undefined) return undefined;
        key += inner;
      }
      return `${key}]`;
    }
    for (const pair of n.pairs) {
      if (pair.merge) return undefined;
      const name = this.#writtenKey(pair.key, depth + 1);
      const value = name === undefined ? undefined : this.#writtenKey(pair.value, depth + 1);
      if (value === undefined) return undefined;
      key += name + value;
    }
    return `${key}}`;
  }

  /** A rule-file duration in milliseconds (`90s`, `1h30m`; a bare number is a problem). */
  duration(node: TreeNode, path: string, what: string): number | undefined {
    const text = this.string(node, path, what);
    if (text === undefined) return undefined;
    const read = readRuleDuration(text);
    if (read.ok) return read.value;
    this.problem(node, path, read.message, read.hint);
    return undefined;
  }

  /** A boolean; `"true"`/`"false"` text (from a variable) counts too. */
  boolean(node: TreeNode, path: string, what: string): boolean | undefined {
    const n = this.resolve(node);
    if (n.kind === "scalar" && typeof n.value === "boolean") return n.value;
    if (n.kind === "scalar" && typeof n.value === "string") {
      const text = this.substitute(n, n.value, path);
      if (text === undefined) return undefined;
      const word = text.trim().toLowerCase();
      if (word === "true" || word === "false") return word === "true";
      this.problem(node, path, `${what} must be true or false, not \`${text}\``);
      return undefined;
    }
    this.problem(node, path, `${what} must be true or false, not ${describe(n)}`);
    return undefined;
  }

  /** A positive integer; digits as text (from a variable) count too. */
  positiveInteger(node: TreeNode, path: string, what: string): number | undefined {
    const n = this.resolve(node);
    let value: number | undefined;
    let shown: string;
    if (n.kind === "scalar" && typeof n.value === "number") {
      value = n.value;
      shown = n.plain ?? String(n.value);
    } else if (n.kind === "scalar" && typeof n.value === "string") {
      const text = this.substitute(n, n.value, path);
      if (text === undefined) return undefined;
      shown = `\`${text}\``;
      value = /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;
    } else shown = describe(n);
    if (value !== undefined && Number.isSafeInteger(value) && value >= 1) return value;
    this.problem(node, path, `${what} must be a whole number from 1, not ${shown}`);
    return undefined;
  }
}

/** The name of a key as written: a plain `1` is `1`, a quoted one its text. */
function keyName(key: TreeScalar): string {
  return typeof key.value === "string" ? key.value : (key.plain ?? String(key.value));
}

/** What an empty list is written for: its message and hint. */
export interface EmptyList {
  message: string;
  hint: string;
}

/**
 * A list (or a single value where a list is allowed, `what` naming it): each item read
 * by `read` at its own path, which records its own problems; equal values kept once.
 * Undefined when any item failed, or when the list is empty — always a mistake, which
 * `empty` explains.
 */
export function readItems<T>(
  r: TreeReader,
  node: TreeNode,
  path: string,
  what: string,
  empty: EmptyList,
  read: (item: TreeNode, itemPath: string) => T | undefined,
): T[] | undefined {
  const items = r.list(node, path, what);
  if (!items) return undefined;
  if (items.length === 0) {
    r.problem(node, path, empty.message, empty.hint);
    return undefined;
  }
  const many = r.resolve(node).kind === "seq";
  const out: T[] = [];
  let ok = true;
  items.forEach((item, i) => {
    const value = read(item, many ? `${path}[${i}]` : path);
    if (value === undefined) ok = false;
    else if (!out.includes(value)) out.push(value);
  });
  // A copy sized exactly: the first push leaves room for 17 items, and rules keep lists.
  return ok ? out.slice() : undefined;
}

/** `readItems` for a key's value; `consequence` says what an empty list would do ("it would match no flight"). */
export function readList<T>(
  r: TreeReader,
  entry: Entry,
  path: string,
  consequence: string,
  read: (item: TreeNode, itemPath: string) => T | undefined,
): T[] | undefined {
  const name = `\`${entry.name}\``;
  const message = `${name} is an empty list: ${consequence}`;
  const hint = "list at least one value, or remove the key";
  return readItems(r, entry.value, path, name, { message, hint }, read);
}

/** `what` for messages: `a mapping`, `a list`, `null`, `\`text\``. */
export function describe(node: TreeMap | TreeSeq | TreeScalar): string {
  if (node.kind === "map") return "a mapping";
  if (node.kind === "seq") return "a list";
  if (node.value === null) return node.empty ? "nothing" : "null";
  if (typeof node.value === "string") return `\`${node.value}\``;
  return node.plain ?? String(node.value);
}

/** `path.key`, or `key` at the top. */
export function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
