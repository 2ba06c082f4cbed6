/**
 * Notices that Redis lost flightwatch's data — a restart without persistence, a
 * `FLUSHALL`, a failover to an empty replica, the prefix's keys deleted — while the
 * connection looks healthy. The deployment's **generation** key is written once, by the
 * first process, and never expires; each process remembers the value it found. Found
 * missing (or different), it means the rest went too.
 *
 * The stages recover by themselves (a consumer group found missing is created again,
 * detection without a watermark takes a silent baseline, the poll turn is taken
 * afresh); the guard's part is to say what happened, once, and what went with it: it
 * looks at what is outstanding — notifications waiting or retrying, decided alerts not
 * yet queued, groups waiting for their time — at every check, so that after a loss it
 * can name what Redis held before it. It names what the **last two** looks saw together
 * (every notification either saw, the larger counts): keys deleted one by one (a
 * script, `redis-cli --scan | xargs del`) can be caught part-way, the queues already
 * gone and the generation not yet, and that look alone would say nothing was lost. The
 * price is that a notification sent in the one check interval before the loss may be
 * named among the lost.
 */
import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./redis-connection.js";
import type { RedisKeys } from "./redis-keys.js";

/** Work that would be lost with Redis's data, as last seen. */
export interface Outstanding {
  /** Notifications waiting, retrying or being sent. */
  notifications: number;
  /** Ids of (up to a thousand of) them. */
  notificationIds: string[];
  /** Decided alerts not yet turned into notifications. */
  alerts: number;
  /** Groups (`group_wait`) and held changes waiting for their time. */
  groups: number;
}

/** A loss of flightwatch's data, as one process found it. */
export interface StateLoss {
  /** Whether this process wrote the new generation (the first to notice: it reports the losses). */
  recreated: boolean;
  /**
   * What was outstanding at the looks of the last LOOK_WINDOW_MS before the loss (at
   * least the last two), together; absent when there were none.
   */
  outstanding?: Outstanding;
  /** How long before noticing the earlier of those looks was, ms. */
  observedAgoMs?: number;
}

/** What a StateGuard works with. */
export interface StateGuardOptions {
  /** A connection for plain commands (shared is fine). */
  redis: RedisConnection;
  keys: RedisKeys;
  /** Reads what is outstanding now (optional: without it a loss names nothing). */
  observe?: () => Promise<Outstanding>;
  /** Hears each loss once (several checks at the same time share one look). */
  onLoss: (loss: StateLoss) => void;
  /** Monotonic clock, ms (default performance.now). */
  monotonic?: () => number;
}

/** Watches the generation key of one deployment. */
/** How far back the looks named by a loss go (at least the last two looks). */
const LOOK_WINDOW_MS = 10_000;

export class StateGuard {
  readonly #redis: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #observe: (() => Promise<Outstanding>) | undefined;
  readonly #onLoss: (loss: StateLoss) => void;
  readonly #monotonic: () => number;
  #known: string | undefined;
  /** The looks made while the generation was ours, within LOOK_WINDOW_MS (at least two), the newest last. */
  #looks: Array<{ value: Outstanding; at: number }> = [];
  /** A check under way: concurrent callers share it (one loss is one loss). */
  #checking: Promise<StateLoss | undefined> | undefined;

  constructor(options: StateGuardOptions) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#observe = options.observe;
    this.#onLoss = options.onLoss;
    this.#monotonic = options.monotonic ?? (() => performance.now());
  }

  /** Learns the deployment's generation, writing it when there is none yet (a new deployment). */
  async start(): Promise<void> {
    this.#known = await this.#adopt();
  }

  /**
   * Looks: when the generation is gone or changed since the last look, writes a new one
   * and tells `onLoss`; resolves to the loss (shared by the checks it answered).
   */
  check(): Promise<StateLoss | undefined> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<StateLoss | undefined> {
    if (this.#known === undefined) {
      await this.start();
      return undefined;
    }
    // Observe first, then read the generation: an observation made after a loss (of
    // empty queues) must not replace the last one made before it. A look that fails —
    // keys vanishing under it, a stream gone between two commands — is no look: the
    // generation read below says whether the data went (and fails when Redis is away).
    const observed = this.#observe ? await this.#observe().catch(() => undefined) : undefined;
    const current = await this.#redis.get(this.#keys.generation);
    if (current === this.#known) {
      if (observed) {
        const at = this.#monotonic();
        const looks = [...this.#looks, { value: observed, at }];
        // Keys deleted one by one (not a FLUSHALL) can take several looks to go, each of
        // them seeing the queues gone and the generation not yet: the looks of a while
        // back, not only the last two, still saw what was there.
        const from = looks.findIndex((l) => at - l.at <= LOOK_WINDOW_MS);
        this.#looks = looks.slice(Math.min(from < 0 ? looks.length : from, looks.length - 2));
      }
      return undefined;
    }
    const mine = randomUUID();
    const written = await this.#redis.set(this.#keys.generation, mine, "NX");
    this.#known = written === "OK" ? mine : await this.#adopt();
    const looks = this.#looks;
    this.#looks = [];
    const earliest = looks[0];
    const loss: StateLoss = {
      recreated: written === "OK",
      ...(earliest
        ? {
            outstanding: together(looks.map((l) => l.value)),
            observedAgoMs: Math.round(this.#monotonic() - earliest.at),
          }
        : {}),
    };
    this.#onLoss(loss);
    return loss;
  }

  async #adopt(): Promise<string> {
    await this.#redis.set(this.#keys.generation, randomUUID(), "NX");
    return (await this.#redis.get(this.#keys.generation)) ?? "";
  }
}

/** What several looks saw together: every notification id either named, the larger counts. */
function together(looks: Outstanding[]): Outstanding {
  const ids = [...new Set(looks.flatMap((l) => l.notificationIds))];
  const most = (pick: (o: Outstanding) => number) => Math.max(0, ...looks.map(pick));
  return {
    notifications: Math.max(
      ids.length,
      most((o) => o.notifications),
    ),
    notificationIds: ids,
    alerts: most((o) => o.alerts),
    groups: most((o) => o.groups),
  };
}
