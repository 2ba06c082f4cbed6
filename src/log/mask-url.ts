/**
 * URLs for people: what to show of a URL that may carry a credential. Two strengths:
 * `maskUrl` hides only the userinfo password (Redis and SMTP URLs, whose host and user
 * are worth seeing), `maskEndpointUrl` keeps only scheme, host and the start of the
 * path (webhook and Slack URLs, whose path is the credential).
 */

/**
 * `scheme://user:password@` up to the authority's end. The password runs to the last
 * `@` before `/`, `?`, `#` or white space, as the WHATWG URL parser reads it, so a raw
 * `@` in a password does not leave its tail showing.
 */
const USERINFO_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)[^\s/?#]*@/gi;

/**
 * Text with the password of every URL in it replaced by `***` (`redis://:***@host`,
 * `smtp://user:***@host`), for messages and logs. Works on a URL or on free text.
 */
export function maskUrl(text: string): string {
  return text.replace(USERINFO_PASSWORD, "$1***@");
}

/** A URL cut to scheme, host and 8 characters of path (no query, no credentials). */
export function maskEndpointUrl(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.length > 9 ? `${u.pathname.slice(0, 9)}…` : u.pathname;
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return "(not a URL)";
  }
}
