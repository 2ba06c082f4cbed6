/**
 * Reads a rule's `flights` mapping into a FlightFilter, each criterion as the criteria
 * table (flight-criteria.ts) writes it: codes checked for shape (a typo such as `JFKK`
 * is an error, not a filter that never matches), single values taken as lists of one,
 * schedule bounds read in the airport's zone; then `not` and the direction clashes.
 */
import {
  CRITERIA_ENTRIES,
  type Criterion,
  type CriterionName,
  type FlightFilter,
  isRefusal,
  type TextParser,
} from "../flight-criteria.js";
import type { ScheduleWindow, TimeBound } from "../rule.js";
import { FLIGHT_FILTER_KEYS, SCHEDULE_KEYS } from "./rule-schema.js";
import { isEmptyWindow, readScheduleBound } from "./rule-time.js";
import { type Entry, join, readList, type TreeReader } from "./tree-reader.js";
import type { TreeNode } from "./yaml-tree.js";

/** `not` inside `not` this deep is a mistake (or an alias loop), not a filter. */
const MAX_NOT_DEPTH = 4;

/** The criteria by their key in rule files. */
const BY_KEY = new Map<string, [CriterionName, Criterion<unknown>]>(
  CRITERIA_ENTRIES.map((entry) => [entry[1].key, entry]),
);

/** What an empty list criterion of a flight filter would do. */
const NO_FLIGHT = "it would match no flight";

/** Reads a flight filter; undefined when it has problems (they are recorded). */
export function readFlightFilter(
  r: TreeReader,
  node: TreeNode,
  path: string,
  zone: string,
  depth = 0,
): FlightFilter | undefined {
  const before = r.failures;
  const map = r.map(node, path, `\`${lastKey(path)}\``);
  if (!map) return undefined;
  const entries = r.entries(map, path, FLIGHT_FILTER_KEYS, (name) =>
    name === "flights"
      ? "`flights` takes the criteria directly: `flights: { flight: KL1395 }`"
      : undefined,
  );
  const filter: FlightFilter = {};
  const values = filter as Record<string, unknown>;
  for (const entry of entries.values()) {
    const at = join(path, entry.name);
    if (entry.name === "not") {
      const not = readNot(r, entry, at, zone, depth);
      if (not) filter.not = not;
      continue;
    }
    const criterion = BY_KEY.get(entry.name);
    if (criterion === undefined) continue;
    const value = readCriterion(r, entry, at, zone, criterion[1]);
    if (value !== undefined) values[criterion[0]] = value;
  }
  checkDirection(r, filter, entries, path);
  // Half a filter is a different filter: any problem inside makes the whole one unusable.
  return r.failures === before ? filter : undefined;
}

/** One criterion's value, read as its form says; undefined after a problem. */
function readCriterion(
  r: TreeReader,
  entry: Entry,
  at: string,
  zone: string,
  criterion: Criterion<unknown>,
): unknown {
  const { form } = criterion;
  switch (form.kind) {
    case "text": {
      const text = r.string(entry.value, at, `\`${entry.name}\``);
      return text === undefined ? undefined : parsed(r, entry.value, at, text, form.parse);
    }
    case "texts":
      return readList(r, entry, at, NO_FLIGHT, (item, itemPath) => {
        const text = r.string(item, itemPath, form.what);
        return text === undefined ? undefined : parsed(r, item, itemPath, text, form.parse);
      });
    case "wholeNumbers":
      return readList(r, entry, at, NO_FLIGHT, (item, itemPath) =>
        r.positiveInteger(item, itemPath, form.what),
      );
    case "boolean":
      return r.boolean(entry.value, at, `\`${entry.name}\``);
    case "schedule":
      return readSchedule(r, entry.value, at, zone);
  }
}

/** A text parsed by a criterion's parser; its refusal recorded as a problem. */
function parsed(
  r: TreeReader,
  node: TreeNode,
  path: string,
  text: string,
  parse: TextParser<string | number>,
): unknown {
  const value = parse(text);
  if (!isRefusal(value)) return value;
  r.problem(node, path, value.refused, value.hint);
  return undefined;
}

/** `not`: a nested filter, neither empty nor nested too deeply. */
function readNot(
  r: TreeReader,
  entry: Entry,
  at: string,
  zone: string,
  depth: number,
): FlightFilter | undefined {
  if (depth >= MAX_NOT_DEPTH) {
    r.problem(entry.key, at, "`not` is nested too deeply", "a few levels of `not` are enough");
    return undefined;
  }
  const not = readFlightFilter(r, entry.value, at, zone, depth + 1);
  if (not && Object.keys(not).length === 0) {
    r.problem(
      entry.value,
      at,
      "`not` is empty: it would exclude every flight",
      "give it criteria, or remove it",
    );
    return undefined;
  }
  return not;
}

function readSchedule(
  r: TreeReader,
  node: TreeNode,
  path: string,
  zone: string,
): ScheduleWindow | undefined {
  const map = r.map(node, path, "`schedule`");
  if (!map) return undefined;
  const entries = r.entries(map, path, SCHEDULE_KEYS);
  const window: ScheduleWindow = {};
  const nodes: Partial<Record<"from" | "to", TreeNode>> = {};
  for (const edge of SCHEDULE_KEYS) {
    const entry = entries.get(edge);
    if (!entry) continue;
    const at = join(path, edge);
    const text = r.string(entry.value, at, `\`${edge}\``);
    if (text === undefined) continue;
    const bound = readScheduleBound(text, edge, zone);
    if (!bound.ok) {
      r.problem(entry.value, at, bound.message, bound.hint);
      continue;
    }
    window[edge] = bound.value;
    nodes[edge] = entry.value;
  }
  // An unknown key alone (`form:`) has its own problem; this is for `schedule: {}`.
  if (map.pairs.length === 0) {
    r.problem(
      node,
      path,
      "`schedule` has neither `from` nor `to`",
      "give one or both, or remove `schedule`",
    );
    return undefined;
  }
  const { from, to } = window;
  if (from && to && nodes.to && isEmptyWindow(from, to as TimeBound)) {
    r.problem(
      nodes.to,
      join(path, "to"),
      "`from` must be before `to`",
      "`to` is exclusive; a plain date as `to` includes that whole day",
    );
    return undefined;
  }
  return window;
}

/** A criterion for departures only (or arrivals only) beside a `direction` saying the other. */
function checkDirection(
  r: TreeReader,
  filter: FlightFilter,
  entries: Map<string, Entry>,
  path: string,
): void {
  const { direction } = filter;
  if (direction === undefined) return;
  for (const [, criterion] of CRITERIA_ENTRIES) {
    const entry = entries.get(criterion.key);
    const only = criterion.only?.direction;
    if (entry === undefined || only === undefined || only === direction) continue;
    r.problem(
      entry.key,
      join(path, entry.name),
      `\`${entry.name}\` matches ${only === "D" ? "departures" : "arrivals"} only, but \`direction\` is ${direction === "A" ? "arrival" : "departure"}`,
      criterion.only?.hint,
    );
  }
}

function lastKey(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1);
}
