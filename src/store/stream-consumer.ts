/**
 * Reads a Redis stream through a consumer group, with acknowledgement: the stages
 * of the pipeline pass work on this way (the outbox of change events, the stream of
 * decided alerts). An entry stays pending until its consumer acknowledges it; after
 * a crash the same consumer name gets its pending entries again first, and entries a
 * vanished consumer left pending longer than `claimIdleMs` are claimed by another.
 * Delivery is at least once: a consumer that crashes after handling an entry but
 * before acknowledging it sees the entry again, unchanged; so does one whose
 * connection broke (a Redis restart) while a read was under way.
 */
import type { RedisConnection } from "./redis-connection.js";

/** One entry read from a stream, decoded. */
export interface StreamEntry<T> {
  /** Stream entry id, for `ack`. */
  entryId: string;
  value: T;
}

/** How a StreamConsumer reads: stream, decoder, group, consumer name and batching. */
export interface StreamConsumerOptions<T> {
  /** A connection of its own: reads block. */
  redis: RedisConnection;
  /** The stream's key. */
  stream: string;
  /**
   * Decodes an entry's field list; undefined when it has nothing (the entry was
   * trimmed while pending): such entries are acknowledged and skipped.
   */
  decode: (fields: readonly string[] | null) => T | undefined;
  /** Consumer group, one per kind of consumer (`watch`, `dispatch`, …). */
  group: string;
  /** Consumer name, stable across restarts of one process (e.g. the host name). */
  consumer: string;
  /** Longest wait for new entries per read (default 1 s). */
  blockMs?: number;
  /** Most entries per read (default 100). */
  count?: number;
  /** Claim entries another consumer left pending this long (default 60 s). */
  claimIdleMs?: number;
  /**
   * Hears that the group was missing and has been created again (Redis lost its data,
   * or the group was deleted): the caller finds out what else went.
   */
  onGroupRecreated?: (stream: string, group: string) => void;
  /** Monotonic clock, ms (default performance.now): when to look for abandoned entries. */
  monotonic?: () => number;
}

type RawEntry = [id: string, fields: string[] | null];

/** The value of one field of a stream entry's field list, or undefined (absent, trimmed). */
export function fieldOf(fields: readonly string[] | null, name: string): string | undefined {
  const i = fields ? fields.indexOf(name) : -1;
  return i >= 0 ? fields?.[i + 1] : undefined;
}

/** A reader of one consumer group of one stream. */
export class StreamConsumer<T> {
  readonly #redis: RedisConnection;
  readonly #decode: (fields: readonly string[] | null) => T | undefined;
  /** The stream's key. */
  readonly stream: string;
  /** The consumer group. */
  readonly group: string;
  readonly #consumer: string;
  readonly #blockMs: number;
  readonly #count: number;
  readonly #claimIdleMs: number;
  readonly #onGroupRecreated: ((stream: string, group: string) => void) | undefined;
  readonly #monotonic: () => number;
  #ownPendingDone = false;
  #nextClaimAt = Number.NEGATIVE_INFINITY;
  /** Connection closes seen so far: a read that saw one may have lost older entries. */
  #closes = 0;

  constructor(options: StreamConsumerOptions<T>) {
    this.#redis = options.redis;
    this.#decode = options.decode;
    this.stream = options.stream;
    this.group = options.group;
    this.#consumer = options.consumer;
    this.#blockMs = options.blockMs ?? 1000;
    this.#count = options.count ?? 100;
    this.#claimIdleMs = options.claimIdleMs ?? 60_000;
    this.#onGroupRecreated = options.onGroupRecreated;
    this.#monotonic = options.monotonic ?? (() => performance.now());
    // A read Redis served whose reply was lost with the connection (Redis stopped or
    // crashed before writing it) left its entries pending under this name, unseen;
    // ioredis sends the read again, which gets only newer ones. So after any break in
    // the connection, this consumer's own pending entries come first again — not
    // `claimIdleMs` later.
    // ioredis also resends a blocked `>` read: its reply (newer entries) must not be
    // handled before the lost ones, so read() hands out the pending ones instead.
    options.redis.on("close", () => {
      this.#closes += 1;
      this.rewind();
    });
  }

  /**
   * Creates the group unless it exists. A new group starts after the entries already
   * in the stream (`$`) or, with `fromStart`, at the oldest one kept.
   */
  async ensureGroup(fromStart = false): Promise<void> {
    try {
      await this.#redis.xgroup(
        "CREATE",
        this.stream,
        this.group,
        fromStart ? "0" : "$",
        "MKSTREAM",
      );
    } catch (err) {
      if (!(err instanceof Error && err.message.includes("BUSYGROUP"))) throw err;
    }
  }

  /**
   * The next entries: first those this consumer left unacknowledged (after a
   * restart), then ones abandoned by others, then new ones (waiting up to `blockMs`).
   * Resolves to an empty list when nothing came.
   */
  async read(): Promise<StreamEntry<T>[]> {
    try {
      return await this.#read();
    } catch (err) {
      if (!isNoGroup(err)) throw err;
      // The group is gone with Redis's data (a restart without persistence, FLUSHALL,
      // a failover to an empty replica) or was deleted. Every entry the stream holds
      // now came after that, so the group starts again at its start: nothing written
      // since is missed.
      await this.ensureGroup(true);
      this.rewind();
      this.#onGroupRecreated?.(this.stream, this.group);
      return [];
    }
  }

  async #read(): Promise<StreamEntry<T>[]> {
    if (!this.#ownPendingDone) {
      const own = await this.#readGroup("0", false);
      if (own.length > 0) return own;
      this.#ownPendingDone = true;
    }
    // A monotonic clock: a wall clock stepped back would stop the claims for as long.
    if (this.#monotonic() >= this.#nextClaimAt) {
      this.#nextClaimAt = this.#monotonic() + this.#claimIdleMs / 2;
      const claimed = await this.#claim();
      if (claimed.length > 0) return claimed;
    }
    const closes = this.#closes;
    const fresh = await this.#readGroup(">", true);
    if (this.#closes === closes) return fresh;
    // The connection broke during the read: the batch is pending under this name now,
    // with the entries of a reply that may have been lost; take them all in id order.
    return this.#read();
  }

  /**
   * Makes the next read start again with this consumer's own unacknowledged entries:
   * call it when handling failed part-way through a batch, so the entries left over
   * are handled before newer ones (keeping each flight's changes in order).
   */
  rewind(): void {
    this.#ownPendingDone = false;
  }

  /**
   * Whether the whole group is done with the stream: no entry pending with any of its
   * consumers and none left to deliver. Conservative: an entry added meanwhile makes it
   * false.
   */
  async drained(): Promise<boolean> {
    if ((await this.#redis.exists(this.stream)) === 0) return true;
    const groups = (await this.#redis.call("XINFO", "GROUPS", this.stream)) as unknown[][];
    const info = groups.map(fieldMap).find((g) => g.get("name") === this.group);
    if (!info || Number(info.get("pending")) !== 0) return false;
    const stream = fieldMap((await this.#redis.call("XINFO", "STREAM", this.stream)) as unknown[]);
    const last = String(stream.get("last-generated-id") ?? "0-0");
    return compareIds(String(info.get("last-delivered-id") ?? "0-0"), last) >= 0;
  }

  /** Acknowledges handled entries: they are not delivered to this group again. */
  async ack(entryIds: readonly string[]): Promise<void> {
    if (entryIds.length > 0) await this.#redis.xack(this.stream, this.group, ...entryIds);
  }

  async #readGroup(from: string, block: boolean): Promise<StreamEntry<T>[]> {
    const args: (string | number)[] = ["GROUP", this.group, this.#consumer, "COUNT", this.#count];
    if (block) args.push("BLOCK", this.#blockMs);
    args.push("STREAMS", this.stream, from);
    const reply = (await this.#redis.call("XREADGROUP", ...args)) as [string, RawEntry[]][] | null;
    return this.#entries(reply?.[0]?.[1] ?? []);
  }

  async #claim(): Promise<StreamEntry<T>[]> {
    const reply = (await this.#redis.call(
      "XAUTOCLAIM",
      this.stream,
      this.group,
      this.#consumer,
      this.#claimIdleMs,
      "0-0",
      "COUNT",
      this.#count,
    )) as [string, RawEntry[], string[]?];
    return this.#entries(reply[1] ?? []);
  }

  /** Decodes entries; entries trimmed away while pending are acknowledged and dropped. */
  async #entries(raw: RawEntry[]): Promise<StreamEntry<T>[]> {
    const out: StreamEntry<T>[] = [];
    const gone: string[] = [];
    for (const [entryId, fields] of raw) {
      const value = this.#decode(fields);
      if (value === undefined) gone.push(entryId);
      else out.push({ entryId, value });
    }
    await this.ack(gone);
    return out;
  }
}

/**
 * Whether Redis answered that the consumer group (or its stream) does not exist, or
 * ended a blocked read because the stream was deleted meanwhile.
 */
export function isNoGroup(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err.message.startsWith("NOGROUP ") ||
      err.message.startsWith("UNBLOCKED the stream key no longer exists"))
  );
}

/** A Redis reply's flat name/value list as a map. */
function fieldMap(reply: readonly unknown[]): Map<string, unknown> {
  const map = new Map<string, unknown>();
  for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), reply[i + 1]);
  return map;
}

/** Orders two stream entry ids (`ms-seq`). */
function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split("-").map(BigInt);
  const [bm = 0n, bs = 0n] = b.split("-").map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}
