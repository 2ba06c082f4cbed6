/**
 * The simulator's index of records by `lastUpdatedAt` (what incremental polls ask)
 * against the store itself: after any mix of changes — stamps in order, backdated,
 * lagging, records removed and added — the ids it gives from a bound are exactly the
 * records whose current stamp is at or after it.
 */
import { describe, expect, it } from "vitest";
import { ApiRoutes } from "../../src/simulator/http/api-routes.js";
import { FlightFacts } from "../../src/simulator/http/flight-facts.js";
import { compileFlightFilter } from "../../src/simulator/http/flight-filter.js";
import { type FlightQuery, parseFlightQuery } from "../../src/simulator/http/flight-query.js";
import { flightSortKey, flightTieKey, sortRecords } from "../../src/simulator/http/record-sort.js";
import { StampIndex } from "../../src/simulator/http/stamp-index.js";
import { ManualClock } from "../../src/simulator/sim-clock.js";
import { createSimulator } from "../../src/simulator/simulator.js";
import { toLocalDateTime } from "../../src/time/local-time.js";

describe("StampIndex", () => {
  it("gives exactly the records stamped at or after a bound, through every kind of change", () => {
    const clock = new ManualClock(Date.parse("2026-11-21T06:00:00Z"));
    const sim = createSimulator({ seed: 4, clock, flightsPerDay: 300, evolve: false });
    const store = sim.store;
    const index = new StampIndex(store);
    const ids = [...store.all()].map((f) => f.id as string);
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const expected = (from: number): string[] =>
      [...store.all()]
        .filter((f) => store.lastUpdatedMs(f) >= from)
        .map((f) => f.id as string)
        .sort();
    for (let step = 0; step < 3_000; step++) {
      clock.advance(random(3) * 500);
      const id = ids[random(ids.length)] as string;
      const kind = random(20);
      if (kind === 0) {
        store.update(id, {}, { stampAt: clock.now() - random(600) * 1000 });
      } else if (kind === 1) {
        store.stampLagMs = random(3) * 10_000;
      } else if (kind === 2 && store.get(id)) {
        const flight = store.get(id);
        store.remove(id);
        if (random(2) === 0 && flight) store.upsert(flight);
      } else if (store.get(id)) {
        store.update(id, { gate: `G${random(90)}` });
      }
      if (step % 97 === 0) {
        const from = clock.now() - random(1_200) * 1000;
        expect([...index.idsFrom(from)].sort()).toEqual(expected(from));
      }
    }
    expect([...index.idsFrom(0)].sort()).toEqual(expected(0));
    expect(index.idsFrom(clock.now() + 60_000)).toEqual([]);
  });
});

describe("/flights from a lastUpdatedAt bound", () => {
  it("answers, from the index, exactly what a scan of every record and the sort would", () => {
    const zone = "Europe/Amsterdam";
    const clock = new ManualClock(Date.parse("2026-10-25T00:20:00Z"));
    const sim = createSimulator({ seed: 6, clock, flightsPerDay: 300, evolve: false });
    const store = sim.store;
    const routes = new ApiRoutes({ store, pageSize: 20 });
    const facts = new FlightFacts(zone);
    const ids = [...store.all()].map((f) => f.id as string);
    // Bursts stamped in one instant (ties to order by id), across the autumn hour.
    for (let step = 0; step < 400; step++) {
      clock.advance(step % 7 === 0 ? 0 : 11_000);
      for (let k = 0; k < 1 + (step % 5); k++) {
        store.update(ids[(step * 13 + k * 31) % ids.length] as string, { gate: `B${step % 40}` });
      }
    }
    const select = (query: FlightQuery) =>
      (routes as unknown as { selectFlights(q: FlightQuery): { id?: string }[] }).selectFlights(
        query,
      );
    for (const [back, sort] of [
      [60, "+lastUpdatedAt,+id"],
      [600, "+lastUpdatedAt"],
      [3_600, "+lastUpdatedAt,+id"],
      [5_400, "-lastUpdatedAt"],
    ] as const) {
      const params = new URLSearchParams({
        fromScheduleDate: "2026-10-24",
        toScheduleDate: "2026-10-27",
        searchDateTimeField: "lastUpdatedAt",
        fromDateTime: toLocalDateTime(clock.now() - back * 1000, zone).slice(0, 19),
        toDateTime: toLocalDateTime(clock.now() + 86_400_000, zone).slice(0, 19),
        sort,
      });
      const parsed = parseFlightQuery(params, "2026-10-25");
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problem));
      const match = compileFlightFilter(parsed.value, { facts, icaoToIata: new Map() });
      const scanned = sortRecords(
        [...store.all()].filter(match),
        parsed.value.sort,
        flightSortKey(facts),
        flightTieKey,
      );
      const answered = select(parsed.value);
      expect(answered.length, `${back} s back, ${sort}`).toBeGreaterThan(0);
      expect(answered.map((f) => f.id)).toEqual(scanned.map((f) => f.id));
    }
  });
});
