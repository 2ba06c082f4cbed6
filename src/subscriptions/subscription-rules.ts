/**
 * Subscriptions as the pipeline's stages see them: rules, fetched when needed. The
 * dispatcher asks for the rules of the flights of a batch of observations (each flight
 * number it is sold under, on its schedule date), the notifier and the delivery workers
 * for the rules of alerts they hold (`sub:<id>`). Only active subscriptions are rules:
 * one unsubscribed after its alert was decided is not sent. Rules made are remembered
 * for a bounded number of subscriptions, so memory does not grow with their number;
 * they share what they write alike (a preset's changes, a flight's filter) through an
 * interner that is replaced as often as the remembered rules are, so it is bounded too:
 * ~600 B of heap a rule remembered instead of ~2 KB.
 */
import type { ChangeEvent } from "../diff/change.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { RuleSet } from "../rules/match/rule-matcher.js";
import { RuleInterner } from "../rules/read/rule-interner.js";
import type { Rule } from "../rules/rule.js";
import {
  type Subscription,
  type SubscriptionContext,
  subscriptionIdOf,
  subscriptionRule,
} from "./subscription.js";
import { encodeSubscription } from "./subscription-record.js";
import type { SubscriptionStore } from "./subscription-store.js";

/** Rules remembered at most (the subscriptions of the flights changing now). */
const REMEMBERED = 10_000;

/** The rules of stored subscriptions. */
export class SubscriptionRules {
  readonly #store: SubscriptionStore;
  readonly #context: SubscriptionContext;
  /** Rule by subscription id, with the stored text it was made from (oldest first). */
  readonly #made = new Map<string, { text: string; rule: Rule }>();
  /** What the rules made lately share, and how many were made with it. */
  #interner = new RuleInterner();
  #interned = 0;

  constructor(store: SubscriptionStore, context: SubscriptionContext) {
    this.#store = store;
    this.#context = context;
  }

  /**
   * The rules of the active subscriptions to the flights of these observations (each
   * an outbox entry's events, of one flight), as a set to match them against;
   * undefined when there are none. `reminding`: only the subscriptions with reminders.
   */
  async forObservations(
    observations: readonly (readonly ChangeEvent[])[],
    options: { reminding?: boolean } = {},
  ): Promise<RuleSet | undefined> {
    const pairs: { flight: string; date: string }[] = [];
    for (const events of observations) {
      const flight = events[0]?.flight;
      if (flight?.scheduleDate === undefined) continue;
      for (const name of flight.flightNames) {
        const number = normaliseFlightNumber(name);
        if (number !== undefined) pairs.push({ flight: number, date: flight.scheduleDate });
      }
    }
    const active = await this.#store.active(pairs);
    // Only those that ask for reminders, when that is all the caller looks at (the
    // sweep of flights taken in silently): no rule is built for the others.
    const subscriptions = options.reminding
      ? active.filter((s) => s.remind !== undefined && s.remind.length > 0)
      : active;
    if (subscriptions.length === 0) return undefined;
    const rules = subscriptions.map((s) => this.#rule(s)).filter((r) => r !== undefined);
    return rules.length === 0 ? undefined : new RuleSet(rules, { zone: this.#context.zone });
  }

  /** Subscriptions whose reminders wait to be scheduled (SubscriptionStore.reminderWakes). */
  reminderWakes(limit: number): Promise<{ date: string; id: string; member: string }[]> {
    return this.#store.reminderWakes(limit);
  }

  /** Takes scheduled wakes off the set. */
  remindersWoken(members: readonly string[]): Promise<void> {
    return this.#store.remindersWoken(members);
  }

  /** The rules of these rule ids that are active subscriptions (other ids are ignored). */
  async get(ruleIds: Iterable<string>): Promise<Map<string, Rule>> {
    const ids = [...new Set([...ruleIds].map(subscriptionIdOf))].filter(
      (id): id is string => id !== undefined,
    );
    const found = await this.#store.getMany(ids);
    const rules = new Map<string, Rule>();
    for (const s of found) {
      if (s?.status !== "active") continue;
      const rule = this.#rule(s);
      if (rule !== undefined) rules.set(rule.id, rule);
    }
    return rules;
  }

  /**
   * Why `get` found no rule for a subscription's rule id: it `ended` (removed, expired,
   * unsubscribed, or never confirmed), or it is active but no longer `invalid`-free — its
   * webhook's address refused by OUTBOUND_ALLOW now, its data written by hand — with
   * the reason.
   */
  async whyNot(ruleId: string): Promise<{ ended: true } | { invalid: string }> {
    const id = subscriptionIdOf(ruleId);
    const s = id === undefined ? undefined : await this.#store.get(id);
    if (s?.status !== "active") return { ended: true };
    try {
      subscriptionRule(s, this.#context);
      return { invalid: "its rule was refused a moment ago" };
    } catch (err) {
      return { invalid: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * The rule of a subscription; undefined for one that is no longer valid — checked when
   * stored, refused now: its webhook's address no longer allowed by OUTBOUND_ALLOW, or
   * its data written by hand. It is skipped, as a rule file with a problem is.
   */
  #rule(subscription: Subscription): Rule | undefined {
    const text = `${subscription.flight} ${subscription.date} ${encodeSubscription(subscription)}`;
    const made = this.#made.get(subscription.id);
    if (made !== undefined && made.text === text) return made.rule;
    if (this.#interned++ === REMEMBERED) {
      // Rules made before keep what they share; the interner forgets it.
      this.#interner = new RuleInterner();
      this.#interned = 1;
    }
    let rule: Rule;
    try {
      rule = subscriptionRule(subscription, { ...this.#context, interner: this.#interner });
    } catch {
      return undefined;
    }
    this.#made.delete(subscription.id);
    this.#made.set(subscription.id, { text, rule });
    if (this.#made.size > REMEMBERED) {
      const oldest = this.#made.keys().next().value;
      if (oldest !== undefined) this.#made.delete(oldest);
    }
    return rule;
  }
}

/**
 * A rule lookup over the rule files' set and the subscriptions: the set's rule when it
 * has one, else the subscription's fetched beforehand with `SubscriptionRules.get`.
 */
export function lookupRule(
  ruleSet: { get(id: string): Rule | undefined },
  fetched: ReadonlyMap<string, Rule> | undefined,
  id: string,
): Rule | undefined {
  return ruleSet.get(id) ?? fetched?.get(id);
}
