/**
 * A subscription as the HTTP API reads and writes it. A create's body has the fields
 * the subscription checks take (`checkSubscription`), nothing else: an unknown field
 * is refused by name (a misspelt `emial` must not create a subscription without its
 * channel), and so is a field of the wrong JSON type, which the checks would otherwise
 * turn into text. What the API returns has the same shape — `email` or `webhook`,
 * `preset` or `changes` — with times in ISO 8601, and never a webhook's secret.
 */

import type { FieldProblem } from "../errors.js";
import type { Language } from "../render/language.js";
import { suggestionHint } from "../rules/read/did-you-mean.js";
import {
  INPUT_FIELDS,
  type Subscription,
  type SubscriptionDirection,
  type SubscriptionInput,
  type SubscriptionStatus,
} from "../subscriptions/subscription.js";

/** The fields a create may carry: what a subscription is made from. */
export const CREATE_FIELDS = INPUT_FIELDS;

/** Fields that must be JSON strings when given (the checks see to the others' types). */
const TEXT_FIELDS = [
  "direction",
  "email",
  "webhook",
  "secret",
  "preset",
  "language",
  "quietHours",
] as const;

/** A subscription as the API shows it. */
export interface SubscriptionView {
  id: string;
  flight: string;
  date: string;
  direction?: SubscriptionDirection;
  preset?: string;
  changes?: unknown[];
  email?: string;
  webhook?: string;
  language?: Language;
  quietHours?: string;
  remind?: string[];
  labels: Record<string, string>;
  status: SubscriptionStatus;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** When it is forgotten (SUBSCRIPTION_RETENTION after its flight's date), ISO 8601, UTC. */
  expiresAt: string;
}

/**
 * The input of a create body — its known fields of the right JSON type — and the
 * problems of its shape: unknown fields, fields that must be text, a secret without a
 * webhook. The input is checked further even when there are such problems, so that one
 * answer names every field at fault.
 */
export function inputOf(body: Record<string, unknown>): {
  input: SubscriptionInput;
  problems: FieldProblem[];
} {
  const problems: FieldProblem[] = [];
  const known: readonly string[] = CREATE_FIELDS;
  for (const field of Object.keys(body)) {
    if (!known.includes(field)) {
      problems.push({
        field,
        message: `is not a field of a subscription; ${suggestionHint(field, CREATE_FIELDS)}`,
      });
    }
  }
  const input: SubscriptionInput = {};
  for (const field of CREATE_FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if ((TEXT_FIELDS as readonly string[]).includes(field) && typeof value !== "string") {
      problems.push({ field, message: `must be a string, not ${jsonType(value)}` });
    } else {
      input[field] = value;
    }
  }
  if (body.secret !== undefined && body.webhook === undefined) {
    problems.push({ field: "secret", message: "signs webhooks: give it with `webhook`" });
  }
  return { input, problems };
}

/** The API's view of a stored subscription (`expiresAtMs`: when its keys expire). */
export function viewOf(s: Subscription, expiresAtMs: number): SubscriptionView {
  return {
    id: s.id,
    flight: s.flight,
    date: s.date,
    ...(s.direction !== undefined ? { direction: s.direction } : {}),
    ...(s.preset !== undefined ? { preset: s.preset } : {}),
    ...(s.changes !== undefined ? { changes: s.changes } : {}),
    ...(s.channel.type === "email" ? { email: s.channel.to } : { webhook: s.channel.url }),
    ...(s.language !== undefined ? { language: s.language } : {}),
    ...(s.quietHours !== undefined ? { quietHours: s.quietHours } : {}),
    ...(s.remind !== undefined ? { remind: s.remind } : {}),
    labels: s.labels,
    status: s.status,
    createdAt: new Date(s.createdAt).toISOString(),
    expiresAt: new Date(expiresAtMs).toISOString(),
  };
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
