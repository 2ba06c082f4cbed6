/**
 * How a passenger page goes out: the simple pages (a message, 429, 405), the headers
 * every page carries (no caching, since links hold tokens; no framing, no referrer, no
 * script) and the redirects of the pages' base path.
 */
import type { ServerResponse } from "node:http";
import { sendBody } from "../ops/send-body.js";
import type { Language } from "../render/language.js";
import { pageHtml, paragraphs } from "./page-html.js";
import { pageLanguage, wordsOf } from "./page-words.js";

/** One answer: a status, a page, extra headers. */
export interface Answer {
  status: number;
  html: string;
  headers?: Record<string, string>;
}

/** A page of a few paragraphs and links. */
export function message(
  status: number,
  language: Language,
  title: string,
  body: string,
  queryFor: (l: Language) => string,
): Answer {
  return { status, html: pageHtml({ language, title, body, queryFor }) };
}

/** 429: a rate limit refused the form; `Retry-After` says when to come back. */
export function tooMany(language: Language, text: string, retryAfterMs: number): Answer {
  const w = wordsOf(language);
  return {
    ...message(429, language, w.tooManyTitle, paragraphs(text), (l) => `?lang=${l}`),
    headers: { "retry-after": String(Math.ceil(retryAfterMs / 1000)) },
  };
}

/** 405, with the methods the page takes. */
export function notAllowed(url: URL, accept: string | undefined, allow: string): Answer {
  const language = pageLanguage(url.searchParams.get("lang"), undefined, accept);
  const w = wordsOf(language);
  return {
    ...message(405, language, w.notAllowedTitle, paragraphs(w.notAllowed), (l) => `?lang=${l}`),
    headers: { allow },
  };
}

/**
 * Headers every page carries: no caching (links hold tokens), no framing, no script,
 * and no referrer to other sites (links hold tokens) — but to its own, so that its
 * forms' POSTs carry their origin (with `no-referrer` a browser sends `Origin: null`,
 * which the pages cannot tell from another site's form).
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};

/** Sends a body with the pages' headers. */
export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  sendBody(res, status, type, body, { ...PAGE_HEADERS, ...headers });
}

/** A 303 to `location` (relative, so a proxy's path prefix stays). */
export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { ...PAGE_HEADERS, location, "content-length": 0 });
  res.end();
}
