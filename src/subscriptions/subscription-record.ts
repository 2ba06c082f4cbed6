/**
 * A subscription as the store keeps it: one short text in the hash of its flight number
 * and date (the key names those two, so the text does not). Short because Redis keeps a
 * hash whose values are at most 64 bytes (and entries at most 512) as one compact
 * listpack, at a fraction of a hash table's cost per entry: a typical passenger's
 * subscription — essentials, an email address, a booking reference — is about 50 bytes.
 *
 * The text is its fields joined by U+001F (unit separator): a head (status letter,
 * channel letter, creation time in base 36), the recipient, the labels as name and
 * value fields, and — only when there is any — a JSON object of the rarer parts (a
 * preset other than essentials, change selectors, a webhook secret, a language other
 * than English, a direction, quiet hours). A label value or
 * recipient that holds U+001F itself makes the whole text a JSON array of the same
 * fields instead (it starts with `[`, which no head does).
 */
import { isLanguage, type Language } from "../render/language.js";
import {
  DEFAULT_PRESET,
  SUBSCRIPTION_STATUSES,
  type Subscription,
  type SubscriptionChannel,
  type SubscriptionStatus,
} from "./subscription.js";

const SEPARATOR = "\x1f";

/** One letter per status, in SUBSCRIPTION_STATUSES order. */
const STATUS_LETTERS = "paux";

/** The rarer parts of a subscription, with one-letter names. */
interface Extras {
  /** A preset other than the default. */
  p?: string;
  /** Change selectors. */
  c?: unknown[];
  /** A webhook's signing secret. */
  s?: string;
  /** The language of its notifications, other than English. */
  l?: Language;
  /** Its direction, when it follows only one: `D` or `A`. */
  d?: "D" | "A";
  /** Its quiet hours (`23:00-07:00[ zone]`). */
  q?: string;
  /** Its reminders, as words. */
  r?: string[];
}

/** The stored text of a subscription (its id, flight and date are kept by the keys). */
export function encodeSubscription(s: Subscription): string {
  const status = STATUS_LETTERS[SUBSCRIPTION_STATUSES.indexOf(s.status)] ?? "a";
  const head = `${status}${s.channel.type === "email" ? "e" : "w"}${s.createdAt.toString(36)}`;
  const fields = [head, s.channel.type === "email" ? s.channel.to : s.channel.url];
  for (const [name, value] of Object.entries(s.labels)) fields.push(name, value);
  const extras: Extras = {};
  if (s.changes !== undefined) extras.c = s.changes;
  else if (s.preset !== undefined && s.preset !== DEFAULT_PRESET) extras.p = s.preset;
  if (s.channel.type === "webhook" && s.channel.secret !== undefined) extras.s = s.channel.secret;
  if (s.language !== undefined && s.language !== "en") extras.l = s.language;
  if (s.direction !== undefined) extras.d = s.direction === "departure" ? "D" : "A";
  if (s.quietHours !== undefined) extras.q = s.quietHours;
  if (s.remind !== undefined) extras.r = s.remind;
  // JSON escapes every control character, so the extras never hold the separator.
  if (Object.keys(extras).length > 0) fields.push(JSON.stringify(extras));
  return fields.some((f) => f.includes(SEPARATOR))
    ? JSON.stringify(fields)
    : fields.join(SEPARATOR);
}

/**
 * The subscription a stored text stands for, or undefined for a text this module did
 * not write (one written by hand is skipped, as an invalid rule file is).
 */
export function decodeSubscription(
  id: string,
  flight: string,
  date: string,
  text: string,
): Subscription | undefined {
  let fields: unknown;
  if (text.startsWith("[")) {
    try {
      fields = JSON.parse(text);
    } catch {
      return undefined;
    }
  } else {
    fields = text.split(SEPARATOR);
  }
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === "string")) return undefined;
  const [head, recipient, ...rest] = fields as string[];
  if (head === undefined || recipient === undefined || head.length < 3) return undefined;
  const status = SUBSCRIPTION_STATUSES[STATUS_LETTERS.indexOf(head[0] as string)];
  const createdAt = Number.parseInt(head.slice(2), 36);
  if (status === undefined || !Number.isFinite(createdAt)) return undefined;
  let extras: Extras = {};
  if (rest.length % 2 === 1) {
    try {
      extras = JSON.parse(rest.pop() as string) as Extras;
    } catch {
      return undefined;
    }
  }
  const pairs: [string, string][] = [];
  for (let i = 0; i < rest.length; i += 2) pairs.push([rest[i] as string, rest[i + 1] as string]);
  // fromEntries makes own properties of any name (an assignment to `__proto__` would not).
  const labels: Record<string, string> = Object.fromEntries(pairs);
  const channel = channelOf(head[1] as string, recipient, extras.s);
  if (channel === undefined) return undefined;
  return {
    id,
    flight,
    date,
    ...(extras.d === "D" ? { direction: "departure" as const } : {}),
    ...(extras.d === "A" ? { direction: "arrival" as const } : {}),
    ...(extras.c !== undefined ? { changes: extras.c } : { preset: extras.p ?? DEFAULT_PRESET }),
    channel,
    ...(extras.l !== undefined && isLanguage(extras.l) ? { language: extras.l } : {}),
    ...(typeof extras.q === "string" ? { quietHours: extras.q } : {}),
    ...(Array.isArray(extras.r) ? { remind: extras.r.map(String) } : {}),
    labels,
    status: status as SubscriptionStatus,
    createdAt,
  };
}

function channelOf(
  letter: string,
  recipient: string,
  secret: string | undefined,
): SubscriptionChannel | undefined {
  if (letter === "e") return { type: "email", to: recipient };
  if (letter !== "w") return undefined;
  return secret === undefined
    ? { type: "webhook", url: recipient }
    : { type: "webhook", url: recipient, secret };
}
