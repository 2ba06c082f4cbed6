/**
 * Builders for the dispatch decision tests: rules, change events (with their real
 * deterministic ids) and a driver that feeds the decisions on an injected clock,
 * round-tripping the state through JSON between every call as the Redis store does.
 */
import { expect } from "vitest";
import type { Change, ChangeEvent } from "../../src/diff/change.js";
import { toChangeEvent } from "../../src/diff/change.js";
import type { FlightIdentity, SnapshotFields } from "../../src/diff/flight-snapshot.js";
import type { Alert } from "../../src/dispatch/alert.js";
import {
  type AlertState,
  admitMatches,
  type CatchUp,
  type Decision,
  flushDue,
} from "../../src/dispatch/alert-decision.js";
import type { Observation } from "../../src/dispatch/reminder-decision.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { ChangeSelector, Rule } from "../../src/rules/rule.js";
import type { RuleMatch } from "../../src/rules/rule-match.js";
import { formatApiDateTime } from "../../src/time/local-time.js";

export const MINUTE = 60_000;
export const ZONE = "Europe/Amsterdam";
/** The flight's scheduled departure. */
export const SCHEDULED = Date.parse("2026-11-21T10:00:00Z");

/** An API-format time `minutes` after the schedule. */
export const at = (minutes: number): string =>
  formatApiDateTime(SCHEDULED + minutes * MINUTE, ZONE);

/** A rule with a console channel, no filters and no noise control unless given. */
export function rule(overrides: Partial<Rule> = {}): Rule {
  return {
    id: "r1",
    labels: { team: "ops" },
    source: { file: "rules/test.yaml", line: 1, column: 1 },
    flights: {},
    channels: [{ type: "console", name: "console", source: { file: "x", line: 1, column: 1 } }],
    groupWaitMs: 0,
    coolDownMs: 0,
    ...overrides,
  };
}

/** A departure's identity. */
export function flight(overrides: Partial<FlightIdentity> = {}): FlightIdentity {
  return {
    key: "D:2026-11-21:KL1234",
    id: "123456789012345678",
    mainFlight: "KL1234",
    direction: "D",
    scheduleDate: "2026-11-21",
    scheduled: SCHEDULED,
    flightNames: ["KL1234"],
    ...overrides,
  };
}

/** A change event; `version` also tells events with equal values apart. */
export function event(
  change: Change,
  version: number,
  identity: FlightIdentity = flight(),
  current?: SnapshotFields,
): ChangeEvent {
  return toChangeEvent(change, identity, version, current);
}

/** A gate change (assignment when `old` is undefined). */
export function gate(old: string | undefined, now: string, version: number): ChangeEvent {
  const change: Change = { kind: "gate", field: "gate", action: old ? "changed" : "assigned" };
  if (old !== undefined) change.old = old;
  change.new = now;
  return event(change, version, flight(), { gate: now });
}

/** A time change of `field` between minutes after the schedule (assignment when `old` is undefined). */
export function time(
  old: number | undefined,
  now: number,
  version: number,
  field = "publicEstimatedOffBlockTime",
  identity: FlightIdentity = flight(),
): ChangeEvent {
  const change: Change = {
    kind: "time",
    field,
    action: old === undefined ? "assigned" : "changed",
  };
  if (old !== undefined) {
    change.old = at(old);
    change.shiftMinutes = now - old;
  }
  change.new = at(now);
  change.delayMinutes = now;
  return event(change, version, identity);
}

/** A state code added or withdrawn. */
export function state(code: string, action: "added" | "withdrawn", version: number): ChangeEvent {
  const before = action === "added" ? ["SCH"] : ["SCH", code];
  const after = action === "added" ? ["SCH", code] : ["SCH"];
  return event(
    { kind: "state", field: "publicFlightState", action, state: code, old: before, new: after },
    version,
  );
}

/** A time selector with `shift_at_least`. */
export function shiftSelector(minutes: number): ChangeSelector {
  return { name: "departure_time", kinds: ["time"], shiftAtLeastMinutes: minutes };
}

/**
 * Feeds one rule's decisions about one flight, keeping the state as JSON text between
 * calls (so nothing survives that Redis would not keep) and every alert sent.
 */
export class Driver {
  state: AlertState | undefined;
  dueAt: number | undefined;
  readonly sent: Alert[] = [];

  constructor(readonly rule: Rule) {}

  /** Admits events (as matches of the rule, with an optional selector) at `now`. */
  admit(now: number, events: ChangeEvent[], selector?: ChangeSelector): Alert[] {
    const matches: RuleMatch[] = events.map((e) =>
      selector ? { rule: this.rule, event: e, selector } : { rule: this.rule, event: e },
    );
    return this.keep(admitMatches(this.state, this.rule, matches, now));
  }

  /** Admits what the real matcher makes of the events for this rule (as the Dispatcher does). */
  observe(now: number, events: ChangeEvent[]): Alert[] {
    const matches = new RuleSet([this.rule], { zone: ZONE }).match(events, now);
    return this.keep(admitMatches(this.state, this.rule, matches, now));
  }

  /** An observation of the flight with no change the rule matched (reminders follow it). */
  see(now: number, observed: Observation | null, catchUp?: CatchUp): Alert[] {
    return this.keep(admitMatches(this.state, this.rule, [], now, catchUp, observed));
  }

  /** Calls flushDue at `now`. */
  flush(now: number, catchUp?: CatchUp, observed?: Observation | null): Alert[] {
    return this.keep(flushDue(this.state, this.rule, now, catchUp, observed));
  }

  private keep(decision: Decision): Alert[] {
    const text = decision.state === undefined ? undefined : JSON.stringify(decision.state);
    this.state = text === undefined ? undefined : (JSON.parse(text) as AlertState);
    // The state must survive JSON unchanged: nothing undefined, no Map, no class.
    if (text !== undefined) expect(this.state).toStrictEqual(decision.state);
    this.dueAt = decision.dueAt;
    this.sent.push(...decision.alerts);
    return decision.alerts;
  }
}

/** `old → new` of each change of an alert, states as `CODE action`, for compact assertions. */
export function summary(alert: Alert | undefined): string[] {
  return (alert?.changes ?? []).map((c) => {
    if (c.kind === "state") return `${c.state} ${c.action}${c.correction ? " (correction)" : ""}`;
    const show = (v: unknown) => (typeof v === "string" && v.length > 20 ? v.slice(11, 16) : v);
    return `${c.field} ${show(c.old) ?? "∅"}→${show(c.new)}${c.correction ? " (correction)" : ""}`;
  });
}
