/**
 * Credentials the simulator accepts: bearer tokens (`Authorization: Bearer <JWT>`,
 * as the contract says) and, as the live service has also been documented with,
 * `app_id`/`app_key` header pairs. Tokens are opaque here: the simulator checks
 * that a token is one it handed out, not a JWT signature.
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** One `app_id`/`app_key` pair. */
export interface AppCredentials {
  appId: string;
  appKey: string;
}

/** Accepted credentials. Either kind alone authenticates a request. */
export interface AuthOptions {
  tokens?: string[];
  appCredentials?: AppCredentials[];
}

const BEARER_RE = /^bearer\s+(\S+)\s*$/i;

/** Builds the credential check; `false` lets every request through. */
export function createAuthCheck(
  auth: false | AuthOptions,
): (headers: IncomingHttpHeaders) => boolean {
  if (auth === false) return () => true;
  const tokens = new Set(auth.tokens ?? []);
  const pairs = new Set((auth.appCredentials ?? []).map((c) => `${c.appId}\u0000${c.appKey}`));
  return (headers) => {
    const authorization = headers.authorization;
    if (authorization !== undefined) {
      const token = BEARER_RE.exec(authorization)?.[1];
      if (token !== undefined && tokens.has(token)) return true;
    }
    const appId = headers.app_id;
    const appKey = headers.app_key;
    return (
      typeof appId === "string" &&
      typeof appKey === "string" &&
      pairs.has(`${appId}\u0000${appKey}`)
    );
  };
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString("base64url");

/**
 * A fresh random token in JWT form (`header.payload.signature`, base64url), so
 * clients that check the shape of a token accept it. It is not signed by anything.
 */
export function generateToken(): string {
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = base64url(
    JSON.stringify({ sub: "flightwatch-simulator", jti: randomBytes(9).toString("hex") }),
  );
  return `${header}.${payload}.${base64url(randomBytes(32))}`;
}
