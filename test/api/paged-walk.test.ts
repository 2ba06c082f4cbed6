import { describe, expect, it } from "vitest";
import { parseLinkHeader } from "../../src/api/link-header.js";
import { checkedNextLink, type Page, walkPages } from "../../src/api/paged-walk.js";
import { ErrorCode, UpstreamError } from "../../src/errors.js";

const ORIGIN = "https://api.example.test";
const URL0 = `${ORIGIN}/public/public-flights/v4/flights?page=0`;
const CONTEXT = { operation: "getFlights", url: URL0 } as const;

function linkError(header: string): UpstreamError {
  try {
    checkedNextLink(parseLinkHeader(header, URL0), ORIGIN, CONTEXT);
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error("expected an UpstreamError");
}

describe("checkedNextLink", () => {
  it("returns the resolved next URL, or undefined on the last page", () => {
    expect(
      checkedNextLink(parseLinkHeader(`</public/x?page=1>; rel="next"`, URL0), ORIGIN, CONTEXT),
    ).toBe(`${ORIGIN}/public/x?page=1`);
    expect(
      checkedNextLink(parseLinkHeader(`<${URL0}>; rel="first"`, URL0), ORIGIN, CONTEXT),
    ).toBeUndefined();
    expect(checkedNextLink([], ORIGIN, CONTEXT)).toBeUndefined();
  });

  it.each([
    ["another host", `<https://evil.test/v4/flights?page=1>; rel="next"`],
    ["another port", `<https://api.example.test:8443/v4/flights?page=1>; rel="next"`],
    ["another scheme", `<http://api.example.test/v4/flights?page=1>; rel="next"`],
    ["a look-alike host", `<https://api.example.test.evil.test/v4?page=1>; rel="next"`],
    ["credentials in the URL", `<https://user:pw@api.example.test/v4?page=1>; rel="next"`],
    ["no URL at all", `<http://[broken>; rel="next"`],
  ])("rejects a next link to %s with FW_ERR_UPSTREAM_LINK", (_label, header) => {
    const err = linkError(header);
    expect(err.code).toBe(ErrorCode.UPSTREAM_LINK);
    expect(err.details).toEqual(CONTEXT);
  });
});

const page = (url: string, index: number, next?: string): Page<number> => ({
  index,
  url,
  status: 200,
  items: [index],
  malformed: [],
  links: [],
  next,
});

async function walk(
  nexts: (string | undefined)[],
  maxPages = 500,
): Promise<{ urls: string[]; error?: UpstreamError }> {
  const urls: string[] = [];
  try {
    for await (const p of walkPages(URL0, async (url, index) => page(url, index, nexts[index]), {
      operation: "getFlights",
      maxPages,
    })) {
      urls.push(p.url);
    }
  } catch (err) {
    if (err instanceof UpstreamError) return { urls, error: err };
    throw err;
  }
  return { urls };
}

describe("walkPages", () => {
  it("follows next until there is none", async () => {
    const { urls, error } = await walk([`${ORIGIN}/a`, `${ORIGIN}/b`, undefined]);
    expect(urls).toEqual([URL0, `${ORIGIN}/a`, `${ORIGIN}/b`]);
    expect(error).toBeUndefined();
  });

  it("stops a loop back to any page already read", async () => {
    const { urls, error } = await walk([`${ORIGIN}/a`, `${ORIGIN}/b`, `${ORIGIN}/a`]);
    expect(urls).toHaveLength(3);
    expect(error?.code).toBe(ErrorCode.UPSTREAM_LINK);
    expect((await walk([URL0])).error?.code).toBe(ErrorCode.UPSTREAM_LINK);
  });

  it("reads at most maxPages pages, then fails if a next is still pending", async () => {
    const nexts = Array.from({ length: 600 }, (_, i) => `${ORIGIN}/p${i + 1}`);
    const capped = await walk(nexts);
    expect(capped.urls).toHaveLength(500);
    expect(capped.error?.code).toBe(ErrorCode.UPSTREAM_PAGE_LIMIT);
    // Exactly maxPages pages with the last one final is fine.
    const exact = await walk([...nexts.slice(0, 2), undefined], 3);
    expect(exact.urls).toHaveLength(3);
    expect(exact.error).toBeUndefined();
  });
});
