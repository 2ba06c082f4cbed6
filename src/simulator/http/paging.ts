/**
 * Paging as the contract describes it: zero-based pages of a size the server
 * chooses, and a `Link` header with absolute `first`/`prev`/`next`/`last` URLs that
 * carry over every other query parameter of the request, URL-encoded.
 */
import { PAGE_MAX } from "../../api/contract.js";

/** One page of a result, or undefined when the page is empty or past the end (204). */
export interface Page<T> {
  items: T[];
  page: number;
  /** Highest page a client can request: capped at PAGE_MAX, as `page` is. */
  lastPage: number;
}

/** Cuts page `page` out of `items`; undefined when it holds nothing. */
export function pageOf<T>(
  items: readonly T[],
  page: number,
  pageSize: number,
): Page<T> | undefined {
  const start = page * pageSize;
  if (start >= items.length) return undefined;
  const lastPage = Math.min(Math.ceil(items.length / pageSize) - 1, PAGE_MAX);
  return { items: items.slice(start, start + pageSize), page, lastPage };
}

/**
 * The `Link` header value for a page, or undefined when there is only one page.
 * `base` is the absolute URL of the collection without query (`http://host/…/flights`);
 * `params` are the request's parameters, of which every one but `page` is carried over.
 */
export function linkHeader(
  base: string,
  params: URLSearchParams,
  page: number,
  lastPage: number,
): string | undefined {
  if (lastPage === 0) return undefined;
  let carried = "";
  for (const [name, value] of params) {
    if (name === "page") continue;
    carried += `${encodeURIComponent(name)}=${encodeURIComponent(value)}&`;
  }
  const url = (p: number): string => `<${base}?${carried}page=${p}>`;
  const links = [`${url(0)}; rel="first"`];
  if (page > 0) links.push(`${url(page - 1)}; rel="prev"`);
  if (page < lastPage) links.push(`${url(page + 1)}; rel="next"`);
  links.push(`${url(lastPage)}; rel="last"`);
  return links.join(", ");
}
