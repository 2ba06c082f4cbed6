/**
 * Folding an alert that was never delivered into the next alert of the same rule about
 * the same flight: what the rule would have said had it waited for both — one change
 * per field, from the older alert's old value to the newer one's new value, and nothing
 * about a field that came back to where it started. Delivery uses it when a newer
 * notification supersedes an older one still waiting to be retried, so a receiver never
 * gets the older after the newer, and loses nothing it would have been told.
 */
import type { Alert, AlertChange } from "./alert.js";
import {
  fieldKey,
  instantOf,
  isPresenceKind,
  sameValue,
  valueAfter,
  valueBefore,
} from "./alert-field.js";

/** The newer alert with the older one's changes folded in; `changes` may end up empty. */
export function foldAlert(older: Alert, newer: Alert): Alert {
  const newerByKey = new Map(newer.changes.map((c) => [fieldKey(c), c]));
  const folded: AlertChange[] = [];
  const taken = new Set<string>();
  // Fields in the order they first changed: the older alert's first.
  for (const change of older.changes) {
    const key = fieldKey(change);
    const later = newerByKey.get(key);
    taken.add(key);
    const merged = later ? foldChange(change, later) : change;
    if (merged) folded.push(merged);
  }
  for (const change of newer.changes) {
    if (!taken.has(fieldKey(change))) folded.push(change);
  }
  return { ...newer, openedAt: Math.min(older.openedAt, newer.openedAt), changes: folded };
}

/** One field's two changes as one, from the first's old to the second's new; undefined when they cancel out. */
function foldChange(first: AlertChange, second: AlertChange): AlertChange | undefined {
  const before = valueBefore(first.kind, first.action, first.old);
  const after = valueAfter(second.kind, second.action, second.new);
  if (sameValue(first.kind, before, after)) return undefined;
  const merged: AlertChange = { ...second, eventIds: [...first.eventIds, ...second.eventIds] };
  if (first.old === undefined) delete merged.old;
  else merged.old = first.old;
  // A first value is an assignment, whatever the later change was.
  if (!isPresenceKind(first.kind) && first.action === "assigned") merged.action = "assigned";
  const shift = shiftMinutes(merged);
  if (shift !== undefined) merged.shiftMinutes = shift;
  return merged;
}

/** For a time change with both values: how far it moved, in whole minutes. */
function shiftMinutes(change: AlertChange): number | undefined {
  if (change.kind !== "time") return undefined;
  const from = instantOf(change.old);
  const to = instantOf(change.new);
  return from !== undefined && to !== undefined ? Math.round((to - from) / 60_000) : undefined;
}
