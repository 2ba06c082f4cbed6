/**
 * What `flightwatch subscriptions` does, loaded when a subcommand runs
 * (subscriptions-command.ts is the definition): checks and stores a subscription,
 * lists them, removes them, imports and exports files of them. A refused subscription
 * names each flag that is wrong and stores nothing; a refused import names each line.
 */
import { once } from "node:events";
import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { redisSettingsFromEnv } from "../config/detect-settings.js";
import { formatFileLineProblem, InvalidParamError, SubscriptionsInvalidError } from "../errors.js";
import { cleanText } from "../log/clean-text.js";
import { readOutboundAllow } from "../outbound/outbound-policy.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { connectRedis } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import {
  checkSubscription,
  newSubscriptionId,
  SUBSCRIPTION_ID_RE,
  SUBSCRIPTION_STATUSES,
  type Subscription,
  type SubscriptionInput,
  type SubscriptionStatus,
} from "../subscriptions/subscription.js";
import { exportSubscriptions } from "../subscriptions/subscription-export.js";
import {
  FILE_FORMATS,
  type FileFormat,
  formatOfFileName,
  MASKED_SECRET,
} from "../subscriptions/subscription-file.js";
import { importSubscriptions } from "../subscriptions/subscription-import.js";
import {
  recipientOf,
  type SubscriptionQuery,
  SubscriptionStore,
} from "../subscriptions/subscription-store.js";
import { parseDuration } from "../time/duration.js";
import { airportZone, DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import { EXIT } from "./exit-codes.js";
import { integer } from "./flag-values.js";
import type { AddFlags, ExportFlags, ImportFlags, ListFlags } from "./subscriptions-command.js";

/** The flag each field of a subscription comes from. */
const FLAG_OF: Readonly<Record<string, string>> = {
  flight: "--flight",
  date: "--date",
  direction: "--direction",
  email: "--email",
  webhook: "--webhook",
  preset: "--preset",
  changes: "--changes",
  labels: "--label",
  language: "--language",
  quietHours: "--quiet-hours",
  remind: "--remind",
};

/** `subscriptions add`: checks, stores, prints the id. */
export async function addSubscription(flags: AddFlags): Promise<void> {
  const input: SubscriptionInput = {
    flight: flags.flight,
    date: flags.date,
    ...(flags.direction !== undefined ? { direction: flags.direction } : {}),
    ...(flags.email !== undefined ? { email: flags.email } : {}),
    ...(flags.webhook !== undefined ? { webhook: flags.webhook } : {}),
    ...(flags.secret !== undefined ? { secret: flags.secret } : {}),
    ...(flags.preset !== undefined ? { preset: flags.preset } : {}),
    ...(flags.language !== undefined ? { language: flags.language } : {}),
    ...(flags.quietHours !== undefined ? { quietHours: flags.quietHours } : {}),
    ...(flags.remind !== undefined ? { remind: flags.remind } : {}),
    ...(flags.changes !== undefined ? { changes: parseChanges(flags.changes) } : {}),
    ...(flags.label !== undefined ? { labels: parseLabels(flags.label) } : {}),
  };
  if (flags.secret !== undefined && flags.webhook === undefined) {
    throw new InvalidParamError("--secret", "signs webhooks: give it with --webhook");
  }
  if (flags.id !== undefined && !SUBSCRIPTION_ID_RE.test(flags.id)) {
    throw new InvalidParamError("--id", `"${flags.id}" is not an id: 1–64 letters, digits, _ or -`);
  }
  await withStore(async (store, zone) => {
    if (flags.id !== undefined && (await store.get(flags.id)) !== undefined) {
      throw new InvalidParamError("--id", `a subscription ${flags.id} exists already`);
    }
    const checked = checkSubscription(
      input,
      { zone, outbound: readOutboundAllow(process.env) },
      flags.id ?? newSubscriptionId(),
      Date.now(),
    );
    if ("problems" in checked) {
      const [first, ...rest] = checked.problems.map((p) => {
        const base = p.field.split(".")[0] as string;
        return { flag: FLAG_OF[base] ?? `--${base}`, message: p.message };
      });
      throw new InvalidParamError(
        first?.flag ?? "subscription",
        [first?.message, ...rest.map((p) => `${p.flag}: ${p.message}`)].join("; "),
      );
    }
    const { subscription } = checked;
    const stored = await store.add([subscription]);
    if (stored.length === 0) {
      throw new InvalidParamError(
        "--date",
        `${subscription.date} is past: its subscriptions would have expired already (SUBSCRIPTION_RETENTION)`,
      );
    }
    process.stdout.write(
      flags.json ? `${JSON.stringify(masked(subscription))}\n` : `${subscription.id}\n`,
    );
  });
}

/** `subscriptions list`: one line (or JSON object) per subscription. */
export async function listSubscriptions(flags: ListFlags): Promise<void> {
  const limit = integer("--limit", flags.limit ?? "100", 1, 100_000);
  const query: SubscriptionQuery = {
    ...(flags.flight !== undefined
      ? { flight: normaliseFlightNumber(flags.flight) ?? flags.flight.toUpperCase() }
      : {}),
    ...(flags.date !== undefined ? { date: flags.date } : {}),
    ...(flags.recipient !== undefined ? { recipient: flags.recipient } : {}),
    ...(flags.label !== undefined ? { label: labelOf("--label", flags.label) } : {}),
    ...(flags.status !== undefined ? { status: statusOf(flags.status) } : {}),
  };
  await withStore(async (store) => {
    const page = await store.list(query, { limit });
    for (const s of page.subscriptions) {
      process.stdout.write(flags.json ? `${JSON.stringify(masked(s))}\n` : `${line(s)}\n`);
    }
    if (!flags.json && page.subscriptions.length === 0) process.stdout.write("no subscriptions\n");
    if (!flags.json && page.cursor !== undefined) {
      process.stdout.write(`… more: raise --limit (${limit} shown)\n`);
    }
  });
}

/** `subscriptions remove`: deletes each; names those it did not find. */
export async function removeSubscriptions(ids: string[]): Promise<void> {
  await withStore(async (store) => {
    for (const id of ids) {
      const removed = await store.remove(id);
      if (removed) process.stdout.write(`removed ${id}\n`);
      else {
        process.stderr.write(`flightwatch: ${id}: no subscription with this id\n`);
        process.exitCode = EXIT.failure;
      }
    }
  });
}

/**
 * `subscriptions import`: reads and checks every line, then writes; a file with a bad
 * line changes nothing (unless --skip-invalid) and the error names each line.
 */
export async function importSubscriptionsFile(file: string, flags: ImportFlags): Promise<void> {
  const format = formatOf(flags.format, file === "-" ? undefined : file);
  const name = file === "-" ? "stdin" : file;
  const lines = await linesOf(file);
  const started = performance.now();
  await withStore(async (store, zone) => {
    const report = await importSubscriptions(lines, {
      store,
      context: { zone, outbound: readOutboundAllow(process.env) },
      format,
      replace: flags.replace === true,
      skipInvalid: flags.skipInvalid === true,
    });
    // A line's text may hold anything: none of it may drive the terminal.
    const problems = report.problems.map((p) => ({
      ...p,
      ...(p.field !== undefined ? { field: cleanText(p.field) } : {}),
      message: cleanText(p.message),
    }));
    if (!report.written) throw new SubscriptionsInvalidError(name, problems, report);
    for (const p of problems) process.stderr.write(`${formatFileLineProblem(name, p)}\n`);
    const more = report.problemCount - problems.length;
    if (more > 0) process.stderr.write(`… and ${count(more)} more problems\n`);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `${name}: ${count(report.lines)} line${report.lines === 1 ? "" : "s"}: ${count(report.added)} added, ${count(report.replaced)} replaced, ` +
        `${count(report.unchanged)} unchanged, ${count(report.duplicates)} repeated` +
        (report.invalidLines > 0 ? `, ${count(report.invalidLines)} skipped as invalid` : "") +
        ` (${seconds} s)\n`,
    );
  });
}

/** `subscriptions export`: every stored subscription, to standard output or a file. */
export async function exportSubscriptionsFile(flags: ExportFlags): Promise<void> {
  const format = formatOf(flags.format, flags.output);
  const file = flags.output === undefined ? undefined : await openOutput(flags.output);
  const out: Writable = file ?? process.stdout;
  let failed: Error | undefined;
  out.on("error", (err: Error) => {
    failed = err;
  });
  const write = async (text: string) => {
    if (failed) throw failed;
    if (!out.write(text)) await once(out, "drain");
  };
  await withStore(async (store) => {
    const exported = await exportSubscriptions(store, write, {
      format,
      withSecrets: flags.withSecrets === true,
    });
    if (file !== undefined) {
      file.end();
      await once(file, "close");
      if (failed) throw failed;
      process.stdout.write(
        `exported ${count(exported)} subscriptions to ${flags.output}` +
          (flags.withSecrets ? "\n" : ` (webhook secrets masked as ${MASKED_SECRET})\n`),
      );
    }
  });
}

/** The format: `--format`, else the file's extension, else NDJSON for standard streams. */
function formatOf(flag: string | undefined, file: string | undefined): FileFormat {
  if (flag !== undefined) {
    const format = flag.trim().toLowerCase();
    if ((FILE_FORMATS as readonly string[]).includes(format)) return format as FileFormat;
    throw new InvalidParamError(
      "--format",
      `"${flag}" is not a format: ${FILE_FORMATS.join(" or ")}`,
    );
  }
  if (file === undefined) return "ndjson";
  const format = formatOfFileName(file);
  if (format !== undefined) return format;
  throw new InvalidParamError(
    "--format",
    `the format of ${file} is not known by its extension (.ndjson, .jsonl, .json or .csv): give --format ndjson or csv`,
  );
}

/** The lines of a file, or of standard input for `-`; the file is opened now, read when iterated. */
async function linesOf(file: string): Promise<AsyncIterable<string>> {
  if (file === "-") return linesFrom(process.stdin);
  try {
    const handle = await open(file);
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw Object.assign(new Error("a directory"), { code: "EISDIR" });
    }
    return linesFrom(handle.createReadStream());
  } catch (err) {
    throw new InvalidParamError("<file>", `${file} cannot be read (${errorCode(err)})`);
  }
}

/**
 * The lines of a stream, read only once iterated: a readline interface made earlier
 * would start the stream, and lines it read before the loop began would be lost.
 */
async function* linesFrom(input: Readable): AsyncGenerator<string> {
  yield* createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
}

async function openOutput(file: string): Promise<Writable> {
  try {
    return (await open(file, "w")).createWriteStream();
  } catch (err) {
    throw new InvalidParamError("--output", `${file} cannot be written (${errorCode(err)})`);
  }
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

const count = (n: number): string => n.toLocaleString("en");

async function withStore(
  body: (store: SubscriptionStore, zone: string) => Promise<void>,
): Promise<void> {
  const settings = redisSettingsFromEnv(process.env);
  const zone = process.env.AIRPORT_TIMEZONE?.trim() || DEFAULT_AIRPORT_TIMEZONE;
  airportZone(zone);
  const retention = process.env.SUBSCRIPTION_RETENTION?.trim();
  const keepMs =
    retention === undefined || retention === ""
      ? undefined
      : parseDuration(retention, "SUBSCRIPTION_RETENTION");
  const redis = await connectRedis(settings.url);
  try {
    await body(
      new SubscriptionStore(redis, redisKeys(settings.prefix), {
        zone,
        ...(keepMs !== undefined ? { keepMs } : {}),
      }),
      zone,
    );
  } finally {
    redis.disconnect();
  }
}

/** `--changes`: a JSON list of selectors. */
function parseChanges(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidParamError(
      "--changes",
      `is not JSON (${(err as Error).message}); write a list such as '["gate", {"kind": "departure_time", "delay_at_least": "15m"}]'`,
    );
  }
}

function parseLabels(pairs: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const { name, value } = labelOf("--label", pair);
    labels[name] = value;
  }
  return labels;
}

function labelOf(flag: string, pair: string): { name: string; value: string } {
  const eq = pair.indexOf("=");
  if (eq <= 0)
    throw new InvalidParamError(flag, `"${pair}" is not name=value, such as booking=X7Q2LM`);
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
}

function statusOf(text: string): SubscriptionStatus {
  if (!(SUBSCRIPTION_STATUSES as readonly string[]).includes(text)) {
    throw new InvalidParamError(
      "--status",
      `"${text}" is not one of ${SUBSCRIPTION_STATUSES.join(", ")}`,
    );
  }
  return text as SubscriptionStatus;
}

/** A subscription without its webhook secret, for output. */
function masked(s: Subscription): Subscription {
  return s.channel.type === "webhook" && s.channel.secret !== undefined
    ? { ...s, channel: { ...s.channel, secret: MASKED_SECRET } }
    : s;
}

function line(s: Subscription): string {
  const labels = Object.entries(s.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const what = s.preset ?? `${s.changes?.length ?? 0} selectors`;
  return [s.id, s.flight, s.date, s.status, s.channel.type, recipientOf(s.channel), what, labels]
    .filter((part) => part !== "")
    .join("  ");
}
