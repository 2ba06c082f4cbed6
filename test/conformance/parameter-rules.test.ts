/**
 * Conformance: parameter validation (400 rules, section "Limits" and each
 * operation's parameter table) and the alias rule of /flights. Every 400 case has
 * a control request differing only in the bad value, which must be accepted: a
 * case that fails for another reason cannot pass.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { collect, recordsOf, sampleFlights } from "./support.js";
import { type ConformanceTarget, startTarget } from "./target.js";

let t: ConformanceTarget;
let sample: Flight[];
let today: string;
beforeAll(async () => {
  t = await startTarget();
  sample = await sampleFlights(t);
  today = sample[0]?.scheduleDate ?? "";
});
afterAll(() => t.close());

async function expect400(path: string, control: string): Promise<void> {
  const bad = await t.get(path);
  expect(bad.status, `${path} (reason: ${String(bad.headers["x-simulator-reason"] ?? "-")})`).toBe(
    400,
  );
  if (t.simulator) expect(bad.text).toBe("");
  const good = await t.get(control);
  expect(
    [200, 204],
    `control ${control}: ${String(good.headers["x-simulator-reason"] ?? "")}`,
  ).toContain(good.status);
}

describe("400 rules", () => {
  it.each([
    ["[Limits: page 0 to 499] page=500", "/flights?page=500", "/flights?page=499"],
    ["[Limits: page 0 to 499] page=-1", "/flights?page=-1", "/flights?page=0"],
    ["[getFlights: page is int32] page=1.5", "/flights?page=1.5", "/flights?page=1"],
    ["[getFlights: page is int32] page=x", "/flights?page=x", "/flights?page=0"],
    [
      "[getFlights: scheduleDate yyyy-MM-dd] 10-03-2026",
      "/flights?scheduleDate=10-03-2026",
      "/flights?scheduleDate=2026-03-10",
    ],
    [
      "[getFlights: scheduleDate is a date] 2026-02-30",
      "/flights?scheduleDate=2026-02-30",
      "/flights?scheduleDate=2026-02-28",
    ],
    [
      "[getFlights: scheduledate alias, same format]",
      "/flights?scheduledate=20260310",
      "/flights?scheduledate=2026-03-10",
    ],
    [
      "[getFlights: scheduleTime HH:mm] 25:00",
      "/flights?scheduleTime=25:00",
      "/flights?scheduleTime=23:00",
    ],
    [
      "[getFlights: scheduleTime HH:mm] 1200",
      "/flights?scheduleTime=1200",
      "/flights?scheduleTime=12:00",
    ],
    [
      "[Limits: flightName length 5 to 8] 4 chars",
      "/flights?flightName=KL12",
      "/flights?flightName=KL123",
    ],
    [
      "[Limits: flightName length 5 to 8] 9 chars",
      "/flights?flightName=KL1234567",
      "/flights?flightName=KL123456",
    ],
    [
      "[getFlights: flightname alias, same length rule]",
      "/flights?flightname=KL12",
      "/flights?flightname=KL123",
    ],
    [
      "[getFlights: flightDirection enum A, D]",
      "/flights?flightDirection=X",
      "/flights?flightDirection=A",
    ],
    [
      "[getFlights: flightdirection alias]",
      "/flights?flightdirection=X",
      "/flights?flightdirection=D",
    ],
    ["[Limits: airline length 2 to 3] 1 char", "/flights?airline=K", "/flights?airline=KL"],
    ["[Limits: airline length 2 to 3] 4 chars", "/flights?airline=KLMX", "/flights?airline=KLM"],
    [
      "[getFlights: only one of airline and airlineCode]",
      "/flights?airline=KL&airlineCode=100",
      "/flights?airline=KL",
    ],
    ["[getFlights: airlineCode int32]", "/flights?airlineCode=KL", "/flights?airlineCode=100"],
    ["[getFlights: route minimum length 1]", "/flights?route=", "/flights?route=LHR"],
    [
      "[getFlights: includedelays boolean]",
      "/flights?includedelays=maybe",
      "/flights?includedelays=true",
    ],
    [
      "[getFlights: includeDelays boolean]",
      "/flights?includeDelays=maybe",
      "/flights?includeDelays=false",
    ],
    [
      "[getFlights: isOperationalFlight boolean]",
      "/flights?isOperationalFlight=maybe",
      "/flights?isOperationalFlight=true",
    ],
    [
      "[Sort rules: allowed fields] unknown field",
      "/flights?sort=%2Bgate",
      "/flights?sort=%2BflightName",
    ],
    [
      "[Sort rules: allowed fields] in a list",
      "/flights?sort=flightName,-gate",
      "/flights?sort=flightName,-id",
    ],
    [
      "[getFlights: fromDateTime yyyy-MM-dd'T'HH:mm:ss]",
      "/flights?fromDateTime=2026-03-10T10:00",
      "/flights?fromDateTime=2026-03-10T10:00:00",
    ],
    [
      "[getFlights: toDateTime same format]",
      "/flights?toDateTime=2026-03-10",
      "/flights?toDateTime=2026-03-10T23:59:59",
    ],
    [
      "[getFlights: searchDateTimeField enum]",
      "/flights?searchDateTimeField=gate",
      "/flights?searchDateTimeField=lastUpdatedAt",
    ],
    [
      "[getFlights: fromScheduleDate is a date]",
      "/flights?fromScheduleDate=tomorrow",
      "/flights?fromScheduleDate=2026-03-10",
    ],
    [
      "[getFlights: toScheduleDate is a date]",
      "/flights?toScheduleDate=2026-3-1",
      "/flights?toScheduleDate=2026-03-01",
    ],
    ["[getAirlines: page 0 to 499]", "/airlines?page=500", "/airlines?page=0"],
    [
      "[getAirlines: sort fields publicName, iata, icao, nvls]",
      "/airlines?sort=name",
      "/airlines?sort=publicName",
    ],
    ["[Limits: iataMain length 3]", "/aircrafttypes?iataMain=73", "/aircrafttypes?iataMain=737"],
    ["[Limits: iataSub length 3]", "/aircrafttypes?iataSub=73HH", "/aircrafttypes?iataSub=73H"],
    [
      "[getAircraftTypes: sort fields]",
      "/aircrafttypes?sort=-iata",
      "/aircrafttypes?sort=-iataSub",
    ],
    ["[getAircraftTypes: page 0 to 499]", "/aircrafttypes?page=-1", "/aircrafttypes?page=0"],
    [
      "[getDestinations: sort fields]",
      "/destinations?sort=publicName",
      "/destinations?sort=publicName.english",
    ],
    ["[getDestinations: page 0 to 499]", "/destinations?page=1000", "/destinations?page=499"],
    ["[Limits: path id digits only]", "/flights/12ab", "/flights/12"],
    ["[Limits: airline path length 2 to 3]", "/airlines/KLMX", "/airlines/KLM"],
    ["[Limits: path iata length exactly 3]", "/destinations/LH", "/destinations/LHR"],
  ])("%s", async (_rule, path, control) => {
    // Path controls may be 404 (no such record): only the 400 matters there.
    if (!control.includes("?")) {
      expect((await t.get(path)).status).toBe(400);
      expect((await t.get(control)).status).not.toBe(400);
      return;
    }
    await expect400(path, control);
  });

  it("[flightByIds: both bounds required] a missing bound is 400", async () => {
    await expect400(
      "/flights/ids?fromDateTime=2026-03-10T00:00:00",
      "/flights/ids?fromDateTime=2026-03-10T00:00:00&toDateTime=2026-03-10T01:00:00",
    );
    await expect400(
      "/flights/ids?toDateTime=2026-03-10T00:00:00",
      "/flights/ids?fromDateTime=2026-03-09T00:00:00&toDateTime=2026-03-10T00:00:00",
    );
  });

  it("[flightByIds: local date-time format] a bound with an offset is 400", async () => {
    await expect400(
      "/flights/ids?fromDateTime=2026-03-10T00:00:00%2B01:00&toDateTime=2026-03-10T01:00:00",
      "/flights/ids?fromDateTime=2026-03-10T00:00:00&toDateTime=2026-03-10T01:00:00",
    );
  });

  it("[Limits: /flights/ids range at most three days] three days are served, one second more refused", async () => {
    const ok = await t.get(
      "/flights/ids?fromDateTime=2026-03-10T00:00:00&toDateTime=2026-03-13T00:00:00",
    );
    expect(ok.status).toBe(200);
    const over = await t.get(
      "/flights/ids?fromDateTime=2026-03-10T00:00:00&toDateTime=2026-03-13T00:00:01",
    );
    // The status for this case is "not shown"; the simulator answers 400.
    expect(over.status).toBeGreaterThanOrEqual(400);
    expect(over.status).toBeLessThan(500);
    if (t.simulator) expect(over.status).toBe(400);
  });

  it("[getFlights: unknown parameters] a parameter the contract does not define is ignored", async () => {
    const plain = recordsOf<Flight>(await t.get("/flights"), "flights").map((f) => f.id);
    const extra = recordsOf<Flight>(
      await t.get("/flights?pageSize=1000&colour=blue"),
      "flights",
    ).map((f) => f.id);
    expect(extra).toEqual(plain);
  });
});

describe("alias rule: camel case wins, except includedelays", () => {
  const ids = async (query: string) =>
    (await collect<Flight>(t, `/flights?${query}`, "flights", 1)).map((f) => f.id);

  it("[getFlights aliases: flightName wins over flightname]", async () => {
    const name = sample[0]?.flightName ?? "";
    const absent = "ZZ99999";
    expect(await ids(`flightName=${name}&flightname=${absent}`)).toContain(sample[0]?.id);
    expect(await ids(`flightname=${name}&flightName=${absent}`)).toEqual([]);
    expect(await ids(`flightname=${name}`)).toContain(sample[0]?.id);
  });

  it("[getFlights aliases: scheduleDate wins over scheduledate]", async () => {
    const empty = "1999-01-01";
    expect((await ids(`scheduleDate=${today}&scheduledate=${empty}`)).length).toBeGreaterThan(0);
    expect(await ids(`scheduledate=${today}&scheduleDate=${empty}`)).toEqual([]);
    expect(await ids(`scheduledate=${empty}`)).toEqual([]);
  });

  it("[getFlights aliases: flightDirection wins over flightdirection]", async () => {
    const a = await collect<Flight>(
      t,
      "/flights?flightDirection=A&flightdirection=D",
      "flights",
      2,
    );
    const d = await collect<Flight>(
      t,
      "/flights?flightdirection=A&flightDirection=D",
      "flights",
      2,
    );
    expect(a.length, "arrivals today").toBeGreaterThan(0);
    expect(d.length, "departures today").toBeGreaterThan(0);
    expect(a.every((f) => f.flightDirection === "A")).toBe(true);
    expect(d.every((f) => f.flightDirection === "D")).toBe(true);
  });

  it("[getFlights aliases: the exception, includedelays wins over includeDelays]", async () => {
    // Flights admitted by includedelays are scheduled on an earlier date, so sorted
    // by scheduleDate they lead the first page: one page per query tells them apart.
    const sorted = "sort=scheduleDate,id";
    let date: string | undefined;
    for (const offset of [0, 1, -1, 2]) {
      const d = new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000)
        .toISOString()
        .slice(0, 10);
      const on = await ids(`scheduleDate=${d}&includedelays=true&${sorted}`);
      const off = await ids(`scheduleDate=${d}&includedelays=false&${sorted}`);
      if (on.join() !== off.join()) {
        date = d;
        break;
      }
    }
    if (date === undefined) {
      // Nothing is delayed across midnight right now on the service: inconclusive.
      expect(t.simulator, "the simulator's data has flights delayed across midnight").toBe(false);
      return;
    }
    const q = `scheduleDate=${date}&${sorted}`;
    const on = await ids(`${q}&includedelays=true`);
    const off = await ids(`${q}&includedelays=false`);
    expect(await ids(`${q}&includedelays=true&includeDelays=false`)).toEqual(on);
    expect(await ids(`${q}&includeDelays=false&includedelays=true`)).toEqual(on);
    expect(await ids(`${q}&includedelays=false&includeDelays=true`)).toEqual(off);
    expect(await ids(`${q}&includeDelays=true`)).toEqual(on);
  });
});
