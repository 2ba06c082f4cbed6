/**
 * Reading a paged collection to its end: start at page 0 and follow each page's
 * `next` link exactly as given until there is none. The count of items never ends
 * the walk (the contract says it is no sign of a further page); a 204 is an empty
 * page like any other. Two guards stop a misbehaving upstream: a `next` that was
 * already visited (a loop) and the contract's cap of 500 pages. A last allowed page
 * (index 499) that holds records fails too, next link or not: the upstream cannot be
 * asked for page 500, so the result may be cut off there and must not pass as whole.
 */
import { ErrorCode, UpstreamError } from "../errors.js";
import { PAGE_MAX } from "./contract.js";
import { findLink, type Link } from "./link-header.js";
import type { OperationId } from "./operation-id.js";
import type { MalformedRecord } from "./response-body.js";

/** One page of a collection, as read from the upstream. */
export interface Page<T> {
  /** Position in the walk: 0 for the first page read. */
  index: number;
  /** URL the page was read from. */
  url: string;
  /** HTTP status: 200, or 204 for an empty page. */
  status: number;
  /** Records that passed validation, in upstream order. */
  items: T[];
  /** Records skipped because they break the contract. */
  malformed: MalformedRecord[];
  /** Every link of the page's `Link` header. */
  links: Link[];
  /** The `next` link, resolved and checked to be on the API's origin; undefined on the last page. */
  next: string | undefined;
  /** The upstream's clock when it answered (its `Date` header, epoch ms; second precision), when sent and readable. */
  date?: number;
  /** Items taken as already validated (same id and stamp as a record the walk was given), when any. */
  reused?: number;
}

/** Limits of a walk. */
export interface WalkLimits {
  operation: OperationId;
  /** Most pages to read; reaching it with a `next` still pending is an error. */
  maxPages: number;
}

/**
 * The page's `next` URL, or undefined on the last page. Throws FW_ERR_UPSTREAM_LINK
 * when it is not a URL or leaves `allowedOrigin`: credentials go with every page
 * request, so they must never follow a link to another host.
 */
export function checkedNextLink(
  links: readonly Link[],
  allowedOrigin: string,
  context: { operation: OperationId; url: string },
): string | undefined {
  const next = findLink(links, "next");
  if (!next) return undefined;
  const fail = (why: string): never => {
    throw new UpstreamError(ErrorCode.UPSTREAM_LINK, `${context.operation}: ${why}`, context);
  };
  if (next.href === undefined) return fail(`the next link <${next.target}> is not a URL`);
  const target = new URL(next.href);
  if (target.origin !== allowedOrigin) {
    return fail(
      `the next link points to ${target.origin}, not the API's origin ${allowedOrigin}; not following it`,
    );
  }
  if (target.username !== "" || target.password !== "") {
    return fail("the next link carries credentials in its URL; not following it");
  }
  return next.href;
}

/** Reads pages from `firstUrl` along `next` links; see the module comment. */
export async function* walkPages<T>(
  firstUrl: string,
  fetchPage: (url: string, index: number) => Promise<Page<T>>,
  limits: WalkLimits,
): AsyncGenerator<Page<T>, void, undefined> {
  const visited = new Set<string>([new URL(firstUrl).href]);
  let url = firstUrl;
  for (let index = 0; ; index++) {
    const page = await fetchPage(url, index);
    yield page;
    if (index >= PAGE_MAX) {
      if (page.items.length === 0 && page.malformed.length === 0) return;
      throw new UpstreamError(
        ErrorCode.UPSTREAM_PAGE_LIMIT,
        `${limits.operation}: result reaches the ${PAGE_MAX + 1}-page cap and may be truncated; ` +
          "narrow the query (e.g. a shorter time window)",
        { operation: limits.operation, url: page.url },
      );
    }
    if (page.next === undefined) return;
    if (index + 1 >= limits.maxPages) {
      throw new UpstreamError(
        ErrorCode.UPSTREAM_PAGE_LIMIT,
        `${limits.operation}: read ${limits.maxPages} pages and the upstream still links a next one; ` +
          "narrow the query (e.g. a shorter time window) so it fits the 500-page cap",
        { operation: limits.operation, url: page.next },
      );
    }
    if (visited.has(page.next)) {
      throw new UpstreamError(
        ErrorCode.UPSTREAM_LINK,
        `${limits.operation}: the next link of ${url} leads back to ${page.next}, already read; stopping a loop`,
        { operation: limits.operation, url },
      );
    }
    visited.add(page.next);
    url = page.next;
  }
}
