/**
 * Every process of a deployment must split delivery over the same number of shards
 * (`DELIVERY_SHARDS`, see redis-keys.ts): a notifier with 8 would enqueue into queues a
 * worker with 1 never serves. The first process to deliver writes its number under the
 * prefix; every later one compares its own with it and refuses to start on a difference.
 */
import { ConfigError } from "../errors.js";
import type { RedisConnection } from "./redis-connection.js";
import { MAX_DELIVERY_SHARDS, type RedisKeys } from "./redis-keys.js";

/**
 * Checks this process's number of delivery shards against the deployment's, writing it
 * first when there is none yet (`write`; a read-only command only compares). Rejects
 * with a ConfigError naming DELIVERY_SHARDS on a difference.
 */
export async function agreeDeliveryShards(
  redis: RedisConnection,
  keys: RedisKeys,
  options: { write: boolean },
): Promise<void> {
  const mine = String(keys.deliveryShards);
  if (options.write) await redis.set(keys.deliveryShardCount, mine, "NX");
  const theirs = await redis.get(keys.deliveryShardCount);
  if (theirs === null || theirs === mine) return;
  throw new ConfigError(
    "DELIVERY_SHARDS",
    `is ${mine} here, but the deployment under ${keys.prefix} delivers over ${theirs} shards ` +
      `(written by its first process): set DELIVERY_SHARDS=${theirs} in every process, or, ` +
      `to change the number, stop every process, let the queues drain and delete ${keys.deliveryShardCount}`,
  );
}

/**
 * The deployment's number of delivery shards, when its first process has written it: a
 * command that only reads and re-sends (`flightwatch deliveries`) follows it rather than
 * its own setting, so that it sees every shard.
 */
export async function storedDeliveryShards(
  redis: RedisConnection,
  keys: RedisKeys,
): Promise<number | undefined> {
  const text = await redis.get(keys.deliveryShardCount);
  const n = text === null ? Number.NaN : Number(text);
  return Number.isInteger(n) && n >= 1 && n <= MAX_DELIVERY_SHARDS ? n : undefined;
}
