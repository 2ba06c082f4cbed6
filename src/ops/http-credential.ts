/**
 * The credential of a protected ops route (the dashboard, and /metrics when
 * METRICS_TOKEN is set): one secret token, presented as `Authorization: Bearer <token>`
 * (scrapers, scripts) or as the password of HTTP basic auth, any user name (so a
 * browser can log in). Compared in constant time: the answer takes as long whatever
 * the guess, so it tells nothing about how much of it was right.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The realm a browser shows in its login prompt. */
export const CREDENTIAL_REALM = "flightwatch";

/** The challenge of a 401: basic auth, so a browser asks for the token. */
export const CREDENTIAL_CHALLENGE = `Basic realm="${CREDENTIAL_REALM}", charset="UTF-8"`;

/** Checks requests against one token. */
export interface CredentialCheck {
  /** Whether the request presents the token (bearer, or basic auth password). */
  allows(req: IncomingMessage): boolean;
}

/** A check of requests against `token`. */
export function credentialCheck(token: string): CredentialCheck {
  const expected = digest(token);
  return {
    allows(req) {
      const presented = presentedToken(req.headers.authorization);
      // Digests have one length, so timingSafeEqual never throws nor leaks the token's length.
      return presented !== undefined && timingSafeEqual(digest(presented), expected);
    },
  };
}

/** The token an `Authorization` header presents: the bearer token, or the basic auth password. */
function presentedToken(header: string | undefined): string | undefined {
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header ?? "");
  if (!match) return undefined;
  const scheme = (match[1] as string).toLowerCase();
  const value = match[2] as string;
  if (scheme === "bearer") return value;
  if (scheme !== "basic") return undefined;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
