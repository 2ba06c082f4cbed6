/**
 * Double opt-in's clock: a subscription made on the passenger pages waits as `pending`
 * (never matched, never sent to) until its confirm link is used, for at most
 * `pendingMs` after it was made; then the link is refused, and the sweep deletes the
 * subscription. The ids wait in one sorted set by their deadline, so the sweep reads
 * only what is due. It uses the subscription store's public API only (`getMany`,
 * `remove`), so it holds whatever layout the store keeps its subscriptions in.
 */
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { Subscription } from "../subscriptions/subscription.js";
import type { SubscriptionStore } from "../subscriptions/subscription-store.js";

/** How long a confirm link works: unconfirmed subscriptions go within a day. */
export const DEFAULT_PENDING_MS = 24 * 3_600_000;

/**
 * The sweep leaves a deadline alone this long after it passed, so a process whose clock
 * runs a little behind another's never deletes a subscription confirmed in its last
 * moment elsewhere (a confirm refuses from the deadline on, the sweep starts after it).
 */
const SWEEP_GRACE_MS = 5 * 60_000;

/** Subscriptions most removed per sweep (the next sweep takes the rest). */
const SWEEP_BATCH = 500;

/** The subscriptions waiting for their confirmation. */
export class PendingSubscriptions {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #store: SubscriptionStore;
  readonly pendingMs: number;

  constructor(
    redis: RedisConnection,
    keys: RedisKeys,
    store: SubscriptionStore,
    pendingMs = DEFAULT_PENDING_MS,
  ) {
    this.#redis = redis;
    this.#keys = keys;
    this.#store = store;
    this.pendingMs = pendingMs;
  }

  /** When a subscription's confirm link stops working (epoch ms). */
  deadline(subscription: Pick<Subscription, "createdAt">): number {
    return subscription.createdAt + this.pendingMs;
  }

  /** Stores a new pending subscription; resolves false when the store refused it (its date long past). */
  async add(subscription: Subscription, now: number): Promise<boolean> {
    // The deadline first: a process dying between the two leaves an id the sweep
    // forgets, never a pending subscription nothing would ever remove.
    await this.#redis.zadd(this.#keys.webPending, this.deadline(subscription), subscription.id);
    const stored = await this.#store.add([subscription], now);
    if (stored.length === 0) await this.#redis.zrem(this.#keys.webPending, subscription.id);
    return stored.length > 0;
  }

  /** Whether a pending subscription may still be confirmed at `now`. */
  confirmable(subscription: Subscription, now: number): boolean {
    return subscription.status === "pending" && now < this.deadline(subscription);
  }

  /**
   * Confirms a pending subscription: it is active from now on. Only a pending one: an
   * unsubscription made meanwhile (the email's link, a second tab) stands.
   */
  async confirm(
    subscription: Pick<Subscription, "id" | "createdAt">,
  ): Promise<Subscription | undefined> {
    const { id, createdAt } = subscription;
    const active = await this.#store.setStatus(id, "active", { from: ["pending"], createdAt });
    // Not another's deadline (one made later under the id): the sweep forgets a gone one.
    if (active !== undefined) await this.#redis.zrem(this.#keys.webPending, id);
    return active;
  }

  /** Deletes the subscriptions left unconfirmed past their deadline; resolves to how many. */
  async sweep(now: number): Promise<number> {
    const due = await this.#redis.zrangebyscore(
      this.#keys.webPending,
      "-inf",
      now - SWEEP_GRACE_MS,
      "LIMIT",
      0,
      SWEEP_BATCH,
    );
    if (due.length === 0) return 0;
    const found = await this.#store.getMany(due);
    let removed = 0;
    for (const s of found) {
      // Confirmed (or unsubscribed) meanwhile: only forgotten here.
      if (s?.status !== "pending") continue;
      await this.#store.remove(s.id);
      removed++;
    }
    await this.#redis.zrem(this.#keys.webPending, ...due);
    return removed;
  }
}
