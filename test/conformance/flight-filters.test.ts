/**
 * Conformance: the filters of GET /flights and GET /flights/ids. Parameters are
 * derived from a sample flight of the service; each test checks that every
 * returned record satisfies the filter and that the sample itself is returned.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { AIRPORT_ICAO_TO_IATA } from "../../src/simulator/http/airport-codes.js";
import { collect, localOf, recordsOf, sampleFlights, shiftLocal } from "./support.js";
import { type ConformanceTarget, startTarget } from "./target.js";

let t: ConformanceTarget;
let sample: Flight[];
let f: Flight;
let today: string;
beforeAll(async () => {
  t = await startTarget();
  sample = await sampleFlights(t);
  // A flight with the fields the filters need.
  f =
    sample.find(
      (x) =>
        x.flightName &&
        x.prefixIATA &&
        x.airlineCode !== undefined &&
        x.route?.destinations?.length,
    ) ?? (sample[0] as Flight);
  today = f.scheduleDate ?? "";
});
afterAll(() => t.close());

/** Flights of a query (first pages), asserting each satisfies `predicate` and the sample is among them. */
async function expectFilter(
  query: string,
  predicate: (x: Flight) => boolean,
  includesSample = true,
) {
  const flights = await collect<Flight>(t, `/flights?${query}`, "flights", 4);
  for (const x of flights)
    expect(predicate(x), `${query}: flight ${x.id} does not match`).toBe(true);
  if (includesSample) {
    const found = await collect<Flight>(
      t,
      `/flights?${query}&flightName=${f.flightName}`,
      "flights",
      2,
    );
    expect(
      found.map((x) => x.id),
      `${query}: sample ${f.id}`,
    ).toContain(f.id);
  }
  return flights;
}

describe("GET /flights filters", () => {
  it("[getFlights: scheduleDate default today] the default equals scheduleDate=<today>", async () => {
    const implicit = recordsOf<Flight>(await t.get("/flights"), "flights").map((x) => x.id);
    const explicit = recordsOf<Flight>(
      await t.get(`/flights?scheduleDate=${today}`),
      "flights",
    ).map((x) => x.id);
    expect(explicit).toEqual(implicit);
  });

  it("[getFlights: scheduleDate] selects flights of that date", async () => {
    await expectFilter(`scheduleDate=${today}`, (x) => x.scheduleDate === today);
  });

  it("[getFlights: flightName] selects flights with that flight number", async () => {
    await expectFilter(`flightName=${f.flightName}`, (x) => x.flightName === f.flightName);
  });

  it.each(["A", "D"])("[getFlights: flightDirection %s]", async (direction) => {
    const flights = await expectFilter(
      `flightDirection=${direction}`,
      (x) => x.flightDirection === direction,
      false,
    );
    expect(flights.length).toBeGreaterThan(0);
  });

  it("[getFlights: airline, a 2-character prefix]", async () => {
    await expectFilter(
      `airline=${f.prefixIATA}`,
      (x) => x.prefixIATA === f.prefixIATA || x.prefixICAO === f.prefixIATA,
    );
  });

  it("[getFlights: airline, a 3-character prefix]", async () => {
    if (!f.prefixICAO) return;
    await expectFilter(
      `airline=${f.prefixICAO}`,
      (x) => x.prefixICAO === f.prefixICAO || x.prefixIATA === f.prefixICAO,
    );
  });

  it("[getFlights: airlineCode (NVLS)]", async () => {
    await expectFilter(`airlineCode=${f.airlineCode}`, (x) => x.airlineCode === f.airlineCode);
  });

  it("[getFlights: route, an IATA code; any route destination matches]", async () => {
    const code = f.route?.destinations?.[0] ?? "";
    await expectFilter(`route=${code}`, (x) => x.route?.destinations?.includes(code) === true);
  });

  it("[getFlights: route, an ICAO code]", async () => {
    const iata = f.route?.destinations?.[0] ?? "";
    const icao = Object.entries(AIRPORT_ICAO_TO_IATA).find(([, v]) => v === iata)?.[0];
    if (!icao) return; // no known ICAO code for this destination
    await expectFilter(`route=${icao}`, (x) => x.route?.destinations?.includes(iata) === true);
  });

  it("[getFlights: route, a comma-separated list]", async () => {
    const code = f.route?.destinations?.[0] ?? "";
    const other = code === "LHR" ? "CDG" : "LHR";
    await expectFilter(`route=${other},${code}`, (x) =>
      (x.route?.destinations ?? []).some((d) => d === code || d === other),
    );
  });

  it("[getFlights: scheduleTime, flights scheduled from this time]", async () => {
    const hhmm = (f.scheduleTime ?? "00:00").slice(0, 5);
    await expectFilter(`scheduleTime=${hhmm}`, (x) => (x.scheduleTime ?? "").slice(0, 5) >= hhmm);
  });

  it.each([true, false])("[getFlights: isOperationalFlight=%s]", async (value) => {
    await expectFilter(
      `isOperationalFlight=${value}`,
      (x) => x.isOperationalFlight === value,
      f.isOperationalFlight === value,
    );
  });

  it("[getFlights: fromScheduleDate/toScheduleDate, a schedule-date range]", async () => {
    await expectFilter(
      `fromScheduleDate=${today}&toScheduleDate=${today}`,
      (x) => x.scheduleDate === today,
    );
  });

  it("[getFlights: fromDateTime/toDateTime inclusive, local time; scheduleDateTime by default]", async () => {
    const at = localOf(f.scheduleDateTime, t.zone) ?? "";
    const inWindow = (x: Flight) => {
      const local = localOf(x.scheduleDateTime, t.zone);
      return local !== undefined && local >= at && local <= at;
    };
    await expectFilter(`fromDateTime=${at}&toDateTime=${at}`, inWindow);
    const after = await collect<Flight>(
      t,
      `/flights?fromDateTime=${shiftLocal(at, 1)}&flightName=${f.flightName}`,
    );
    expect(after.map((x) => x.id)).not.toContain(f.id);
    const before = await collect<Flight>(
      t,
      `/flights?toDateTime=${shiftLocal(at, -1)}&flightName=${f.flightName}`,
    );
    expect(before.map((x) => x.id)).not.toContain(f.id);
  });

  it("[getFlights: searchDateTimeField=lastUpdatedAt names the field the bounds apply to]", async () => {
    const at = localOf(f.lastUpdatedAt, t.zone) ?? "";
    const from = shiftLocal(at, -1);
    const to = shiftLocal(at, 1);
    await expectFilter(
      `fromDateTime=${from}&toDateTime=${to}&searchDateTimeField=lastUpdatedAt`,
      (x) => {
        const local = localOf(x.lastUpdatedAt, t.zone);
        return local !== undefined && local >= from && local <= to;
      },
    );
  });

  it("[getFlights: all filters together]", async () => {
    const hhmm = (f.scheduleTime ?? "00:00").slice(0, 5);
    await expectFilter(
      `scheduleDate=${today}&flightDirection=${f.flightDirection}&airline=${f.prefixIATA}&scheduleTime=${hhmm}`,
      (x) =>
        x.scheduleDate === today &&
        x.flightDirection === f.flightDirection &&
        (x.prefixIATA === f.prefixIATA || x.prefixICAO === f.prefixIATA) &&
        (x.scheduleTime ?? "").slice(0, 5) >= hhmm,
    );
  });
});

describe("GET /flights/ids", () => {
  it("[flightByIds: a bare JSON array of id strings]", async () => {
    const at = localOf(f.scheduleDateTime, t.zone) ?? "";
    const reply = await t.get(
      `/flights/ids?fromDateTime=${shiftLocal(at, -3600)}&toDateTime=${shiftLocal(at, 3600)}`,
    );
    expect(reply.status).toBe(200);
    const ids = JSON.parse(reply.text) as unknown;
    expect(Array.isArray(ids)).toBe(true);
    for (const id of ids as unknown[]) expect(id).toMatch(/^[0-9]+$/);
    expect(ids).toContain(f.id);
  });

  it("[flightByIds: both bounds inclusive, scheduleDateTime in the range]", async () => {
    const at = localOf(f.scheduleDateTime, t.zone) ?? "";
    const ids = async (from: string, to: string) =>
      JSON.parse(
        (await t.get(`/flights/ids?fromDateTime=${from}&toDateTime=${to}`)).text,
      ) as string[];
    expect(await ids(at, at)).toContain(f.id);
    expect(await ids(shiftLocal(at, 1), shiftLocal(at, 60))).not.toContain(f.id);
    expect(await ids(shiftLocal(at, -60), shiftLocal(at, -1))).not.toContain(f.id);
  });
});
