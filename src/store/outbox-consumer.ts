/**
 * Moves change events on from the outbox stream with acknowledgement (a consumer
 * group, see StreamConsumer); each entry holds the changes of one flight seen by one
 * poll. A consumer that crashes after handling an entry but before acknowledging it
 * sees the entry again, with the same deterministic event ids.
 */

import type { ChangeEvent } from "../diff/change.js";
import { eventsOfFields } from "./outbox-entry.js";
import type { RedisConnection } from "./redis-connection.js";
import type { RedisKeys } from "./redis-keys.js";
import { StreamConsumer, type StreamConsumerOptions, type StreamEntry } from "./stream-consumer.js";

/** One entry read from the outbox: the changes of one flight seen by one poll. */
export type OutboxEntry = StreamEntry<ChangeEvent[]>;

/** A StreamConsumer's options, with the outbox as the stream. */
export interface OutboxConsumerOptions
  extends Omit<StreamConsumerOptions<ChangeEvent[]>, "stream" | "decode"> {
  /** A connection of its own: reads block. */
  redis: RedisConnection;
  keys: RedisKeys;
}

/** A reader of one consumer group of the outbox. */
export class OutboxConsumer extends StreamConsumer<ChangeEvent[]> {
  constructor(options: OutboxConsumerOptions) {
    const { keys, ...rest } = options;
    super({ ...rest, stream: keys.outbox, decode: eventsOfFields });
  }
}
