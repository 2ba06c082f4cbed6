/**
 * The dispatcher's memory of one rule about one flight, kept in Redis as JSON between
 * observations: the open group, held changes (after a flap correction, or under flapping
 * `suppress`), and per field the newest event version admitted and what was last
 * announced (for ordering, cool-down, flap corrections and hysteresis). Kept small: what
 * no rule setting can use any more is pruned before and after every decision.
 */
import type { ChangeAction, ChangeKind, ChangeValue } from "../diff/change.js";
import { type FlightIdentity, type SnapshotFields, TIME_FIELDS } from "../diff/flight-snapshot.js";
import type { Rule } from "../rules/rule.js";

/** How many ids of already decided events are remembered to ignore their redelivery. */
export const DONE_IDS_LIMIT = 64;

/**
 * How long those ids — and each field's newest version and last announcement — are
 * remembered after the last decision. A redelivery follows a crash within minutes (the
 * outbox consumer re-claims pending entries) and events reordered between dispatchers
 * arrive seconds apart; an hour is ample.
 */
export const DONE_IDS_MEMORY_MS = 60 * 60_000;

/** The changes of one field folded so far: from the first `old` to the last `new`. */
export interface PendingChange {
  /** Field identity (`gate`, `state:DEL`, `flight`, …). */
  key: string;
  kind: ChangeKind;
  field: string;
  state?: string;
  /** Action of the first and of the last change folded in. */
  firstAction: ChangeAction;
  action: ChangeAction;
  old?: ChangeValue;
  new?: ChangeValue;
  /** The last change's delay (time fields). */
  delayMinutes?: number;
  /** `shift_at_least` of the selector of the newest match, in minutes. */
  shiftAtLeastMinutes?: number;
  /** `delay_at_least` of the selector of the newest match, in minutes. */
  delayAtLeastMinutes?: number;
  /** Version of the oldest event folded in (absent in states written before it existed). */
  firstVersion?: number;
  /** When the field's first change was admitted (orders the alert's changes). */
  since: number;
  /** Ids of the events folded in, oldest version first. */
  eventIds: string[];
  /**
   * Held (after a flap correction, or under flapping `suppress` once its group has
   * closed): released at this time. Absent in a group.
   */
  until?: number;
}

/** Changes waiting for the group window to end. */
export interface PendingGroup {
  openedAt: number;
  dueAt: number;
  /** One per field, in the order the fields first changed. */
  changes: PendingChange[];
}

/** What was last announced about a field (values as `valueAfter` / `valueBefore` give them). */
export interface Announcement {
  new?: ChangeValue;
  old?: ChangeValue;
  at: number;
}

/** Per-field memory; every part optional, an empty one is dropped. */
export interface FieldMemory {
  sent?: Announcement;
  /**
   * Hysteresis baseline (epoch ms) before any announcement; null = none, the first value
   * passes. After an announcement the announced value is the baseline.
   */
  base?: number | null;
  /** The field value the baseline was taken from (absent when it is the schedule). */
  baseValue?: ChangeValue;
  /** After a flap correction: changes of the field are held until then. */
  holdUntil?: number;
  /**
   * Highest event version (`lastUpdatedAt`) admitted for the field: an event with a
   * lower one arrived out of order and never sets the field's value.
   */
  version?: number;
}

/** Memory of one rule about one flight; JSON-serialisable (stored in Redis as JSON). */
export interface AlertState {
  group?: PendingGroup;
  /** Held changes, one per field, each released at its `until`. */
  held?: PendingChange[];
  fields?: Record<string, FieldMemory>;
  /** The newest event's flight and fields (while anything is pending), for the alert. */
  flight?: FlightIdentity;
  current?: SnapshotFields;
  version?: number;
  /** The sequence of the last alert (kept as long as the ids of decided events are). */
  sequence?: number;
  /** Ids of the last decided events (bounded) and when the last were added. */
  done?: string[];
  doneAt?: number;
  /** The rule's reminders about the flight (reminder-decision.ts). */
  remind?: ReminderMemory;
}

/** What the reminders of one rule about one flight are at. */
export interface ReminderMemory {
  /** The flight as of the newest observation seen (`version`). */
  flight: FlightIdentity;
  version: number;
  /** When the reminders began to be kept: one due before it is not sent. */
  since: number;
  /** The names of the reminders the rule asked for at the last observation (one new since begins later). */
  known: string[];
  /** By reminder name (`boarding-30m`). */
  items: Record<string, ReminderItem>;
}

/** One reminder: due at `dueAt` (its `by` before its moment), or done. */
export interface ReminderItem {
  dueAt?: number;
  /** `sent`; `past`: due before the reminders began; `missed`: its moment came before it could go. */
  done?: "sent" | "past" | "missed";
}

/** The memory of a field, created empty when there is none. */
export function fieldMemory(state: AlertState, key: string): FieldMemory {
  state.fields ??= {};
  let memory = state.fields[key];
  if (!memory) {
    memory = {};
    state.fields[key] = memory;
  }
  return memory;
}

/** The pending change of a field (held or in the group), if any. */
export function pendingChange(state: AlertState, key: string): PendingChange | undefined {
  return state.held?.find((c) => c.key === key) ?? state.group?.changes.find((c) => c.key === key);
}

/** Whether an event id is pending or was decided recently. */
export function knowsEvent(state: AlertState, id: string): boolean {
  if (state.done?.includes(id)) return true;
  if (state.held?.some((c) => c.eventIds.includes(id))) return true;
  return state.group?.changes.some((c) => c.eventIds.includes(id)) ?? false;
}

/** Records decided event ids, keeping the newest `DONE_IDS_LIMIT`. */
export function rememberDone(state: AlertState, ids: readonly string[], now: number): void {
  const done = (state.done ?? []).concat(ids);
  state.done = done.length > DONE_IDS_LIMIT ? done.slice(done.length - DONE_IDS_LIMIT) : done;
  state.doneAt = now;
}

/** When flushDue must next run: the group's end, the earliest held release or reminder. */
export function nextDue(state: AlertState | undefined): number | undefined {
  let due = state?.group?.dueAt;
  for (const held of state?.held ?? []) {
    if (held.until !== undefined && (due === undefined || held.until < due)) due = held.until;
  }
  for (const item of Object.values(state?.remind?.items ?? {})) {
    // A done reminder has no due time.
    if (item.dueAt !== undefined && (due === undefined || item.dueAt < due)) due = item.dueAt;
  }
  return due;
}

/** Whether some selector of the rule asks for hysteresis (`shift_at_least`). */
export function usesHysteresis(rule: Rule): boolean {
  return rule.changes?.some((s) => s.shiftAtLeastMinutes !== undefined) ?? false;
}

const TIME_FIELD_NAMES: ReadonlySet<string> = new Set(TIME_FIELDS);

/**
 * Drops what no setting of the rule can use any more and returns the state, or undefined
 * when nothing is left. Assumes `now` does not go backwards between calls.
 */
export function pruneState(state: AlertState, rule: Rule, now: number): AlertState | undefined {
  const hysteresis = usesHysteresis(rule);
  const flapWindow = rule.flapping?.action === "correct" ? rule.flapping.windowMs : -1;
  // Within this memory a late event is recognised (done id, field version) and an alert
  // starts from what the recipient last heard.
  const recent = state.doneAt !== undefined && now - state.doneAt <= DONE_IDS_MEMORY_MS;
  if (state.remind !== undefined && !(rule.reminders && rule.reminders.length > 0)) {
    delete state.remind;
  }
  if (state.held?.length === 0) delete state.held;
  for (const [key, memory] of Object.entries(state.fields ?? {})) {
    const holding = state.held?.some((c) => c.key === key) ?? false;
    if (memory.holdUntil !== undefined && memory.holdUntil <= now && !holding) {
      delete memory.holdUntil;
    }
    const sent = memory.sent;
    // Hysteresis measures from the last announcement for as long as the flight lives.
    const keep =
      sent !== undefined &&
      (recent ||
        (hysteresis && TIME_FIELD_NAMES.has(key)) ||
        now - sent.at < rule.coolDownMs ||
        now - sent.at <= flapWindow);
    if (sent && !keep) delete memory.sent;
    if (!recent && pendingChange(state, key) === undefined) delete memory.version;
    if (memory.sent || !hysteresis) {
      delete memory.base;
      delete memory.baseValue;
    }
    if (Object.keys(memory).length === 0) delete state.fields?.[key];
  }
  if (state.fields && Object.keys(state.fields).length === 0) delete state.fields;
  if (!state.group && !state.held) {
    delete state.flight;
    delete state.current;
    delete state.version;
  }
  if (state.doneAt !== undefined && !recent) {
    delete state.done;
    delete state.doneAt;
    delete state.sequence;
  }
  return Object.keys(state).length === 0 ? undefined : state;
}
