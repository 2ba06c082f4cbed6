/**
 * Reads a rule's `flights` mapping into a FlightFilter: codes upper-cased and checked
 * for shape (a typo such as `JFKK` is an error, not a filter that never matches),
 * flight numbers normalised, single values taken as lists of one, schedule bounds
 * read in the airport's zone.
 */
import { normaliseFlightNumber } from "../flight-number.js";
import type { FlightFilter, ScheduleWindow, TimeBound } from "../rule.js";
import { FLIGHT_FILTER_KEYS, SCHEDULE_KEYS } from "./rule-schema.js";
import { isEmptyWindow, readScheduleBound } from "./rule-time.js";
import { type Entry, join, readList, type TreeReader } from "./tree-reader.js";
import type { TreeNode } from "./yaml-tree.js";

/** `not` inside `not` this deep is a mistake (or an alias loop), not a filter. */
const MAX_NOT_DEPTH = 4;

/** A code criterion: its shape and how to explain it. */
interface CodeShape {
  re: RegExp;
  what: string;
  hint: string;
}

const AIRPORT: CodeShape = {
  re: /^[A-Z]{3}$/,
  what: "an IATA airport code",
  hint: "airport codes are 3 letters, e.g. JFK",
};
const AIRLINE: CodeShape = {
  re: /^(?:[A-Z][A-Z0-9]|[0-9][A-Z]|[A-Z]{3})$/,
  what: "an airline code",
  hint: "write the IATA code (2 characters, e.g. KL) or the ICAO code (3 letters, e.g. KLM)",
};
const PIER: CodeShape = {
  re: /^[A-Z0-9]{1,2}$/,
  what: "a pier",
  hint: "piers are a letter (or two letters/digits), e.g. D",
};
const GATE: CodeShape = {
  re: /^[A-Z0-9]{1,8}\*?$/,
  what: "a gate",
  hint: "gates are up to 8 letters and digits (D7, E22), with a trailing * to match by prefix (E*)",
};
const SERVICE_TYPE: CodeShape = {
  re: /^[A-Z]$/,
  what: "a service type",
  hint: "service types are one-letter codes: J scheduled passenger, C charter, F freight …",
};

const CODE_KEYS: Readonly<Record<string, [keyof FlightFilter, CodeShape]>> = {
  airline: ["airlines", AIRLINE],
  destination: ["destinations", AIRPORT],
  origin: ["origins", AIRPORT],
  airport: ["airports", AIRPORT],
  pier: ["piers", PIER],
  gate: ["gates", GATE],
  service_type: ["serviceTypes", SERVICE_TYPE],
};

const DIRECTIONS = new Map<string, "A" | "D">([
  ["departure", "D"],
  ["d", "D"],
  ["arrival", "A"],
  ["a", "A"],
]);

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
  for (const entry of entries.values()) {
    const at = join(path, entry.name);
    switch (entry.name) {
      case "flight": {
        const flights = readList(
          r,
          entry,
          at,
          NO_FLIGHT,
          textItem(r, "a flight", (text, item, itemPath) => {
            const flight = normaliseFlightNumber(text);
            if (flight === undefined) {
              r.problem(
                item,
                itemPath,
                `\`${text}\` is not a flight number`,
                "write an airline code and a number, e.g. KL1395 or kl 0601",
              );
            }
            return flight;
          }),
        );
        if (flights) filter.flights = flights;
        break;
      }
      case "direction": {
        const text = r.string(entry.value, at, "`direction`");
        if (text === undefined) break;
        const direction = DIRECTIONS.get(text.trim().toLowerCase());
        if (direction === undefined) {
          r.problem(
            entry.value,
            at,
            `unknown direction \`${text}\``,
            "write departure or arrival (or D / A); leave `direction` out for both",
          );
        } else filter.direction = direction;
        break;
      }
      case "terminal": {
        const terminals = readList(r, entry, at, NO_FLIGHT, (item, itemPath) =>
          r.positiveInteger(item, itemPath, "a terminal"),
        );
        if (terminals) filter.terminals = terminals;
        break;
      }
      case "operational": {
        const operational = r.boolean(entry.value, at, "`operational`");
        if (operational !== undefined) filter.operational = operational;
        break;
      }
      case "schedule": {
        const schedule = readSchedule(r, entry.value, at, zone);
        if (schedule) filter.schedule = schedule;
        break;
      }
      case "not": {
        if (depth >= MAX_NOT_DEPTH) {
          r.problem(
            entry.key,
            at,
            "`not` is nested too deeply",
            "a few levels of `not` are enough",
          );
          break;
        }
        const not = readFlightFilter(r, entry.value, at, zone, depth + 1);
        if (not && Object.keys(not).length === 0) {
          r.problem(
            entry.value,
            at,
            "`not` is empty: it would exclude every flight",
            "give it criteria, or remove it",
          );
        } else if (not) filter.not = not;
        break;
      }
      default: {
        const code = CODE_KEYS[entry.name];
        if (code === undefined) break;
        const [field, shape] = code;
        const values = readList(
          r,
          entry,
          at,
          NO_FLIGHT,
          textItem(r, shape.what, (text, item, itemPath) => {
            const value = text.trim().toUpperCase();
            if (shape.re.test(value)) return value;
            r.problem(item, itemPath, `\`${text}\` is not ${shape.what}`, shape.hint);
            return undefined;
          }),
        );
        if (values) (filter[field] as string[]) = values;
      }
    }
  }
  checkDirection(r, filter, entries, path);
  // Half a filter is a different filter: any problem inside makes the whole one unusable.
  return r.failures === before ? filter : undefined;
}

/** A text item of a list criterion, checked by `check` (which records its own problems). */
function textItem<T>(
  r: TreeReader,
  what: string,
  check: (text: string, item: TreeNode, itemPath: string) => T | undefined,
): (item: TreeNode, itemPath: string) => T | undefined {
  return (item, itemPath) => {
    const text = r.string(item, itemPath, what);
    return text === undefined ? undefined : check(text, item, itemPath);
  };
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
    window[edge] = { ...bound.value };
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

/** `destination` only ever holds for departures, `origin` for arrivals. */
function checkDirection(
  r: TreeReader,
  filter: FlightFilter,
  entries: Map<string, Entry>,
  path: string,
): void {
  const clash =
    filter.direction === "A" ? "destination" : filter.direction === "D" ? "origin" : undefined;
  const entry = clash === undefined ? undefined : entries.get(clash);
  if (!entry) return;
  const only = clash === "destination" ? "departures" : "arrivals";
  r.problem(
    entry.key,
    join(path, entry.name),
    `\`${entry.name}\` matches ${only} only, but \`direction\` is ${filter.direction === "A" ? "arrival" : "departure"}`,
    clash === "destination"
      ? "use `origin` for arrivals, or `airport` for either"
      : "use `destination` for departures, or `airport` for either",
  );
}

function lastKey(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1);
}
