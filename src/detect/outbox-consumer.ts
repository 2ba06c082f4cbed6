/**
 * Moves change events on from the outbox stream with acknowledgement (a Redis
 * consumer group); each entry holds the changes of one flight seen by one poll. An event stays pending until its consumer acknowledges it; after
 * a crash the same consumer name gets its pending events again first, and events a
 * vanished consumer left pending longer than `claimIdleMs` are claimed by another.
 * Delivery is at least once: a consumer that crashes after handling an event but
 * before acknowledging it sees the event again, with the same deterministic id.
 */
import type { Redis } from "ioredis";
import type { ChangeEvent } from "../diff/change.js";
import { eventsOfFields } from "../store/outbox-entry.js";
import type { RedisKeys } from "../store/redis-keys.js";

/** One entry read from the outbox: the changes of one flight seen by one poll. */
export interface OutboxEntry {
  /** Stream entry id, for `ack`. */
  entryId: string;
  events: ChangeEvent[];
}

export interface OutboxConsumerOptions {
  /** A connection of its own: reads block. */
  redis: Redis;
  keys: RedisKeys;
  /** Consumer group, one per kind of consumer (`watch`, `rules`, …). */
  group: string;
  /** Consumer name, stable across restarts of one process (e.g. the host name). */
  consumer: string;
  /** Longest wait for new events per read (default 1 s). */
  blockMs?: number;
  /** Most events per read (default 100). */
  count?: number;
  /** Claim events another consumer left pending this long (default 60 s). */
  claimIdleMs?: number;
}

type StreamEntry = [id: string, fields: string[] | null];

/** A reader of one consumer group of the outbox. */
export class OutboxConsumer {
  readonly #redis: Redis;
  readonly #stream: string;
  readonly #group: string;
  readonly #consumer: string;
  readonly #blockMs: number;
  readonly #count: number;
  readonly #claimIdleMs: number;
  #ownPendingDone = false;
  #nextClaimAt = 0;

  constructor(options: OutboxConsumerOptions) {
    this.#redis = options.redis;
    this.#stream = options.keys.outbox;
    this.#group = options.group;
    this.#consumer = options.consumer;
    this.#blockMs = options.blockMs ?? 1000;
    this.#count = options.count ?? 100;
    this.#claimIdleMs = options.claimIdleMs ?? 60_000;
  }

  /**
   * Creates the group unless it exists. A new group starts after the events already
   * in the outbox (`$`) or, with `fromStart`, at the oldest one kept.
   */
  async ensureGroup(fromStart = false): Promise<void> {
    try {
      await this.#redis.xgroup(
        "CREATE",
        this.#stream,
        this.#group,
        fromStart ? "0" : "$",
        "MKSTREAM",
      );
    } catch (err) {
      if (!(err instanceof Error && err.message.includes("BUSYGROUP"))) throw err;
    }
  }

  /**
   * The next events: first those this consumer left unacknowledged (after a
   * restart), then ones abandoned by others, then new ones (waiting up to `blockMs`).
   * Resolves to an empty list when nothing came.
   */
  async read(): Promise<OutboxEntry[]> {
    if (!this.#ownPendingDone) {
      const own = await this.#readGroup("0", false);
      if (own.length > 0) return own;
      this.#ownPendingDone = true;
    }
    if (Date.now() >= this.#nextClaimAt) {
      this.#nextClaimAt = Date.now() + this.#claimIdleMs / 2;
      const claimed = await this.#claim();
      if (claimed.length > 0) return claimed;
    }
    return this.#readGroup(">", true);
  }

  /** Acknowledges handled events: they are not delivered to this group again. */
  async ack(entryIds: readonly string[]): Promise<void> {
    if (entryIds.length > 0) await this.#redis.xack(this.#stream, this.#group, ...entryIds);
  }

  async #readGroup(from: string, block: boolean): Promise<OutboxEntry[]> {
    const args: (string | number)[] = ["GROUP", this.#group, this.#consumer, "COUNT", this.#count];
    if (block) args.push("BLOCK", this.#blockMs);
    args.push("STREAMS", this.#stream, from);
    const reply = (await this.#redis.call("XREADGROUP", ...args)) as
      | [string, StreamEntry[]][]
      | null;
    return this.#entries(reply?.[0]?.[1] ?? []);
  }

  async #claim(): Promise<OutboxEntry[]> {
    const reply = (await this.#redis.call(
      "XAUTOCLAIM",
      this.#stream,
      this.#group,
      this.#consumer,
      this.#claimIdleMs,
      "0-0",
      "COUNT",
      this.#count,
    )) as [string, StreamEntry[], string[]?];
    return this.#entries(reply[1] ?? []);
  }

  /** Parses entries; entries trimmed away while pending are acknowledged and dropped. */
  async #entries(raw: StreamEntry[]): Promise<OutboxEntry[]> {
    const out: OutboxEntry[] = [];
    const gone: string[] = [];
    for (const [entryId, fields] of raw) {
      const events = eventsOfFields(fields);
      if (events === undefined) gone.push(entryId);
      else out.push({ entryId, events });
    }
    await this.ack(gone);
    return out;
  }
}
