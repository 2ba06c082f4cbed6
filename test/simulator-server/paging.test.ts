import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_BASE_PATH, PAGE_MAX } from "../../src/api/contract.js";
import type { Flight } from "../../src/api/types.js";
import { linkHeader, pageOf } from "../../src/simulator/http/paging.js";
import { fixtureFlights, TODAY } from "./fixture-store.js";
import { type Harness, startHarness } from "./harness.js";

/** `rel` → URL of a Link header. */
function links(header: string | string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of String(header ?? "").matchAll(/<([^>]*)>;\s*rel="([^"]+)"/g)) {
    out[m[2] as string] = m[1] as string;
  }
  return out;
}

describe("pageOf / linkHeader", () => {
  it("cuts pages and reports the last one, capped at PAGE_MAX", () => {
    const items = Array.from({ length: 45 }, (_, i) => i);
    expect(pageOf(items, 0, 20)).toEqual({ items: items.slice(0, 20), page: 0, lastPage: 2 });
    expect(pageOf(items, 2, 20)?.items).toEqual(items.slice(40));
    expect(pageOf(items, 3, 20)).toBeUndefined();
    expect(pageOf([], 0, 20)).toBeUndefined();
    expect(
      pageOf(
        Array.from({ length: 600 }, (_, i) => i),
        0,
        1,
      )?.lastPage,
    ).toBe(PAGE_MAX);
  });

  it("truncates a result beyond PAGE_MAX + 1 pages: page PAGE_MAX is served without next", () => {
    // Documented (docs/simulator.md, Paging): the client reports FW_ERR_UPSTREAM_PAGE_LIMIT.
    const items = Array.from({ length: 600 }, (_, i) => i);
    const page = pageOf(items, PAGE_MAX, 1);
    expect(page).toEqual({ items: [PAGE_MAX], page: PAGE_MAX, lastPage: PAGE_MAX });
    const rels = links(linkHeader("http://h/x", new URLSearchParams(), PAGE_MAX, PAGE_MAX));
    expect(rels.next).toBeUndefined();
    expect(rels.last).toBe(`http://h/x?page=${PAGE_MAX}`);
  });

  it("has no Link for a single page, and first/prev/next/last otherwise", () => {
    const params = new URLSearchParams("sort=-id&page=1");
    expect(linkHeader("http://h/x", params, 0, 0)).toBeUndefined();
    expect(links(linkHeader("http://h/x", params, 0, 2))).toEqual({
      first: "http://h/x?sort=-id&page=0",
      next: "http://h/x?sort=-id&page=1",
      last: "http://h/x?sort=-id&page=2",
    });
    expect(links(linkHeader("http://h/x", params, 2, 2))).toEqual({
      first: "http://h/x?sort=-id&page=0",
      prev: "http://h/x?sort=-id&page=1",
      last: "http://h/x?sort=-id&page=2",
    });
  });

  it("URL-encodes carried values so they decode to what was sent", () => {
    const params = new URLSearchParams();
    params.set("sort", "+flightName, id");
    params.set("route", "LHR,CDG");
    const next = links(linkHeader("http://h/x", params, 0, 1)).next as string;
    const back = new URL(next).searchParams;
    expect(back.get("sort")).toBe("+flightName, id");
    expect(back.get("route")).toBe("LHR,CDG");
    expect(next).not.toMatch(/[ +]/);
  });
});

describe("paging over HTTP (page size 7)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ pageSize: 7 });
  });
  afterAll(() => h.close());
  const today = fixtureFlights().filter((f) => f.scheduleDate === TODAY);

  it("walks every page by following next, each item once, in sort order", async () => {
    const seen: string[] = [];
    let url: string | undefined = `${h.base}/flights?scheduleDate=${TODAY}&sort=-id`;
    const pages: Record<string, string>[] = [];
    while (url) {
      const res = await h.get(url);
      expect(res.status).toBe(200);
      seen.push(...(JSON.parse(res.text) as { flights: Flight[] }).flights.map((f) => f.id ?? ""));
      const rels = links(res.headers.link);
      pages.push(rels);
      url = rels.next;
    }
    expect(seen).toEqual(
      today
        .map((f) => f.id)
        .sort()
        .reverse(),
    );
    expect(pages).toHaveLength(Math.ceil(today.length / 7));
    expect(pages[0]?.prev).toBeUndefined();
    expect(pages.at(-1)?.next).toBeUndefined();
    for (const rels of pages) {
      expect(rels.first).toMatch(/page=0$/);
      expect(rels.last).toMatch(new RegExp(`page=${pages.length - 1}$`));
      for (const link of Object.values(rels)) {
        expect(link.startsWith(`${h.origin}${API_BASE_PATH}/flights?`)).toBe(true);
        expect(new URL(link).searchParams.get("sort")).toBe("-id");
        expect(new URL(link).searchParams.get("scheduleDate")).toBe(TODAY);
      }
    }
    expect(pages[2]?.prev).toMatch(/page=1$/);
  });

  it("answers 204 with no body past the last page and for an empty result", async () => {
    const past = await h.get(`/flights?scheduleDate=${TODAY}&page=5`);
    expect(past.status).toBe(204);
    expect(past.text).toBe("");
    const empty = await h.get("/flights?flightName=XX9999");
    expect(empty.status).toBe(204);
    expect(empty.text).toBe("");
  });

  it("sends no Link header when the result fits one page", async () => {
    const res = await h.get("/flights?flightDirection=A&airline=HV");
    expect(res.status).toBe(200);
    expect(res.headers.link).toBeUndefined();
  });

  it("builds link URLs from the request's Host header", async () => {
    const res = await h.get(`/flights?scheduleDate=${TODAY}`, { host: "flights.example:8443" });
    expect(links(res.headers.link).next).toBe(
      `http://flights.example:8443${API_BASE_PATH}/flights?scheduleDate=${TODAY}&page=1`,
    );
  });

  it("pages reference collections too", async () => {
    const first = await h.get("/destinations");
    expect(JSON.parse(first.text).destinations).toHaveLength(6);
    const small = await startHarness({ pageSize: 2 });
    try {
      const res = await small.get("/airlines?sort=-nvls");
      const rels = links(res.headers.link);
      expect(rels.next).toBe(`${small.base}/airlines?sort=-nvls&page=1`);
      expect(rels.last).toBe(`${small.base}/airlines?sort=-nvls&page=2`);
      expect((await small.get("/airlines?page=3")).status).toBe(204);
    } finally {
      await small.close();
    }
  });
});
