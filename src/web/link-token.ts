/**
 * The signed tokens of passengers' links: whoever holds the link of a subscription may
 * confirm it, see its flight or unsubscribe it, with no login. A token is the
 * subscription's id and an HMAC-SHA256, keyed by the deployment's secret, of the id and
 * the link's purpose — so a token made for one purpose opens no other page, a changed id
 * or MAC is refused, and only a holder of the secret can make one. Tokens do not expire:
 * a subscription does (a pending one within a day, every one after its flight).
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

/** The MAC of a subscription id for a purpose (base64url, 43 characters). */
function mac(secret: string, purpose: LinkPurpose, id: string): string {
  // The domain tag keeps these MACs apart from anything else the secret may ever sign.
  return createHmac("sha256", secret)
    .update(`flightwatch passenger link\n${purpose}\n${id}`)
    .digest("base64url");
}

/** The token of a subscription's link for `purpose`: `<id>.<mac>`. */
export function signLink(secret: string, purpose: LinkPurpose, id: string): string {
  if (!SUBSCRIPTION_ID_RE.test(id)) throw new Error(`not a subscription id: ${JSON.stringify(id)}`);
  return `${id}.${mac(secret, purpose, id)}`;
}

/**
 * The subscription id a token opens for `purpose`; undefined when the token is
 * malformed, was made for another purpose or with another secret, or was changed.
 */
export function verifyLink(
  secret: string,
  purpose: LinkPurpose,
  token: string | undefined,
): string | undefined {
  if (token === undefined) return undefined;
  const dot = token.lastIndexOf(".");
  if (dot < 0) return undefined;
  const id = token.slice(0, dot);
  if (!SUBSCRIPTION_ID_RE.test(id)) return undefined;
  const given = Buffer.from(token.slice(dot + 1), "utf8");
  const want = Buffer.from(mac(secret, purpose, id), "utf8");
  return given.length === want.length && timingSafeEqual(given, want) ? id : undefined;
}

/** The absolute URLs of a deployment's passenger links. */
export interface PassengerLinks {
  /** The page of `purpose` for subscription `id`, e.g. `https://flights.example.com/passenger/unsubscribe?t=…`. */
  url(purpose: LinkPurpose, id: string): string;
  /** The one-click unsubscribe URL of a subscription's emails (RFC 8058). */
  unsubscribeUrl(id: string): string;
}

/** Links under `publicUrl` (PUBLIC_URL, no trailing slash), signed with `secret`. */
export function passengerLinks(publicUrl: string, secret: string): PassengerLinks {
  const url = (purpose: LinkPurpose, id: string) =>
    `${publicUrl}${PASSENGER_PATH}/${PAGE_OF[purpose]}?t=${signLink(secret, purpose, id)}`;
  return { url, unsubscribeUrl: (id) => url("unsubscribe", id) };
}
