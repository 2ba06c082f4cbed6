/**
 * The reading hazards of change detection (issue 4), each against the simulator
 * over loopback HTTP: records that move while a window is paged, more than a page
 * of records in one second, the DST changes of the wall-clock query bounds, the
 * 500-page cap, and flights removed while a full read pages through their date.
 * Every scenario is scripted on a ManualClock; page hooks change the upstream
 * between one page response and the next request.
 */
import { describe, expect, it } from "vitest";
import type { FlightApiClient } from "../../src/api/flight-api-client.js";
import type { FlightsQuery } from "../../src/api/query-params.js";
import type { Flight } from "../../src/api/types.js";
import { readChangedSince, readHorizon } from "../../src/detect/flight-reader.js";
import {
  DEFAULT_HORIZON_DAYS,
  horizonDates,
  type ScheduleHorizon,
  scheduleHorizon,
} from "../../src/detect/horizon.js";
import type { ChangeEvent } from "../../src/diff/change.js";
import { ErrorCode, FlightwatchError } from "../../src/errors.js";
import {
  type DetectHarness,
  type FlightsPageHook,
  harnessesClosedAfterEach,
  ZONE,
} from "./detect-harness.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 86_400_000;

const harness = harnessesClosedAfterEach("hazard");

/** Sets the gate of a flight (and its codeshares) now; returns the new gate. */
function setGate(h: DetectHarness, flight: Flight, gate: string): string {
  h.sim.simulator.apply({ kind: "update", target: { id: flight.id as string }, patch: { gate } });
  return gate;
}

/** Ids of the records of `horizon` that the upstream holds with `lastUpdatedAt` ≥ `sinceMs`. */
function changedSince(h: DetectHarness, horizon: ScheduleHorizon, sinceMs: number): Set<string> {
  const store = h.sim.simulator.store;
  const ids = new Set<string>();
  for (const f of store.all()) {
    const date = f.scheduleDate ?? "";
    if (date >= horizon.from && date <= horizon.to && store.lastUpdatedMs(f) >= sinceMs) {
      ids.add(f.id as string);
    }
  }
  return ids;
}

/**
 * A page hook that, after each page of a `lastUpdatedAt` window, updates the first
 * record of that page not moved before (a touch: a new `lastUpdatedAt`, no field
 * changed) a second later. The record moves to the end of the order and every
 * record after it shifts back by one, across the next page boundary.
 */
function mover(h: DetectHarness): { hook: FlightsPageHook; moved: string[] } {
  const moved: string[] = [];
  const hook: FlightsPageHook = (page) => {
    if (new URL(page.url).searchParams.get("searchDateTimeField") !== "lastUpdatedAt") return;
    const victim = page.items.find((f) => !moved.includes(f.id as string));
    if (!victim) return;
    h.clock.advance(SECOND);
    h.sim.simulator.store.update(victim.id as string, {});
    moved.push(victim.id as string);
  };
  return { hook, moved };
}

/** The reader's window, walked the naive way: one query, its `next` links to the end. */
async function naiveWalk(
  client: FlightApiClient,
  horizon: ScheduleHorizon,
  sinceMs: number,
  nowMs: number,
): Promise<Set<string>> {
  const query: FlightsQuery = {
    fromScheduleDate: horizon.from,
    toScheduleDate: horizon.to,
    sort: "+lastUpdatedAt,+id",
    searchDateTimeField: "lastUpdatedAt",
    fromDateTime: sinceMs,
    toDateTime: nowMs + DAY,
  };
  const seen = new Set<string>();
  for await (const page of client.pages("flights", query)) {
    for (const f of page.items) seen.add(f.id as string);
  }
  return seen;
}

const solo = (f: Flight): boolean => !f.codeshares?.codeshares?.length;

const missingFrom = (expected: Set<string>, seen: { has(id: string): boolean }): string[] =>
  [...expected].filter((id) => !seen.has(id));

/** Asserts `events` are exactly one gate event per flight in `gates` (operating id → new gate). */
function expectGateEventsOnce(events: readonly ChangeEvent[], gates: Map<string, string>): void {
  const byFlight = new Map<string, ChangeEvent[]>();
  for (const e of events) byFlight.set(e.flight.id, [...(byFlight.get(e.flight.id) ?? []), e]);
  const problems: string[] = [];
  for (const [id, gate] of gates) {
    const seen = byFlight.get(id) ?? [];
    if (seen.length !== 1 || seen[0]?.kind !== "gate" || seen[0]?.new !== gate) {
      problems.push(`${id}: ${JSON.stringify(seen.map((e) => [e.kind, e.new]))}`);
    }
  }
  for (const id of byFlight.keys()) if (!gates.has(id)) problems.push(`${id}: unexpected`);
  expect(problems).toEqual([]);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
}

const horizonAt = (h: DetectHarness): ScheduleHorizon =>
  scheduleHorizon(h.clock.now(), ZONE, DEFAULT_HORIZON_DAYS);

describe("paging a window while its records update", () => {
  // Scripted changes: `perSecond` flights share each second, so with perSecond > 1
  // the window holds seconds of more than one page (pageSize 3, codeshares too).
  for (const perSecond of [1, 4]) {
    it(`reads every changed record while read ones move to the end (${perSecond} flight(s) a second); a naive link walk loses some`, async () => {
      const h = await harness({ pageSize: 3 });
      const since = h.clock.now();
      const flights = h.operatingFlights().slice(0, 24);
      flights.forEach((f, i) => {
        if (i % perSecond === 0) h.clock.advance(SECOND);
        setGate(h, f, `M${i}`);
      });
      h.clock.advance(SECOND);
      const horizon = horizonAt(h);
      const expected = changedSince(h, horizon, since);
      expect(expected.size).toBeGreaterThan(flights.length);

      // The hazard is real: the same window walked along its links, with the same
      // updates between pages, skips the record that slid under each boundary.
      const naive = mover(h);
      h.onFlightsPage(naive.hook);
      const seen = await naiveWalk(h.client, horizon, since, h.clock.now());
      expect(naive.moved.length).toBeGreaterThan(3);
      expect(missingFrom(expected, seen).length).toBeGreaterThan(0);

      const moving = mover(h);
      h.onFlightsPage(moving.hook);
      const read = await readChangedSince(h.client, horizon, since, { now: () => h.clock.now() });
      h.onFlightsPage();
      expect(moving.moved.length).toBeGreaterThan(3);
      expect(missingFrom(expected, read.records)).toEqual([]);
    });
  }

  it("a record that slides under the boundary where a followed walk leaves a crowded second is read", async () => {
    const h = await harness({ pageSize: 3 });
    h.clock.advance(10 * SECOND);
    const since = h.clock.now();
    const flights = h.operatingFlights(solo).slice(0, 12);
    // Two pages' worth in the first second (walked along links), then one a second
    // from two seconds on (a re-read of one second also covers the next: the upper
    // bound is inclusive at second precision).
    for (const [i, f] of flights.entries()) {
      if (i >= 6) h.clock.advance(i === 6 ? 2 * SECOND : SECOND);
      setGate(h, f, `G${i}`);
    }
    h.clock.advance(SECOND);
    const horizon = horizonAt(h);
    const expected = changedSince(h, horizon, since);
    expect(expected.size).toBe(12);
    // After the second page of the crowd, its first record moves to the end: the
    // first record after the crowd slides back onto that page, already read.
    let moved = false;
    h.onFlightsPage((page) => {
      if (moved || page.index !== 1) return;
      h.clock.advance(SECOND);
      h.sim.simulator.store.update(flights[0]?.id as string, {});
      moved = true;
    });
    const read = await readChangedSince(h.client, horizon, since, { now: () => h.clock.now() });
    expect(moved).toBe(true);
    expect(missingFrom(expected, read.records)).toEqual([]);
  });

  it("the Detector reports each change exactly once while records move between its page requests", async () => {
    const h = await harness({ pageSize: 3, settings: { reconcileEveryMs: 0 } });
    expect((await h.detector.poll()).mode).toBe("baseline");
    const gates = new Map<string, string>();
    // Distinct seconds first, then three crowded seconds of five flights each.
    h.operatingFlights()
      .slice(0, 27)
      .forEach((f, i) => {
        if (i < 12 || i % 5 === 0) h.clock.advance(SECOND);
        gates.set(f.id as string, setGate(h, f, `P${i}`));
      });
    h.clock.advance(SECOND);
    const moving = mover(h);
    h.onFlightsPage(moving.hook);
    const poll = await h.detector.poll();
    h.onFlightsPage();
    expect(poll).toMatchObject({ outcome: "committed", mode: "incremental" });
    expect(moving.moved.length).toBeGreaterThan(5);
    expectGateEventsOnce(poll.events, gates);

    // The touched records come back with newer stamps and no change: no events.
    h.clock.advance(SECOND);
    const again = await h.detector.poll();
    expect(again.events).toEqual([]);
    expect(await h.outbox()).toEqual(poll.events);
  });
});

describe("more than a page of records in one second", () => {
  it("reads 50 flights updated at one instant with pages of 5", async () => {
    const h = await harness({ pageSize: 5, settings: { reconcileEveryMs: 0 } });
    await h.detector.poll();
    h.clock.advance(10 * SECOND);
    const since = h.clock.now();
    const flights = h.operatingFlights().slice(0, 53);
    const gates = new Map<string, string>();
    // A few seconds of single changes, then the crowd: the reads reach it from an
    // earlier second, as a poll does.
    for (const [i, f] of flights.entries()) {
      if (i < 4) h.clock.advance(SECOND);
      gates.set(f.id as string, setGate(h, f, `T${i}`));
    }
    const horizon = horizonAt(h);
    const expected = changedSince(h, horizon, since);
    expect(expected.size).toBeGreaterThanOrEqual(53);
    h.clock.advance(SECOND);

    const read = await readChangedSince(h.client, horizon, since, { now: () => h.clock.now() });
    expect(missingFrom(expected, read.records)).toEqual([]);

    const poll = await h.detector.poll();
    expect(poll.mode).toBe("incremental");
    expectGateEventsOnce(poll.events, gates);
  });
});

describe("the DST changes of the wall-clock query bounds", () => {
  it("autumn 2026-10-25: changes stamped in the second 02:00 hour, earlier on the wall clock than the watermark, are all found", async () => {
    const h = await harness({
      startMs: Date.parse("2026-10-25T00:20:00Z"), // 02:20 local, first pass (+02:00)
      pageSize: 3,
      settings: { reconcileEveryMs: 0 },
    });
    expect((await h.detector.poll()).mode).toBe("baseline");
    const flights = h.operatingFlights();
    const at = (iso: string): void => h.clock.set(Date.parse(iso));
    const firstPass = new Map<string, string>();
    // Eight changes in the first pass, 02:30–02:51 local: older records that the
    // widened lower bound of every later window matches again (more than a page).
    for (let i = 0; i < 8; i++) {
      at(`2026-10-25T00:${30 + 3 * i}:00Z`);
      firstPass.set(flights[i]?.id as string, setGate(h, flights[i] as Flight, `F${i}`));
    }
    at("2026-10-25T00:52:00Z");
    const first = await h.detector.poll();
    expectGateEventsOnce(first.events, firstPass);
    expect(first.watermark).toBe(Date.parse("2026-10-25T00:51:00Z")); // 02:51 local, +02:00

    // Second pass: 02:05 local (+01:00) is earlier on the wall clock than the
    // watermark's 02:51, yet later in time.
    at("2026-10-25T01:05:00Z");
    const early = flights[10] as Flight;
    const secondPass = new Map([[early.id as string, setGate(h, early, "S0")]]);
    expect(h.sim.simulator.store.get(early.id as string)?.lastUpdatedAt).toMatch(
      /^2026-10-25T02:05:00\.000\+01:?00$/,
    );
    at("2026-10-25T01:06:00Z");
    const second = await h.detector.poll();
    expectGateEventsOnce(second.events, secondPass);

    // Later second-pass changes, some sharing a second, read from a cursor at
    // 02:04 local (+01:00) whose window also matches the first pass from 02:04.
    const later = new Map<string, string>();
    for (let i = 11; i < 18; i++) {
      at(`2026-10-25T01:${10 + 2 * Math.floor(i / 2)}:00Z`);
      later.set(flights[i]?.id as string, setGate(h, flights[i] as Flight, `L${i}`));
    }
    at("2026-10-25T01:50:00Z");
    const third = await h.detector.poll();
    expectGateEventsOnce(third.events, later);

    h.clock.advance(MINUTE);
    expect((await h.detector.poll()).events).toEqual([]);
    expect(await h.outbox()).toHaveLength(firstPass.size + secondPass.size + later.size);

    // Every window above matched older records of the first pass from 02:00 local,
    // more than a page of them. Reading past them costs pages per page of changes,
    // not per second of the window (which took 14,000 requests for the first poll).
    expect(first.requests).toBeLessThan(150);
    expect(third.requests).toBeLessThan(150);
  });

  it("spring 2026-03-29: changes on both sides of the skipped 02:00 hour are found", async () => {
    const h = await harness({
      startMs: Date.parse("2026-03-29T00:30:00Z"), // 01:30 local (+01:00)
      pageSize: 3,
      settings: { reconcileEveryMs: 0 },
    });
    await h.detector.poll();
    const flights = h.operatingFlights();
    const at = (iso: string): void => h.clock.set(Date.parse(iso));
    const before = new Map<string, string>();
    for (let i = 0; i < 4; i++) {
      at(`2026-03-29T00:${50 + 2 * i}:00Z`); // 01:50–01:56 local
      before.set(flights[i]?.id as string, setGate(h, flights[i] as Flight, `B${i}`));
    }
    at("2026-03-29T00:59:30Z");
    expectGateEventsOnce((await h.detector.poll()).events, before);

    const after = new Map<string, string>();
    for (let i = 4; i < 9; i++) {
      at(`2026-03-29T01:0${i - 4}:00Z`); // 03:00–03:04 local (+02:00)
      after.set(flights[i]?.id as string, setGate(h, flights[i] as Flight, `A${i}`));
    }
    expect(h.sim.simulator.store.get(flights[4]?.id as string)?.lastUpdatedAt).toMatch(
      /^2026-03-29T03:00:00\.000\+02:?00$/,
    );
    at("2026-03-29T01:10:00Z");
    expectGateEventsOnce((await h.detector.poll()).events, after);
  });
});

describe("the 500-page cap (maxPages 5)", () => {
  const isPageLimit = (err: unknown): boolean =>
    err instanceof FlightwatchError && err.code === ErrorCode.UPSTREAM_PAGE_LIMIT;

  it("a full horizon read larger than the cap is split until each part fits", async () => {
    const h = await harness({ pageSize: 2, client: { maxPages: 5 } });
    const horizon = horizonAt(h);
    const date = horizon.from;
    // One date walked whole reaches the cap.
    const walk = async (): Promise<void> => {
      for await (const _ of h.client.pages("flights", {
        fromScheduleDate: date,
        toScheduleDate: date,
        sort: "+scheduleDateTime,+id",
      }));
    };
    await expect(walk()).rejects.toSatisfy(isPageLimit);

    const read = await readHorizon(h.client, horizon);
    const all = [...h.sim.simulator.store.all()].map((f) => f.id as string);
    expect(all.length).toBeGreaterThan(300);
    expect(missingFrom(new Set(all), read.records)).toEqual([]);
    expect(read.records.size).toBe(all.length);

    // The Detector's baseline goes through the same split.
    const baseline = await h.detector.poll();
    expect(baseline).toMatchObject({ outcome: "committed", mode: "baseline" });
    expect(baseline.records).toBe(all.length);
  });

  it("an incremental read larger than the cap completes", async () => {
    // Pages of 2: a flight and its codeshares share a stamp, up to 6 records a second.
    const h = await harness({ pageSize: 2, client: { maxPages: 5 } });
    const since = h.clock.now();
    for (const [i, f] of h.operatingFlights().slice(0, 12).entries()) {
      h.clock.advance(SECOND);
      setGate(h, f, `C${i}`);
    }
    h.clock.advance(SECOND);
    const horizon = horizonAt(h);
    const expected = changedSince(h, horizon, since);
    expect(expected.size).toBeGreaterThan(5);
    await expect(naiveWalk(h.client, horizon, since, h.clock.now())).rejects.toSatisfy(isPageLimit);
    const read = await readChangedSince(h.client, horizon, since, { now: () => h.clock.now() });
    expect(missingFrom(expected, read.records)).toEqual([]);
  });

  it("a second more crowded than the cap is read date by date", async () => {
    const h = await harness({ pageSize: 1, client: { maxPages: 5 } });
    h.clock.advance(10 * SECOND);
    const since = h.clock.now();
    const horizon = horizonAt(h);
    // Three flights without codeshares on each of three dates, all at one instant:
    // nine records in one second, three per date.
    for (const date of horizonDates(horizon).slice(0, 3)) {
      const solo = h
        .operatingFlights((f) => f.scheduleDate === date && !f.codeshares?.codeshares?.length)
        .slice(0, 3);
      for (const f of solo) setGate(h, f, "K1");
    }
    const expected = changedSince(h, horizon, since);
    expect(expected.size).toBe(9);
    h.clock.advance(SECOND);
    await expect(naiveWalk(h.client, horizon, since, h.clock.now())).rejects.toSatisfy(isPageLimit);

    const perDate: string[] = [];
    h.onFlightsPage((page) => {
      const params = new URL(page.url).searchParams;
      if (params.get("fromScheduleDate") === params.get("toScheduleDate")) {
        perDate.push(params.get("fromScheduleDate") ?? "");
      }
    });
    const read = await readChangedSince(h.client, horizon, since, { now: () => h.clock.now() });
    expect(missingFrom(expected, read.records)).toEqual([]);
    expect(new Set(perDate).size).toBe(horizonDates(horizon).length);
  });
});

describe("a full read while flights are removed", () => {
  /**
   * A page hook for the walk of `date` in schedule order (pages of `pageSize`): it
   * picks a boundary whose next record is a flight without codeshares, and right
   * before that page is requested removes another such flight, read earlier. The
   * records after it shift back by one, and the flight at the boundary slides
   * onto the page already read.
   */
  function remover(
    h: DetectHarness,
    date: string,
    pageSize: number,
  ): { hook: FlightsPageHook; victim: Flight; skipped: Flight } {
    const store = h.sim.simulator.store;
    const soloFlight = (f: Flight): boolean => f.mainFlight === f.flightName && solo(f);
    const order = [...store.all()]
      .filter((f) => f.scheduleDate === date)
      .sort(
        (a, b) =>
          Date.parse(a.scheduleDateTime as string) - Date.parse(b.scheduleDateTime as string) ||
          (a.id as string).localeCompare(b.id as string),
      );
    let page = 1;
    while (
      !(
        soloFlight(order[page * pageSize] as Flight) &&
        order.slice(0, page * pageSize).some(soloFlight)
      )
    ) {
      page++;
    }
    const victim = order.slice(0, page * pageSize).find(soloFlight) as Flight;
    const skipped = order[page * pageSize] as Flight;
    let done = false;
    const hook: FlightsPageHook = (read) => {
      const params = new URL(read.url).searchParams;
      if (done || params.get("sort") !== "+scheduleDateTime,+id") return;
      if (params.get("fromScheduleDate") !== date || read.index !== page - 1) return;
      h.sim.simulator.apply({ kind: "remove", target: { id: victim.id as string } });
      done = true;
    };
    return { hook, victim, skipped };
  }

  it("readHorizon still returns every flight that was there throughout", async () => {
    const h = await harness({ pageSize: 3 });
    const before = new Set([...h.sim.simulator.store.all()].map((f) => f.id as string));
    const removing = remover(h, "2026-11-21", 3);
    h.onFlightsPage(removing.hook);
    const read = await readHorizon(h.client, horizonAt(h));
    expect(h.sim.simulator.store.get(removing.victim.id as string)).toBeUndefined();
    before.delete(removing.victim.id as string);
    expect(missingFrom(before, read.records)).toEqual([]);
  });

  it("a reconciliation reports no flight removed that was not", async () => {
    const h = await harness({ pageSize: 3, settings: { reconcileEveryMs: MINUTE } });
    await h.detector.poll();
    h.clock.advance(MINUTE);
    const removing = remover(h, "2026-11-21", 3);
    h.onFlightsPage(removing.hook);
    // The removed flight was read before it went: this reconciliation saw it.
    expect(await h.detector.poll()).toMatchObject({ mode: "reconcile", events: [] });
    h.onFlightsPage();
    h.clock.advance(MINUTE);
    const next = await h.detector.poll();
    expect(next.events.map((e) => `${e.action} ${e.flight.id}`)).toEqual([
      `removed ${removing.victim.id}`,
    ]);
  });
});
