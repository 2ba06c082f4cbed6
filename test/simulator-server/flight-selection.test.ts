/**
 * `/flights` selection and sorting over HTTP against the fixture store; expected
 * results are computed here with plain predicates over the fixture records.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SORT_FIELDS } from "../../src/api/contract.js";
import type { Flight } from "../../src/api/types.js";
import { parseApiDateTime, toLocalDateTime } from "../../src/time/local-time.js";
import { sortValue } from "../conformance/support.js";
import { DAYS, fixtureFlights, TODAY, ZONE } from "./fixture-store.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ pageSize: 1000 });
});
afterAll(() => h.close());

const all = fixtureFlights();
const ids = (flights: Flight[]) => flights.map((f) => f.id);
const sortedIds = (flights: Flight[]) => ids(flights).sort();
const local = (f: Flight, field: string) => {
  const v = f[field];
  return typeof v === "string" ? toLocalDateTime(parseApiDateTime(v, ZONE)!, ZONE) : undefined;
};

async function select(query: string): Promise<Flight[]> {
  const res = await h.get(`/flights?${query}`);
  if (res.status === 204) return [];
  expect(res.status, String(res.headers["x-simulator-reason"])).toBe(200);
  return (JSON.parse(res.text) as { flights: Flight[] }).flights;
}

describe("/flights selection", () => {
  it("defaults to today's flights in the airport zone", async () => {
    const got = await select("");
    expect(sortedIds(got)).toEqual(sortedIds(all.filter((f) => f.scheduleDate === TODAY)));
  });

  it("scheduleDate follows the store clock: moving it past local midnight changes today", async () => {
    const local = await startHarness({ pageSize: 1000 });
    try {
      // 23:30 UTC on the 10th is 00:30 on the 11th in Amsterdam.
      local.clock.set(Date.UTC(2026, 2, 10, 23, 30));
      const res = await local.get("/flights");
      const flights = (JSON.parse(res.text) as { flights: Flight[] }).flights;
      expect(new Set(flights.map((f) => f.scheduleDate))).toEqual(new Set([DAYS[2]]));
    } finally {
      await local.close();
    }
  });

  it.each([
    ["flightName=KL1100", (f: Flight) => f.flightName === "KL1100"],
    ["flightname=HV1101", (f: Flight) => f.flightName === "HV1101"],
    ["flightDirection=A", (f: Flight) => f.flightDirection === "A"],
    ["airline=KL", (f: Flight) => f.prefixIATA === "KL"],
    ["airline=TRA", (f: Flight) => f.prefixICAO === "TRA"],
    ["airlineCode=102", (f: Flight) => f.airlineCode === 102],
    ["isOperationalFlight=true", (f: Flight) => f.isOperationalFlight === true],
    ["isOperationalFlight=false", (f: Flight) => f.isOperationalFlight === false],
    ["route=LHR", (f: Flight) => f.route?.destinations?.includes("LHR") === true],
    ["route=EGLL", (f: Flight) => f.route?.destinations?.includes("LHR") === true],
    ["route=lhr", (f: Flight) => f.route?.destinations?.includes("LHR") === true],
    ["route=egll", (f: Flight) => f.route?.destinations?.includes("LHR") === true],
    [
      "route=CDG,KJFK",
      (f: Flight) => f.route?.destinations?.some((d) => d === "CDG" || d === "JFK") === true,
    ],
    ["scheduleTime=12:00", (f: Flight) => (f.scheduleTime ?? "") >= "12:00:00"],
  ])("filter %s on today", async (query, predicate) => {
    const expected = all.filter((f) => f.scheduleDate === TODAY && predicate(f));
    expect(expected.length).toBeGreaterThan(0);
    expect(sortedIds(await select(query))).toEqual(sortedIds(expected));
  });

  it("all filters given together apply (AND)", async () => {
    const expected = all.filter(
      (f) =>
        f.scheduleDate === DAYS[2] &&
        f.flightDirection === "D" &&
        f.prefixIATA === "KL" &&
        f.isOperationalFlight === true &&
        (f.scheduleTime ?? "") >= "08:00:00",
    );
    expect(expected.length).toBeGreaterThan(0);
    const got = await select(
      `scheduleDate=${DAYS[2]}&flightDirection=D&airline=KL&isOperationalFlight=true&scheduleTime=08:00`,
    );
    expect(sortedIds(got)).toEqual(sortedIds(expected));
  });

  it("includedelays adds earlier-dated flights moved onto the queried date", async () => {
    const without = await select(`scheduleDate=${DAYS[1]}`);
    const withDelays = await select(`scheduleDate=${DAYS[1]}&includedelays=true`);
    const added = withDelays.filter((f) => !ids(without).includes(f.id));
    expect(ids(added).sort()).toEqual(["190000000000000001", "190000000000000002"]);
    // Not on the day they were moved away from? They stay there: they are scheduled there.
    expect(ids(await select(`scheduleDate=${DAYS[0]}`))).toContain("190000000000000001");
  });

  it("includedelays with scheduleTime compares the moved time", async () => {
    expect(
      ids(await select(`scheduleDate=${DAYS[1]}&includedelays=true&scheduleTime=00:30`)),
    ).toContain("190000000000000001");
    expect(
      ids(await select(`scheduleDate=${DAYS[1]}&includedelays=true&scheduleTime=00:40`)),
    ).not.toContain("190000000000000001");
  });

  it("fromScheduleDate/toScheduleDate select a range of schedule dates", async () => {
    const got = await select(`fromScheduleDate=${DAYS[1]}&toScheduleDate=${DAYS[2]}`);
    const expected = all.filter((f) => f.scheduleDate === DAYS[1] || f.scheduleDate === DAYS[2]);
    expect(sortedIds(got)).toEqual(sortedIds(expected));
    const open = await select(`fromScheduleDate=${DAYS[2]}`);
    expect(sortedIds(open)).toEqual(sortedIds(all.filter((f) => f.scheduleDate === DAYS[2])));
  });

  it("fromDateTime/toDateTime bound scheduleDateTime by default, inclusive, local time", async () => {
    const from = `${TODAY}T08:00:00`;
    const to = `${TODAY}T12:24:00`; // flight k=12 of the day is scheduled at 12:24
    const expected = all.filter((f) => {
      const t = local(f, "scheduleDateTime");
      return t !== undefined && t >= from && t <= to;
    });
    const got = await select(`fromDateTime=${from}&toDateTime=${to}`);
    expect(sortedIds(got)).toEqual(sortedIds(expected));
    // An inclusive upper bound: a flight exactly at `to` is in.
    const atBound = expected.filter((f) => local(f, "scheduleDateTime") === to);
    expect(atBound).toHaveLength(1);
    const justBefore = await select(`fromDateTime=${from}&toDateTime=${TODAY}T12:23:59`);
    expect(ids(justBefore)).not.toContain(atBound[0]?.id);
  });

  it.each(["estimatedLandingTime", "publicEstimatedOffBlockTime", "lastUpdatedAt"])(
    "searchDateTimeField=%s bounds that field, flights without it excluded",
    async (field) => {
      const from = field === "lastUpdatedAt" ? `${TODAY}T10:00:00` : `${TODAY}T00:00:00`;
      const to = field === "lastUpdatedAt" ? `${TODAY}T10:40:00` : `${TODAY}T13:00:00`;
      const expected = all.filter((f) => {
        const t = local(f, field);
        return t !== undefined && t >= from && t <= to;
      });
      expect(expected.length).toBeGreaterThan(0);
      const got = await select(
        `fromDateTime=${from}&toDateTime=${to}&searchDateTimeField=${field}`,
      );
      expect(sortedIds(got)).toEqual(sortedIds(expected));
    },
  );

  it("an explicit scheduleDate and a date-time range combine (AND)", async () => {
    const got = await select(
      `scheduleDate=${DAYS[0]}&fromDateTime=${TODAY}T00:00:00&toDateTime=${TODAY}T23:59:59&searchDateTimeField=estimatedLandingTime`,
    );
    expect(ids(got).sort()).toEqual(["190000000000000001", "190000000000000002"]);
  });
});

describe("/flights sorting", () => {
  const range = `fromScheduleDate=${DAYS[0]}&toScheduleDate=${DAYS[2]}`;
  const keyOf = (f: Flight, field: string): string | number | undefined =>
    sortValue(f, field, ZONE);
  // Reference order: by key (absent last), ties by id ascending.
  const expectedOrder = (field: string, descending: boolean) =>
    [...all]
      .sort((a, b) => {
        const ka = keyOf(a, field);
        const kb = keyOf(b, field);
        if (ka !== kb) {
          if (ka === undefined) return 1;
          if (kb === undefined) return -1;
          const c = ka < kb ? -1 : 1;
          return descending ? -c : c;
        }
        return (keyOf(a, "id") as string) < (keyOf(b, "id") as string) ? -1 : 1;
      })
      .map((f) => f.id);

  for (const field of SORT_FIELDS.flights) {
    for (const [prefix, descending] of [
      ["%2B", false],
      ["+", false],
      ["-", true],
      ["", false],
    ] as const) {
      it(`sort=${prefix}${field}`, async () => {
        expect(ids(await select(`${range}&sort=${prefix}${field}`))).toEqual(
          expectedOrder(field, descending),
        );
      });
    }
  }

  it("sorts by several keys in order", async () => {
    const expected = [...all]
      .sort((a, b) => {
        if (a.flightDirection !== b.flightDirection)
          return a.flightDirection! < b.flightDirection! ? -1 : 1;
        if (a.airlineCode !== b.airlineCode) return b.airlineCode! - a.airlineCode!;
        return a.id! < b.id! ? -1 : 1;
      })
      .map((f) => f.id);
    expect(ids(await select(`${range}&sort=flightDirection,-airlineCode`))).toEqual(expected);
  });

  it("the default sort is +scheduleTime", async () => {
    const got = await select(`scheduleDate=${TODAY}`);
    const times = got.map((f) => f.scheduleTime ?? "");
    expect(times).toEqual([...times].sort());
  });
});
