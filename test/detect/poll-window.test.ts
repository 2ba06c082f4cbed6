/**
 * What an incremental poll costs the upstream (issue 18), against the simulator over
 * loopback HTTP and a real Redis on a ManualClock: the window starts from what the
 * last poll covered (on the upstream's clock), not from the newest stamp; a crowded
 * second is read once; records read again as they were are not diffed; and the
 * overlap follows the stamp lag observed, within its bounds.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "../../src/api/paged-walk.js";
import type { Flight } from "../../src/api/types.js";
import { describePoll } from "../../src/detect/describe-poll.js";
import { Detector, type DetectorSettings, type PollReport } from "../../src/detect/detector.js";
import { readChangedSince } from "../../src/detect/flight-reader.js";
import { DEFAULT_HORIZON_DAYS, scheduleHorizon } from "../../src/detect/horizon.js";
import {
  LAG_EVIDENCE,
  LAG_HALF_LIFE_MS,
  lagMeasured,
  nextLagEvidence,
  nextStampLag,
  overlapFor,
  stampLag,
  UNMEASURED_OVERLAP_MS,
} from "../../src/detect/window.js";
import { TappedClient } from "../support/tapped-client.js";
import { type DetectHarness, harnessesClosedAfterEach, ZONE } from "./detect-harness.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;

const harness = harnessesClosedAfterEach("window");

const solo = (f: Flight): boolean => !f.codeshares?.codeshares?.length;

/** Touches `count` solo flights at the current instant (one second for all). */
function crowd(h: DetectHarness, count: number, gatePrefix: string): Flight[] {
  const flights = h.operatingFlights(solo).slice(0, count);
  expect(flights).toHaveLength(count);
  for (const [i, f] of flights.entries()) {
    h.sim.simulator.apply({
      kind: "update",
      target: { id: f.id as string },
      patch: { gate: `${gatePrefix}${i}` },
    });
  }
  return flights;
}

/** A detector of its own over `h`'s upstream and Redis, with skewed clocks. */
function skewedDetector(
  h: DetectHarness,
  skew: { dateSkewMs: number | "missing"; oursAheadMs?: number },
): Detector {
  // Pages that carry a `Date` shifted by `dateSkewMs`, or none.
  const client = new TappedClient(
    { baseUrl: h.sim.baseUrl, token: h.sim.token, airportTimezone: ZONE },
    () => undefined,
    (page) => {
      const { date, ...rest } = page;
      const shift = skew.dateSkewMs;
      return shift === "missing" || date === undefined ? rest : { ...rest, date: date + shift };
    },
  );
  return new Detector({
    client,
    store: h.store,
    settings: { intervalMs: SECOND, reconcileEveryMs: 0 },
    now: () => h.clock.now() + (skew.oursAheadMs ?? 0),
  });
}

/** Moves gates one after the other, 10 s apart, polling after each; the gates reported. */
async function gatesSeen(
  h: DetectHarness,
  detector: Detector,
  gates: string[],
): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (const gate of gates) {
    h.moveGate(gate);
    h.clock.advance(10 * SECOND);
    const events = (await detector.poll()).events;
    seen.push(...events.filter((e) => e.kind === "gate").map((e) => e.new));
  }
  return seen;
}

describe("an idle upstream", () => {
  it("costs one request a poll, also right after a crowd of records stamped in one second", async () => {
    const h = await harness({ pageSize: 5, settings: { reconcileEveryMs: 0 } });
    h.clock.advance(10 * SECOND);
    // A bulk stamp (a schedule load): 60 records in one second, then nothing.
    crowd(h, 60, "L");
    h.clock.advance(SECOND);
    expect((await h.detector.poll()).mode).toBe("baseline");
    const polls = [];
    for (let i = 0; i < 10; i++) {
      h.clock.advance(SECOND);
      polls.push(await h.detector.poll());
    }
    // A window from the newest stamp minus the overlap re-read the 60 (13 pages) on
    // every poll for a minute. From what the last poll covered it reaches the crowd
    // only while the crowd is within POLL_OVERLAP_MIN (2 s) of it: two polls here.
    expect(polls.slice(0, 2).map((p) => p.requests)).toEqual([12, 12]);
    expect(polls.slice(2).map((p) => p.requests)).toEqual(Array(8).fill(1));
    expect(polls.slice(2).map((p) => p.records)).toEqual(Array(8).fill(0));
  });

  it("costs one request a poll long after the last change, whatever its stamp", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    await h.detector.poll();
    h.moveGate("D3");
    expect((await h.detector.poll()).events.length).toBeGreaterThan(0);
    h.clock.advance(5 * SECOND);
    // The first poll after the gap reads from what the last one covered, minus the
    // overlap: the change once more. From then on nothing.
    expect((await h.detector.poll()).records).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      h.clock.advance(SECOND);
      expect(await h.detector.poll()).toMatchObject({ requests: 1, records: 0 });
    }
  });
});

describe("a crowded second", () => {
  it("is read once: 53 records of one second with pages of 5 in ⌈53 / 5⌉ + 1 requests", async () => {
    const h = await harness({ pageSize: 5, settings: { reconcileEveryMs: 0 } });
    await h.detector.poll();
    h.clock.advance(10 * SECOND);
    const since = h.clock.now() - 3 * SECOND;
    const flights = crowd(h, 53, "C");
    h.clock.advance(SECOND);
    const reads = new Map<string, number>();
    const read = await readChangedSince(
      h.client,
      scheduleHorizon(h.clock.now(), ZONE, DEFAULT_HORIZON_DAYS),
      since,
      {
        now: () => h.clock.now(),
        onPage: (records) => {
          for (const r of records) reads.set(r.id as string, (reads.get(r.id as string) ?? 0) + 1);
        },
      },
    );
    for (const f of flights) expect(read.records.has(f.id as string)).toBe(true);
    expect(read.requests).toBeLessThanOrEqual(Math.ceil(53 / 5) + 1);
    // Once each: the walk reaches the crowd from an earlier second with nothing
    // between, and follows it along links rather than starting over from its second.
    expect(Math.max(...reads.values())).toBe(1);

    const poll = await h.detector.poll();
    expect(poll.events.filter((e) => e.kind === "gate")).toHaveLength(53);
    expect(poll.requests).toBeLessThanOrEqual(Math.ceil(53 / 5) + 1);
  });

  it("is read again only when a record the walk had read moved meanwhile (one slid under a boundary)", async () => {
    const h = await harness({ pageSize: 5, settings: { reconcileEveryMs: 0 } });
    h.clock.advance(10 * SECOND);
    const since = h.clock.now();
    const flights = crowd(h, 23, "M");
    h.clock.advance(SECOND);
    let moved = false;
    h.onFlightsPage((page) => {
      if (moved || page.index !== 2) return;
      // The first record read moves to the end: every later one shifts back, and
      // the first of page 3 slides onto page 2, which was already read.
      h.clock.advance(SECOND);
      h.sim.simulator.store.update(flights[0]?.id as string, {});
      moved = true;
    });
    const read = await readChangedSince(
      h.client,
      scheduleHorizon(h.clock.now(), ZONE, DEFAULT_HORIZON_DAYS),
      since,
      { now: () => h.clock.now() },
    );
    h.onFlightsPage();
    expect(moved).toBe(true);
    for (const f of flights) expect(read.records.has(f.id as string)).toBe(true);
  });
});

describe("once the lag is measured", () => {
  it("an upstream that showed none in 100 changes is read with a 1 s overlap: at 1 s polls a change is read twice, not three times", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    await h.detector.poll();
    // 60 changes, then 60 more: not yet measured after the first batch.
    const first = crowd(h, 60, "E");
    h.clock.advance(SECOND);
    expect(await h.detector.poll()).toMatchObject({ overlapMs: 2 * SECOND });
    h.clock.advance(SECOND);
    expect(await h.detector.poll()).toMatchObject({ overlapMs: 2 * SECOND });
    h.clock.advance(500);
    const second = h.operatingFlights(solo).slice(60, 120);
    for (const f of second) {
      h.sim.simulator.apply({
        kind: "update",
        target: { id: f.id as string },
        patch: { gate: "F1" },
      });
    }
    h.clock.advance(500);
    const measured = await h.detector.poll();
    expect(measured.events.filter((e) => e.kind === "gate")).toHaveLength(60);
    expect(measured.nextOverlapMs).toBe(SECOND);
    expect(first).toHaveLength(60);

    // A change half a second before a poll: read by it and the next one, not a third.
    const reads = new Map<string, number>();
    h.onFlightsPage((page) => {
      for (const r of page.items) reads.set(r.id as string, (reads.get(r.id as string) ?? 0) + 1);
    });
    h.clock.advance(500);
    const [late] = h.operatingFlights(solo).slice(125, 126) as [Flight];
    h.sim.simulator.apply({
      kind: "update",
      target: { id: late.id as string },
      patch: { gate: "L9" },
    });
    h.clock.advance(500);
    for (let i = 0; i < 4; i++) {
      const poll = await h.detector.poll();
      expect(poll.overlapMs).toBe(SECOND);
      h.clock.advance(SECOND);
    }
    h.onFlightsPage();
    expect(reads.get(late.id as string)).toBe(2);
  });
});

/**
 * 12 records stamped in one second, pages of 5, 30 s polls; `disturb` runs after the
 * first page of the walk that holds only the crowd and has a next (links are followed
 * from there). Returns the crowd and the gate each flight was reported at.
 */
async function crowdWalk(
  disturb: (h: DetectHarness, page: Page<Flight>) => void,
  settings: Partial<DetectorSettings> = {},
): Promise<{ flights: Flight[]; gates: Map<string, unknown>; disturbed: boolean }> {
  const h = await harness({ pageSize: 5, settings: { reconcileEveryMs: 0, ...settings } });
  await h.detector.poll();
  h.clock.advance(10 * SECOND);
  const flights = crowd(h, 12, "K");
  const stamp = h.sim.simulator.store.get(flights[0]?.id as string)?.lastUpdatedAt ?? "";
  h.clock.advance(20 * SECOND);
  let disturbed = false;
  h.onFlightsPage((page) => {
    if (disturbed || !page.next || page.items.length === 0) return;
    if (!page.items.every((f) => f.lastUpdatedAt === stamp)) return;
    disturbed = true;
    disturb(h, page);
  });
  const polls = [await h.detector.poll()];
  h.onFlightsPage();
  for (let i = 0; i < 3; i++) {
    h.clock.advance(30 * SECOND);
    polls.push(await h.detector.poll());
  }
  const gates = new Map(
    polls
      .flatMap((p) => p.events)
      .filter((e) => e.kind === "gate")
      .map((e) => [e.flight.id, e.new]),
  );
  return { flights, gates, disturbed };
}

describe("a crowded second walked along links", () => {
  it("is read again when one of its records turns up broken (it left the order: the records after it shifted)", async () => {
    let victim = "";
    const { flights, gates, disturbed } = await crowdWalk((h, page) => {
      victim = page.items[0]?.id as string;
      h.clock.advance(SECOND);
      h.sim.simulator.store.update(victim, { flightDirection: "X" as never });
    });
    expect(disturbed).toBe(true);
    expect(
      flights.map((f) => f.id as string).filter((id) => id !== victim && !gates.has(id)),
    ).toEqual([]);
  });

  it("is read again when one of its records turns up newer (it moved to the end)", async () => {
    const { flights, gates, disturbed } = await crowdWalk((h, page) => {
      h.clock.advance(SECOND);
      h.sim.simulator.store.update(page.items[0]?.id as string, {});
    });
    expect(disturbed).toBe(true);
    expect(flights.map((f) => f.id as string).filter((id) => !gates.has(id))).toEqual([]);
  });

  it("a record removed upstream meanwhile does not come back: the neighbour it let slide is found by the reconciliation", async () => {
    let victim = "";
    const { flights, gates, disturbed } = await crowdWalk(
      (h, page) => {
        victim = page.items[0]?.id as string;
        h.sim.simulator.store.remove(victim);
      },
      { reconcileEveryMs: 60 * SECOND },
    );
    expect(disturbed).toBe(true);
    expect(
      flights.map((f) => f.id as string).filter((id) => id !== victim && !gates.has(id)),
    ).toEqual([]);
  });
});

describe("what the last poll covered", () => {
  it("is taken on the upstream's clock (its Date header): a poller whose clock runs a minute ahead misses nothing", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    const ahead = new Detector({
      client: h.client,
      store: h.store,
      settings: { intervalMs: SECOND, reconcileEveryMs: 0 },
      now: () => h.clock.now() + MINUTE,
    });
    await ahead.poll();
    for (const gate of ["E1", "E2", "E3"]) {
      const flight = h.moveGate(gate);
      const poll = await ahead.poll();
      expect(poll.events.map((e) => [e.flight.id, e.field, e.new])).toContainEqual([
        flight.id,
        "gate",
        gate,
      ]);
    }
  });

  it("is never later than our clock: a Date header running 90 s ahead of the stamps (a proxy's clock) loses nothing", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    const detector = skewedDetector(h, { dateSkewMs: 90 * SECOND });
    await detector.poll();
    expect(await gatesSeen(h, detector, ["S1", "S2", "S3"])).toEqual(["S1", "S2", "S3"]);
  });

  it("without a Date header, is never past the newest stamp read: our clock 30 s ahead loses nothing", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    const detector = skewedDetector(h, { dateSkewMs: "missing", oursAheadMs: 30 * SECOND });
    await detector.poll();
    expect(await gatesSeen(h, detector, ["M1", "M2", "M3"])).toEqual(["M1", "M2", "M3"]);
  });

  it("a Date header a day or more away from our clock is not taken for a clock", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    const detector = skewedDetector(h, { dateSkewMs: -30 * 86_400_000 });
    await detector.poll();
    h.moveGate("P1");
    expect((await detector.poll()).events.length).toBeGreaterThan(0);
    h.clock.advance(5 * SECOND);
    await detector.poll();
    h.clock.advance(SECOND);
    // A month in the past would read the whole horizon on every poll. Without a
    // believable Date, the window starts at the newest stamp read (the last change's
    // records, read again), as it would without the header.
    const idle = await detector.poll();
    expect(idle.requests).toBe(1);
    expect(idle.records).toBeLessThan(5);
  });

  it("records read again as they were (same id and stamp) are not diffed again", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0, overlapMinMs: 10 * SECOND } });
    await h.detector.poll();
    h.moveGate("U1");
    const first = await h.detector.poll();
    expect(first.events.length).toBeGreaterThan(0);
    expect(first.reused).toBeUndefined();
    h.clock.advance(SECOND);
    const again = await h.detector.poll();
    // The 10 s overlap reads the moved flight's records again: known, skipped.
    expect(again.records).toBeGreaterThan(0);
    expect(again.events).toEqual([]);
    // Nor validated, folded or diffed again: the records of the last poll stand for them.
    expect(again.reused).toBe(again.records);
    expect(again.flights).toBe(0);
    // Another process has no such records: it validates and diffs what it reads.
    const other = await h.another({ overlapMinMs: 10 * SECOND });
    h.clock.advance(SECOND);
    const fresh = await other.poll();
    expect(fresh.records).toBe(again.records);
    expect(fresh).toMatchObject({ flights: 1, events: [] });
    expect(fresh.reused).toBeUndefined();
    // And once another process has committed, the first one's records may be stale:
    // it reads afresh too.
    h.clock.advance(SECOND);
    expect((await h.detector.poll()).reused).toBeUndefined();
  });

  it("a codeshare record seen first with its group's new stamp does not hide the operating record's change that follows with the same stamp", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    await h.detector.poll();
    const op = h.operating(1);
    const store = h.sim.simulator.store;
    const cs = [...store.all()].find(
      (f) =>
        f.mainFlight === op.flightName &&
        f.flightName !== op.flightName &&
        f.scheduleDate === op.scheduleDate,
    ) as Flight;
    h.clock.advance(SECOND);
    h.sim.simulator.apply({
      kind: "update",
      target: { id: op.id as string },
      patch: { gate: "G1" },
    });
    const stamp = h.clock.now() + SECOND;
    h.clock.advance(2 * SECOND);
    store.update(cs.id as string, { gate: "G2" }, { stampAt: stamp });
    const first = await h.detector.poll();
    h.clock.advance(SECOND);
    // The operating record with the same stamp, visible a second later (a lag).
    store.update(op.id as string, { gate: "G2" }, { stampAt: stamp });
    h.clock.advance(SECOND);
    const second = await h.detector.poll();
    h.clock.advance(SECOND);
    const third = await h.detector.poll();
    const gates = [first, second, third]
      .flatMap((p) => p.events)
      .filter((e) => e.kind === "gate")
      .map((e) => e.new);
    expect(gates).toEqual(["G1", "G2"]);
  });

  it("a state kept before coverage was (an upgrade) starts from the newest stamp with the widest overlap", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    await h.detector.poll();
    await h.redis.redis.hdel(h.keys.detection, "coveredUntil");
    h.moveGate("W1");
    expect(await h.detector.poll()).toMatchObject({ overlapMs: 60 * SECOND });
    h.clock.advance(SECOND);
    expect((await h.detector.poll()).overlapMs).toBeLessThan(60 * SECOND);
  });

  it("keeps the lag it observed across processes and restarts", async () => {
    const h = await harness({ settings: { reconcileEveryMs: 0 } });
    await h.detector.poll();
    h.sim.faults.update({ stampLagMs: 1_800 });
    const [flight] = h.operatingFlights(solo);
    h.sim.simulator.apply({
      kind: "update",
      target: { id: flight?.id as string },
      patch: { gate: "K1" },
    });
    h.clock.advance(SECOND);
    const seen = await h.detector.poll();
    expect(seen.lagSeenMs).toBe(1_800);
    expect(seen.stampLagMs).toBe(1_800);
    const other = await h.another();
    h.clock.advance(SECOND);
    const next = await other.poll();
    expect(next.stampLagMs).toBe(seen.stampLagMs);
    expect(next.overlapMs).toBe(overlapFor(seen.stampLagMs ?? 0, other.settings));
  });
});

describe("the overlap (window.ts)", () => {
  const bounds = { overlapMs: 60 * SECOND, overlapMinMs: SECOND };

  it("is the lag × 1.5 + 1 s in whole seconds, within the floor and the maximum", () => {
    expect(overlapFor(0, bounds)).toBe(SECOND);
    expect(overlapFor(1_000, bounds)).toBe(3 * SECOND);
    expect(overlapFor(2_000, bounds)).toBe(4 * SECOND);
    expect(overlapFor(2_100, bounds)).toBe(5 * SECOND);
    expect(overlapFor(10 * MINUTE, bounds)).toBe(60 * SECOND);
    expect(overlapFor(0, { ...bounds, overlapMinMs: 5 * SECOND })).toBe(5 * SECOND);
    // A maximum below the floor wins (POLL_OVERLAP=1s turns the overlap down).
    expect(overlapFor(5_000, { overlapMs: SECOND, overlapMinMs: 2 * SECOND })).toBe(SECOND);
  });

  it("is at least 2 s until LAG_EVIDENCE new versions have been seen", () => {
    expect(overlapFor(0, bounds, false)).toBe(UNMEASURED_OVERLAP_MS);
    expect(overlapFor(2_000, bounds, false)).toBe(4 * SECOND);
    expect(overlapFor(0, { overlapMs: SECOND, overlapMinMs: SECOND }, false)).toBe(SECOND);
    expect(lagMeasured({})).toBe(false);
    expect(nextLagEvidence({}, 40)).toEqual({ lagEvidence: 40 });
    expect(lagMeasured({ lagEvidence: LAG_EVIDENCE - 1 })).toBe(false);
    expect(nextLagEvidence({ lagEvidence: 90 }, 40)).toEqual({ lagEvidence: LAG_EVIDENCE });
    expect(lagMeasured({ lagEvidence: LAG_EVIDENCE })).toBe(true);
    // Counting stops there (nothing more to write).
    expect(nextLagEvidence({ lagEvidence: LAG_EVIDENCE }, 5)).toEqual({});
    expect(nextLagEvidence({ lagEvidence: 3 }, 0)).toEqual({});
  });

  it("follows a lag that halves every LAG_HALF_LIFE_MS, and keeps the larger one seen", () => {
    const t = Date.parse("2026-11-21T06:00:00Z");
    expect(stampLag({}, t)).toBe(0);
    const state = nextStampLag({}, t, 8_000);
    expect(state).toEqual({ lagMs: 8_000, lagAt: t });
    expect(stampLag(state, t + LAG_HALF_LIFE_MS)).toBeCloseTo(4_000);
    expect(stampLag(state, t + 2 * LAG_HALF_LIFE_MS)).toBeCloseTo(2_000);
    // A clock stepped back does not grow it.
    expect(stampLag(state, t - MINUTE)).toBe(8_000);
    // A smaller lag than the one still remembered changes nothing; a larger one does.
    expect(nextStampLag(state, t + LAG_HALF_LIFE_MS, 3_000)).toEqual({});
    expect(nextStampLag(state, t + LAG_HALF_LIFE_MS, 5_000)).toEqual({
      lagMs: 5_000,
      lagAt: t + LAG_HALF_LIFE_MS,
    });
    expect(nextStampLag(state, t, 0)).toEqual({});
  });
});

describe("the poll line", () => {
  const report = (extra: Partial<PollReport>): PollReport => ({
    outcome: "committed",
    mode: "incremental",
    startedAt: 0,
    durationMs: 12,
    requests: 1,
    records: 2,
    flights: 1,
    events: [],
    ...extra,
  });

  it("says so when a poll saw a larger stamp lag than was known, and only then", () => {
    expect(
      describePoll(7, report({ lagSeenMs: 15_000, stampLagMs: 15_000, nextOverlapMs: 24_000 })),
    ).toBe(
      "poll 7 incremental: 1 requests, 2 records, 1 flights, 0 events, 12 ms; a change turned up stamped 15.0 s before what earlier polls had covered: incremental reads reach back 24.0 s from now on",
    );
    expect(
      describePoll(
        8,
        report({
          mode: "reconcile",
          lagSeenMs: 81_000,
          stampLagMs: 81_000,
          nextOverlapMs: 60_000,
          overlapAtMax: true,
        }),
      ),
    ).toBe(
      "poll 8 reconcile: 1 requests, 2 records, 1 flights, 0 events, 12 ms; a change turned up stamped 81.0 s before what earlier polls had covered: incremental reads now reach back 60.0 s, their maximum (POLL_OVERLAP); a change stamped later than that is found only by reconciliation (check the upstream's clock against its Date header, or raise POLL_OVERLAP)",
    );
    expect(describePoll(7, report({ lagSeenMs: 500, stampLagMs: 800 }))).toBe(
      "poll 7 incremental: 1 requests, 2 records, 1 flights, 0 events, 12 ms",
    );
    expect(describePoll(7, report({ stampLagMs: 800 }))).not.toContain("lag");
  });
});
