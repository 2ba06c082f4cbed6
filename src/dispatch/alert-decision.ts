/**
 * The dispatcher's pure decision core: given the memory of one rule about one flight,
 * the rule's matches from one observation and the time, what to send now, what to
 * remember and when to look again. Grouping, cool-down, hysteresis and flap handling as
 * docs/rules.md ("Noise control", `shift_at_least`) describes them; the Redis store and
 * the timer loop around it live elsewhere.
 *
 * How held fields and groups interact (flapping `correct`): a field changing while it is
 * held (within the window after its correction) never joins a group; it waits on its own
 * and is released at the end of the hold, as its net change against the last announced
 * value, in the same alert as a group that falls due at the same call, else alone — it
 * has waited long enough, so it does not wait for another group. A release is never a
 * correction and starts no new hold; its alert's `openedAt` is when the first held
 * change came.
 */
import type { Rule } from "../rules/rule.js";
import type { RuleMatch } from "../rules/rule-match.js";
import type { Alert, AlertChange } from "./alert.js";
import {
  fieldKey,
  instantOf,
  isPresenceKind,
  sameValue,
  valueAfter,
  valueBefore,
} from "./alert-field.js";
import { alertId } from "./alert-id.js";
import {
  type AlertState,
  type FieldMemory,
  fieldMemory,
  knowsEvent,
  nextDue,
  type PendingChange,
  pruneState,
  rememberDone,
  usesHysteresis,
} from "./alert-state.js";

export { alertId } from "./alert-id.js";
export type { AlertState } from "./alert-state.js";

const MINUTE = 60_000;

/** What to keep, send and when to come back, for one rule and one flight. */
export interface Decision {
  /** State to keep; undefined = nothing worth keeping (the caller deletes it). */
  state: AlertState | undefined;
  /** Alerts to send now, in order (usually 0 or 1). */
  alerts: Alert[];
  /** When flushDue must next be called for this (rule, flight); undefined = not needed. */
  dueAt?: number;
}

/**
 * Takes the matches of one rule for one flight from one observation (all same rule,
 * same flight key). Anything already due is flushed first, so a late call never lets a
 * change join a group whose window has ended.
 */
export function admitMatches(
  state: AlertState | undefined,
  rule: Rule,
  matches: readonly RuleMatch[],
  now: number,
): Decision {
  const next: AlertState = state ? structuredClone(state) : {};
  const alerts = flushReady(next, rule, now);
  for (const match of matches) admitOne(next, rule, match, now);
  alerts.push(...flushReady(next, rule, now));
  return decided(next, rule, alerts, now);
}

/** Called at/after dueAt: flushes a group whose wait is over, releases held changes. Idempotent when nothing is due. */
export function flushDue(state: AlertState | undefined, rule: Rule, now: number): Decision {
  const due = nextDue(state);
  if (state === undefined || due === undefined || due > now) {
    return withDue({ state, alerts: [] }, due);
  }
  const next = structuredClone(state);
  return decided(next, rule, flushReady(next, rule, now), now);
}

function decided(state: AlertState, rule: Rule, alerts: Alert[], now: number): Decision {
  const kept = pruneState(state, rule, now);
  return withDue({ state: kept, alerts }, nextDue(kept));
}

function withDue(decision: Decision, dueAt: number | undefined): Decision {
  if (dueAt !== undefined) decision.dueAt = dueAt;
  return decision;
}

/** Folds one match into the group (or into its field's hold), unless seen before. */
function admitOne(state: AlertState, rule: Rule, match: RuleMatch, now: number): void {
  const event = match.event;
  if (knowsEvent(state, event.id)) return;
  const key = fieldKey(event);
  const memory = fieldMemory(state, key);
  if (state.version === undefined || event.version >= state.version) {
    state.flight = event.flight;
    if (event.current) state.current = event.current;
    else delete state.current;
    state.version = event.version;
  }
  if (event.kind === "time" && usesHysteresis(rule) && !memory.sent && memory.base === undefined) {
    // Before any alert, shifts are measured from the value before the first change seen,
    // or for a first estimate from the schedule; with neither, the first value passes.
    const old = instantOf(event.old);
    if (old !== undefined && event.old !== undefined) {
      memory.base = old;
      memory.baseValue = event.old;
    } else {
      memory.base = event.flight.scheduled ?? null;
    }
  }
  const held = rule.flapping?.action === "correct" && (memory.holdUntil ?? 0) > now;
  let changes: PendingChange[];
  if (held) {
    state.held ??= [];
    changes = state.held;
  } else {
    state.group ??= { openedAt: now, dueAt: now + groupWaitMs(rule), changes: [] };
    changes = state.group.changes;
  }
  const shift = match.selector?.shiftAtLeastMinutes;
  const pending = changes.find((c) => c.key === key);
  if (pending) {
    pending.action = event.action;
    setOptional(pending, "new", event.new);
    setOptional(pending, "delayMinutes", event.delayMinutes);
    setOptional(pending, "shiftAtLeastMinutes", shift);
    pending.eventIds.push(event.id);
    return;
  }
  const change: PendingChange = {
    key,
    kind: event.kind,
    field: event.field,
    firstAction: event.action,
    action: event.action,
    since: now,
    eventIds: [event.id],
  };
  setOptional(change, "state", event.state);
  setOptional(change, "old", event.old);
  setOptional(change, "new", event.new);
  setOptional(change, "delayMinutes", event.delayMinutes);
  setOptional(change, "shiftAtLeastMinutes", shift);
  if (held) change.until = memory.holdUntil as number;
  changes.push(change);
}

/** The group's wait: `group_wait`, or for flapping `suppress` at least the flap window. */
function groupWaitMs(rule: Rule): number {
  const flapping = rule.flapping;
  return flapping?.action === "suppress"
    ? Math.max(rule.groupWaitMs, flapping.windowMs)
    : rule.groupWaitMs;
}

/** Sets an optional property, or deletes it for undefined (JSON has no undefined). */
function setOptional<T extends object, K extends keyof T>(target: T, key: K, value: T[K]): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

/** Takes out whatever is due at `now` and decides it: at most one alert. */
function flushReady(state: AlertState, rule: Rule, now: number): Alert[] {
  const ready: { change: PendingChange; released: boolean }[] = [];
  let openedAt = Number.POSITIVE_INFINITY;
  if (state.group && state.group.dueAt <= now) {
    for (const change of state.group.changes) ready.push({ change, released: false });
    openedAt = state.group.openedAt;
    delete state.group;
  }
  if (state.held) {
    const waiting: PendingChange[] = [];
    for (const change of state.held) {
      if ((change.until ?? 0) <= now) {
        ready.push({ change, released: true });
        openedAt = Math.min(openedAt, change.since);
      } else {
        waiting.push(change);
      }
    }
    state.held = waiting;
  }
  if (ready.length === 0) return [];
  ready.sort((a, b) => a.change.since - b.change.since);
  const changes: AlertChange[] = [];
  for (const { change, released } of ready) {
    rememberDone(state, change.eventIds, now);
    const memory = fieldMemory(state, change.key);
    const decided = decideChange(change, memory, released, rule, now);
    if (decided) changes.push(decided);
  }
  const flight = state.flight;
  if (changes.length === 0 || !flight) return [];
  const alert: Alert = {
    id: alertId(
      rule.id,
      flight.key,
      changes.flatMap((c) => c.eventIds),
    ),
    ruleId: rule.id,
    labels: { ...rule.labels },
    flight,
    changes,
    openedAt,
    decidedAt: now,
  };
  if (state.current) alert.current = state.current;
  return [alert];
}

/**
 * The net change of one field to announce, or undefined when it is dropped (back where
 * it started, within the cool-down, or under the hysteresis threshold). Records what is
 * announced in the field's memory.
 */
function decideChange(
  change: PendingChange,
  memory: FieldMemory,
  released: boolean,
  rule: Rule,
  now: number,
): AlertChange | undefined {
  const { kind } = change;
  const sent = memory.sent;
  const after = valueAfter(kind, change.action, change.new);
  // A release is measured against what people were last told, a group against where it began.
  const before = released && sent ? sent.new : valueBefore(kind, change.firstAction, change.old);
  if (sameValue(kind, before, after)) return undefined;
  let old = released && sent && !isPresenceKind(kind) ? sent.new : change.old;
  const shift = change.shiftAtLeastMinutes;
  if (kind === "time" && shift !== undefined) {
    const base = sent ? instantOf(sent.new) : memory.base;
    const value = instantOf(after);
    if (base != null && value !== undefined && Math.abs(value - base) < shift * MINUTE) {
      return undefined;
    }
    // Report the move people will notice: from the value last alerted (or the baseline).
    old = sent ? sent.new : (memory.baseValue ?? old);
  }
  if (sent && now - sent.at < rule.coolDownMs && sameValue(kind, after, sent.new)) {
    return undefined;
  }
  const flapping = rule.flapping;
  const correction =
    !released &&
    flapping?.action === "correct" &&
    sent !== undefined &&
    sent.old !== undefined &&
    now - sent.at <= flapping.windowMs &&
    sameValue(kind, after, sent.old);
  const out: AlertChange = {
    kind,
    field: change.field,
    action: change.firstAction === "assigned" && old !== undefined ? "changed" : netAction(change),
    eventIds: change.eventIds.slice(),
  };
  if (change.state !== undefined) out.state = change.state;
  if (old !== undefined) out.old = old;
  if (change.new !== undefined) out.new = change.new;
  if (kind === "time") {
    const from = instantOf(old);
    const to = instantOf(change.new);
    if (from !== undefined && to !== undefined) out.shiftMinutes = Math.round((to - from) / MINUTE);
    if (change.delayMinutes !== undefined) out.delayMinutes = change.delayMinutes;
  }
  if (correction) {
    out.correction = true;
    memory.holdUntil = now + (flapping?.windowMs ?? 0);
  }
  memory.sent = { at: now };
  if (after !== undefined) memory.sent.new = after;
  const announcedBefore = isPresenceKind(kind) ? before : old;
  if (announcedBefore !== undefined) memory.sent.old = announcedBefore;
  delete memory.base;
  delete memory.baseValue;
  return out;
}

/** The first change's action when it was an assignment, else the last one's. */
function netAction(change: PendingChange): AlertChange["action"] {
  return change.firstAction === "assigned" ? "assigned" : change.action;
}
