/**
 * A passenger subscription: one flight number on one schedule date, what to hear about
 * (a named preset, or change selectors written as in rule files), one channel (an email
 * address, or a webhook URL for an app backend), labels echoed in every notification,
 * and a status. Stored as data (subscription-store.ts), not in rule files; to the
 * dispatcher, the notifier and the delivery workers it is a rule like any other
 * (`subscriptionRule`), under the id `sub:<id>` — a colon no rule file's id may hold — so
 * it has the same alert decisions, queues, retries, dead letters and ids.
 */
import { randomBytes } from "node:crypto";
import type { RuleProblem } from "../errors.js";
import type { OutboundPolicy } from "../outbound/outbound-policy.js";
import { isLanguage, LANGUAGES, type Language } from "../render/language.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import type { RuleInterner } from "../rules/read/rule-interner.js";
import { parseRuleFile } from "../rules/read/rule-loader.js";
import { nextDate } from "../rules/read/rule-time.js";
import { durationText } from "../rules/reminders.js";
import type { Rule } from "../rules/rule.js";
import { fromLocalDateTime } from "../time/local-time.js";

/** Where a subscription is in its life. */
export const SUBSCRIPTION_STATUSES = ["pending", "active", "unsubscribed", "expired"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * The named sets of changes, as rule-file selectors. `essentials`: what a traveller
 * needs — gate, boarding, a departure or arrival 15 minutes or more late (then each
 * further 15 minutes), cancellation, diversion, baggage belt.
 */
export const PRESETS: Readonly<Record<string, readonly unknown[]>> = {
  essentials: [
    "gate",
    { kind: "state", states: ["BRD"] },
    { kind: "departure_time", delay_at_least: "15m", shift_at_least: "15m" },
    { kind: "arrival_time", delay_at_least: "15m", shift_at_least: "15m" },
    "cancelled",
    "diverted",
    "belt",
  ],
  /** No change at all: reminders only (`remind` is then required). */
  none: [],
};

/** The preset used when a subscription names neither a preset nor changes. */
export const DEFAULT_PRESET = "essentials";

/**
 * Which of a number's flights on the date: the departure or the arrival. A number may
 * do both on one date (a codeshare sold on an inbound and an outbound flight, a flight
 * that lands and leaves again); without a direction a subscription follows both.
 */
export const DIRECTIONS = ["departure", "arrival"] as const;
export type SubscriptionDirection = (typeof DIRECTIONS)[number];

/** Where a subscription's notifications go. */
export type SubscriptionChannel =
  | { type: "email"; to: string }
  | { type: "webhook"; url: string; secret?: string };

/** A stored subscription. */
export interface Subscription {
  id: string;
  /** Normal form (`KL1001`): the operating number or any codeshare. */
  flight: string;
  /** The local schedule date, `yyyy-MM-dd`. */
  date: string;
  /** Only the departure, or only the arrival, of that number on that date; absent: both. */
  direction?: SubscriptionDirection;
  /** A named preset (PRESETS), or… */
  preset?: string;
  /** …change selectors as rule files write them. */
  changes?: unknown[];
  channel: SubscriptionChannel;
  /** The language of its notifications; absent: English. */
  language?: Language;
  /**
   * Quiet hours, `23:00-07:00` (the airport's zone) or `23:00-07:00 Europe/London`: what
   * is not critical waits for their end (docs/rules.md, "Quiet hours"); absent: none.
   */
  quietHours?: string;
  /**
   * Reminders before the flight's moments, as words (`30m before boarding`; docs/rules.md,
   * "Reminders"); absent: none.
   */
  remind?: string[];
  labels: Record<string, string>;
  status: SubscriptionStatus;
  /** Epoch ms. */
  createdAt: number;
}

/**
 * The fields a subscription is made from, in the order files and documents write them:
 * what the API's create takes, and — with `id` and `status` — the columns of a file.
 */
export const INPUT_FIELDS = [
  "flight",
  "date",
  "direction",
  "email",
  "webhook",
  "secret",
  "preset",
  "changes",
  "labels",
  "language",
  "quietHours",
  "remind",
] as const;

/** What a subscription is made from (the CLI's flags, the API's body). */
export interface SubscriptionInput {
  flight?: unknown;
  date?: unknown;
  direction?: unknown;
  preset?: unknown;
  changes?: unknown;
  email?: unknown;
  webhook?: unknown;
  secret?: unknown;
  language?: unknown;
  quietHours?: unknown;
  remind?: unknown;
  labels?: unknown;
  status?: unknown;
}

/** A field of the input that is wrong, and why. */
export interface SubscriptionProblem {
  field: string;
  message: string;
}

/**
 * What checking and converting need: the airport's zone, where webhooks may go, and the
 * one-click unsubscribe link of a subscription's emails (the passenger pages' signed
 * link, when PUBLIC_URL is set).
 */
export interface SubscriptionContext {
  zone: string;
  outbound?: OutboundPolicy;
  unsubscribeUrl?: (subscription: Subscription) => string;
  /**
   * Shares the parts that subscriptions write alike (a preset's changes, a flight's
   * filter) among the rules read with it: a third of the heap and half the time a
   * rule. It keeps what it has seen, so whoever passes one replaces it now and then.
   */
  interner?: RuleInterner;
}

/** The rule id of a subscription. */
export const subscriptionRuleId = (id: string): string => `sub:${id}`;

/** The subscription id of a rule id, or undefined for a rule of the files. */
export function subscriptionIdOf(ruleId: string): string | undefined {
  return ruleId.startsWith("sub:") ? ruleId.slice(4) : undefined;
}

/** What a subscription id is made of (one given on creation, or `newSubscriptionId`'s). */
export const SUBSCRIPTION_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** A new subscription id: 16 characters of `[A-Za-z0-9_-]`, 96 random bits. */
export function newSubscriptionId(): string {
  return randomBytes(12).toString("base64url");
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
/** `23:00-07:00`, optionally with a zone: the times are checked by the rule reader. */
const QUIET_HOURS_RE = /^(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})(?:\s+(\S+))?$/;
const LABEL_KEY_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_LABELS = 20;
const MAX_LABEL_CHARS = 200;

/**
 * Checks an input and makes the subscription of it (`id`, `now`: its id and creation
 * time), or lists every field that is wrong. Channel and changes are checked by the
 * rule reader itself, so a subscription is refused exactly where a rule file would be.
 */
export function checkSubscription(
  input: SubscriptionInput,
  context: SubscriptionContext,
  id: string,
  now: number,
): { subscription: Subscription } | { problems: SubscriptionProblem[] } {
  const problems: SubscriptionProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });

  const flight = typeof input.flight === "string" ? normaliseFlightNumber(input.flight) : undefined;
  if (flight === undefined) {
    problem(
      "flight",
      input.flight === undefined
        ? "is required: a flight number such as KL1001"
        : `${JSON.stringify(input.flight)} is not a flight number: write an airline code and a number, such as KL1001`,
    );
  }
  const date = typeof input.date === "string" ? input.date.trim() : undefined;
  if (
    date === undefined ||
    !DATE_RE.test(date) ||
    fromLocalDateTime(`${date}T00:00`, context.zone) === undefined
  ) {
    problem(
      "date",
      input.date === undefined
        ? "is required: the flight's schedule date, yyyy-MM-dd"
        : `${JSON.stringify(input.date)} is not a date: write yyyy-MM-dd, such as 2026-11-21`,
    );
  }
  const direction = input.direction === undefined ? undefined : directionOf(input.direction);
  if (direction === null) {
    problem(
      "direction",
      `${JSON.stringify(input.direction)} is not a direction: departure or arrival (or leave it out for both)`,
    );
  }
  let preset: string | undefined;
  let changes: unknown[] | undefined;
  if (input.changes !== undefined) {
    if (input.preset !== undefined) problem("preset", "give a preset or changes, not both");
    if (!Array.isArray(input.changes) || input.changes.length === 0) {
      problem("changes", "must be a non-empty list of change selectors, as in rule files");
    } else {
      changes = input.changes;
    }
  } else {
    preset = input.preset === undefined ? DEFAULT_PRESET : String(input.preset);
    if (PRESETS[preset] === undefined) {
      problem("preset", `"${preset}" is not a preset: choose ${Object.keys(PRESETS).join(", ")}`);
    }
  }
  let channel: SubscriptionChannel | undefined;
  if ((input.email === undefined) === (input.webhook === undefined)) {
    problem("email", "give one channel: an email address or a webhook URL");
  } else if (input.email !== undefined) {
    channel = { type: "email", to: String(input.email).trim() };
  } else {
    channel = { type: "webhook", url: String(input.webhook).trim() };
    if (input.secret !== undefined) channel.secret = String(input.secret);
  }
  const labels = checkLabels(input.labels, problem);
  const language = input.language === undefined ? undefined : String(input.language);
  if (language !== undefined && !isLanguage(language)) {
    problem(
      "language",
      `"${language}" is not a language of notifications: ${LANGUAGES.join(", ")}`,
    );
  }
  let quietHours: string | undefined;
  if (input.quietHours !== undefined) {
    const m =
      typeof input.quietHours === "string" ? QUIET_HOURS_RE.exec(input.quietHours.trim()) : null;
    if (m === null) {
      problem(
        "quietHours",
        `${JSON.stringify(input.quietHours)} is not quiet hours: write from-to, such as 23:00-07:00 (or 23:00-07:00 Europe/London for a zone of their own)`,
      );
    } else {
      const pad = (hm: string) => hm.padStart(5, "0");
      quietHours = `${pad(m[1] as string)}-${pad(m[2] as string)}${m[3] ? ` ${m[3]}` : ""}`;
    }
  }
  let remind: string[] | undefined;
  if (input.remind !== undefined) {
    remind = remindersWritten(input.remind);
    if (remind === undefined) {
      problem(
        "remind",
        `${JSON.stringify(input.remind)} is not a list of reminders: write such as ["30m before boarding", "3h before departure"]`,
      );
    }
  }
  if (preset === "none" && remind === undefined) {
    problem("preset", "none hears of no change: give reminders (remind) with it");
  }
  const status =
    input.status === undefined ? "active" : (String(input.status) as SubscriptionStatus);
  if (!SUBSCRIPTION_STATUSES.includes(status)) {
    problem(
      "status",
      `"${String(input.status)}" is not a status: ${SUBSCRIPTION_STATUSES.join(", ")}`,
    );
  }
  if (problems.length > 0 || flight === undefined || date === undefined || channel === undefined) {
    return { problems };
  }
  const subscription: Subscription = {
    id,
    flight,
    date,
    ...(direction ? { direction } : {}),
    ...(preset !== undefined ? { preset } : {}),
    ...(changes !== undefined ? { changes } : {}),
    channel,
    ...(language !== undefined && isLanguage(language) ? { language } : {}),
    ...(quietHours !== undefined ? { quietHours } : {}),
    ...(remind !== undefined ? { remind } : {}),
    labels,
    status,
    createdAt: now,
  };
  // The channel and the changes as the rule reader sees them: its problems are ours.
  const read = readAsRule(subscription, context);
  if ("problems" in read) return { problems: read.problems };
  // Reminders in one writing, as the reader understood them.
  const reminders = read.rule.reminders;
  if (reminders !== undefined) {
    subscription.remind = reminders.map((r) => `${durationText(r.byMs)} before ${r.before}`);
  }
  return { subscription };
}

/**
 * Reminders as given: a list of words (`30m before boarding`) or of mappings
 * (`{ before, by }`), or one text listing them with commas; undefined when it is none.
 */
function remindersWritten(value: unknown): string[] | undefined {
  const items = typeof value === "string" ? value.split(/[,;]/) : value;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const out: string[] = [];
  for (const item of items) {
    if (typeof item === "string" && item.trim() !== "") out.push(item.trim());
    else if (typeof item === "object" && item !== null && "before" in item && "by" in item) {
      out.push(`${String(item.by)} before ${String(item.before)}`);
    } else return undefined;
  }
  return out;
}

/** A direction as written (`departure`, `arrival`, `D`, `A`, any case); null when it is none. */
function directionOf(value: unknown): SubscriptionDirection | null {
  if (typeof value !== "string") return null;
  const text = value.trim().toLowerCase();
  if (text === "departure" || text === "d") return "departure";
  if (text === "arrival" || text === "a") return "arrival";
  return null;
}

function checkLabels(
  value: unknown,
  problem: (field: string, message: string) => void,
): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problem("labels", 'must be an object of names to texts, such as {"booking": "X7Q2LM"}');
    return {};
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_LABELS) problem("labels", `at most ${MAX_LABELS} labels`);
  const labels: Record<string, string> = {};
  for (const [key, text] of entries) {
    if (!LABEL_KEY_RE.test(key)) {
      problem(`labels.${key}`, "a label name is 1–64 letters, digits, _ . or -");
    } else if (typeof text !== "string" || text.length > MAX_LABEL_CHARS) {
      problem(`labels.${key}`, `must be a text of at most ${MAX_LABEL_CHARS} characters`);
    } else {
      labels[key] = text;
    }
  }
  return labels;
}

/** The rule a subscription is to the pipeline (checked before it was stored). */
export function subscriptionRule(subscription: Subscription, context: SubscriptionContext): Rule {
  const read = readAsRule(subscription, context);
  if ("problems" in read) {
    // Stored subscriptions were checked; one refused now was written by hand.
    throw new Error(
      `subscription ${subscription.id}: ${read.problems.map((p) => `${p.field} ${p.message}`).join("; ")}`,
    );
  }
  return read.rule;
}

/** A subscription's rule, read by the rule reader from the rule file it stands for. */
function readAsRule(
  s: Subscription,
  context: SubscriptionContext,
): { rule: Rule } | { problems: SubscriptionProblem[] } {
  const unsubscribe = context.unsubscribeUrl?.(s);
  const channel =
    s.channel.type === "email"
      ? {
          type: "email",
          to: [s.channel.to],
          ...(unsubscribe !== undefined ? { unsubscribe_url: unsubscribe } : {}),
        }
      : {
          type: "webhook",
          url: s.channel.url,
          format: "json",
          ...(s.channel.secret !== undefined ? { secret: s.channel.secret } : {}),
        };
  const file = {
    rules: [
      {
        // The reader wants a file's kind of id; the subscription's own replaces it.
        id: "subscription",
        labels: s.labels,
        flights: {
          flight: [s.flight],
          schedule: { from: s.date, to: s.date },
          ...(s.direction !== undefined ? { direction: s.direction } : {}),
        },
        changes: s.changes ?? PRESETS[s.preset ?? DEFAULT_PRESET],
        channels: [channel],
        ...(s.language !== undefined ? { language: s.language } : {}),
        ...(s.quietHours !== undefined ? { quiet_hours: quietHoursOf(s.quietHours) } : {}),
        ...(s.remind !== undefined ? { remind: s.remind } : {}),
      },
    ],
  };
  const load = parseRuleFile(
    JSON.stringify(file),
    "subscription.json",
    {
      vars: { values: {} },
      zone: context.zone,
      ...(context.outbound ? { outbound: context.outbound } : {}),
    },
    context.interner,
  );
  const rule = load.rules[0];
  if (load.problems.length > 0 || rule === undefined) {
    return { problems: load.problems.map(problemOf) };
  }
  return { rule: { ...rule, id: subscriptionRuleId(s.id) } };
}

/** `23:00-07:00 Europe/London` as a rule file writes it. */
function quietHoursOf(text: string): Record<string, string> {
  const [span = "", zone] = text.split(" ");
  const [from = "", to = ""] = span.split("-");
  return { from, to, ...(zone !== undefined ? { zone } : {}) };
}

/** A rule problem as a problem of the subscription's field it came from. */
function problemOf(p: RuleProblem): SubscriptionProblem {
  const path = p.path;
  if (path.includes("remind")) {
    return { field: "remind", message: p.hint ? `${p.message} (${p.hint})` : p.message };
  }
  if (path.includes("quiet_hours")) {
    return { field: "quietHours", message: p.hint ? `${p.message} (${p.hint})` : p.message };
  }
  const field = path.includes("channels")
    ? path.includes("url") || path.includes("secret")
      ? "webhook"
      : "email"
    : path.includes("changes")
      ? "changes"
      : path.includes("labels")
        ? "labels"
        : "subscription";
  return { field, message: p.hint ? `${p.message} (${p.hint})` : p.message };
}

/** When a subscription's data expires: `keepMs` after the end of its schedule date (epoch ms). */
export function expiresAt(s: Pick<Subscription, "date">, zone: string, keepMs: number): number {
  const end = fromLocalDateTime(`${nextDate(s.date)}T00:00`, zone) as number;
  return end + keepMs;
}
