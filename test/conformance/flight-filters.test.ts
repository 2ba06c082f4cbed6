/**
 * Conformance: the filters of GET /flights and GET /flights/ids. Parameters are
 * derived from sample flights of the service; each test checks that every
 * returned record satisfies the filter and that the sample itself is returned.
 * A filter test must be able to fail: where a filter could remove nothing (the
 * default query already implies it, or the sample is the day's first flight), the
 * test compares with the whole unfiltered day and requires a strictly smaller,
 * non-empty result.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { AIRPORT_ICAO_TO_IATA } from "../../src/simulator/http/airport-codes.js";
import { collect, localOf, recordsOf, sampleFlights, shiftLocal, walk } from "./support.js";
import { type ConformanceTarget, startTarget } from "./target.js";

let t: ConformanceTarget;
let sample: Flight[];
let f: Flight;
let today: string;
let tomorrow: string;
/** Every flight of today's unfiltered query, in its default order (+scheduleTime). */
let day: Flight[];
/** A flight scheduled mid-day: flights of the day are scheduled before it. */
let mid: Flight;
/** A flight with the fields the filters need. */
const usable = (x: Flight): boolean =>
  Boolean(
    x.flightName && x.prefixIATA && x.airlineCode !== undefined && x.route?.destinations?.length,
  );
beforeAll(async () => {
  t = await startTarget();
  sample = await sampleFlights(t);
  f = sample.find(usable) ?? (sample[0] as Flight);
  today = f.scheduleDate ?? "";
  tomorrow = shiftLocal(`${today}T00:00:00`, 86_400).slice(0, 10);
  day = await all("");
  const half = day.slice(Math.floor(day.length / 2));
  mid = half.find((x) => usable(x) && hhmm(x) > hhmm(day[0] as Flight)) ?? (day[0] as Flight);
  expect(hhmm(mid), "a flight scheduled after the day's first one").not.toBe(
    hhmm(day[0] as Flight),
  );
});
afterAll(() => t.close());

/** `HH:mm` of a flight's scheduleTime. */
function hhmm(x: Flight): string {
  return (x.scheduleTime ?? "").slice(0, 5);
}

/** Every flight of a query (all pages). */
async function all(query: string): Promise<Flight[]> {
  const pages = await walk<Flight>(t, `/flights?${query}`, "flights", 500);
  return pages.flatMap((p) => p.records);
}

/**
 * Flights of a query (first pages), asserting each satisfies `predicate` and
 * `expected` (a sample flight, by default `f`; false for none) is among them.
 */
async function expectFilter(
  query: string,
  predicate: (x: Flight) => boolean,
  expected: Flight | false = f,
) {
  const flights = await collect<Flight>(t, `/flights?${query}`, "flights", 4);
  for (const x of flights)
    expect(predicate(x), `${query}: flight ${x.id} does not match`).toBe(true);
  if (expected) {
    const found = await collect<Flight>(
      t,
      `/flights?${query}&flightName=${expected.flightName}`,
      "flights",
      2,
    );
    expect(
      found.map((x) => x.id),
      `${query}: sample ${expected.id}`,
    ).toContain(expected.id);
  }
  return flights;
}

/**
 * Every flight of a filter on today's flights, asserting each satisfies `predicate`,
 * the result is non-empty when today has matching flights, and strictly smaller than
 * the whole day when some flights of the day do not match: the filter removes what it
 * must. The simulator's data stands still, so there the count must match exactly.
 */
async function expectNarrowing(query: string, predicate: (x: Flight) => boolean) {
  const matching = day.filter(predicate).length;
  expect(matching, `${query}: today has matching flights`).toBeGreaterThan(0);
  expect(matching, `${query}: today has flights the filter removes`).toBeLessThan(day.length);
  const flights = await all(query);
  for (const x of flights)
    expect(predicate(x), `${query}: flight ${x.id} does not match`).toBe(true);
  expect(flights.length, `${query}: matching flights`).toBeGreaterThan(0);
  expect(flights.length, `${query}: fewer than the whole day`).toBeLessThan(day.length);
  if (t.simulator) expect(flights.length, `${query}: every matching flight`).toBe(matching);
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
    // Not today: today is the default, which a filter that was ignored would return.
    const flights = await expectFilter(
      `scheduleDate=${tomorrow}`,
      (x) => x.scheduleDate === tomorrow,
      false,
    );
    expect(flights.length, "tomorrow's flights are published").toBeGreaterThan(0);
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
    const icaoOf = (iata: string | undefined) =>
      Object.entries(AIRPORT_ICAO_TO_IATA).find(([, v]) => v === iata)?.[0];
    // A sample whose destination has an ICAO code this suite knows.
    const g = sample.find((x) => usable(x) && icaoOf(x.route?.destinations?.[0]) !== undefined);
    expect(g, "a sample flight to an airport of known ICAO code").toBeDefined();
    if (g === undefined) return;
    const iata = g.route?.destinations?.[0] ?? "";
    const icao = icaoOf(iata) ?? "";
    await expectFilter(`route=${icao}`, (x) => x.route?.destinations?.includes(iata) === true, g);
  });

  it("[getFlights: route, a lower-case code selects as its upper-case form]", async () => {
    const code = f.route?.destinations?.[0] ?? "";
    const lower = code.toLowerCase();
    expect(lower, "a code with letters").not.toBe(code);
    const flights = await expectFilter(
      `route=${lower}`,
      (x) => x.route?.destinations?.includes(code) === true,
    );
    expect(flights.length).toBeGreaterThan(0);
  });

  it("[getFlights: route, a comma-separated list]", async () => {
    const code = f.route?.destinations?.[0] ?? "";
    const other = code === "LHR" ? "CDG" : "LHR";
    await expectFilter(`route=${other},${code}`, (x) =>
      (x.route?.destinations ?? []).some((d) => d === code || d === other),
    );
  });

  it("[getFlights: scheduleTime, flights scheduled from this time]", async () => {
    // A mid-day time: from the day's first flight the filter would remove nothing.
    const from = hhmm(mid);
    const flights = await expectNarrowing(`scheduleTime=${from}`, (x) => hhmm(x) >= from);
    expect(flights.map((x) => x.id)).toContain(mid.id);
  });

  it.each([true, false])("[getFlights: isOperationalFlight=%s]", async (value) => {
    await expectNarrowing(`isOperationalFlight=${value}`, (x) => x.isOperationalFlight === value);
  });

  it("[getFlights: fromScheduleDate/toScheduleDate, a schedule-date range]", async () => {
    // Not today alone: that is the default, which an ignored range would return too.
    const single = await expectFilter(
      `fromScheduleDate=${tomorrow}&toScheduleDate=${tomorrow}`,
      (x) => x.scheduleDate === tomorrow,
      false,
    );
    expect(single.length, "tomorrow's flights are published").toBeGreaterThan(0);
    const two = await expectFilter(
      `fromScheduleDate=${today}&toScheduleDate=${tomorrow}`,
      (x) => x.scheduleDate === today || x.scheduleDate === tomorrow,
    );
    expect(two.length).toBeGreaterThan(0);
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
    // From the mid-day sample, so that each filter, scheduleTime included, removes flights.
    const from = hhmm(mid);
    const sameAirline = (x: Flight) =>
      x.prefixIATA === mid.prefixIATA || x.prefixICAO === mid.prefixIATA;
    const flights = await expectNarrowing(
      `scheduleDate=${today}&flightDirection=${mid.flightDirection}&airline=${mid.prefixIATA}&scheduleTime=${from}`,
      (x) =>
        x.scheduleDate === today &&
        x.flightDirection === mid.flightDirection &&
        sameAirline(x) &&
        hhmm(x) >= from,
    );
    expect(flights.map((x) => x.id)).toContain(mid.id);
    // Each filter removes something the others keep.
    const others = day.filter((x) => sameAirline(x) && x.flightDirection === mid.flightDirection);
    expect(
      others.some((x) => hhmm(x) < from),
      "scheduleTime removes earlier flights",
    ).toBe(true);
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
