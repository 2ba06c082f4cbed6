/**
 * Reads a rule's `quiet_hours` (docs/rules.md, "Quiet hours"):
 * `{ from: "23:00", to: "07:00", zone: Europe/London, critical: [...] }`. `zone` is
 * the airport's unless given; `critical` is written as `changes` is, and defaults to a
 * cancellation, a diversion and a gate change within an hour of the flight.
 */
import { airportZone } from "../../time/local-time.js";
import { DEFAULT_CRITICAL_TEXT } from "../quiet-hours.js";
import type { ChangeSelector, QuietHours } from "../rule.js";
import { readChangeSelectors } from "./change-selector-reader.js";
import { readJsonTree } from "./json-tree.js";
import { QUIET_HOURS_KEYS } from "./rule-schema.js";
import { join, type TreeReader } from "./tree-reader.js";
import type { TreeNode } from "./yaml-tree.js";

const TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;
const EXAMPLE = 'e.g. quiet_hours: { from: "23:00", to: "07:00" }';

/** `quiet_hours`; undefined when it has problems (they are recorded). */
export function readQuietHours(
  r: TreeReader,
  node: TreeNode,
  path: string,
  airport: string,
): QuietHours | undefined {
  const map = r.map(node, path, "`quiet_hours`");
  if (!map) return undefined;
  const entries = r.entries(map, path, QUIET_HOURS_KEYS);
  const minuteOf = (key: "from" | "to"): number | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) {
      r.problem(map, path, `\`quiet_hours\` needs \`${key}\``, EXAMPLE);
      return undefined;
    }
    const text = r.string(entry.value, join(path, key), `\`${key}\``);
    if (text === undefined) return undefined;
    const m = TIME_RE.exec(text.trim());
    if (!m) {
      r.problem(
        entry.value,
        join(path, key),
        `\`${key}\` must be a time of day, HH:MM (24 hours), not \`${text}\``,
        'quote it in YAML ("07:00"), e.g. from: "23:00"',
      );
      return undefined;
    }
    return Number(m[1]) * 60 + Number(m[2]);
  };
  const fromMinute = minuteOf("from");
  const toMinute = minuteOf("to");
  if (fromMinute !== undefined && fromMinute === toMinute) {
    r.problem(
      map,
      path,
      "`from` and `to` are the same time: the window would be empty (or the whole day)",
      EXAMPLE,
    );
  }
  let zone = airport;
  const zoneEntry = entries.get("zone");
  if (zoneEntry) {
    const text = r.string(zoneEntry.value, join(path, "zone"), "`zone`");
    if (text !== undefined) {
      try {
        airportZone(text);
        zone = text;
      } catch {
        r.problem(
          zoneEntry.value,
          join(path, "zone"),
          `\`${text}\` is not a time zone`,
          "write an IANA name, e.g. zone: Europe/London",
        );
      }
    }
  }
  const criticalEntry = entries.get("critical");
  const critical: ChangeSelector[] | undefined = criticalEntry
    ? readCritical(r, criticalEntry.value, join(path, "critical"))
    : defaultCritical(r);
  if (r.failed || fromMinute === undefined || toMinute === undefined || critical === undefined) {
    return undefined;
  }
  if (fromMinute === toMinute) return undefined;
  return { fromMinute, toMinute, zone, critical };
}

/** `critical`: selectors as `changes` has them; an empty list: nothing goes at once. */
function readCritical(r: TreeReader, node: TreeNode, path: string): ChangeSelector[] | undefined {
  const resolved = r.resolve(node);
  if (resolved.kind === "seq" && resolved.items.length === 0) return [];
  return readChangeSelectors(r, node, path, "`critical`");
}

/** The default `critical`, read from its text as a rule file's would be (it has no problem). */
function defaultCritical(r: TreeReader): ChangeSelector[] | undefined {
  const tree = readJsonTree(DEFAULT_CRITICAL_TEXT);
  if (!tree.ok) throw new Error("DEFAULT_CRITICAL_TEXT is not JSON");
  return readChangeSelectors(r, tree.root, "quiet_hours.critical", "`critical`");
}
