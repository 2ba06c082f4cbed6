/**
 * What the dispatcher calls a field and its value. Most changes are about one upstream
 * field whose value is `new`; a state change is about one state code (`state:DEL`) whose
 * value is whether it is present (`added` / `withdrawn`), and a flight change about the
 * flight itself (`added` / `removed`). Times compare as instants, so `+0100` and `+01:00`
 * spellings of one moment are one value.
 */
import type { Change, ChangeAction, ChangeKind, ChangeValue } from "../diff/change.js";
import { DEFAULT_AIRPORT_TIMEZONE, parseApiDateTime } from "../time/local-time.js";

/** The identity of the field a change is about: `gate`, `state:CNX`, `flight`, … */
export function fieldKey(change: Pick<Change, "kind" | "field" | "state">): string {
  if (change.kind === "state") return `state:${change.state ?? ""}`;
  if (change.kind === "flight") return "flight";
  return change.field;
}

/** Kinds whose value is presence (the action), not `old` / `new`. */
export function isPresenceKind(kind: ChangeKind): boolean {
  return kind === "state" || kind === "flight";
}

/** The field's value after a change: `new`, or for presence kinds the action. */
export function valueAfter(
  kind: ChangeKind,
  action: ChangeAction,
  value: ChangeValue | undefined,
): ChangeValue | undefined {
  return isPresenceKind(kind) ? action : value;
}

/** The field's value before a change: `old`, or for presence kinds the opposite action. */
export function valueBefore(
  kind: ChangeKind,
  action: ChangeAction,
  value: ChangeValue | undefined,
): ChangeValue | undefined {
  if (!isPresenceKind(kind)) return value;
  if (action === "added") return kind === "flight" ? "removed" : "withdrawn";
  return "added";
}

/**
 * Whether two values of a field are one value. Unknown (undefined) equals only itself;
 * times compare as instants; the rest by canonical JSON (strings, numbers, sorted lists,
 * check-in summaries whatever their key order). For presence, `removed` and `withdrawn`
 * are both absence.
 */
export function sameValue(
  kind: ChangeKind,
  a: ChangeValue | undefined,
  b: ChangeValue | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (isPresenceKind(kind)) return (a === "added") === (b === "added");
  if (kind === "time") {
    const x = instantOf(a);
    const y = instantOf(b);
    if (x !== undefined && y !== undefined) return x === y;
  }
  return canonical(a) === canonical(b);
}

/**
 * A time value as epoch ms: API-format strings (with an offset; one without is read in
 * the default airport zone) or an instant already in ms. Undefined when unreadable.
 */
export function instantOf(value: ChangeValue | undefined): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string") return parseApiDateTime(value, DEFAULT_AIRPORT_TIMEZONE);
  return undefined;
}

/** JSON with object keys sorted, so equal values have one text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
