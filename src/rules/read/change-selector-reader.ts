/**
 * Reads a rule's `changes` list into ChangeSelectors: each a kind name (`gate`) or a
 * mapping with `kind` and options. Names map to event kinds, states, actions and time
 * fields by the table in change-kinds.ts, options are read as the options table
 * (change-options.ts) writes them; an option the kind cannot use is an error naming the
 * kinds that take it, since it would otherwise silently never match.
 */
import type { ChangeAction } from "../../diff/change.js";
import { KIND_NAMES, KIND_SPECS, type KindSpec } from "../change-kinds.js";
import {
  type ChangeOption,
  type ChangeSelector,
  OPTION_ENTRIES,
  type OptionName,
  type OptionValues,
} from "../change-options.js";
import { suggestionHint } from "./did-you-mean.js";
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

type NamesForm = Extract<ChangeOption<unknown>["form"], { kind: "names" }>;

/** The options by their key in rule files. */
const BY_KEY = new Map<string, [OptionName, ChangeOption<unknown>]>(
  OPTION_ENTRIES.map((entry) => [entry[1].key, entry]),
);

/** Keys of a change selector written as a mapping: `kind`, then the options'. */
const SELECTOR_KEYS: readonly string[] = ["kind", ...BY_KEY.keys()];

/** Reads `changes`; undefined when it has problems (they are recorded). */
export function readChangeSelectors(
  r: TreeReader,
  node: TreeNode,
  path: string,
  what = "`changes`",
): ChangeSelector[] | undefined {
  return readItems(r, node, path, what, NO_CHANGES, (item, at) => readSelector(r, item, at));
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
  const values: OptionValues = selector;
  let ok = true;
  for (const entry of entries.values()) {
    const option = BY_KEY.get(entry.name);
    if (option === undefined) continue;
    const value = readOption(r, entry, join(path, entry.name), name, spec, option[1]);
    if (value === undefined) ok = false;
    else values[option[0]] = value as never;
  }
  // "Boarding or gate closing" means the states beginning: a state's withdrawal (BRD gone
  // when the flight is cancelled) would put "no longer boarding" in a cancellation alert.
  if (name === "state" && entries.has("states") && !entries.has("actions")) {
    selector.actions = [...STATES_DEFAULT_ACTIONS];
  }
  return ok ? selector : undefined;
}

/**
 * One option's value, read as its form says; undefined after a problem — also when
 * the kind cannot take the option (naming the kinds that can) or refuses the value.
 */
function readOption(
  r: TreeReader,
  entry: Entry,
  at: string,
  name: string,
  spec: KindSpec,
  option: ChangeOption<unknown>,
): unknown {
  const hint = option.refusedFor?.(name, spec);
  if (hint !== undefined) {
    r.problem(entry.key, at, `\`${entry.name}\` does not apply to \`${name}\``, hint);
    return undefined;
  }
  const { form } = option;
  let value: unknown;
  if (form.kind === "names") value = readNames(r, entry, at, form);
  else {
    const ms = r.duration(entry.value, at, `\`${entry.name}\``);
    value = ms === undefined ? undefined : ms / form.unitMs;
  }
  if (value === undefined) return undefined;
  const refusal = option.check?.(value, name, spec);
  if (refusal === undefined) return value;
  r.problem(entry.value, at, refusal.refused, refusal.hint);
  return undefined;
}

/** A list of names from a closed set, normalised by `norm`; unknown ones get a did-you-mean. */
function readNames(
  r: TreeReader,
  entry: Entry,
  path: string,
  { what, valid, norm }: NamesForm,
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
