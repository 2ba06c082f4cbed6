/**
 * The signed tokens of passengers' links: whoever holds the link of a subscription may
 * confirm it, see its flight or unsubscribe it, with no login. A token is the
 * subscription's id, when it was made, and an HMAC-SHA256, keyed by the deployment's
 * secret, of those and the link's purpose — so a token made for one purpose opens no
 * other page, a changed id or MAC is refused, only a holder of the secret can make one,
 * and a link of a subscription removed opens nothing of a new one given the same id.
 * Tokens do not expire: a subscription does (a pending one within a day, every one
 * after its flight).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { SUBSCRIPTION_ID_RE } from "../subscriptions/subscription.js";

/** What a link is for: the page it opens. */
export const LINK_PURPOSES = ["confirm", "status", "unsubscribe"] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/** The pages' base path on the HTTP port, and each purpose's page under it. */
export const PASSENGER_PATH = "/passenger";
/** See PASSENGER_PATH. */
export const PAGE_OF: Readonly<Record<LinkPurpose, string>> = {
  confirm: "confirm",
  status: "flight",
  unsubscribe: "unsubscribe",
};

/**
 * What a link names: a subscription, by its id and the moment it was made — so that a
 * link outlives neither its subscription nor a later one given the same id (`--id`,
 * the API's `id`).
 */
export interface LinkSubject {
  id: string;
  /** Epoch ms the subscription was made (Subscription.createdAt). */
  createdAt: number;
}

/** The MAC of a subscription for a purpose (base64url, 43 characters). */
function mac(secret: string, purpose: LinkPurpose, id: string, created: string): string {
  // The domain tag keeps these MACs apart from anything else the secret may ever sign.
  return createHmac("sha256", secret)
    .update(`flightwatch passenger link\n${purpose}\n${id}\n${created}`)
    .digest("base64url");
}

/** The token of a subscription's link for `purpose`: `<id>.<createdAt in base 36>.<mac>`. */
export function signLink(secret: string, purpose: LinkPurpose, subject: LinkSubject): string {
  const { id, createdAt } = subject;
  if (!SUBSCRIPTION_ID_RE.test(id)) throw new Error(`not a subscription id: ${JSON.stringify(id)}`);
  if (!Number.isSafeInteger(createdAt) || createdAt < 0) {
    throw new Error(`not a creation time: ${createdAt}`);
  }
  const created = createdAt.toString(36);
  return `${id}.${created}.${mac(secret, purpose, id, created)}`;
}

const CREATED_RE = /^[0-9a-z]{1,11}$/;

/**
 * The subscription a token opens for `purpose`; undefined when the token is malformed,
 * was made for another purpose or with another secret, or was changed. Whether that
 * subscription still exists, made at that moment, is the caller's to check.
 */
export function verifyLink(
  secret: string,
  purpose: LinkPurpose,
  token: string | undefined,
): LinkSubject | undefined {
  if (token === undefined) return undefined;
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [id, created, given] = parts as [string, string, string];
  if (!SUBSCRIPTION_ID_RE.test(id) || !CREATED_RE.test(created)) return undefined;
  const givenBytes = Buffer.from(given);
  const want = Buffer.from(mac(secret, purpose, id, created));
  if (givenBytes.length !== want.length || !timingSafeEqual(givenBytes, want)) return undefined;
  return { id, createdAt: Number.parseInt(created, 36) };
}

/** The absolute URLs of a deployment's passenger links. */
export interface PassengerLinks {
  /** The page of `purpose` for a subscription, e.g. `https://flights.example.com/passenger/unsubscribe?t=…`. */
  url(purpose: LinkPurpose, subject: LinkSubject): string;
  /** The one-click unsubscribe URL of a subscription's emails (RFC 8058). */
  unsubscribeUrl(subject: LinkSubject): string;
}

/** Links under `publicUrl` (PUBLIC_URL, no trailing slash), signed with `secret`. */
export function passengerLinks(publicUrl: string, secret: string): PassengerLinks {
  const url = (purpose: LinkPurpose, subject: LinkSubject) =>
    `${publicUrl}${PASSENGER_PATH}/${PAGE_OF[purpose]}?t=${signLink(secret, purpose, subject)}`;
  return { url, unsubscribeUrl: (subject) => url("unsubscribe", subject) };
}
