/**
 * Conformance: the paging rules (contract section "Paging", rules 1 to 9), on
 * /flights and on the reference collections.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { links, recordsOf, sampleFlights, walk } from "./support.js";
import { type ConformanceTarget, startTarget } from "./target.js";

let t: ConformanceTarget;
let sample: Flight[];
beforeAll(async () => {
  t = await startTarget();
  sample = await sampleFlights(t);
});
afterAll(() => t.close());

const pageParam = (url: string) => new URL(url).searchParams.get("page");

describe("paging", () => {
  it("[Paging 1, 3, 4, 7] following next from page 0 reads every page once; first has no prev, last no next", async () => {
    const pages = await walk(t, "/flights?sort=id");
    expect(pages.length, "today's flights span several pages").toBeGreaterThan(1);
    const ids = pages.flatMap((p) => p.records.map((f) => f.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages[0]?.links.prev).toBeUndefined();
    expect(pages.at(-1)?.links.next).toBeUndefined();
    pages.forEach((page, i) => {
      expect(page.links.first, `page ${i} first`).toBeDefined();
      expect(page.links.last, `page ${i} last`).toBeDefined();
      if (i > 0) expect(pageParam(page.links.prev ?? "")).toBe(String(i - 1));
      if (i < pages.length - 1) expect(pageParam(page.links.next ?? "")).toBe(String(i + 1));
    });
    expect(pageParam(pages[0]?.links.last ?? "")).toBe(String(pages.length - 1));
  });

  it("[Paging 3, 7] links are absolute URLs on the service's own origin", async () => {
    const first = await t.get("/flights");
    const rels = links(first.headers.link);
    expect(Object.keys(rels).sort()).toEqual(["first", "last", "next"]);
    for (const url of Object.values(rels)) {
      expect(() => new URL(url)).not.toThrow();
      expect(new URL(url).origin).toBe(new URL(t.base).origin);
      expect(new URL(url).pathname).toBe(`${new URL(t.base).pathname}/flights`);
    }
  });

  it("[Paging 6] generated links carry over the filters and the sort, URL-encoded", async () => {
    const f = sample[0] as Flight;
    const query = `flightDirection=${f.flightDirection}&sort=-scheduleDateTime,%2Bid&scheduleDate=${f.scheduleDate}`;
    const pages = await walk(t, `/flights?${query}`, "flights", 2);
    const next = pages[0]?.links.next;
    if (next === undefined) {
      // One page only: nothing to carry. The simulator's day spans several pages.
      expect(t.simulator, "a single page of flights in one direction").toBe(false);
      return;
    }
    const params = new URL(next).searchParams;
    expect(params.get("flightDirection")).toBe(f.flightDirection);
    expect(params.get("scheduleDate")).toBe(f.scheduleDate);
    expect(params.get("sort")).toBe("-scheduleDateTime,+id");
    for (const p of pages)
      for (const x of p.records) expect(x.flightDirection).toBe(f.flightDirection);
  });

  it("[Paging 4, 5] a single-page result has no prev/next (simulator: no Link header)", async () => {
    const f = sample[0] as Flight;
    const reply = await t.get(`/flights?flightName=${f.flightName}&scheduleDate=${f.scheduleDate}`);
    expect(recordsOf(reply, "flights").length).toBeGreaterThan(0);
    const rels = links(reply.headers.link);
    expect(rels.next).toBeUndefined();
    expect(rels.prev).toBeUndefined();
    if (t.simulator) expect(reply.headers.link).toBeUndefined();
  });

  it("[Paging 9, Errors 204] a page past the end is empty (simulator: 204, no body)", async () => {
    const first = await t.get("/flights");
    const last = Number(pageParam(links(first.headers.link).last ?? `${t.base}/flights?page=0`));
    const past = await t.get(`/flights?page=${last + 1}`);
    expect(recordsOf(past, "flights")).toEqual([]);
    if (t.simulator) {
      expect(past.status).toBe(204);
      expect(past.text).toBe("");
    }
  });

  it("[Paging 9] an empty result is empty (simulator: 204)", async () => {
    const reply = await t.get("/flights?flightName=ZZ99999");
    expect(recordsOf(reply, "flights")).toEqual([]);
    if (t.simulator) expect(reply.status).toBe(204);
  });

  it("[Paging 3] prev and first lead back to the pages they name", async () => {
    const pages = await walk(t, "/flights?sort=id", "flights", 2);
    const second = pages[1];
    if (second === undefined) return;
    const viaPrev = recordsOf<Flight>(await t.get(second.links.prev ?? ""), "flights");
    const viaFirst = recordsOf<Flight>(await t.get(second.links.first ?? ""), "flights");
    expect(viaPrev.map((f) => f.id)).toEqual(pages[0]?.records.map((f) => f.id));
    expect(viaFirst.map((f) => f.id)).toEqual(pages[0]?.records.map((f) => f.id));
  });

  it("[Paging 3, 4] the last link leads to a page without next", async () => {
    const first = await t.get("/flights");
    const last = links(first.headers.link).last;
    if (last === undefined) return;
    const reply = await t.get(last);
    expect(recordsOf(reply, "flights").length).toBeGreaterThan(0);
    expect(links(reply.headers.link).next).toBeUndefined();
  });

  it("[Paging 2] the page size is the service's: a pageSize parameter changes nothing", async () => {
    const plain = recordsOf(await t.get("/flights"), "flights");
    const asked = recordsOf(await t.get("/flights?pageSize=3"), "flights");
    expect(asked.length).toBe(plain.length);
  });

  it.each([
    ["/airlines", "airlines"],
    ["/aircrafttypes", "aircraftTypes"],
    ["/destinations", "destinations"],
  ])("[Paging applies to %s] walking next reads each record once", async (path, envelope) => {
    const pages = await walk<Record<string, unknown>>(t, path, envelope);
    const keys = pages.flatMap((p) => p.records.map((r) => JSON.stringify(r)));
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys).size).toBe(keys.length);
    expect(pages.at(-1)?.links.next).toBeUndefined();
  });
});
