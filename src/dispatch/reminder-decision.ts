/**
 * Reminders' pure decisions (docs/rules.md, "Reminders"): for one rule about one
 * flight, when each of the rule's reminders is due — its moment, from the newest
 * observation of the flight, less its `by` — and, once due, the reminder's alert.
 *
 * - Each observation moves the reminders not yet sent to its estimates (boarding 40 min
 *   later: its reminder 40 min later); an observation older than one already seen
 *   changes nothing. A moment that is gone (cancelled, moved to tomorrow, diverted) or
 *   has come (boarding under way) takes its reminder off, until an observation gives
 *   it again.
 * - A reminder due before the reminders began — before a subscription was made, or the
 *   first observation of the flight the rule saw — is `past`: never sent. One that falls
 *   due later goes when due, or at once when an estimate moves it into the past (a
 *   boarding time published late); one whose moment itself has come by then (after
 *   downtime) is `missed`: a "boarding in 30 min" after boarding started helps nobody.
 * - Each is sent once: done reminders are remembered as long as the rule's memory of
 *   the flight, and the alert's id is derived from the rule, the flight and the
 *   reminder's name alone, so a repeated decision (a crash before the commit) gives the
 *   same id, which delivery recognises.
 * - While the dispatcher catches up after downtime, a reminder due after detection's
 *   last look waits for the end of the catch-up: its moment may have moved meanwhile.
 * - Quiet hours do not hold reminders: a traveller asked for that moment.
 */
import type { ChangeEvent } from "../diff/change.js";
import { momentOf, reminderName } from "../rules/reminders.js";
import type { Rule } from "../rules/rule.js";
import type { Alert } from "./alert.js";
import type { CatchUp } from "./alert-decision.js";
import { alertId } from "./alert-id.js";
import type { AlertState } from "./alert-state.js";

/** What an observation of the flight tells reminders: its identity, fields and version. */
export type Observation = Pick<ChangeEvent, "flight" | "current" | "version">;

/**
 * Moves the rule's reminders about the flight to what `observed` shows; `null`: the
 * flight is gone (removed upstream) or the rule no longer selects it, and every
 * reminder not yet sent is taken off.
 */
export function scheduleReminders(
  state: AlertState,
  rule: Rule,
  observed: Observation | null,
  now: number,
): void {
  const reminders = rule.reminders;
  // An empty list keeps nothing: the memory is pruned with the rule's other memory.
  if (reminders === undefined) return;
  let memory = state.remind;
  if (observed === null) {
    if (memory === undefined) return;
    for (const [name, item] of Object.entries(memory.items)) {
      if (item.done === undefined) delete memory.items[name];
    }
    return;
  }
  // Version 0 is unordered (no lastUpdatedAt), taken as newest.
  if (memory !== undefined && observed.version > 0 && observed.version < memory.version) return;
  if (memory === undefined) {
    memory = {
      flight: observed.flight,
      version: observed.version,
      since: now,
      // Stryker disable next-line ArrayDeclaration: a new memory begins now, known or not
      known: [],
      items: {},
    };
    state.remind = memory;
  }
  memory.flight = observed.flight;
  memory.version = observed.version;
  const names: string[] = [];
  for (const reminder of reminders) {
    const name = reminderName(reminder);
    names.push(name);
    const item = memory.items[name];
    if (item?.done !== undefined) continue;
    const at = momentOf(reminder.before, observed.flight, observed.current);
    if (at === undefined) {
      delete memory.items[name];
      continue;
    }
    const dueAt = at - reminder.byMs;
    // A reminder the rule has just begun to ask for (a reload) begins now.
    const since = memory.known.includes(name) ? memory.since : now;
    if (item === undefined && dueAt < since) {
      memory.items[name] = { done: "past" };
      continue;
    }
    memory.items[name] = { dueAt };
  }
  // A reminder the rule no longer asks for is forgotten.
  for (const name of Object.keys(memory.items))
    if (!names.includes(name)) delete memory.items[name];
  memory.known = names;
}

/**
 * The alerts of the reminders due at `now` (one each), marking them sent or missed; the
 * flight and its fields as `observed` shows them (the newest observation at hand).
 * A reminder takes no place in the order of the rule's alerts about the flight, so it
 * carries no `sequence`.
 */
export function flushReminders(
  state: AlertState,
  rule: Rule,
  now: number,
  catchUp?: CatchUp,
  observed?: Observation,
): Alert[] {
  const memory = state.remind;
  if (memory === undefined) return [];
  const alerts: Alert[] = [];
  // Stryker disable next-line ArrayDeclaration: a memory is kept only for a rule with reminders (pruneState drops it)
  for (const reminder of rule.reminders ?? []) {
    const name = reminderName(reminder);
    // A done reminder has no due time.
    const dueAt = memory.items[name]?.dueAt;
    if (dueAt === undefined || dueAt > now) continue;
    if (catchUp !== undefined && dueAt > catchUp.seenUntil) continue;
    const at = dueAt + reminder.byMs;
    if (at <= now) {
      memory.items[name] = { done: "missed" };
      continue;
    }
    const flight = observed?.flight ?? memory.flight;
    const alert: Alert = {
      id: alertId(rule.id, flight.key, [`reminder ${name}`]),
      ruleId: rule.id,
      labels: { ...rule.labels },
      flight,
      changes: [],
      reminder: {
        name,
        before: reminder.before,
        byMinutes: Math.round(reminder.byMs / 60_000),
        at,
        inMinutes: Math.max(1, Math.round((at - now) / 60_000)),
      },
      openedAt: dueAt,
      decidedAt: now,
    };
    if (observed?.current) alert.current = observed.current;
    alerts.push(alert);
    memory.items[name] = { done: "sent" };
  }
  return alerts;
}
