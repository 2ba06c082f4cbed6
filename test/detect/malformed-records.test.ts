/**
 * Malformed records from the upstream, on every path of detection: a record that
 * breaks the contract is skipped and reported (with its id and field), and its flight
 * keeps its last good snapshot — an incremental poll does not move it, a
 * reconciliation does not report it removed (while other removals still go
 * through), a baseline does not overwrite it, and a codeshare record broken while
 * its operating record is fine changes nothing for the physical flight.
 *
 * Real captured records (test/fixtures/real-api/, 2024-09-24: 14 physical flights,
 * HV5662 also sold as DL7488 and KL2574) served by a loopback contract server; real
 * Redis. The breakages are the kind a schema slip makes: a number sent as a string,
 * a list sent as a string, an enum value spelled out.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { MalformedReport } from "../../src/api/client-options.js";
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import type { Flight } from "../../src/api/types.js";
import { Detector } from "../../src/detect/detector.js";
import type { FlightSnapshot } from "../../src/diff/flight-snapshot.js";
import { DetectionStore } from "../../src/store/detection-store.js";
import { readOutboxEvents } from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type ContractServer, startContractServer } from "../support/contract-server.js";
import { realFlights } from "../support/real-flights.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";
/** 2024-09-24 04:00 local, after the capture's last update (03:40). */
const START_MS = Date.parse("2024-09-24T02:00:00Z");
const MINUTE = 60_000;

const CAPTURE = { records: realFlights() };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Rig {
  /** The records served, as the upstream has them now (change them in place). */
  records: Flight[];
  server: ContractServer;
  redis: TestRedis;
  keys: RedisKeys;
  store: DetectionStore;
  detector: Detector;
  /** Every report the client's onMalformed hook heard. */
  reports: MalformedReport[];
  clock: { now: number };
  /** The records of a physical flight (operating first), by its main flight. */
  flight(mainFlight: string): Flight[];
  /** Sets fields of records (by flight name) and stamps them now, as the upstream does. */
  update(patches: Record<string, Record<string, unknown>>): void;
  /** Removes a physical flight with all its records. */
  remove(mainFlight: string): void;
  snapshot(mainFlight: string): Promise<FlightSnapshot | undefined>;
}

async function rig(): Promise<Rig> {
  const records = structuredClone(CAPTURE.records);
  const server = await startContractServer({ flights: records, pageSize: 6 });
  cleanups.push(() => server.close());
  const reports: MalformedReport[] = [];
  const client = new FlightApiClient({
    baseUrl: server.baseUrl,
    airportTimezone: ZONE,
    onMalformed: (report) => reports.push(report),
  });
  cleanups.push(() => client.close());
  const redis = await testRedis("malformed");
  cleanups.push(() => redis.cleanup());
  const keys = redisKeys(redis.prefix);
  const connection = redis.redis.duplicate();
  cleanups.push(async () => {
    connection.disconnect();
  });
  const clock = { now: START_MS };
  const store = new DetectionStore(redis.redis, keys);
  const stamp = () =>
    new Date(clock.now + 2 * 3_600_000).toISOString().replace("Z", "+02:00").slice(0, 29);
  return {
    records,
    server,
    redis,
    keys,
    store,
    reports,
    clock,
    detector: new Detector({
      client,
      store: new DetectionStore(connection, keys),
      settings: { intervalMs: 1_000, reconcileEveryMs: 10 * MINUTE },
      now: () => clock.now,
    }),
    flight(mainFlight) {
      return records
        .filter((r) => r.mainFlight === mainFlight)
        .sort((a, b) => Number(b.flightName === mainFlight) - Number(a.flightName === mainFlight));
    },
    update(patches) {
      for (const [name, patch] of Object.entries(patches)) {
        const record = records.find((r) => r.flightName === name);
        if (!record) throw new Error(`no record ${name}`);
        Object.assign(record, patch, { lastUpdatedAt: stamp() });
      }
    },
    remove(mainFlight) {
      for (let i = records.length - 1; i >= 0; i--) {
        if (records[i]?.mainFlight === mainFlight) records.splice(i, 1);
      }
    },
    async snapshot(mainFlight) {
      const key = `A:2024-09-24:${mainFlight}`;
      return (await store.loadSnapshots([key])).get(key);
    },
  };
}

describe("malformed upstream records (real captured records, real Redis)", () => {
  it("incremental: a codeshare record broken while its operating record is fine — the change is reported once, under every flight number", async () => {
    const r = await rig();
    expect(await r.detector.poll()).toMatchObject({ outcome: "committed", flights: 14 });
    const before = await r.snapshot("HV5662");
    expect(before?.flightNames).toEqual(["HV5662", "DL7488", "KL2574"]);

    r.clock.now += MINUTE;
    // The whole codeshare group moves to belt 7; DL7488 also carries its terminal as text.
    r.update({
      HV5662: { baggageClaim: { belts: ["7"] } },
      DL7488: { baggageClaim: { belts: ["7"] }, terminal: "1" },
      KL2574: { baggageClaim: { belts: ["7"] } },
    });
    const poll = await r.detector.poll();
    expect(poll.outcome).toBe("committed");
    expect(poll.events.map((e) => [e.flight.mainFlight, e.kind, e.old, e.new])).toEqual([
      ["HV5662", "belt", ["6"], ["7"]],
    ]);
    expect(poll.events[0]?.flight.flightNames).toEqual(["HV5662", "DL7488", "KL2574"]);
    expect(poll.malformed).toBeGreaterThanOrEqual(1);
    // Reported each time it was read, always as what it is.
    expect(r.reports.length).toBeGreaterThanOrEqual(1);
    for (const report of r.reports) {
      expect(report).toMatchObject({
        id: "140716952486246564",
        field: "terminal",
        identity: { flightName: "DL7488", mainFlight: "HV5662", flightDirection: "A" },
      });
    }
    expect((await r.snapshot("HV5662"))?.flightNames).toEqual(["HV5662", "DL7488", "KL2574"]);

    // And a reconciliation neither removes it nor reports anything new.
    r.clock.now += 10 * MINUTE;
    expect(await r.detector.poll()).toMatchObject({ mode: "reconcile", events: [] });
  });

  it("incremental: a flight whose every record is broken keeps its last good snapshot; once fixed, its change is reported from it, once", async () => {
    const r = await rig();
    await r.detector.poll();
    const before = await r.snapshot("HV5618");
    expect(before?.fields.belts).toEqual(["2"]);

    r.clock.now += MINUTE;
    // HV5618 and its codeshare KL3276 send their belt list as a bare string.
    r.update({
      HV5618: { baggageClaim: { belts: "3" } },
      KL3276: { baggageClaim: { belts: "3" } },
      OR3057: { gate: "D7" },
    });
    const poll = await r.detector.poll();
    expect(poll.events.map((e) => [e.flight.mainFlight, e.kind, e.action])).toEqual([
      ["OR3057", "gate", "assigned"],
    ]);
    expect(new Set(r.reports.map((m) => `${m.identity?.flightName} ${m.field}`))).toEqual(
      new Set(["HV5618 baggageClaim", "KL3276 baggageClaim"]),
    );
    expect(await r.snapshot("HV5618")).toEqual(before);

    r.clock.now += MINUTE;
    r.update({
      HV5618: { baggageClaim: { belts: ["3"] } },
      KL3276: { baggageClaim: { belts: ["3"] } },
    });
    const fixed = await r.detector.poll();
    expect(fixed.events.map((e) => [e.flight.mainFlight, e.kind, e.old, e.new])).toEqual([
      ["HV5618", "belt", ["2"], ["3"]],
    ]);
    expect(fixed.malformed).toBeUndefined();
    expect(
      (await readOutboxEvents(r.redis.redis, r.keys)).filter((e) => e.kind === "belt"),
    ).toHaveLength(1);
  });

  it("reconcile: a broken flight is not reported removed (read again by id, reported again); a flight really removed meanwhile still is", async () => {
    const r = await rig();
    await r.detector.poll();
    const before = await r.snapshot("HV5674");

    r.clock.now += MINUTE;
    r.update({ HV5674: { terminal: "1" }, KL2682: { terminal: "1" } });
    r.remove("CD110");
    r.clock.now += 10 * MINUTE;
    const reconcile = await r.detector.poll();
    expect(reconcile.mode).toBe("reconcile");
    expect(reconcile.events.map((e) => [e.flight.mainFlight, e.kind, e.action])).toEqual([
      ["CD110", "flight", "removed"],
    ]);
    expect(await r.snapshot("HV5674")).toEqual(before);
    expect(await r.snapshot("CD110")).toBeUndefined();
    // The walk skipped both records; the check against the day's id list read each by
    // id, and each was refused and reported again.
    const byId = r.reports.filter((m) => m.url.includes("/flights/1"));
    expect(new Set(byId.map((m) => m.identity?.flightName))).toEqual(new Set(["HV5674", "KL2682"]));
  });

  it("reconcile: a broken record that cannot be tied to its flight holds every removal back this time; the removal comes once it is fixed", async () => {
    const r = await rig();
    await r.detector.poll();
    const before = await r.snapshot("HV5956");

    r.clock.now += MINUTE;
    // The direction is part of which flight this is: spelled out, it says nothing.
    r.update({ HV5956: { flightDirection: "Arrival" } });
    r.remove("OR1202");
    r.clock.now += 10 * MINUTE;
    const held = await r.detector.poll();
    expect(held).toMatchObject({ mode: "reconcile", events: [] });
    expect(r.reports.some((m) => m.field === "flightDirection" && m.identity === undefined)).toBe(
      true,
    );
    expect(await r.snapshot("HV5956")).toEqual(before);
    expect(await r.snapshot("OR1202")).toBeDefined();

    r.clock.now += MINUTE;
    r.update({ HV5956: { flightDirection: "A" } });
    r.clock.now += 10 * MINUTE;
    const next = await r.detector.poll();
    expect(next.mode).toBe("reconcile");
    expect(next.events.map((e) => [e.flight.mainFlight, e.action])).toEqual([
      ["OR1202", "removed"],
    ]);
  });

  it("baseline: a broken record is skipped and reported, the rest stored; a baseline taken again keeps the flight's last good snapshot", async () => {
    const r = await rig();
    r.update({ HV5134: { terminal: "one" } });
    const baseline = await r.detector.poll();
    expect(baseline).toMatchObject({ outcome: "committed", mode: "baseline", flights: 13 });
    expect(baseline.malformed).toBeGreaterThanOrEqual(1);
    expect(r.reports[0]).toMatchObject({ field: "terminal", identity: { flightName: "HV5134" } });
    expect(await r.snapshot("HV5134")).toBeUndefined();

    // Fixed, and seen; then detection's state is lost (the watermark with it) while the
    // record is broken again: the next poll is a baseline, and must not forget it.
    r.clock.now += MINUTE;
    r.update({ HV5134: { terminal: 1 } });
    await r.detector.poll();
    const known = await r.snapshot("HV5134");
    expect(known?.fields.terminal).toBe(1);
    await r.redis.redis.del(r.keys.detection);
    r.clock.now += MINUTE;
    r.update({ HV5134: { terminal: "one" } });
    expect(await r.detector.poll()).toMatchObject({ outcome: "committed", mode: "baseline" });
    expect(await r.snapshot("HV5134")).toEqual(known);
  });
});
