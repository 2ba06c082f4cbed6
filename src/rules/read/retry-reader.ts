/**
 * Reads a channel's `retry` into a RetrySchedule: `delays` (before each retry, the last
 * one repeating) and `for` (no retry past this, counted from the first attempt), both
 * optional, or `none` for a single attempt. The bounds keep a schedule something a
 * queue can hold: a delay of more than a day is a mistaken unit, a week is longer than
 * any alert stays worth sending, and past a thousand attempts a dead endpoint costs
 * more than it is worth.
 */
import { DEFAULT_RETRY_SCHEDULE, nominalDelay } from "../retry-schedule.js";
import type { RetrySchedule } from "../rule.js";
import { RETRY_KEYS } from "./rule-schema.js";
import { describe, type Entry, join, type TreeReader } from "./tree-reader.js";

const DAY_MS = 86_400_000;
/** Longest delay before one retry. */
export const MAX_RETRY_DELAY_MS = DAY_MS;
/** Longest `for`. */
export const MAX_RETRY_FOR_MS = 7 * DAY_MS;
/** Most attempts (the first plus retries) a schedule may give. */
export const MAX_RETRY_ATTEMPTS = 1000;

const EXAMPLE = "e.g. retry: { delays: [10s, 1m, 5m, 30m], for: 12h }, or retry: none";

/** Keys people reach for that the schedule implies; pointing at what to write instead. */
const COUNT_KEYS = /attempt|retries|count|times/i;

/** Reads `retry` (path: its own); undefined when it has problems (they are recorded). */
export function readRetry(r: TreeReader, entry: Entry, path: string): RetrySchedule | undefined {
  const node = r.resolve(entry.value);
  let shown = describe(node);
  if (node.kind === "scalar" && typeof node.value === "string") {
    const text = r.substitute(entry.value, node.value, path);
    if (text === undefined) return undefined;
    // The same as `delays: []`, `for` included: a 429's Retry-After is still waited for.
    if (text.trim().toLowerCase() === "none") {
      return { delaysMs: [], forMs: DEFAULT_RETRY_SCHEDULE.forMs };
    }
    shown = `\`${text}\``;
  }
  if (node.kind !== "map") {
    const hint =
      node.kind === "seq" ? "put the list under `delays`: retry: { delays: [10s, 1m] }" : EXAMPLE;
    r.problem(entry.value, path, `\`retry\` must be a mapping or \`none\`, not ${shown}`, hint);
    return undefined;
  }
  const entries = r.entries(node, path, RETRY_KEYS, (key) =>
    COUNT_KEYS.test(key)
      ? `the attempts follow from \`delays\` and \`for\`; ${EXAMPLE}`
      : undefined,
  );
  const failedBefore = r.failures;
  const delays = entries.get("delays");
  const forEntry = entries.get("for");
  const delaysMs = delays
    ? readDelays(r, delays, join(path, "delays"))
    : DEFAULT_RETRY_SCHEDULE.delaysMs;
  const forMs = forEntry ? readFor(r, forEntry, join(path, "for")) : DEFAULT_RETRY_SCHEDULE.forMs;
  if (delaysMs === undefined || forMs === undefined || r.failures !== failedBefore)
    return undefined;
  const schedule: RetrySchedule = { delaysMs: [...delaysMs], forMs };
  const first = delaysMs[0];
  if (first !== undefined && nominalDelay(schedule, 1) === undefined && forEntry) {
    r.problem(
      forEntry.value,
      join(path, "for"),
      `\`for\` is shorter than the first delay (${show(first)}): no retry would be made`,
      "make `for` longer, or write retry: none for a single attempt",
    );
    return undefined;
  }
  // Attempts grow with each retry, so a 1000th retry existing means too many.
  if (nominalDelay(schedule, MAX_RETRY_ATTEMPTS) !== undefined) {
    r.problem(
      entry.value,
      path,
      `\`retry\` would make more than ${MAX_RETRY_ATTEMPTS} attempts (every ${show(delaysMs.at(-1) as number)} for up to ${show(forMs)})`,
      "the last delay repeats until `for` is used up: make it longer (e.g. 1h) or `for` shorter",
    );
    return undefined;
  }
  return schedule;
}

/** `delays`: a list of durations (one value is a list of one); empty means no retries. */
function readDelays(r: TreeReader, entry: Entry, path: string): number[] | undefined {
  const node = r.resolve(entry.value);
  if (node.kind === "map" || (node.kind === "scalar" && node.value === null)) {
    r.problem(
      entry.value,
      path,
      `\`delays\` must be a list of durations, not ${describe(node)}`,
      "e.g. delays: [10s, 1m, 5m, 30m]; delays: [] for no retries",
    );
    return undefined;
  }
  const items = node.kind === "seq" ? node.items : [entry.value];
  const out: number[] = [];
  let ok = true;
  items.forEach((item, i) => {
    const at = node.kind === "seq" ? `${path}[${i}]` : path;
    const ms = r.duration(item, at, "a delay");
    if (ms === undefined) ok = false;
    else if (ms > MAX_RETRY_DELAY_MS) {
      r.problem(
        item,
        at,
        `a delay of ${show(ms)} is longer than a day`,
        "retry at least daily; for a long outage let `for` cover it, e.g. delays: [1m, 1h], for: 3d",
      );
      ok = false;
    } else out.push(ms);
  });
  return ok ? out : undefined;
}

/** `for`: a duration, more than 0 and at most a week. */
function readFor(r: TreeReader, entry: Entry, path: string): number | undefined {
  const ms = r.duration(entry.value, path, "`for`");
  if (ms === undefined) return undefined;
  if (ms <= 0 || ms > MAX_RETRY_FOR_MS) {
    r.problem(
      entry.value,
      path,
      "`for` must be more than 0 and at most 7 days",
      ms <= 0 ? "for a single attempt write retry: none; e.g. for: 12h" : "e.g. for: 3d",
    );
    return undefined;
  }
  return ms;
}

/** A duration as rule files write it: `90s`, `30m`, `36h`. */
function show(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
