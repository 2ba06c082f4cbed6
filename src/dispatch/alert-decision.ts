/**
 * The dispatcher's pure decision core: given the memory of one rule about one flight,
 * the rule's matches from one observation and the time, what to send now, what to
 * remember and when to look again. Grouping, cool-down, hysteresis and flap handling as
 * docs/rules.md ("Noise control", `shift_at_least`) describes them; the Redis store and
 * the timer loop around it live elsewhere.
 *
 * Where an alert starts: a value field's change is announced from the value this rule
 * last announced for it (what the recipient last heard), else from the first pending
 * `old`, and is dropped when it ends there. Presence fields (a state code, the flight
 * itself) are measured within the pending change, so a rule that sees only `added`
 * announces a re-add; cool-down decides about repeats.
 *
 * Events out of order: each field remembers the highest event version admitted. An
 * event with a lower version (and above 0: version 0 is unordered, taken as newest) is
 * stale: it never sets the field's value; it is remembered as done, except that while
 * nothing has been announced about the field and it predates the pending change's first
 * event, it becomes that change's start (its `old`, and under `shift_at_least` the
 * baseline taken there), as it would have been in order.
 *
 * Held changes: a field changing while it is held — within the window after its
 * correction (flapping `correct`), or after its group closed under flapping `suppress`
 * — never joins a group; it waits on its own and is released at the end of the hold, in
 * the same alert as a group or other held fields falling due at the same call, else
 * alone — it has waited long enough, so it does not wait for another group. A release is
 * never a correction and starts no new hold; its alert's `openedAt` is when the first
 * held change came.
 *
 * Flapping `suppress`: a group closes `group_wait` after its first change as always
 * (later changes of other fields open a new group); it is sent once every field in it
 * has been held for the flap window since that field's first change in the group, i.e.
 * at max(group end, latest field start + window). Until then further changes of its
 * fields join it, so a field that goes back within the window sends nothing.
 */
import type { ChangeEvent } from "../diff/change.js";
import type { FlightIdentity } from "../diff/flight-snapshot.js";
import { groupDue, isCritical, quietDeadline } from "../rules/quiet-hours.js";
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
  pendingChange,
  pruneState,
  rememberDone,
  usesHysteresis,
} from "./alert-state.js";
import { flushReminders, type Observation, scheduleReminders } from "./reminder-decision.js";

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
 * change join a group whose window has ended — except while catching up (`catchUp`).
 */
export function admitMatches(
  state: AlertState | undefined,
  rule: Rule,
  matches: readonly RuleMatch[],
  now: number,
  catchUp?: CatchUp,
  observed: Observation | null | undefined = observationOf(matches[matches.length - 1]?.event),
): Decision {
  // Pruned first too, so memory past its time is never used, however late this call comes.
  const next: AlertState = (state && pruneState(structuredClone(state), rule, now)) ?? {};
  const alerts = flushReady(next, rule, now, catchUp);
  for (const match of matches) admitOne(next, rule, match, now);
  // Reminders follow every observation of the flight, whatever changed; those due go
  // with the estimate this observation gives.
  if (observed !== undefined) scheduleReminders(next, rule, observed, now);
  alerts.push(...flushAll(next, rule, now, catchUp, observed ?? undefined));
  return decided(next, rule, alerts, now);
}

/**
 * What an event tells reminders: its observation, or `null` for the removal of its
 * flight (its reminders go with it); undefined without an event.
 */
export function observationOf(event: ChangeEvent | undefined): Observation | null | undefined {
  if (event === undefined) return undefined;
  return event.kind === "flight" && event.action === "removed" ? null : event;
}

/** What is due: the group or held changes (one alert), then each reminder due. */
function flushAll(
  state: AlertState,
  rule: Rule,
  now: number,
  catchUp: CatchUp | undefined,
  observed: Observation | undefined,
): Alert[] {
  const alerts = flushReady(state, rule, now, catchUp);
  alerts.push(...flushReminders(state, rule, now, catchUp, observed));
  return alerts;
}

/**
 * A daemon back after downtime, until detection has caught up. A group opened before
 * (`since`) whose window outlasted detection's last look (`seenUntil`) was never sent,
 * and a change found while catching up may have come within its window: the group stays
 * open and takes it, and goes out as the flight is now, not with a value superseded
 * while nobody watched. So does a held change (a flap under `suppress` or after a
 * correction) held before `since` until after `seenUntil`. Groups opened since close
 * as usual.
 */
export interface CatchUp {
  /** When the daemon came back: groups opened before it. */
  since: number;
  /** Start of the last successful poll before the downtime: nothing later is known. */
  seenUntil: number;
}

/**
 * Called at/after dueAt: flushes a group whose wait is over, releases held changes,
 * sends reminders due. Idempotent when nothing is due. `observed`: the flight as it is
 * now (its snapshot), which reminders are moved to first; `null` when it is gone or the
 * rule no longer selects it (its reminders are taken off); undefined: not known.
 */
export function flushDue(
  state: AlertState | undefined,
  rule: Rule,
  now: number,
  catchUp?: CatchUp,
  observed?: Observation | null,
): Decision {
  const due = nextDue(state);
  if (state === undefined || due === undefined || due > now) {
    return withDue({ state, alerts: [] }, due);
  }
  const next = pruneState(structuredClone(state), rule, now) ?? {};
  if (observed !== undefined) scheduleReminders(next, rule, observed, now);
  return decided(next, rule, flushAll(next, rule, now, catchUp, observed ?? undefined), now);
}

function decided(state: AlertState, rule: Rule, alerts: Alert[], now: number): Decision {
  const kept = pruneState(state, rule, now);
  return withDue({ state: kept, alerts }, nextDue(kept));
}

function withDue(decision: Decision, dueAt: number | undefined): Decision {
  if (dueAt !== undefined) decision.dueAt = dueAt;
  return decision;
}

/** Folds one match into its field's pending change, held or in the group, unless seen before. */
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
  if (event.version > 0 && memory.version !== undefined && event.version < memory.version) {
    admitStale(state, memory, key, event, now);
    return;
  }
  if (event.version > (memory.version ?? 0)) memory.version = event.version;
  if (event.kind === "time" && usesHysteresis(rule) && !memory.sent && memory.base === undefined) {
    takeBaseline(memory, event);
  }
  const shift = match.selector?.shiftAtLeastMinutes;
  const delay = match.selector?.delayAtLeastMinutes;
  // Quiet hours: whether this change goes at once, and how long its flight may wait.
  const quiet = rule.quietHours;
  const critical = quiet !== undefined && isCritical(quiet, event, now);
  const deadline = quiet === undefined ? undefined : quietDeadline(quiet, event);
  const pending = pendingChange(state, key);
  if (pending) {
    pending.action = event.action;
    setOptional(pending, "new", event.new);
    setOptional(pending, "delayMinutes", event.delayMinutes);
    setOptional(pending, "shiftAtLeastMinutes", shift);
    setOptional(pending, "delayAtLeastMinutes", delay);
    pending.eventIds.push(event.id);
    bringForward(state, now + rule.groupWaitMs, critical, deadline);
    return;
  }
  const change: PendingChange = {
    key,
    kind: event.kind,
    field: event.field,
    firstAction: event.action,
    action: event.action,
    since: now,
    firstVersion: event.version,
    eventIds: [event.id],
  };
  setOptional(change, "state", event.state);
  setOptional(change, "old", event.old);
  setOptional(change, "new", event.new);
  setOptional(change, "delayMinutes", event.delayMinutes);
  setOptional(change, "shiftAtLeastMinutes", shift);
  setOptional(change, "delayAtLeastMinutes", delay);
  if (rule.flapping?.action === "correct" && (memory.holdUntil ?? 0) > now) {
    change.until = memory.holdUntil as number;
    state.held ??= [];
    state.held.push(change);
  } else {
    // Quiet hours: a group opened in them waits for their end, unless the change is
    // critical — which sends the group (what waited with it) after group_wait only.
    if (state.group === undefined) {
      const dueAt = groupDue(quiet, now, rule.groupWaitMs, critical, deadline);
      state.group = { openedAt: now, dueAt, changes: [] };
    } else {
      bringForward(state, now + rule.groupWaitMs, critical, deadline);
    }
    state.group.changes.push(change);
  }
}

/**
 * A group waiting for quiet hours to end goes sooner: after group_wait (`soonest`) when
 * a critical change came, and in any case no later than the flight's `deadline`.
 * Without quiet hours it changes nothing (no change is critical, there is no deadline,
 * and a group is never due later than `soonest`).
 */
function bringForward(
  state: AlertState,
  soonest: number,
  critical: boolean,
  deadline: number | undefined,
): void {
  const group = state.group;
  if (group === undefined) return;
  const latest = critical ? soonest : Math.max(soonest, deadline ?? Number.POSITIVE_INFINITY);
  group.dueAt = Math.min(group.dueAt, latest);
}

/**
 * Before any alert, shifts are measured from the value before the first change seen, or
 * for a first estimate from the schedule; with neither, the first value passes.
 */
function takeBaseline(memory: FieldMemory, event: ChangeEvent): void {
  const old = instantOf(event.old);
  if (old !== undefined && event.old !== undefined) {
    memory.base = old;
    memory.baseValue = event.old;
  } else {
    memory.base = event.flight.scheduled ?? null;
  }
}

/**
 * An event older than one already admitted for its field: it never sets the value. While
 * nobody has been told about the field and it predates the pending change, it is where
 * that change starts (the group then reads from its true first value, and a field that
 * went A → B → A out of order still nets to nothing); otherwise it is only remembered.
 */
function admitStale(
  state: AlertState,
  memory: FieldMemory,
  key: string,
  event: ChangeEvent,
  now: number,
): void {
  const pending = pendingChange(state, key);
  if (
    pending?.firstVersion !== undefined &&
    event.version < pending.firstVersion &&
    memory.sent === undefined
  ) {
    // A baseline taken where the change started moves back with its start.
    if (memory.baseValue !== undefined && sameValue(pending.kind, memory.baseValue, pending.old)) {
      delete memory.baseValue;
      takeBaseline(memory, event);
    }
    pending.firstAction = event.action;
    setOptional(pending, "old", event.old);
    pending.firstVersion = event.version;
    pending.eventIds.unshift(event.id);
    return;
  }
  rememberDone(state, [event.id], now);
}

/** Sets an optional property, or deletes it for undefined (JSON has no undefined). */
function setOptional<T extends object, K extends keyof T>(target: T, key: K, value: T[K]): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

/**
 * Takes out whatever is due at `now` and decides it: at most one alert. A group or held
 * change kept open by `catchUp` (see keptOpen) waits, and takes what catch-up finds.
 */
function flushReady(state: AlertState, rule: Rule, now: number, catchUp?: CatchUp): Alert[] {
  const ready: { change: PendingChange; released: boolean }[] = [];
  let openedAt = Number.POSITIVE_INFINITY;
  const group = state.group;
  if (group && group.dueAt <= now && !keptOpen(group.openedAt, group.dueAt, catchUp)) {
    delete state.group;
    const release = suppressRelease(group.changes, rule);
    if (release !== undefined) {
      // Closed to new fields; its own fields keep joining it until the release. Held even
      // when the release is already past, so a hold that catch-up keeps open waits too.
      state.held ??= [];
      for (const change of group.changes) state.held.push({ ...change, until: release });
    } else {
      for (const change of group.changes) ready.push({ change, released: false });
      openedAt = group.openedAt;
    }
  }
  if (state.held) {
    const waiting: PendingChange[] = [];
    for (const change of state.held) {
      const until = change.until ?? 0;
      if (until <= now && !keptOpen(change.since, until, catchUp)) {
        ready.push({ change, released: true });
        openedAt = Math.min(openedAt, change.since);
      } else {
        waiting.push(change);
      }
    }
    state.held = waiting;
  }
  // Stryker disable next-line ConditionalExpression: a shortcut; nothing ready sends nothing
  if (ready.length === 0) return [];
  ready.sort((a, b) => a.change.since - b.change.since);
  const changes: AlertChange[] = [];
  for (const { change, released } of ready) {
    rememberDone(state, change.eventIds, now);
    const memory = fieldMemory(state, change.key);
    const decided = decideChange(change, memory, released, rule, state.flight, now);
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
    // Above the previous alert even when no newer observation came between (a group
    // and a held change released from one observation).
    sequence: Math.max(state.version ?? 0, (state.sequence ?? 0) + 1),
  };
  state.sequence = alert.sequence;
  if (state.current) alert.current = state.current;
  return [alert];
}

/**
 * Whether a group, or a held change, that started at `since` and is due at `due` waits
 * for the end of the catch-up: it started before the daemon came back and its time ran
 * past detection's last look, so changes made meanwhile may belong to it.
 */
function keptOpen(since: number, due: number, catchUp: CatchUp | undefined): boolean {
  return catchUp !== undefined && since < catchUp.since && due > catchUp.seenUntil;
}

/**
 * Under flapping `suppress`, when a closed group is released: once every field in it has
 * been held for the window since its first change. Undefined without `suppress`.
 */
function suppressRelease(changes: readonly PendingChange[], rule: Rule): number | undefined {
  const flapping = rule.flapping;
  if (flapping?.action !== "suppress") return undefined;
  return Math.max(...changes.map((c) => c.since)) + flapping.windowMs;
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
  flight: FlightIdentity | undefined,
  now: number,
): AlertChange | undefined {
  const { kind } = change;
  const sent = memory.sent;
  const after = valueAfter(kind, change.action, change.new);
  // A value field starts from what people were last told; presence from where it began.
  const told = sent !== undefined && !isPresenceKind(kind);
  const before = told ? sent.new : valueBefore(kind, change.firstAction, change.old);
  if (sameValue(kind, before, after)) return undefined;
  let old = told ? sent.new : change.old;
  const shift = change.shiftAtLeastMinutes;
  if (kind === "time" && shift !== undefined) {
    const base = sent ? instantOf(sent.new) : baseline(change, memory, flight);
    const value = instantOf(after);
    if (base != null && value !== undefined && Math.abs(value - base) < shift * MINUTE) {
      return undefined;
    }
    // Before any alert, report the move from where the rule first saw the field.
    if (!sent && memory.baseValue !== undefined) old = memory.baseValue;
  }
  if (sent && now - sent.at < rule.coolDownMs && sameValue(kind, after, sent.new)) {
    return undefined;
  }
  const flapping = rule.flapping;
  const correction =
    !released &&
    flapping?.action === "correct" &&
    sent !== undefined &&
    // Stryker disable next-line ConditionalExpression: no value is ever emptied to revert to
    sent.old !== undefined &&
    now - sent.at <= flapping.windowMs &&
    sameValue(kind, after, sent.old);
  const out: AlertChange = {
    kind,
    field: change.field,
    action: change.firstAction === "assigned" && old !== undefined ? "changed" : netAction(change),
    // Stryker disable next-line MethodExpression: a decided change has left the state
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
    // Stryker disable next-line OptionalChaining: a correction needs flapping
    memory.holdUntil = now + (flapping?.windowMs ?? 0);
  }
  memory.sent = { at: now };
  // Stryker disable next-line ConditionalExpression: never undefined: no value is ever emptied
  if (after !== undefined) memory.sent.new = after;
  const announcedBefore = isPresenceKind(kind) ? before : old;
  if (announcedBefore !== undefined) memory.sent.old = announcedBefore;
  delete memory.base;
  delete memory.baseValue;
  return out;
}

/**
 * The hysteresis baseline (epoch ms) before any announcement: the flight's schedule when
 * the newest match's selector has `delay_at_least` (so the delay threshold alone gates
 * the first alert: "at 30 minutes and each further 30 minutes"), else the value before
 * the first change the rule saw; null = none, the first value passes.
 */
function baseline(
  change: PendingChange,
  memory: FieldMemory,
  flight: FlightIdentity | undefined,
): number | null | undefined {
  // Stryker disable next-line OptionalChaining: a pending change always has state.flight
  if (change.delayAtLeastMinutes !== undefined && flight?.scheduled !== undefined) {
    return flight.scheduled;
  }
  return memory.base;
}

/** The first change's action when it was an assignment, else the last one's. */
function netAction(change: PendingChange): AlertChange["action"] {
  return change.firstAction === "assigned" ? "assigned" : change.action;
}
