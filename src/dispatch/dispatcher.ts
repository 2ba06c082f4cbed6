/**
 * The dispatch stage: reads change events from the outbox (its own consumer group),
 * matches them against the live rule set, and turns the matches into alerts through
 * the pure decisions of alert-decision.ts, with their memory kept in Redis by the
 * AlertStore. Groups that wait (`group_wait`, held flaps) are flushed when due.
 *
 * Each outbox entry is decided and acknowledged in one transaction, so a crash at any
 * point neither loses a match nor writes an alert twice; decisions ignore an event
 * they already took, so an entry decided again after a lost acknowledgement adds
 * nothing.
 */
import { crashPoint } from "../crash-point.js";
import type { OutboxConsumer, OutboxEntry } from "../detect/outbox-consumer.js";
import type { Rule } from "../rules/rule.js";
import type { RuleMatch } from "../rules/rule-match.js";
import type { RuleSet } from "../rules/rule-matcher.js";
import type { AlertStore, AlertTarget, AlertUpdate } from "../store/alert-store.js";
import type { Alert } from "./alert.js";
import { type AlertState, admitMatches, type Decision, flushDue } from "./alert-decision.js";

/** Default consumer group of the dispatcher on the outbox. */
export const DISPATCH_GROUP = "dispatch";

/** What a Dispatcher works with: its outbox reader, its store, the live rules and a clock. */
export interface DispatcherOptions {
  /** Reader of the outbox in the dispatcher's group (a connection of its own). */
  consumer: OutboxConsumer;
  /** State and alerts (a connection of its own). */
  store: AlertStore<AlertState>;
  /** The live rule set; called for every entry, so a reload takes effect at once. */
  rules: () => RuleSet;
  /** Airport clock, epoch ms. */
  now: () => number;
  /** Most due targets flushed per step (default 100). */
  flushBatch?: number;
}

/** Decides alerts from change events; one step at a time (`step`) or in a loop. */
export class Dispatcher {
  readonly #options: DispatcherOptions;

  constructor(options: DispatcherOptions) {
    this.#options = options;
  }

  /**
   * One round: decide the entries that are waiting (blocking up to the consumer's
   * `blockMs` when none are), then flush what is due. Resolves to the alerts committed.
   */
  async step(): Promise<Alert[]> {
    const alerts: Alert[] = [];
    try {
      for (const entry of await this.#options.consumer.read()) {
        alerts.push(...(await this.admit(entry)));
      }
    } catch (err) {
      // The rest of the batch is still pending: take it before anything newer.
      this.#options.consumer.rewind();
      throw err;
    }
    alerts.push(...(await this.flushDue()));
    return alerts;
  }

  /** Matches one outbox entry and commits the decisions with the entry's acknowledgement. */
  async admit(entry: OutboxEntry): Promise<Alert[]> {
    const { consumer, store } = this.#options;
    const now = this.#options.now();
    const ruleSet = this.#options.rules();
    const groups = groupByTarget(ruleSet.match(entry.value, now));
    crashPoint("dispatch.before-commit");
    const alerts = await store.transact(
      groups.map((g) => g.target),
      (states) => groups.map((g, i) => toUpdate(admitMatches(states[i], g.rule, g.matches, now))),
      { stream: consumer.stream, group: consumer.group, entryId: entry.entryId },
    );
    crashPoint("dispatch.after-commit");
    return alerts;
  }

  /** Flushes every (rule, flight) whose group or held change is due by now. */
  async flushDue(): Promise<Alert[]> {
    const { store } = this.#options;
    const now = this.#options.now();
    const due = await store.due(now, this.#options.flushBatch ?? 100);
    const alerts: Alert[] = [];
    for (const target of due) {
      crashPoint("dispatch.before-flush-commit");
      const rule = this.#options.rules().get(target.ruleId);
      alerts.push(
        ...(await store.transact([target], ([state]) => [
          // A rule removed by a reload takes its waiting groups with it.
          rule ? toUpdate(flushDue(state, rule, now)) : { state: undefined, alerts: [] },
        ])),
      );
    }
    return alerts;
  }
}

/** The matches of one rule about one flight. */
export interface MatchGroup {
  target: AlertTarget;
  rule: Rule;
  matches: RuleMatch[];
}

/** Matches grouped by (rule, flight), in first-match order. */
export function groupByTarget(matches: readonly RuleMatch[]): MatchGroup[] {
  const byKey = new Map<string, MatchGroup>();
  for (const match of matches) {
    const key = `${match.rule.id} ${match.event.flight.key}`;
    let group = byKey.get(key);
    if (!group) {
      const target = { ruleId: match.rule.id, flightKey: match.event.flight.key };
      group = { target, rule: match.rule, matches: [] };
      byKey.set(key, group);
    }
    group.matches.push(match);
  }
  return [...byKey.values()];
}

const toUpdate = (decision: Decision): AlertUpdate<AlertState> => ({
  state: decision.state,
  dueAt: decision.dueAt,
  alerts: decision.alerts,
});
