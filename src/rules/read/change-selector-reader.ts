/**
 * Reads a rule's `changes` list into ChangeSelectors: each a kind name (`gate`) or a
 * mapping with `kind` and options. Names map to event kinds, states, actions and time
 * fields by the table in rule-schema.ts; an option the kind cannot use is an error
 * naming the kinds that take it, since it would otherwise silently never match.
 */
import type { ChangeAction } from "../../diff/change.js";
import type { ChangeSelector } from "../rule.js";
import { suggestionHint } from "./did-you-mean.js";
import {
  CHANGE_ACTIONS,
  KIND_NAMES,
  KIND_SPECS,
  type KindSpec,
  SELECTOR_KEYS,
  STATE_CODES,
  TIME_FIELD_NAMES,
  TIME_KIND_NAMES,
} from "./rule-schema.js";
import {
  type EmptyList,
  type Entry,
  join,
  readItems,
  readList,
  type TreeReader,
} from "./tree-reader.js";
import type { TreeMap, TreeNode } from "./yaml-tree.js";

/** What a `state` selector that lists `states:` takes without `actions:`: the states beginning. */
export const STATES_DEFAULT_ACTIONS: readonly ChangeAction[] = ["added"];

const quoted = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(", ");

/** Reads `changes`; undefined when it has problems (they are recorded). */
export function readChangeSelectors(
  r: TreeReader,
  node: TreeNode,
  path: string,
): ChangeSelector[] | undefined {
  return readItems(r, node, path, "`changes`", NO_CHANGES, (item, at) => readSelector(r, item, at));
}

const NO_CHANGES: EmptyList = {
  message: "`changes` is an empty list: the rule would match no change",
  hint: "list change kinds (e.g. gate, cancelled), or remove `changes` to take every change",
};

function readSelector(r: TreeReader, node: TreeNode, path: string): ChangeSelector | undefined {
  const resolved = r.resolve(node);
  if (resolved.kind === "seq") {
    r.problem(node, path, "a change selector must be a kind name or a mapping, not a list");
    return undefined;
  }
  if (resolved.kind === "scalar") {
    const read = readKind(r, node, path);
    return read && selectorOf(read.name, read.spec);
  }
  return readSelectorMap(r, resolved, path);
}

/** A kind name and what it stands for, or a problem with a did-you-mean. */
function readKind(
  r: TreeReader,
  node: TreeNode,
  path: string,
): { name: string; spec: KindSpec } | undefined {
  const name = r.string(node, path, "a change kind");
  if (name === undefined) return undefined;
  const spec = KIND_SPECS[name];
  if (spec === undefined || !Object.hasOwn(KIND_SPECS, name)) {
    r.problem(node, path, `unknown change kind \`${name}\``, suggestionHint(name, KIND_NAMES));
    return undefined;
  }
  return { name, spec };
}

function selectorOf(name: string, spec: KindSpec): ChangeSelector {
  const selector: ChangeSelector = { name, kinds: [...spec.kinds] };
  if (spec.fields) selector.fields = [...spec.fields];
  if (spec.states) selector.states = [...spec.states];
  if (spec.fixedActions) selector.actions = [...spec.actions];
  return selector;
}

function readSelectorMap(r: TreeReader, map: TreeMap, path: string): ChangeSelector | undefined {
  const entries = r.entries(map, path, SELECTOR_KEYS);
  const kindEntry = entries.get("kind");
  if (!kindEntry) {
    r.problem(
      map,
      path,
      "change selector has no `kind`",
      "write { kind: gate, … }, or just the kind name",
    );
    return undefined;
  }
  const kind = readKind(r, kindEntry.value, join(path, "kind"));
  if (!kind) return undefined;
  const { name, spec } = kind;
  const selector = selectorOf(name, spec);
  let ok = true;
  for (const entry of entries.values()) {
    if (entry.name === "kind") continue;
    const at = join(path, entry.name);
    if (!applies(r, entry, at, name, spec)) {
      ok = false;
      continue;
    }
    switch (entry.name) {
      case "states": {
        const states = readCodes(r, entry, at, "state", STATE_CODES, (t) => t.toUpperCase());
        if (states) selector.states = states;
        else ok = false;
        break;
      }
      case "fields": {
        const fields = readCodes(r, entry, at, "time field", TIME_FIELD_NAMES, (t) => t);
        if (fields) selector.fields = fields;
        else ok = false;
        break;
      }
      case "actions": {
        const actions = readCodes(r, entry, at, "action", CHANGE_ACTIONS, (t) => t.toLowerCase());
        const never = actions?.filter((a) => !spec.actions.includes(a as ChangeAction));
        if (!actions) ok = false;
        else if (never && never.length > 0) {
          r.problem(
            entry.value,
            at,
            `\`${name}\` changes are never ${never.map((a) => `\`${a}\``).join(" or ")}`,
            `\`${name}\` changes are ${spec.actions.map((a) => `\`${a}\``).join(" or ")}`,
          );
          ok = false;
        } else selector.actions = actions as ChangeAction[];
        break;
      }
      default: {
        const ms = r.duration(entry.value, at, `\`${entry.name}\``);
        if (ms === undefined) ok = false;
        else if (entry.name === "within") {
          if (ms <= 0) {
            r.problem(entry.value, at, "`within` must be more than 0", "e.g. within: 3h");
            ok = false;
          } else selector.withinMs = ms;
        } else if (entry.name === "delay_at_least") selector.delayAtLeastMinutes = ms / 60_000;
        else selector.shiftAtLeastMinutes = ms / 60_000;
      }
    }
  }
  // "Boarding or gate closing" means the states beginning: a state's withdrawal (BRD gone
  // when the flight is cancelled) would put "no longer boarding" in a cancellation alert.
  if (name === "state" && entries.has("states") && !entries.has("actions")) {
    selector.actions = [...STATES_DEFAULT_ACTIONS];
  }
  return ok ? selector : undefined;
}

/** Whether an option applies to the kind; a problem naming the kinds that take it if not. */
function applies(r: TreeReader, entry: Entry, path: string, name: string, spec: KindSpec): boolean {
  let hint: string | undefined;
  if (entry.name === "states" && name !== "state") {
    hint = spec.states
      ? `\`${name}\` already means state ${spec.states.join(", ")}; for other states write { kind: state, states: [...] }`
      : "only `state` takes `states`";
  } else if (entry.name === "fields" && name !== "time") {
    hint = spec.fields
      ? `only \`time\` takes \`fields\`; \`${name}\` already means ${spec.fields.join(", ")}`
      : "only `time` takes `fields`";
  } else if ((entry.name === "delay_at_least" || entry.name === "shift_at_least") && !spec.time) {
    hint = `only time kinds take it: ${quoted(TIME_KIND_NAMES)}`;
  }
  if (hint === undefined) return true;
  r.problem(entry.key, path, `\`${entry.name}\` does not apply to \`${name}\``, hint);
  return false;
}

/** A list of names from a closed set, normalised by `norm`; unknown ones get a did-you-mean. */
function readCodes(
  r: TreeReader,
  entry: Entry,
  path: string,
  what: string,
  valid: readonly string[],
  norm: (text: string) => string,
): string[] | undefined {
  return readList(r, entry, path, "the selector would match nothing", (item, at) => {
    const text = r.string(item, at, `a ${what}`);
    if (text === undefined) return undefined;
    const value = norm(text.trim());
    if (valid.includes(value)) return value;
    r.problem(item, at, `unknown ${what} \`${text}\``, suggestionHint(text.trim(), valid));
    return undefined;
  });
}
