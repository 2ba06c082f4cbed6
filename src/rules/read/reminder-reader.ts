/**
 * Reads a rule's `remind` (docs/rules.md, "Reminders"): a list of reminders, each
 * `{ before: boarding, by: 30m }` or the same in words, `30m before boarding`, at most
 * MAX_REMINDERS, none twice.
 */
import { MAX_REMINDERS, REMINDER_MOMENTS, type Reminder, type ReminderMoment } from "../rule.js";
import { REMINDER_KEYS } from "./rule-schema.js";
import { readRuleDuration } from "./rule-time.js";
import { type Entry, join, readList, type TreeReader } from "./tree-reader.js";
import type { TreeNode } from "./yaml-tree.js";

const EXAMPLE = "e.g. remind: [{ before: boarding, by: 30m }, 3h before departure]";
/** A reminder comes at most this long before its moment: two days. */
const MAX_BY_MS = 2 * 86_400_000;
const WORDS_RE = /^(\S+)\s+before\s+(\S.*)$/;

/** `remind`; undefined when it has problems (they are recorded). */
export function readReminders(r: TreeReader, entry: Entry, path: string): Reminder[] | undefined {
  const reminders = readList(r, entry, path, "it would remind of nothing", (item, at) =>
    readReminder(r, item, at),
  );
  if (reminders === undefined) return undefined;
  if (reminders.length > MAX_REMINDERS) {
    r.problem(
      entry.value,
      path,
      `\`remind\` lists ${reminders.length} reminders: at most ${MAX_REMINDERS} are allowed`,
    );
    return undefined;
  }
  const seen = new Set<string>();
  for (const [i, reminder] of reminders.entries()) {
    const key = `${reminder.before} ${reminder.byMs}`;
    if (seen.has(key)) {
      r.problem(entry.value, `${path}[${i}]`, "the same reminder is listed twice");
      return undefined;
    }
    seen.add(key);
  }
  return reminders;
}

function readReminder(r: TreeReader, node: TreeNode, path: string): Reminder | undefined {
  const resolved = r.resolve(node);
  let before: string | undefined;
  let by: string | undefined;
  let beforeNode = node;
  let byNode = node;
  if (resolved.kind === "map") {
    const entries = r.entries(resolved, path, REMINDER_KEYS);
    const beforeEntry = entries.get("before");
    const byEntry = entries.get("by");
    if (!beforeEntry || !byEntry) {
      r.problem(node, path, `a reminder needs \`${beforeEntry ? "by" : "before"}\``, EXAMPLE);
      return undefined;
    }
    beforeNode = beforeEntry.value;
    byNode = byEntry.value;
    before = r.string(beforeNode, join(path, "before"), "`before`");
    by = r.string(byNode, join(path, "by"), "`by`");
    if (before === undefined || by === undefined) return undefined;
  } else {
    const text = r.string(node, path, "a reminder");
    if (text === undefined) return undefined;
    const m = WORDS_RE.exec(text.trim());
    if (!m) {
      r.problem(node, path, `\`${text}\` is not a reminder`, EXAMPLE);
      return undefined;
    }
    by = m[1] as string;
    before = m[2] as string;
  }
  const moment = before
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  if (!(REMINDER_MOMENTS as readonly string[]).includes(moment)) {
    r.problem(
      beforeNode,
      resolved.kind === "map" ? join(path, "before") : path,
      `\`${before}\` is not a moment a reminder can come before`,
      `write one of ${REMINDER_MOMENTS.join(", ")}`,
    );
    return undefined;
  }
  const duration = readRuleDuration(by);
  const byPath = resolved.kind === "map" ? join(path, "by") : path;
  if (!duration.ok) {
    r.problem(byNode, byPath, duration.message, duration.hint);
    return undefined;
  }
  if (duration.value <= 0 || duration.value > MAX_BY_MS) {
    r.problem(byNode, byPath, `\`by\` must be more than 0 and at most 48h, not \`${by}\``);
    return undefined;
  }
  return { before: moment as ReminderMoment, byMs: duration.value };
}
