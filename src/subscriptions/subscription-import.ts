/**
 * Bulk import of subscriptions (`subscriptions import`), all or nothing: every line is
 * read and checked — as `subscriptions add` checks one — before anything is written, so
 * a file with a bad line changes nothing (unless asked to import the good ones), and a
 * file of a million lines is never held in memory: checked subscriptions wait in a
 * spool file until the last line is read, then go to the store a batch at a time,
 * several batches in flight.
 *
 * Importing is idempotent, so an import cut off halfway is finished by running it
 * again: a line whose id is stored with the same content is left as it is; one whose
 * id is stored with other content is refused, or replaces it when asked. A line without
 * an id gets one made of its content, so the same line imported twice is one
 * subscription.
 */
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { RuleInterner } from "../rules/read/rule-interner.js";
import {
  checkSubscription,
  SUBSCRIPTION_ID_RE,
  type Subscription,
  type SubscriptionContext,
} from "./subscription.js";
import {
  type FileFormat,
  type LineInput,
  type LineProblem,
  MASKED_SECRET,
  readRecords,
} from "./subscription-file.js";
import { decodeSubscription, encodeSubscription } from "./subscription-record.js";
import { recipientOf, type SubscriptionStore } from "./subscription-store.js";

/** Subscriptions a batch checks against the store, and writes in one transaction. */
const BATCH = 1000;
/** Batches written at once. */
const IN_FLIGHT = 4;
/** Lines checked with one interner (it keeps what it has seen: a bound on the import's memory). */
const INTERNED_LINES = 10_000;
/** Checked in place of a masked secret (a valid one, never stored: the stored secret replaces it). */
const STAND_IN_SECRET = `whsec_${Buffer.alloc(32).toString("base64")}`;

/** How an import goes. */
export interface ImportOptions {
  store: SubscriptionStore;
  context: SubscriptionContext;
  format: FileFormat;
  /** Overwrite stored subscriptions whose id a line gives (with other content). */
  replace?: boolean;
  /** Import the good lines of a file with bad ones. */
  skipInvalid?: boolean;
  /** Problems kept for the report (the first ones, by line); the rest are counted. */
  keepProblems?: number;
  /** Where the spool file goes (default: the system's temporary directory). */
  spoolDir?: string;
  now?: () => number;
}

/** A problem of one line: its number, the field at fault (absent: the whole line), why. */
export interface ImportProblem extends LineProblem {
  line: number;
}

/** What an import did. */
export interface ImportReport {
  /** Records read (non-blank lines; CSV rows after the header). */
  lines: number;
  /** Subscriptions stored that were not there. */
  added: number;
  /** Stored ones overwritten (with `replace`). */
  replaced: number;
  /** Lines whose subscription was stored already, the same. */
  unchanged: number;
  /** Lines without an id that repeat an earlier line. */
  duplicates: number;
  /** Lines refused. */
  invalidLines: number;
  /** Their problems, in line order: the first `keepProblems`. */
  problems: ImportProblem[];
  /** All their problems. */
  problemCount: number;
  /** Whether anything was written (false when a line was bad and not `skipInvalid`). */
  written: boolean;
}

/** A line read and checked, waiting for its batch's look at the store. */
interface Checked {
  line: number;
  subscription: Subscription;
  /** Whether the line gave the status (else a stored one's is kept). */
  givesStatus: boolean;
}

/** Imports the records of `lines` (a file's lines, in `options.format`). */
export async function importSubscriptions(
  lines: AsyncIterable<string>,
  options: ImportOptions,
): Promise<ImportReport> {
  const report: ImportReport = {
    lines: 0,
    added: 0,
    replaced: 0,
    unchanged: 0,
    duplicates: 0,
    invalidLines: 0,
    problems: [],
    problemCount: 0,
    written: false,
  };
  const keep = options.keepProblems ?? 20;
  const refuse = (line: number, problems: readonly LineProblem[]) => {
    report.invalidLines++;
    report.problemCount += problems.length;
    for (const p of problems) {
      if (report.problems.length < keep) report.problems.push({ line, ...p });
    }
  };
  const now = (options.now ?? Date.now)();
  // Lines read with one interner share what they write alike: half the time a line.
  let context = options.context;
  const dir = await mkdtemp(join(options.spoolDir ?? tmpdir(), "flightwatch-import-"));
  try {
    const spoolFile = join(dir, "checked.ndjson");
    const spool = createWriteStream(spoolFile);
    // A full disk, say: heard here, thrown by the next write or the close.
    let spoolError: Error | undefined;
    spool.on("error", (err) => {
      spoolError = err;
    });
    /** The line each id was first given on. */
    const seen = new Map<string, number>();
    // Lines in file order, good and bad, so that problems are reported in line order.
    let batch: (Checked | { line: number; problems: LineProblem[] })[] = [];
    let good = 0;
    const settle = async () => {
      const lines = await settleBatch(batch, options, refuse, report);
      batch = [];
      good = 0;
      if (spoolError) throw spoolError;
      if (lines.length > 0 && !spool.write(lines.join(""))) await once(spool, "drain");
    };
    for await (const record of readRecords(lines, options.format)) {
      if (report.lines++ % INTERNED_LINES === 0) {
        context = { ...options.context, interner: new RuleInterner() };
      }
      const read =
        "problems" in record ? record : readLine(record.line, record.input, context, options, now);
      if ("problems" in read) batch.push(read);
      else {
        const id = read.subscription.id;
        const first = seen.get(id);
        if (first === undefined) {
          seen.set(id, read.line);
          batch.push(read);
          good++;
        } else if ("input" in record && record.input.id === undefined) {
          report.duplicates++;
        } else {
          batch.push({
            line: read.line,
            problems: [{ field: "id", message: `${id} is given on line ${first} already` }],
          });
        }
      }
      if (good >= BATCH || batch.length >= 4 * BATCH) await settle();
    }
    await settle();
    spool.end();
    await once(spool, "close");
    if (spoolError) throw spoolError;
    if (report.invalidLines > 0 && !options.skipInvalid) return report;
    await writeSpool(spoolFile, options.store, now);
    report.written = true;
    return report;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A record's subscription, checked (its id made of its content when it gives none), or its problems. */
function readLine(
  line: number,
  input: LineInput,
  context: SubscriptionContext,
  options: ImportOptions,
  now: number,
): Checked | { line: number; problems: LineProblem[] } {
  const { id } = input;
  if (id !== undefined && (typeof id !== "string" || !SUBSCRIPTION_ID_RE.test(id))) {
    return {
      line,
      problems: [
        {
          field: "id",
          message: `${JSON.stringify(id)} is not an id: 1–64 letters, digits, _ or -`,
        },
      ],
    };
  }
  const masked = input.secret === MASKED_SECRET;
  const checked = checkSubscription(
    masked ? { ...input, secret: STAND_IN_SECRET } : input,
    context,
    id ?? "",
    now,
  );
  if ("problems" in checked) return { line, problems: checked.problems };
  let s = checked.subscription;
  if (masked && s.channel.type === "webhook") {
    s = { ...s, channel: { ...s.channel, secret: MASKED_SECRET } };
  }
  if (options.store.expiresAt(s) <= now) {
    return {
      line,
      problems: [
        {
          field: "date",
          message: `${s.date} is past: its subscriptions would have expired already (SUBSCRIPTION_RETENTION)`,
        },
      ],
    };
  }
  return {
    line,
    subscription: id === undefined ? { ...s, id: contentId(s) } : s,
    givesStatus: input.status !== undefined,
  };
}

/**
 * Looks up a batch's ids in the store and decides each line: added, unchanged,
 * replacing, or refused. Resolves to the spool lines of those to write.
 */
async function settleBatch(
  batch: readonly (Checked | { line: number; problems: LineProblem[] })[],
  options: ImportOptions,
  refuse: (line: number, problems: readonly LineProblem[]) => void,
  report: ImportReport,
): Promise<string[]> {
  const checked = batch.filter((b): b is Checked => "subscription" in b);
  const stored = await options.store.getMany(checked.map((c) => c.subscription.id));
  const decided = new Map<Checked, Subscription | LineProblem | undefined>();
  checked.forEach((c, i) => {
    decided.set(c, decide(c, stored[i], options.replace === true, report));
  });
  const out: string[] = [];
  for (const b of batch) {
    if ("problems" in b) {
      refuse(b.line, b.problems);
      continue;
    }
    const d = decided.get(b);
    if (d === undefined) continue;
    if ("message" in d) refuse(b.line, [d]);
    else out.push(spoolLine(d));
  }
  return out;
}

/**
 * What becomes of a checked line, given what is stored under its id: the subscription
 * to write, a problem, or nothing (stored the same: counted unchanged).
 */
function decide(
  c: Checked,
  stored: Subscription | undefined,
  replace: boolean,
  report: ImportReport,
): Subscription | LineProblem | undefined {
  let s = c.subscription;
  if (s.channel.type === "webhook" && s.channel.secret === MASKED_SECRET) {
    // An export without secrets, imported back: the stored secret stays.
    if (stored?.channel.type !== "webhook" || stored.channel.secret === undefined) {
      return {
        field: "secret",
        message: `is masked (${MASKED_SECRET}) and no secret is stored for ${s.id}: export with --with-secrets, or give the secret`,
      };
    }
    s = { ...s, channel: { ...s.channel, secret: stored.channel.secret } };
  }
  if (stored === undefined) {
    report.added++;
    return s;
  }
  if (sameContent(s, stored, c.givesStatus)) {
    report.unchanged++;
    return undefined;
  }
  if (!replace) {
    return {
      field: "id",
      message: `a subscription ${s.id} exists already, with other content: --replace overwrites it`,
    };
  }
  report.replaced++;
  // It keeps when it was made, and — unless the line says otherwise — its status: a
  // passenger who unsubscribed stays unsubscribed.
  return { ...s, createdAt: stored.createdAt, status: c.givesStatus ? s.status : stored.status };
}

/** Whether two subscriptions say the same (creation time aside; status only when `withStatus`). */
function sameContent(a: Subscription, b: Subscription, withStatus: boolean): boolean {
  return (
    contentOf(a, { status: withStatus, secret: true }) ===
    contentOf(b, { status: withStatus, secret: true })
  );
}

/** What a subscription says, as one text (labels in order of name). */
function contentOf(s: Subscription, parts: { status: boolean; secret: boolean }): string {
  const labels = Object.entries(s.labels).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify([
    s.flight,
    s.date,
    s.channel.type,
    recipientOf(s.channel),
    parts.secret && s.channel.type === "webhook" ? (s.channel.secret ?? null) : null,
    s.preset ?? null,
    s.changes ?? null,
    labels,
    parts.status ? s.status : null,
    // Later fields, only when given: the content (and the id made of it) of a line
    // without them stays what it was before they existed.
    ...(s.direction !== undefined ? [{ direction: s.direction }] : []),
    ...(s.language !== undefined ? [{ language: s.language }] : []),
    ...(s.quietHours !== undefined ? [{ quietHours: s.quietHours }] : []),
    ...(s.remind !== undefined ? [{ remind: s.remind }] : []),
  ]);
}

/**
 * The id of a line that gives none: 16 characters of a hash of its content (96 bits),
 * its secret aside (an export without secrets names the same subscription).
 */
function contentId(s: Subscription): string {
  const content = contentOf(s, { status: false, secret: false });
  return createHash("sha256").update(content).digest("base64url").slice(0, 16);
}

/** A checked subscription as the spool keeps it: its compact stored text, with its keys. */
function spoolLine(s: Subscription): string {
  return `${JSON.stringify([s.id, s.flight, s.date, encodeSubscription(s)])}\n`;
}

/** Writes the spool's subscriptions to the store, a batch a transaction, several at once. */
async function writeSpool(file: string, store: SubscriptionStore, now: number): Promise<void> {
  const flying = new Set<Promise<void>>();
  const send = async (batch: Subscription[]) => {
    while (flying.size >= IN_FLIGHT) await Promise.race(flying);
    const sent = store.add(batch, now).then(() => {
      flying.delete(sent);
    });
    // Its failure is heard where it is awaited (race or all), never as unhandled.
    sent.catch(() => undefined);
    flying.add(sent);
  };
  let batch: Subscription[] = [];
  const lines = createInterface({
    input: createReadStream(file),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    const [id, flight, date, text] = JSON.parse(line) as [string, string, string, string];
    const s = decodeSubscription(id, flight, date, text);
    if (s === undefined) throw new Error(`import spool: unreadable line for ${id}`);
    batch.push(s);
    if (batch.length === BATCH) {
      await send(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await send(batch);
  await Promise.all(flying);
}
