/**
 * The dispatch stage: reads change events from the outbox (its own consumer group),
 * matches them against the live rule set, and turns the matches into alerts through
 * the pure decisions of alert-decision.ts, with their memory kept in Redis by the
 * AlertStore. Groups that wait (`group_wait`, held flaps) are flushed when due.
 *
 * Each batch of outbox entries (what one read returns) is decided and acknowledged in
 * one transaction — several when it concerns more than MAX_TARGETS (rule, flight)s — the entries one after the other, each seeing
 * the state the ones before it left, as if each had a transaction of its own — so a
 * crash at any point neither loses a match nor writes an alert twice; decisions
 * ignore an event they already took, so an entry decided again after a lost
 * acknowledgement adds nothing. Groups that fell due are flushed a batch to a
 * transaction too.
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
import type { ChangeEvent } from "../diff/change.js";
import type { FlightSnapshot } from "../diff/flight-snapshot.js";
import { RuleSet } from "../rules/match/rule-matcher.js";
import type { Rule } from "../rules/rule.js";
import type { RuleMatch } from "../rules/rule-match.js";
import {
  type AlertStore,
  type AlertTarget,
  type TargetUpdate,
  targetKey,
} from "../store/alert-store.js";
import type { PollStatus } from "../store/detection-store.js";
import type { OutboxConsumer, OutboxEntry } from "../store/outbox-consumer.js";
import { lookupRule, type SubscriptionRules } from "../subscriptions/subscription-rules.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import type { Alert } from "./alert.js";
import {
  type AlertState,
  admitMatches,
  type CatchUp,
  flushDue,
  observationOf,
} from "./alert-decision.js";
import type { Observation } from "./reminder-decision.js";

/** Subscriptions with new reminders scheduled per step at most. */
const WAKES_PER_STEP = 500;
/** Flights taken in silently whose reminders are scheduled per step at most. */
const SILENT_PER_STEP = 1_000;
/** Dates before and after any flight's (the whole snapshot index). */
const FIRST_DATE = "0000-01-01";
const LAST_DATE = "9999-12-31";

/**
 * Most (rule, flight)s one transaction decides: a batch of entries that concerns more
 * (broad rules matching every flight) is committed in several, an entry never split.
 */
export const MAX_TARGETS = 5_000;

/** Default consumer group of the dispatcher on the outbox. */
export const DISPATCH_GROUP = "dispatch";

/** What a Dispatcher works with: its outbox reader, its store, the live rules and a clock. */
export interface DispatcherOptions {
  /** Reader of the outbox in the dispatcher's group (a connection of its own). */
  consumer: OutboxConsumer;
  /** State and alerts (a connection of its own). */
  store: AlertStore<AlertState>;
  /** The live rule set; called for every batch, so a reload takes effect at once. */
  rules: () => RuleSet;
  /** Passenger subscriptions, matched beside the rules (none when absent). */
  subscriptions?: SubscriptionRules;
  /** Airport clock, epoch ms. */
  now: () => number;
  /** Most due targets flushed per step (default 100). */
  flushBatch?: number;
  /** Most (rule, flight)s one transaction decides (default MAX_TARGETS). */
  maxTargets?: number;
  /**
   * The poll status, when this process polls: the dispatcher then catches up after
   * downtime (see the module comment). Without it, groups close on time, whatever
   * detection knows.
   */
  detection?: { readStatus(): Promise<PollStatus> };
  /**
   * The flights' snapshots, for reminders: a flight that does not change again after a
   * rule or subscription with reminders starts has no outbox entry to schedule them
   * from, so the dispatcher reads its snapshot (see `sweepReminders`). Without it,
   * reminders are scheduled by the flights' next changes only.
   */
  snapshots?: {
    indexedKeys(fromDate: string, toDate: string): Promise<string[]>;
    loadSnapshots(flightKeys: readonly string[]): Promise<Map<string, FlightSnapshot>>;
    silentFlights(limit: number): Promise<string[]>;
    forgetSilent(flightKeys: readonly string[]): Promise<void>;
  };
  /** The airport's zone (the dates of the snapshots swept for reminders). */
  zone?: string;
}

/** Decides alerts from change events; one step at a time (`step`) or in a loop. */
export class Dispatcher {
  readonly #options: DispatcherOptions;
  /** Set at the first step of a dispatcher that polls; cleared once caught up. */
  #catchUp: CatchUp | undefined;
  #catchingUp: boolean;
  /** The poll status's attempt counter at the first step (see #polledSinceStart). */
  #attemptsAtStart = 0;
  /** The rule set whose reminders were last swept (a reload sweeps again). */
  #sweptRules: RuleSet | undefined;

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
      alerts.push(...(await this.admit(entries)));
    } catch (err) {
      // The batch is still pending: take it before anything newer.
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
    alerts.push(...(await this.sweepReminders()));
    alerts.push(...(await this.flushDue()));
    return alerts;
  }

  /**
   * Matches outbox entries and commits the decisions with the entries'
   * acknowledgement, in one transaction: each (rule, flight) decides the matches of the
   * entries in their order, from the state the entry before left.
   */
  async admit(entries: readonly OutboxEntry[]): Promise<readonly Alert[]> {
    if (entries.length === 0) return [];
    const now = this.#options.now();
    const ruleSet = this.#options.rules();
    // The subscriptions to the batch's flights: one lookup for the whole batch.
    const subscribed = await this.#options.subscriptions?.forObservations(
      entries.map((entry) => entry.value),
    );
    const alerts: Alert[] = [];
    // Entries in order, cut where the next one would take a transaction past MAX_TARGETS
    // (an entry is never split: its decisions commit with its acknowledgement).
    let chunk: { entry: OutboxEntry; groups: MatchGroup[] }[] = [];
    let targets = 0;
    for (const entry of entries) {
      const matches = ruleSet.match(entry.value, now);
      if (subscribed !== undefined) matches.push(...subscribed.match(entry.value, now));
      const groups = groupByTarget(matches);
      // Rules with reminders hear of every observation of their flights (a removal
      // takes their reminders off).
      const first = entry.value[0];
      if (first !== undefined) {
        const observed = entry.value.some((e) => observationOf(e) === null) ? null : first;
        const key = first.flight.key;
        addReminding(groups, ruleSet.reminding(first, now), key, observed);
        if (subscribed !== undefined) {
          addReminding(groups, subscribed.reminding(first, now), key, observed);
        }
      }
      if (chunk.length > 0 && targets + groups.length > (this.#options.maxTargets ?? MAX_TARGETS)) {
        alerts.push(...(await this.#commit(chunk, now)));
        chunk = [];
        targets = 0;
      }
      chunk.push({ entry, groups });
      targets += groups.length;
    }
    alerts.push(...(await this.#commit(chunk, now)));
    return alerts;
  }

  async #commit(
    chunk: readonly { entry: OutboxEntry; groups: MatchGroup[] }[],
    now: number,
  ): Promise<readonly Alert[]> {
    const { consumer, store } = this.#options;
    const catchUp = this.#catchUp;
    const targets = new Targets();
    for (const { groups } of chunk) for (const g of groups) targets.add(g.target);
    crashPoint("dispatch.before-commit");
    const alerts = await store.transact(
      targets.list,
      (states) => {
        const updates = states.map((state): TargetUpdate<AlertState> => ({ state }));
        const decided: Alert[] = [];
        for (const { groups } of chunk) {
          for (const g of groups) {
            const update = updates[targets.indexOf(g.target)] as TargetUpdate<AlertState>;
            const decision = admitMatches(
              update.state,
              g.rule,
              g.matches,
              now,
              catchUp,
              g.observed !== undefined
                ? g.observed
                : observationOf(g.matches[g.matches.length - 1]?.event),
            );
            update.state = decision.state;
            update.dueAt = decision.dueAt;
            decided.push(...decision.alerts);
          }
        }
        return { updates, alerts: decided };
      },
      {
        ack: {
          stream: consumer.stream,
          group: consumer.group,
          entryIds: chunk.map(({ entry }) => entry.entryId),
        },
      },
    );
    crashPoint("dispatch.after-commit");
    return alerts;
  }

  /**
   * Schedules the reminders that no outbox entry will, from the flights' snapshots: of
   * the rules with reminders when the rule set is new (the first step, a reload), over
   * the flights from yesterday to two days ahead; of subscriptions made or confirmed
   * since the last look (their flights' dates); and of every rule and subscription about
   * the flights detection took in silently (a baseline, new horizon dates). A (rule,
   * flight) whose memory the snapshot does not change is not written. Resolves to the
   * reminders due at once.
   */
  async sweepReminders(): Promise<readonly Alert[]> {
    const { snapshots, subscriptions, store } = this.#options;
    if (snapshots === undefined) return [];
    const ruleSet = this.#options.rules();
    const sweepRules = ruleSet !== this.#sweptRules && ruleSet.hasReminders;
    const wakes = (await subscriptions?.reminderWakes(WAKES_PER_STEP)) ?? [];
    const silent = await snapshots.silentFlights(SILENT_PER_STEP);
    if (!sweepRules && wakes.length === 0 && silent.length === 0) {
      this.#sweptRules = ruleSet;
      return [];
    }
    const now = this.#options.now();
    const zone = this.#options.zone ?? DEFAULT_AIRPORT_TIMEZONE;
    const keys = new Set<string>();
    // The whole horizon: a flight days ahead that does not change has its reminders too.
    if (sweepRules)
      for (const key of await snapshots.indexedKeys(FIRST_DATE, LAST_DATE)) keys.add(key);
    for (const date of new Set(wakes.map((w) => w.date))) {
      for (const key of await snapshots.indexedKeys(date, date)) keys.add(key);
    }
    for (const key of silent) keys.add(key);
    const silentKeys = new Set(silent);
    const woken =
      wakes.length > 0 && subscriptions !== undefined
        ? [...(await subscriptions.get(wakes.map((w) => `sub:${w.id}`))).values()]
        : [];
    const wokenSet = woken.length > 0 ? new RuleSet(woken, { zone }) : undefined;
    const found = await snapshots.loadSnapshots([...keys]);
    const observations = [...found.values()].map(observationOfSnapshot);

    // The subscriptions to the flights taken in silently: one lookup for them all.
    const silentSet =
      silent.length > 0
        ? await subscriptions?.forObservations(
            observations.filter((o) => silentKeys.has(o.flight.key)).map((o) => [o]),
            { reminding: true },
          )
        : undefined;
    const groups: MatchGroup[] = [];
    for (const observed of observations) {
      const isSilent = silentKeys.has(observed.flight.key);
      const key = observed.flight.key;
      // One flight's groups at a time: a subscription both woken and silent is one
      // target, and the duplicate check stays within the flight (not the whole sweep).
      const mine: MatchGroup[] = [];
      if (sweepRules || isSilent) {
        addReminding(mine, ruleSet.reminding(observed, now), key, observed);
      }
      if (wokenSet) addReminding(mine, wokenSet.reminding(observed, now), key, observed);
      if (isSilent && silentSet) {
        addReminding(mine, silentSet.reminding(observed, now), key, observed);
      }
      for (const group of mine) groups.push(group);
    }
    const alerts: Alert[] = [];
    const catchUp = this.#catchUp;
    const max = this.#options.maxTargets ?? MAX_TARGETS;
    for (let i = 0; i < groups.length; i += max) {
      const chunk = groups.slice(i, i + max);
      alerts.push(
        ...(await store.transact(
          chunk.map((g) => g.target),
          (states) => {
            const decided: Alert[] = [];
            const updates = chunk.map((g, j): TargetUpdate<AlertState> | undefined => {
              const state = states[j];
              const decision = admitMatches(state, g.rule, [], now, catchUp, g.observed);
              decided.push(...decision.alerts);
              // Unchanged: not written (a sweep of a quiet airport writes nothing).
              if (
                decision.alerts.length === 0 &&
                JSON.stringify(decision.state) === JSON.stringify(state)
              ) {
                return undefined;
              }
              return { state: decision.state, dueAt: decision.dueAt };
            });
            return { updates, alerts: decided };
          },
        )),
      );
    }
    await subscriptions?.remindersWoken(wakes.map((w) => w.member));
    await snapshots.forgetSilent(silent);
    if (sweepRules || !ruleSet.hasReminders) this.#sweptRules = ruleSet;
    return alerts;
  }

  /**
   * Flushes every (rule, flight) whose group or held change is due by now, a batch at
   * a time; while catching up, only those due before detection's last look (the others
   * wait for its end).
   */
  async flushDue(): Promise<readonly Alert[]> {
    const { store } = this.#options;
    const now = this.#options.now();
    const catchUp = this.#catchUp;
    const until = Math.min(now, catchUp?.seenUntil ?? now);
    if (until === Number.NEGATIVE_INFINITY) return [];
    const due = await store.due(until, this.#options.flushBatch ?? 100);
    if (due.length === 0) return [];
    const ruleSet = this.#options.rules();
    const subscribed = await this.#options.subscriptions?.get(due.map((t) => t.ruleId));
    // Reminders go as the flight is now: its snapshot, which the rule must still select.
    const reminding = due.filter(
      (t) => (lookupRule(ruleSet, subscribed, t.ruleId)?.reminders?.length ?? 0) > 0,
    );
    const snapshots =
      reminding.length > 0
        ? await this.#options.snapshots?.loadSnapshots([
            ...new Set(reminding.map((t) => t.flightKey)),
          ])
        : undefined;
    const selects = new Map<string, RuleSet>();
    const observedFor = (rule: Rule, flightKey: string): Observation | null | undefined => {
      if (snapshots === undefined || !rule.reminders?.length) return undefined;
      const snapshot = snapshots.get(flightKey);
      // Removed upstream (or expired): its reminders go with it.
      if (snapshot === undefined) return null;
      const observed = observationOfSnapshot(snapshot);
      let one = selects.get(rule.id);
      if (one === undefined) {
        one = new RuleSet([rule], { zone: this.#options.zone ?? DEFAULT_AIRPORT_TIMEZONE });
        selects.set(rule.id, one);
      }
      return one.reminding(observed, now).length > 0 ? observed : null;
    };
    crashPoint("dispatch.before-flush-commit");
    return store.transact(
      due,
      (states) => {
        const alerts: Alert[] = [];
        const updates = due.map((target, i): TargetUpdate<AlertState> => {
          const rule = lookupRule(ruleSet, subscribed, target.ruleId);
          // A rule removed by a reload (a subscription ended) takes its waiting groups with it.
          if (!rule) return { state: undefined };
          const decision = flushDue(
            states[i],
            rule,
            now,
            catchUp,
            observedFor(rule, target.flightKey),
          );
          alerts.push(...decision.alerts);
          return { state: decision.state, dueAt: decision.dueAt };
        });
        return { updates, alerts };
      },
      // Taken from the due set: each one not due any more is taken off it, even one
      // whose state is gone (kept days past its due time, or evicted).
      { fromDueSet: true },
    );
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
  /** The observation its reminders follow; `null`: the flight was removed. */
  observed?: Observation | null;
}

/** A stored snapshot as an observation with no change (what rules with reminders read). */
function observationOfSnapshot(snapshot: FlightSnapshot): ChangeEvent {
  const { version, fields, ...flight } = snapshot;
  return {
    id: "",
    kind: "flight",
    field: "flight",
    action: "changed",
    flight,
    version,
    current: fields,
  };
}

/** Adds a group for each reminding rule that has none for the flight yet. */
function addReminding(
  groups: MatchGroup[],
  rules: readonly Rule[],
  flightKey: string,
  observed: ChangeEvent | null,
): void {
  for (const rule of rules) {
    if (groups.some((g) => g.target.ruleId === rule.id && g.target.flightKey === flightKey)) {
      continue;
    }
    groups.push({ target: { ruleId: rule.id, flightKey }, rule, matches: [], observed });
  }
}

/** Matches grouped by (rule, flight), in first-match order. */
export function groupByTarget(matches: readonly RuleMatch[]): MatchGroup[] {
  const byKey = new Map<string, MatchGroup>();
  for (const match of matches) {
    const target = { ruleId: match.rule.id, flightKey: match.event.flight.key };
    const key = targetKey(target);
    let group = byKey.get(key);
    if (!group) {
      group = { target, rule: match.rule, matches: [] };
      byKey.set(key, group);
    }
    group.matches.push(match);
  }
  return [...byKey.values()];
}

/** Distinct targets in first-seen order, with their positions. */
class Targets {
  readonly list: AlertTarget[] = [];
  readonly #index = new Map<string, number>();

  add(target: AlertTarget): void {
    const key = targetKey(target);
    if (this.#index.has(key)) return;
    this.#index.set(key, this.list.length);
    this.list.push(target);
  }

  indexOf(target: AlertTarget): number {
    return this.#index.get(targetKey(target)) as number;
  }
}
