/**
 * The outbox's entry format. One entry holds the changes of one physical flight
 * seen in one observation (one poll, one version): the flight's identity is written
 * once rather than with every change, and a consumer acknowledges the changes of
 * one flight together. Consumers get plain ChangeEvents back (`decodeOutboxEntry`).
 */

import type { ChangeEvent } from "../diff/change.js";
import type { FlightIdentity, SnapshotFields } from "../diff/flight-snapshot.js";
import type { RedisConnection } from "./redis-connection.js";
import type { RedisKeys } from "./redis-keys.js";
import { fieldOf } from "./stream-consumer.js";

/** Field of an outbox entry that holds its JSON. */
export const OUTBOX_FIELD = "changes";

/** The JSON of one entry. */
interface OutboxRecord {
  flight: FlightIdentity;
  version: number;
  /** The flight's fields after the observation, once for all its changes. */
  current?: SnapshotFields;
  changes: Array<Omit<ChangeEvent, "flight" | "version" | "current">>;
}

/** Entries for a poll's events, in order: consecutive events of one flight and version share one. */
export function encodeOutboxEntries(events: readonly ChangeEvent[]): string[] {
  const out: string[] = [];
  let current: OutboxRecord | undefined;
  for (const event of events) {
    const { flight, version, current: fields, ...change } = event;
    if (!current || current.flight.key !== flight.key || current.version !== version) {
      if (current) out.push(JSON.stringify(current));
      current = fields
        ? { flight, version, current: fields, changes: [] }
        : { flight, version, changes: [] };
    }
    current.changes.push(change);
  }
  if (current) out.push(JSON.stringify(current));
  return out;
}

/** The change events of one entry. */
export function decodeOutboxEntry(text: string): ChangeEvent[] {
  const record = JSON.parse(text) as OutboxRecord;
  const { flight, version, current } = record;
  return record.changes.map((change) =>
    current ? { ...change, flight, version, current } : { ...change, flight, version },
  );
}

/** The events of a stream entry's field list, or undefined when it has none (trimmed). */
export function eventsOfFields(fields: readonly string[] | null): ChangeEvent[] | undefined {
  const text = fieldOf(fields, OUTBOX_FIELD);
  return text === undefined ? undefined : decodeOutboxEntry(text);
}

/** Every event in the outbox, oldest first (for tools and tests; reads the whole stream). */
export async function readOutboxEvents(
  redis: RedisConnection,
  keys: RedisKeys,
): Promise<ChangeEvent[]> {
  const entries = await redis.xrange(keys.outbox, "-", "+");
  return entries.flatMap(([, fields]) => eventsOfFields(fields) ?? []);
}
