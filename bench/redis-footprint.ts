/**
 * What one deployment's keys take in Redis: MEMORY USAGE (SAMPLES 0: every element
 * counted) of every key under a prefix, summed by what the key is — snapshots, the
 * snapshot index, the dispatcher's alert state, the streams, the delivery queues.
 */
import type { RedisConnection } from "../src/store/redis-connection.js";
import type { RedisKeys } from "../src/store/redis-keys.js";

/** Bytes (and keys) by family of key. */
export type Footprint = Record<string, { keys: number; bytes: number }>;

/** The family of a key, by the key builders' layout (src/store/redis-keys.ts). */
function familyOf(key: string, keys: RedisKeys): string {
  const rest = key.slice(keys.prefix.length + 1);
  if (key === keys.snapshotIndex) return "snapshot index";
  if (rest.startsWith("snapshot:")) return "snapshots";
  if (rest.startsWith("alert:")) return "alert state";
  if (key === keys.outbox) return "outbox stream";
  if (key === keys.alerts) return "alerts stream";
  if (key === keys.deliveries) return "delivery record";
  if (key.startsWith(`${keys.queuePrefix}:`)) return "delivery queues";
  if (rest.startsWith("poll:")) return "poll queue";
  return "other";
}

/** Scans the prefix's keys and sums MEMORY USAGE by family. */
export async function redisFootprint(redis: RedisConnection, keys: RedisKeys): Promise<Footprint> {
  const footprint: Footprint = {};
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${keys.prefix}*`, "COUNT", 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of found) pipeline.call("MEMORY", "USAGE", key, "SAMPLES", "0");
    const results = (await pipeline.exec()) ?? [];
    found.forEach((key, i) => {
      const family = familyOf(key, keys);
      const entry = footprint[family] ?? { keys: 0, bytes: 0 };
      footprint[family] = entry;
      entry.keys++;
      entry.bytes += Number(results[i]?.[1] ?? 0);
    });
  } while (cursor !== "0");
  return footprint;
}

/** Total bytes of some families (all when none named). */
export function footprintBytes(footprint: Footprint, families?: readonly string[]): number {
  let bytes = 0;
  for (const [family, entry] of Object.entries(footprint)) {
    if (families === undefined || families.includes(family)) bytes += entry.bytes;
  }
  return bytes;
}

/** Redis's own count of the memory it uses (the whole server: other clients' keys count too). */
export async function usedMemory(redis: RedisConnection): Promise<number> {
  const info = await redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}
