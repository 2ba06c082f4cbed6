/**
 * Validates one rule file and normalises its rules: the top-level mapping (`rules`
 * plus ignored `x-…` keys), each rule's keys, id, labels, filters, channels and noise
 * control. Every problem is recorded; a rule with any problem is left out of the
 * result while the file's other rules are kept (the caller decides what to do).
 */
import type { RuleProblem } from "../../errors.js";
import { OutboundPolicy } from "../../outbound/outbound-policy.js";
import { isLanguage, LANGUAGES } from "../../render/language.js";
import { airportZone } from "../../time/local-time.js";
import type { ChangeSelector, FlappingSpec, FlightFilter, Rule, SourcePosition } from "../rule.js";
import { readChangeSelectors } from "./change-selector-reader.js";
import { readChannels } from "./channel-reader.js";
import { didYouMean, suggestionHint } from "./did-you-mean.js";
import { readFlightFilter } from "./flight-filter-reader.js";
import { readQuietHours } from "./quiet-hours-reader.js";
import { readReminders } from "./reminder-reader.js";
import { parseRuleDocument } from "./rule-document.js";
import { RuleInterner } from "./rule-interner.js";
import { FLAPPING_KEYS, FLIGHT_FILTER_KEYS, RULE_KEYS } from "./rule-schema.js";
import { type Entry, join, TreeReader } from "./tree-reader.js";
import type { RuleVariables } from "./variable-substitution.js";
import type { TreeMap, TreeNode } from "./yaml-tree.js";

/** Rule ids: letters, digits, `.`, `_`, `-`; starting with a letter or digit; at most 128. */
export const RULE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const LABEL_KEY_RE = /^[A-Za-z0-9_.-]+$/;
const DAY_MS = 86_400_000;
/** The flight filter of a rule without `flights`, shared (frozen, as shared parts are). */
const EVERY_FLIGHT: FlightFilter = Object.freeze({});
/** `changes: []`: a rule of reminders only, which no change matches. */
const NO_CHANGES: ChangeSelector[] = Object.freeze([]) as unknown as ChangeSelector[];

/** Whether a node is an empty list (`[]`). */
function isEmptyList(r: TreeReader, node: TreeNode): boolean {
  const resolved = r.resolve(node);
  return resolved.kind === "seq" && resolved.items.length === 0;
}

/** What reading rule files needs: the rule variables and the airport's time zone. */
export interface RuleReadOptions {
  vars: RuleVariables;
  zone: string;
  /** Internal destinations channel URLs may name (OUTBOUND_ALLOW); none when absent. */
  outbound?: OutboundPolicy;
}

/** A rule id, where it is written and its path (for duplicate checks across files). */
export interface RuleIdSource {
  id: string;
  source: SourcePosition;
  path: string;
}

/** The outcome of one file. */
export interface RuleFileRead {
  /** Valid, enabled rules, in file order. */
  rules: Rule[];
  problems: RuleProblem[];
  /** Ids of rules with `enabled: false`. */
  disabled: string[];
  /** Every well-formed id in the file, valid rule or not, in file order. */
  ids: RuleIdSource[];
  /** Rule variables whose values went into a credential (an endpoint URL, a signing secret). */
  secretVariables: string[];
}

/**
 * Reads and validates one file's text; problems sorted by position. Rules of files read
 * with one `interner` share what they have in common.
 */
export function readRuleFile(
  text: string,
  file: string,
  options: RuleReadOptions,
  interner: RuleInterner = new RuleInterner(),
): RuleFileRead {
  airportZone(options.zone);
  const doc = parseRuleDocument(text, file);
  const result: RuleFileRead = {
    rules: [],
    problems: sortProblems(doc.problems),
    disabled: [],
    ids: [],
    secretVariables: [],
  };
  if (doc.problems.length > 0) return result;
  if (doc.root === undefined) {
    result.problems.push({
      file,
      line: 0,
      column: 0,
      path: "",
      message: "the file is empty",
      hint: "a rule file holds a mapping with a `rules` list (or delete the file)",
    });
    return result;
  }
  const r = new TreeReader(file, doc.lines, options.vars, interner);
  const list = readTop(r, doc.root);
  const firstAt = new Map<string, SourcePosition>();
  list?.forEach((item, i) => {
    const read = readRule(
      r,
      item,
      `rules[${i}]`,
      options.zone,
      options.outbound ?? OutboundPolicy.STRICT,
    );
    if (read.idSource) {
      const first = firstAt.get(read.idSource.id);
      if (first) {
        r.ruleId = undefined;
        r.problem(
          read.idNode as TreeNode,
          `rules[${i}].id`,
          duplicateMessage(read.idSource.id, first),
          DUPLICATE_HINT,
        );
      } else firstAt.set(read.idSource.id, read.idSource.source);
      result.ids.push(read.idSource);
    }
    if (r.failed || !read.rule) return;
    if (read.enabled) result.rules.push(read.rule);
    else result.disabled.push(read.rule.id);
  });
  result.problems = sortProblems(r.problems);
  result.secretVariables = [...r.secretVariables];
  return result;
}

/** The message of a duplicate id, as docs/rules.md shows it. */
export function duplicateMessage(id: string, first: SourcePosition): string {
  return `duplicate rule id \`${id}\` (first defined at ${first.file}:${first.line}:${first.column})`;
}

/** The hint of a duplicate id. */
export const DUPLICATE_HINT = "rule ids must be unique over all files";

/** Problems in position order (stable: same place keeps the order found). */
export function sortProblems(problems: RuleProblem[]): RuleProblem[] {
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => a.p.line - b.p.line || a.p.column - b.p.column || a.i - b.i)
    .map(({ p }) => p);
}

/** The top-level mapping: its `rules` list (items), or undefined after a problem. */
function readTop(r: TreeReader, root: TreeNode): TreeNode[] | undefined {
  const map = r.map(root, "", "a rule file");
  if (!map) return undefined;
  const entries = r.entries(map, "");
  for (const entry of entries.values()) {
    if (entry.name === "rules" || entry.name.startsWith("x-")) continue;
    const guess = didYouMean(entry.name, ["rules"]);
    r.problem(
      entry.key,
      entry.name,
      `unknown top-level key \`${entry.name}\``,
      guess
        ? `did you mean \`${guess}\`?`
        : "a rule file holds `rules` (and `x-…` keys for anchors, which are ignored)",
    );
  }
  const rules = entries.get("rules");
  if (!rules) {
    r.problem(
      map,
      "",
      "the file has no `rules` list",
      "write `rules:` followed by a list of rules",
    );
    return undefined;
  }
  const list = r.resolve(rules.value);
  if (list.kind === "seq") return list.items;
  r.problem(
    rules.value,
    "rules",
    "`rules` must be a list of rules",
    "write each rule as a `- id: …` item",
  );
  return undefined;
}

interface RuleRead {
  rule?: Rule;
  enabled: boolean;
  idSource?: RuleIdSource;
  idNode?: TreeNode;
}

function readRule(
  r: TreeReader,
  node: TreeNode,
  path: string,
  zone: string,
  outbound: OutboundPolicy,
): RuleRead {
  const resolved = r.resolve(node);
  r.beginRule(undefined);
  if (resolved.kind !== "map") {
    r.map(node, path, "a rule");
    return { enabled: true };
  }
  const map = resolved;
  // The id first, so that every problem of the rule (unknown keys too) carries it.
  const idEntry = r.peek(map, "id");
  const rawId = idEntry && r.resolve(idEntry.value);
  // The id as written (a string, or a number such as `0601`), even if it proves invalid.
  const written =
    rawId?.kind === "scalar" && (typeof rawId.value === "string" || typeof rawId.value === "number")
      ? (rawId.plain ?? String(rawId.value))
      : undefined;
  r.beginRule(written);
  const entries = r.entries(map, path, RULE_KEYS, ruleKeyHint);
  const read: RuleRead = { enabled: true };
  const id = readId(r, idEntry, map, path);
  if (id !== undefined && idEntry) {
    r.ruleId = id;
    read.idSource = { id, source: r.position(idEntry.value), path: join(path, "id") };
    read.idNode = idEntry.value;
  }
  const rule: Partial<Rule> & { labels: Record<string, string> } = { labels: {} };
  for (const entry of entries.values()) {
    const at = join(path, entry.name);
    switch (entry.name) {
      case "description": {
        const description = r.string(entry.value, at, "`description`");
        if (description !== undefined) rule.description = description;
        break;
      }
      // Parts rules written alike share (frozen), read once (TreeReader.shared).
      case "labels":
        rule.labels = r.shared("labels", entry.value, () => readLabels(r, entry, at)) ?? {};
        break;
      case "enabled":
        read.enabled = r.boolean(entry.value, at, "`enabled`") ?? true;
        break;
      case "flights":
        rule.flights = r.shared("flights", entry.value, () =>
          readFlightFilter(r, entry.value, at, zone),
        );
        break;
      case "changes":
        // `changes: []` with `remind`: reminders only (checked once every key is read).
        if (isEmptyList(r, entry.value)) {
          rule.changes = NO_CHANGES;
          break;
        }
        rule.changes = r.shared("changes", entry.value, () =>
          readChangeSelectors(r, entry.value, at),
        );
        break;
      case "remind":
        rule.reminders = r.shared("remind", entry.value, () => readReminders(r, entry, at));
        break;
      case "channels":
        rule.channels = readChannels(r, entry.value, at, outbound);
        break;
      case "group_wait":
        rule.groupWaitMs = readWait(r, entry, at, "`group_wait`", DAY_MS);
        break;
      case "cool_down":
        rule.coolDownMs = readWait(r, entry, at, "`cool_down`");
        break;
      case "flapping":
        rule.flapping = r.shared("flapping", entry.value, () => readFlapping(r, entry.value, at));
        break;
      case "quiet_hours":
        rule.quietHours = r.shared("quiet_hours", entry.value, () =>
          readQuietHours(r, entry.value, at, zone),
        );
        break;
      case "language": {
        const language = r.string(entry.value, at, "`language`");
        if (language === undefined) break;
        if (isLanguage(language)) rule.language = language;
        else {
          r.problem(
            entry.value,
            at,
            `\`${language}\` is not a language notifications are written in`,
            `write one of ${LANGUAGES.join(", ")}`,
          );
        }
        break;
      }
    }
  }
  if (!entries.has("channels")) {
    r.problem(
      map,
      path,
      "rule has no `channels`",
      "add at least one, e.g. channels: [{ type: console }]",
    );
  }
  const changesEntry = entries.get("changes");
  if (rule.changes === NO_CHANGES && changesEntry && !entries.has("remind")) {
    r.problem(
      changesEntry.value,
      join(path, "changes"),
      "`changes` is an empty list: the rule would match no change",
      "list change kinds (e.g. gate, cancelled), remove `changes` to take every change, or add `remind` for a rule of reminders only",
    );
  }
  if (r.failed || id === undefined || !read.idSource || !rule.channels) return read;
  // Built in one go with every key (undefined when not written): every rule has one
  // hidden class, and none is changed once built.
  read.rule = {
    id,
    description: rule.description,
    labels: rule.labels,
    source: read.idSource.source,
    flights: rule.flights ?? EVERY_FLIGHT,
    changes: rule.changes,
    channels: rule.channels,
    groupWaitMs: rule.groupWaitMs ?? 0,
    coolDownMs: rule.coolDownMs ?? 0,
    flapping: rule.flapping,
    language: rule.language,
    quietHours: rule.quietHours,
    reminders: rule.reminders,
  };
  return read;
}

function readId(
  r: TreeReader,
  entry: Entry | undefined,
  map: TreeMap,
  path: string,
): string | undefined {
  if (!entry) {
    r.problem(
      map,
      path,
      "rule has no `id`",
      "give every rule a unique id: letters, digits, `.`, `_`, `-`",
    );
    return undefined;
  }
  const at = join(path, "id");
  const id = r.string(entry.value, at, "`id`");
  if (id === undefined) return undefined;
  if (RULE_ID_RE.test(id)) return id;
  r.problem(
    entry.value,
    at,
    id.length > 128
      ? `rule id \`${id.slice(0, 40)}…\` is longer than 128 characters`
      : `\`${id}\` is not a valid rule id`,
    "ids are letters, digits, `.`, `_`, `-`, starting with a letter or digit, at most 128 characters",
  );
  return undefined;
}

/** A flight-filter key written at the rule level is a common slip: say where it goes. */
function ruleKeyHint(name: string): string | undefined {
  const guess = didYouMean(name, RULE_KEYS);
  if (guess !== undefined) return `did you mean \`${guess}\`?`;
  if ((FLIGHT_FILTER_KEYS as readonly string[]).includes(name)) {
    return `\`${name}\` is a flight criterion: put it under \`flights:\``;
  }
  if (name === "kind" || name === "states") return `\`${name}\` belongs in a \`changes\` entry`;
  if (name === "type" || name === "url" || name === "to")
    return `\`${name}\` belongs in a \`channels\` entry`;
  return suggestionHint(name, RULE_KEYS);
}

function readLabels(r: TreeReader, entry: Entry, path: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const map = r.map(entry.value, path, "`labels`");
  if (!map) return labels;
  for (const label of r.entries(map, path).values()) {
    const at = join(path, label.name);
    if (!LABEL_KEY_RE.test(label.name)) {
      r.problem(
        label.key,
        at,
        `\`${label.name}\` is not a label name`,
        "label names are letters, digits, `_`, `-`, `.`",
      );
      continue;
    }
    const value = r.resolve(label.value);
    const text =
      value.kind === "scalar" && typeof value.value === "boolean"
        ? String(value.value)
        : r.string(label.value, at, `label \`${label.name}\``);
    // Defined, not assigned: a label named `__proto__` must be a label, not a prototype.
    if (text !== undefined) {
      Object.defineProperty(labels, label.name, {
        value: text,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return labels;
}

/** A `group_wait` or `cool_down`: a duration, at most `maxMs`. */
function readWait(
  r: TreeReader,
  entry: Entry,
  path: string,
  what: string,
  maxMs?: number,
): number | undefined {
  const ms = r.duration(entry.value, path, what);
  if (ms !== undefined && maxMs !== undefined && ms > maxMs) {
    r.problem(
      entry.value,
      path,
      `${what} is longer than a day`,
      "a group held that long is no alert; use minutes",
    );
    return undefined;
  }
  return ms;
}

/** `flapping: {window, action}`; both are checked, so both problems show at once. */
function readFlapping(r: TreeReader, node: TreeNode, path: string): FlappingSpec | undefined {
  const map = r.map(node, path, "`flapping`");
  if (!map) return undefined;
  const entries = r.entries(map, path, FLAPPING_KEYS);
  const window = entries.get("window");
  const action = entries.get("action");
  if (!window || !action) {
    r.problem(
      map,
      path,
      `\`flapping\` needs ${!window ? "`window`" : "`action`"}`,
      "e.g. flapping: { window: 10m, action: correct }",
    );
  }
  const windowMs = window && r.duration(window.value, join(path, "window"), "`window`");
  if (window && windowMs !== undefined && (windowMs <= 0 || windowMs > DAY_MS)) {
    r.problem(
      window.value,
      join(path, "window"),
      "`window` must be more than 0 and at most a day",
      "e.g. window: 10m",
    );
  }
  const text = action && r.string(action.value, join(path, "action"), "`action`");
  if (action && text !== undefined && text !== "suppress" && text !== "correct") {
    r.problem(
      action.value,
      join(path, "action"),
      `unknown flapping action \`${text}\``,
      suggestionHint(text, ["suppress", "correct"]),
    );
  }
  if (windowMs === undefined || windowMs <= 0 || windowMs > DAY_MS) return undefined;
  if (text !== "suppress" && text !== "correct") return undefined;
  return { windowMs, action: text };
}
