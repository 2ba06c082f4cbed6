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
 *
 * Catching up after downtime: a group that fell due while the daemon was down was
 * never sent, and the changes made meanwhile are not known until detection has polled
 * again. So a dispatcher that polls (given `detection`) starts in catch-up: a group whose
 * window was open at the last poll before the downtime stays open — the changes the
 * first polls find join it — until a poll attempted since the start (successful or
 * not: a failing upstream does not hold alerts back longer than its backoff) has been
 * read to the end of the outbox by the whole dispatch group (no entry pending with any
 * dispatcher). It then goes out as the flight is now (gate D1 → D3), never with a value
 * superseded while nobody watched (D1 → D2, then D2 → D3). So does a flapping hold in
 * the same position. Other groups (every one of a rule without `group_wait`) close as
 * usual; those due meanwhile wait for the end of the catch-up. How far detection had
 * looked before the downtime is kept in Redis until a catch-up ends, so a restart
 * during a catch-up catches up from the same point.
 */
import { crashPoint } from "../crash-point.js";
import type { RuleSet } from "../rules/match/rule-matcher.js";
import type { Rule } from "../rules/rule.js";
import type { RuleMatch } from "../rules/rule-match.js";
import type { AlertStore, AlertTarget, AlertUpdate } from "../store/alert-store.js";
import type { PollStatus } from "../store/detection-store.js";
import type { OutboxConsumer, OutboxEntry } from "../store/outbox-consumer.js";
import type { Alert } from "./alert.js";
import {
  type AlertState,
  admitMatches,
  type CatchUp,
  type Decision,
  flushDue,
} from "./alert-decision.js";

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
  /**
   * The poll status, when this process polls: the dispatcher then catches up after
   * downtime (see the module comment). Without it, groups close on time, whatever
   * detection knows.
   */
  detection?: { readStatus(): Promise<PollStatus> };
}

/** Decides alerts from change events; one step at a time (`step`) or in a loop. */
export class Dispatcher {
  readonly #options: DispatcherOptions;
  /** Set at the first step of a dispatcher that polls; cleared once caught up. */
  #catchUp: CatchUp | undefined;
  #catchingUp: boolean;
  /** The poll status's attempt counter at the first step (see #polledSinceStart). */
  #attemptsAtStart = 0;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#catchingUp = options.detection !== undefined;
  }

  /**
   * One round: decide the entries that are waiting (blocking up to the consumer's
   * `blockMs` when none are), then flush what is due. Resolves to the alerts committed.
   */
  async step(): Promise<Alert[]> {
    // The status before the read: a poll it shows has its entries in the outbox already.
    const polledSinceStart = this.#catchingUp ? await this.#polledSinceStart() : true;
    const alerts: Alert[] = [];
    let read = 0;
    try {
      const entries = await this.#options.consumer.read();
      read = entries.length;
      for (const entry of entries) alerts.push(...(await this.admit(entry)));
    } catch (err) {
      // The rest of the batch is still pending: take it before anything newer.
      this.#options.consumer.rewind();
      throw err;
    }
    if (
      this.#catchingUp &&
      polledSinceStart &&
      read === 0 &&
      (await this.#options.consumer.drained())
    ) {
      await this.#options.store.endCatchUp();
      this.#catchingUp = false;
      this.#catchUp = undefined;
    }
    alerts.push(...(await this.flushDue()));
    return alerts;
  }

  /** Matches one outbox entry and commits the decisions with the entry's acknowledgement. */
  async admit(entry: OutboxEntry): Promise<Alert[]> {
    const { consumer, store } = this.#options;
    const now = this.#options.now();
    const catchUp = this.#catchUp;
    const ruleSet = this.#options.rules();
    const groups = groupByTarget(ruleSet.match(entry.value, now));
    crashPoint("dispatch.before-commit");
    const alerts = await store.transact(
      groups.map((g) => g.target),
      (states) =>
        groups.map((g, i) => toUpdate(admitMatches(states[i], g.rule, g.matches, now, catchUp))),
      { stream: consumer.stream, group: consumer.group, entryId: entry.entryId },
    );
    crashPoint("dispatch.after-commit");
    return alerts;
  }

  /**
   * Flushes every (rule, flight) whose group or held change is due by now; while catching
   * up, only those due before detection's last look (the others wait for its end).
   */
  async flushDue(): Promise<Alert[]> {
    const { store } = this.#options;
    const now = this.#options.now();
    const catchUp = this.#catchUp;
    const until = Math.min(now, catchUp?.seenUntil ?? now);
    if (until === Number.NEGATIVE_INFINITY) return [];
    const due = await store.due(until, this.#options.flushBatch ?? 100);
    const alerts: Alert[] = [];
    for (const target of due) {
      crashPoint("dispatch.before-flush-commit");
      const rule = this.#options.rules().get(target.ruleId);
      alerts.push(
        ...(await store.transact([target], ([state]) => [
          // A rule removed by a reload takes its waiting groups with it.
          rule ? toUpdate(flushDue(state, rule, now, catchUp)) : { state: undefined, alerts: [] },
        ])),
      );
    }
    return alerts;
  }

  /**
   * Whether a poll was attempted since this dispatcher's first step. The first call
   * also fixes how far detection had looked before: the start of the last successful
   * poll (nothing is known after it; with none, nothing at all) — or, when a catch-up
   * that has not ended was under way (a restart during it), where that one had it.
   */
  async #polledSinceStart(): Promise<boolean> {
    const status = await this.#options.detection?.readStatus();
    const attempts = status?.attempts ?? 0;
    if (this.#catchUp === undefined) {
      const since = this.#options.now();
      const seenUntil = await this.#options.store.catchUpSeenUntil(
        status?.lastSuccessAt ?? Number.NEGATIVE_INFINITY,
      );
      this.#catchUp = { since, seenUntil };
      this.#attemptsAtStart = attempts;
    }
    const before = this.#attemptsAtStart;
    if (attempts === before) return false;
    // One attempt since may have started before this dispatcher did; its start time
    // says (unless the clock was stepped back since). A second one cannot have: polls
    // never overlap. A counter below the first reading was reset (Redis lost its data).
    const startedSince = (status?.lastAttemptAt ?? Number.NEGATIVE_INFINITY) >= this.#catchUp.since;
    return startedSince || attempts > before + 1 || attempts < before;
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
