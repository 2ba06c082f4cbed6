/**
 * Every Redis key flightwatch uses is built here, so the layout of the data can be
 * read in one file. The keys of detection, dispatch and subscriptions share one
 * `{hash-tag}` prefix: on Redis Cluster they land in one slot, which lets snapshots,
 * outbox and watermark change in one MULTI/EXEC transaction (the basis of "no change
 * lost, none sent twice"). Delivery — its queues, the order of each (rule, flight,
 * channel) and the pace of each destination — is split over `deliveryShards` hash tags
 * of its own (`{prefix}` for shard 0, `{prefix~d1}`, `{prefix~d2}`… for the others), so
 * that on a cluster the delivery load spreads over the masters: what one script or
 * transaction touches (a queue's keys; one order's set and lock; one destination's pace
 * and hold) always shares one shard.
 */
import { ConfigError } from "../errors.js";

/** Default of `FLIGHTWATCH_PREFIX`. */
export const DEFAULT_PREFIX = "flightwatch";

/**
 * Prefix of the built-in simulator's data when FLIGHTWATCH_PREFIX is not set:
 * `watch --simulator` clears it at every start; `run --simulator` and `demo` add a
 * suffix of their own and remove it when they stop.
 */
export const SIMULATOR_PREFIX = "flightwatch-demo";

const PREFIX_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The most delivery shards (`DELIVERY_SHARDS`). */
export const MAX_DELIVERY_SHARDS = 256;

/**
 * `n` when it is a number of delivery shards (a whole number from 1 to
 * MAX_DELIVERY_SHARDS); otherwise a ConfigError naming DELIVERY_SHARDS that shows the
 * value as `shown` (the variable's text, when it came from one).
 */
export function checkDeliveryShards(n: number, shown: string = String(n)): number {
  if (Number.isInteger(n) && n >= 1 && n <= MAX_DELIVERY_SHARDS) return n;
  throw new ConfigError(
    "DELIVERY_SHARDS",
    `${shown} is not a number of delivery shards (a whole number from 1 to ${MAX_DELIVERY_SHARDS})`,
  );
}

/** The key builders for one prefix. */
export interface RedisKeys {
  /** The hash-tagged prefix itself, e.g. `{flightwatch}`; the first delivery shard uses it too. */
  readonly prefix: string;
  /**
   * How many hash tags delivery is split over (1 on a single Redis by default: every key
   * under `prefix`). Every process of a deployment must use the same number.
   */
  readonly deliveryShards: number;
  /**
   * The delivery shard of a hex hash (an order's, a destination's: see `deliveryOrder`,
   * `deliveryPace`): its first 32 bits modulo `deliveryShards`.
   */
  shardOf(hexHash: string): number;
  /** Last known snapshot of one physical flight (string, JSON, expires after the flight). */
  snapshot(flightKey: string): string;
  /** Set of the flight keys with a snapshot, for reconciliation (sorted set by schedule). */
  readonly snapshotIndex: string;
  /**
   * Detection state (hash): `watermark` (newest `lastUpdatedAt` fully read, epoch ms),
   * `reconciledAt`, `horizonTo`, and `seq`, bumped by every commit so that a poll
   * that WATCHes it notices any other commit.
   */
  readonly detection: string;
  /** Poll status: last success, duration, failures, backoff (hash). */
  readonly pollStatus: string;
  /**
   * Whose turn it is to poll (string: a process's token, `*` for anybody's), expiring
   * when the next poll is due: one poll per interval across every poller.
   */
  readonly pollTurn: string;
  /** Held by the process whose poll runs (string: its token, renewed while it runs). */
  readonly pollLease: string;
  /** Transactional outbox of change events (stream), read by the next stage. */
  readonly outbox: string;
  /**
   * What the dispatcher remembers of one rule about one flight (string, JSON: the
   * waiting group, last alerted values), expiring days after its last change.
   */
  alertState(ruleId: string, flightKey: string): string;
  /** Groups and held changes waiting for their time (sorted set: `ruleId flightKey` by due time). */
  readonly alertsDue: string;
  /**
   * Where detection had looked up to (epoch ms) before the downtime the dispatchers are
   * catching up from (string): set by the first dispatcher back, deleted when a catch-up
   * ends, so a restart during a catch-up keeps the downtime's start.
   */
  readonly dispatchCatchUp: string;
  /** Decided alerts (stream), read by delivery. */
  readonly alerts: string;
  /** Record of delivery attempts (stream, capped): what `flightwatch deliveries` lists. */
  readonly deliveries: string;
  /** Endpoints disabled after a 410 Gone (hash: endpoint id → JSON of why and when). */
  readonly disabledEndpoints: string;
  /**
   * Prefix of the BullMQ delivery queues of the first shard (`<prefix>:<queue>:…`): the
   * same hash tag as flightwatch's own keys.
   */
  readonly queuePrefix: string;
  /** Prefix of the BullMQ delivery queues of one shard: that shard's hash tag. */
  queuePrefixOf(shard: number): string;
  /**
   * The deployment's number of delivery shards (string), written by its first process:
   * a process configured with another number refuses to start, since it would leave the
   * notifications of some shards unserved.
   */
  readonly deliveryShardCount: string;
  /**
   * Next free send slot of one destination (string, epoch ms), shared by every
   * delivery worker; keyed by a hash of the destination (a Slack URL is a secret) and
   * expiring once the slot has passed, so idle destinations leave no key.
   */
  deliveryPace(destinationHash: string): string;
  /**
   * The notifications of one rule about one flight through one channel still waiting for
   * delivery (sorted set: notification id by its alert's sequence; `~delivered` holds
   * the highest sequence delivered), keyed by a hash of the three.
   */
  deliveryOrder(orderHash: string): string;
  /** Whose turn it is to send in one order (string: the notification id; expires). */
  deliverySending(orderHash: string): string;
  /**
   * Which delivery job carries a notification (string: the job id — a bundle's, or the
   * notification's own — or `~done:<job id>` once it ended there; expires with the
   * notification's deduplication), in the shard of its order (`deliveryShard`).
   */
  deliveryCarrier(shard: number, notificationId: string): string;
  /** Until when a destination that answered 429 holds back every send (string, epoch ms; expires then). */
  deliveryHold(destinationHash: string): string;
  /**
   * The living Slack message of one rule about one flight through one Web API channel
   * (hash: `channel` id and `ts` of the message, and `seq`, the sequence of the alert it
   * shows), keyed by a hash of the rule, its channel, the flight and the Slack channel;
   * expires days after its last write.
   */
  slackThread(threadHash: string): string;
  /**
   * How far one notification to a living Slack message got (hash: `main` once the message
   * shows it, `reply` — the reply's ts — once its thread reply is posted), so that a retry
   * skips what Slack has already; expires with its thread.
   */
  slackProgress(notificationId: string): string;
  /**
   * The deployment's generation (string, random, no expiry): written once by the first
   * process; found missing or changed, it says Redis lost flightwatch's data.
   */
  readonly generation: string;
  /**
   * The key that signs passengers' links when SUBSCRIPTION_SECRET is not set (string,
   * random, no expiry): written once by the first process, read by every other.
   */
  readonly webSecret: string;
  /**
   * Subscriptions made on the passenger pages and waiting for their confirmation (sorted
   * set: id by the instant its confirmation link expires); swept of the unconfirmed.
   */
  readonly webPending: string;
  /**
   * Uses of the subscribe form in the current window by one client address or one email
   * address (string, a counter expiring with its window), keyed by a hash of the address.
   */
  webLimit(kind: "client" | "email", addressHash: string): string;
  /**
   * The API keys of the HTTP API (hash: key id → JSON of its name, creation time and the
   * SHA-256 of the key; never the key itself). No expiry: a key lives until revoked.
   */
  readonly apiKeys: string;
  /**
   * What one create with an `Idempotency-Key` did (string, JSON: the request's
   * fingerprint, the subscription's id; expires a day later), per API key and a hash of
   * the idempotency key, so two clients never share one.
   */
  apiIdempotency(apiKeyId: string, idempotencyKeyHash: string): string;
  /**
   * The passenger subscriptions to one flight number on one date (hash: id → the
   * subscription's compact text, src/subscriptions/subscription-record.ts), expiring
   * with them a while after the date: what a change of the flight reads.
   */
  subscriptionsOf(flight: string, date: string): string;
  /**
   * Where subscriptions are filed, for finding one by its id (hash: id → its date and
   * flight number, `2026-11-27KL1001`): ids are spread over a fixed number of these by
   * a hash of the id (`bucket`, three hex digits), so that each stays a small listpack;
   * each expires after the last of its subscriptions.
   */
  subscriptionFiling(bucket: string): string;
  /**
   * Every flight number and date with subscriptions (sorted set of `2026-11-27KL1001`
   * by when they expire): listing and export, and forgetting the expired.
   */
  readonly subscriptionFlights: string;
  /**
   * Subscriptions with reminders made or confirmed since the dispatcher last looked
   * (set of `<date> <id>`): it schedules their reminders from the flight's snapshot,
   * which may not change again before they are due.
   */
  readonly reminderWakes: string;
  /**
   * Flights first seen silently (set of flight keys; see DetectionCommit.silent): the
   * dispatcher schedules the reminders about them from their snapshots.
   */
  readonly silentFlights: string;
  /** Key pattern matching every key of this prefix, every delivery shard's too (for tests and `SCAN` clean-ups). */
  readonly pattern: string;
}

/**
 * Key builders for a prefix (`FLIGHTWATCH_PREFIX`). The prefix is wrapped in braces
 * as the Redis Cluster hash tag unless it already contains one.
 */
export function redisKeys(prefix: string = DEFAULT_PREFIX, deliveryShards = 1): RedisKeys {
  if (!PREFIX_RE.test(prefix) && !/^\{[A-Za-z0-9_.:-]{1,64}\}$/.test(prefix)) {
    throw new ConfigError(
      "FLIGHTWATCH_PREFIX",
      `"${prefix}" is not a usable key prefix (1–64 of letters, digits, _ . : -)`,
    );
  }
  checkDeliveryShards(deliveryShards);
  const tag = prefix.startsWith("{") ? prefix : `{${prefix}}`;
  const name = tag.slice(1, -1);
  // Shard 0 is the prefix's own tag: with one shard the layout is that of a single tag.
  const shardTags = Array.from({ length: deliveryShards }, (_, shard) =>
    shard === 0 ? tag : `{${name}~d${shard}}`,
  );
  const shardOf = (hexHash: string): number =>
    Number.parseInt(hexHash.slice(0, 8), 16) % deliveryShards;
  const shardTag = (hexHash: string): string => shardTags[shardOf(hexHash)] as string;
  const shardTagAt = (shard: number): string => {
    const at = shardTags[shard];
    if (at === undefined) throw new RangeError(`no delivery shard ${shard}`);
    return at;
  };
  return {
    prefix: tag,
    deliveryShards,
    shardOf,
    snapshot: (flightKey) => `${tag}:snapshot:${flightKey}`,
    snapshotIndex: `${tag}:snapshots`,
    detection: `${tag}:detection`,
    pollStatus: `${tag}:poll`,
    pollTurn: `${tag}:poll:turn`,
    pollLease: `${tag}:poll:lease`,
    outbox: `${tag}:outbox`,
    alertState: (ruleId, flightKey) => `${tag}:alert:${ruleId}:${flightKey}`,
    alertsDue: `${tag}:alerts:due`,
    dispatchCatchUp: `${tag}:dispatch:catchup-seen-until`,
    alerts: `${tag}:alerts`,
    deliveries: `${tag}:deliveries`,
    disabledEndpoints: `${tag}:endpoints:disabled`,
    queuePrefix: `${tag}:q`,
    queuePrefixOf: (shard) => `${shardTagAt(shard)}:q`,
    deliveryShardCount: `${tag}:delivery:shards`,
    deliveryPace: (destinationHash) => `${shardTag(destinationHash)}:pace:${destinationHash}`,
    deliveryHold: (destinationHash) => `${shardTag(destinationHash)}:hold:${destinationHash}`,
    deliveryOrder: (orderHash) => `${shardTag(orderHash)}:order:${orderHash}`,
    deliverySending: (orderHash) => `${shardTag(orderHash)}:sending:${orderHash}`,
    deliveryCarrier: (shard, notificationId) => `${shardTagAt(shard)}:carrier:${notificationId}`,
    slackThread: (threadHash) => `${tag}:slack:thread:${threadHash}`,
    slackProgress: (notificationId) => `${tag}:slack:sent:${notificationId}`,
    generation: `${tag}:generation`,
    webSecret: `${tag}:web:secret`,
    webPending: `${tag}:web:pending`,
    webLimit: (kind, addressHash) => `${tag}:web:limit:${kind}:${addressHash}`,
    apiKeys: `${tag}:api:keys`,
    apiIdempotency: (apiKeyId, idempotencyKeyHash) =>
      `${tag}:api:idem:${apiKeyId}:${idempotencyKeyHash}`,
    subscriptionsOf: (flight, date) => `${tag}:subs:${flight}:${date}`,
    subscriptionFiling: (bucket) => `${tag}:subid:${bucket}`,
    subscriptionFlights: `${tag}:subs`,
    reminderWakes: `${tag}:remind:wake`,
    silentFlights: `${tag}:remind:silent`,
    // `{name}` or `{name~d…}`, then anything (`~` cannot appear in a prefix of its own).
    pattern: `{${name}[}~]*`,
  };
}
