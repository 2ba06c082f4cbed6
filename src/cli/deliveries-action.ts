/**
 * What `flightwatch deliveries` does, loaded when a subcommand runs
 * (deliveries-command.ts is the definition): lists recent attempts, dead letters,
 * disabled endpoints and queue depths; does the two repairs, `retry` and `enable`; and
 * `replay` enqueues what a window held again, under new ids. The daemon's queues are
 * opened read-only (no BullMQ `meta` key), so a listing under a prefix no daemon uses
 * leaves Redis as it was; only `replay` adds jobs, and only when it found some.
 */
import { randomBytes } from "node:crypto";
import { redisSettingsFromEnv } from "../config/detect-settings.js";
import {
  DeliveryLog,
  type DeliveryRecord,
  type DisabledEndpoint,
} from "../deliver/delivery-log.js";
import { type DeadLetter, type DeliveryJob, DeliveryQueues } from "../deliver/delivery-queues.js";
import { InvalidParamError } from "../errors.js";
import { cleanText } from "../log/clean-text.js";
import { maskUrl } from "../log/mask-url.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { storedDeliveryShards } from "../store/delivery-shards.js";
import type { RedisConnection } from "../store/redis-connection.js";
import { connectRedis } from "../store/redis-connection.js";
import { type RedisKeys, redisKeys, SIMULATOR_PREFIX } from "../store/redis-keys.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import type { ListFlags, ReplayFlags, RetryFlags } from "./deliveries-command.js";
import { EXIT } from "./exit-codes.js";
import { instant, integer } from "./flag-values.js";

/** `deliveries`: the listing, as text or JSON. */
export async function listDeliveries(flags: ListFlags): Promise<void> {
  const limit = integer("--limit", flags.limit ?? "20", 1, 10_000);
  await withQueues(async ({ queues, log, redis, where }) => {
    // Any of these exists once a daemon or watcher has run under the prefix (one by
    // one: on a cluster, the delivery shards' keys are in slots of their own).
    const seen = await Promise.all(
      [...queues.metaKeys(), where.keys.deliveries, where.keys.detection, where.keys.outbox].map(
        (key) => redis.exists(key),
      ),
    );
    const known = seen.some((n) => n > 0);
    const [recent, deadLetters, disabled, counts, outstanding] = await Promise.all([
      log.recent(limit),
      queues.deadLetters(limit),
      log.disabledEndpoints(),
      queues.counts(),
      queues.outstanding(),
    ]);
    if (flags.json) {
      const report = {
        prefix: where.prefix,
        redis: maskUrl(where.url),
        found: known,
        recent,
        deadLetters: deadLetters.slice(0, limit),
        disabled,
        counts,
        outstanding: outstanding.count,
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      `${heading(where, known)}\n${listing(recent, deadLetters.slice(0, limit), disabled, counts, outstanding.count)}`,
    );
  });
}

/** `deliveries retry`: sends the named dead letters (or all) again. */
export async function retryDeliveries(ids: string[], flags: RetryFlags): Promise<void> {
  if (!flags.all && ids.length === 0) {
    throw new InvalidParamError("ids", "name the notification ids to send again, or give --all");
  }
  if (flags.all && ids.length > 0) {
    throw new InvalidParamError("--all", "give either ids or --all, not both");
  }
  await withQueues(async ({ queues }) => {
    const { requeued, missing } = await queues.retry(flags.all ? "all" : ids);
    for (const id of requeued) process.stdout.write(`requeued ${id}\n`);
    for (const id of missing)
      process.stderr.write(`flightwatch: ${id}: no dead letter or kept delivery with this id\n`);
    if (requeued.length === 0 && flags.all) process.stdout.write("no dead letters\n");
    if (missing.length > 0) process.exitCode = EXIT.failure;
  });
}

/**
 * `deliveries replay`: sends again, under new ids marked as replays, what was delivered
 * or dead-lettered in a window and is still kept; `--dry-run` lists it only.
 */
export async function replayDeliveries(flags: ReplayFlags): Promise<void> {
  const zone = process.env.AIRPORT_TIMEZONE?.trim() || DEFAULT_AIRPORT_TIMEZONE;
  const now = Date.now();
  const since = instant("--since", flags.since, zone, { now });
  const until = flags.until === undefined ? now : instant("--until", flags.until, zone, { now });
  if (until < since) {
    throw new InvalidParamError("--until", "is before --since: nothing lies between them");
  }
  let flight: string | undefined;
  if (flags.flight !== undefined) {
    flight = normaliseFlightNumber(flags.flight);
    if (flight === undefined) {
      throw new InvalidParamError(
        "--flight",
        `"${flags.flight}" is not a flight number, such as KL1001`,
      );
    }
  }
  await withQueues(async ({ queues }) => {
    const jobs = await queues.replayable({
      since,
      until,
      ...(flags.rule !== undefined ? { ruleId: flags.rule } : {}),
      ...(flight !== undefined ? { flight } : {}),
    });
    const span = `${new Date(since).toISOString()} to ${new Date(until).toISOString()}`;
    if (jobs.length === 0) {
      process.stdout.write(
        `nothing delivered or dead-lettered from ${span} is kept (delivered notifications are kept a day, dead letters 30 days)\n`,
      );
      return;
    }
    if (flags.dryRun) {
      for (const job of jobs) process.stdout.write(`would replay ${describeJob(job)}\n`);
      process.stdout.write(`${jobs.length} to replay from ${span}; nothing sent (--dry-run)\n`);
      return;
    }
    const ids = await queues.replay(jobs, randomBytes(8).toString("hex"));
    jobs.forEach((job, i) => {
      process.stdout.write(`replaying ${describeJob(job)} as ${ids[i] as string}\n`);
    });
    process.stdout.write(
      `${jobs.length} replayed from ${span}: the daemon's workers send them (\`flightwatch deliveries\` shows how it went)\n`,
    );
  });
}

/** `msg_… rule/channel → destination  flight`, as the listing writes a notification. */
function describeJob(job: DeliveryJob): string {
  const n = job.notification;
  return `${n.id} ${n.ruleId}/${n.channel} → ${job.destination}  ${n.alert.flight.key}`;
}

/** `deliveries enable`: re-enables an endpoint a 410 Gone disabled. */
export async function enableEndpoint(endpoint: string): Promise<void> {
  await withQueues(async ({ log }) => {
    if (await log.enable(endpoint)) {
      process.stdout.write(
        `enabled ${endpoint}; send its dead letters again with \`flightwatch deliveries retry --all\`\n`,
      );
    } else {
      process.stderr.write(`flightwatch: ${endpoint} is not disabled\n`);
      process.exitCode = EXIT.failure;
    }
  });
}

/** The Redis and prefix a command reads, as it names them to the user. */
interface Where {
  url: string;
  /** FLIGHTWATCH_PREFIX as given (or its default). */
  prefix: string;
  /** Whether FLIGHTWATCH_PREFIX was set. */
  prefixGiven: boolean;
  keys: RedisKeys;
}

async function withQueues(
  body: (parts: {
    queues: DeliveryQueues;
    log: DeliveryLog;
    redis: RedisConnection;
    where: Where;
  }) => Promise<void>,
): Promise<void> {
  const settings = redisSettingsFromEnv(process.env);
  // Checked before connecting: a bad prefix must not leave a connection open.
  const configured = redisKeys(settings.prefix, settings.deliveryShards);
  const redis = await connectRedis(settings.url);
  // The deployment's own number of delivery shards, once written, whatever this
  // process's DELIVERY_SHARDS says: the listing must see every shard.
  const keys = redisKeys(
    settings.prefix,
    (await storedDeliveryShards(redis, configured).catch((err: unknown) => {
      redis.disconnect();
      throw err;
    })) ?? settings.deliveryShards,
  );
  const where: Where = {
    url: settings.url,
    prefix: settings.prefix,
    prefixGiven: Boolean(process.env.FLIGHTWATCH_PREFIX?.trim()),
    keys,
  };
  // Read-only: a listing (or a retry under a wrong prefix) must not create queues.
  const queues = new DeliveryQueues(redis, keys, { readOnly: true });
  try {
    await body({ queues, log: new DeliveryLog(redis, keys), redis, where });
  } finally {
    await queues.close();
    redis.disconnect();
  }
}

/** Which prefix the listing read, and what to check when nothing was ever there. */
function heading(where: Where, found: boolean): string {
  const source = where.prefixGiven
    ? "FLIGHTWATCH_PREFIX"
    : "the default: FLIGHTWATCH_PREFIX is not set";
  const lines = [
    `Deliveries under the prefix ${where.prefix} (${source}) at ${maskUrl(where.url)}`,
  ];
  if (!found) {
    lines.push(
      "  Nothing has run under this prefix: is it the one your daemon uses? (`flightwatch config` shows it;",
      `  \`watch --simulator\` uses ${SIMULATOR_PREFIX}; \`npm start\` and \`flightwatch demo\` a prefix of their own, removed when they stop.)`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const time = (ms: number): string => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

/** The text listing: recent attempts, dead letters, disabled endpoints, queue depths. */
export function listing(
  recent: readonly DeliveryRecord[],
  dead: readonly DeadLetter[],
  disabled: readonly DisabledEndpoint[],
  counts: Record<string, Record<string, number>>,
  /** Notifications not yet delivered nor dead (DeliveryQueues.outstanding), when known. */
  outstanding?: number,
): string {
  const lines: string[] = [];
  lines.push(`Recent attempts (newest first, UTC):`);
  if (recent.length === 0) lines.push("  none");
  for (const r of recent) {
    const why =
      r.result === "delivered"
        ? `${r.code !== undefined ? ` (${r.code})` : ""}${r.detail !== undefined ? ` — ${r.detail}` : ""}`
        : r.result === "superseded" || r.result === "cancelled"
          ? ` — ${r.detail}`
          : ` — ${r.reason}: ${r.detail}`;
    lines.push(
      `  ${time(r.at)}  ${r.result.padEnd(9)} ${r.id}  ${r.ruleId}/${r.channel} → ${r.destination}  ${r.flight}  attempt ${r.attempt}${r.replayOf ? ` (replay of ${r.replayOf})` : ""}${why}`,
    );
    for (const refused of r.refused ?? [])
      lines.push(`      refused ${refused.recipient}: ${refused.reason}`);
  }
  lines.push("", `Dead letters (send again with \`flightwatch deliveries retry <id>|--all\`):`);
  if (dead.length === 0) lines.push("  none");
  for (const d of dead) {
    lines.push(
      `  ${time(d.failedAt)}  ${d.id}  ${d.ruleId}/${d.channel} → ${d.destination}  ${d.flight}  ${d.reason}: ${d.detail}`,
    );
  }
  if (disabled.length > 0) {
    lines.push("", "Disabled endpoints (re-enable with `flightwatch deliveries enable <id>`):");
    for (const e of disabled) {
      lines.push(
        `  ${e.id}  ${e.label}  since ${time(e.at)}  ${e.ruleId}/${e.channel}: ${e.detail}`,
      );
    }
  }
  lines.push("", "Queues (jobs: a bundle of notifications counts once):");
  for (const [type, c] of Object.entries(counts)) {
    lines.push(
      `  ${type.padEnd(8)} waiting ${c.waiting ?? 0}, active ${c.active ?? 0}, delayed ${c.delayed ?? 0}, finished (kept) ${c.completed ?? 0}, dead ${c.failed ?? 0}`,
    );
  }
  if (outstanding !== undefined) {
    lines.push(
      `  notifications waiting, retrying or being sent: ${outstanding} (the jobs above carry them)`,
    );
  }
  // Details are receivers' words (an answer's body): no escape sequence of theirs may
  // drive the operator's terminal (a fake status line, a hidden link, the clipboard).
  return `${lines.map(cleanText).join("\n")}\n`;
}
