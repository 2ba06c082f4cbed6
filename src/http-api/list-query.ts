/**
 * The query of a subscription listing (`?flight=&date=&recipient=&label=name:value&
 * status=&limit=&cursor=`), checked: every parameter that is wrong is named at once, and
 * an unknown one is refused rather than ignored (a misspelt filter would list everything).
 * The `next` cursor is opaque to clients: it wraps the store's position with a digest of
 * the filters, so a cursor is refused when sent with other filters than its own.
 */
import { createHash } from "node:crypto";
import type { FieldProblem } from "../errors.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { suggestionHint } from "../rules/read/did-you-mean.js";
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from "../subscriptions/subscription.js";
import type { SubscriptionQuery } from "../subscriptions/subscription-store.js";
import { refuse } from "./problem-details.js";

/** Subscriptions on a page when the client does not say. */
export const DEFAULT_PAGE_SIZE = 100;
/** The largest page: one answer stays a few hundred KB at most. */
export const MAX_PAGE_SIZE = 1000;

/** The parameters a listing takes. */
export const LIST_PARAMETERS = [
  "flight",
  "date",
  "recipient",
  "label",
  "status",
  "limit",
  "cursor",
] as const;

/** A checked listing request. */
export interface ListRequest {
  query: SubscriptionQuery;
  limit: number;
  /** The store's position, from the client's cursor. */
  position?: string;
  /** Digest of the filters, which the next cursor carries. */
  filters: string;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Reads a listing's parameters; throws a refusal (400) naming every one that is wrong. */
export function readListRequest(params: URLSearchParams): ListRequest {
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  for (const name of new Set(params.keys())) {
    if (!(LIST_PARAMETERS as readonly string[]).includes(name)) {
      problem(name, `is not a parameter of a listing; ${suggestionHint(name, LIST_PARAMETERS)}`);
    } else if (params.getAll(name).length > 1) {
      problem(name, "is given more than once; give it once");
    }
  }
  const query: SubscriptionQuery = {};
  const flight = params.get("flight");
  if (flight !== null) {
    const normal = normaliseFlightNumber(flight);
    if (normal === undefined) problem("flight", `"${flight}" is not a flight number, e.g. KL1001`);
    else query.flight = normal;
  }
  const date = params.get("date");
  if (date !== null) {
    if (DATE_RE.test(date)) query.date = date;
    else problem("date", `"${date}" is not a date: write yyyy-MM-dd`);
  }
  const recipient = params.get("recipient");
  if (recipient !== null) query.recipient = recipient.trim();
  const label = params.get("label");
  if (label !== null) {
    const colon = label.indexOf(":");
    if (colon <= 0) problem("label", `"${label}" is not name:value, e.g. booking:X7Q2LM`);
    else query.label = { name: label.slice(0, colon), value: label.slice(colon + 1) };
  }
  const status = params.get("status");
  if (status !== null) {
    if ((SUBSCRIPTION_STATUSES as readonly string[]).includes(status)) {
      query.status = status as SubscriptionStatus;
    } else {
      problem("status", `"${status}" is not one of ${SUBSCRIPTION_STATUSES.join(", ")}`);
    }
  }
  const limit = readLimit(params.get("limit"), problem);
  const filters = digestOf(query);
  const cursor = params.get("cursor");
  const position = cursor === null ? undefined : positionOf(cursor, filters, problem);
  if (problems.length > 0) {
    throw refuse("invalid-parameters", describe(problems), { errors: problems });
  }
  return { query, limit, filters, ...(position !== undefined ? { position } : {}) };
}

/** The cursor of the page after this one, for the store's position `position`. */
export function nextCursor(position: string, filters: string): string {
  return Buffer.from(JSON.stringify({ p: position, f: filters }), "utf8").toString("base64url");
}

function readLimit(text: string | null, problem: (field: string, message: string) => void) {
  if (text === null) return DEFAULT_PAGE_SIZE;
  const n = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (n >= 1 && n <= MAX_PAGE_SIZE) return n;
  problem("limit", `"${text}" is not a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return DEFAULT_PAGE_SIZE;
}

function positionOf(
  cursor: string,
  filters: string,
  problem: (field: string, message: string) => void,
): string | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  const { p, f } = (decoded ?? {}) as { p?: unknown; f?: unknown };
  if (typeof p !== "string") {
    problem("cursor", "is not a cursor this API gave: pass the `next` of a listing as it is");
    return undefined;
  }
  if (f !== filters) {
    problem("cursor", "belongs to a listing with other filters: send the same filters with it");
    return undefined;
  }
  return p;
}

/** A digest of the filters (not the page size, which may change from page to page). */
function digestOf(query: SubscriptionQuery): string {
  const parts = [
    query.flight,
    query.date,
    query.recipient,
    query.label?.name,
    query.label?.value,
    query.status,
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 12);
}

function describe(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.field}: ${p.message}`).join("; ");
}
