import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_SORT, parseSort, SORT_FIELDS } from "../../src/api/contract.js";
import { parseFlightIdsQuery, parseFlightQuery } from "../../src/simulator/http/flight-query.js";

const TODAY = "2026-03-10";
const parse = (query: Record<string, string> | string) =>
  parseFlightQuery(new URLSearchParams(query), TODAY);
const problemOf = (query: Record<string, string> | string) => {
  const r = parse(query);
  return r.ok ? undefined : r.problem.param;
};

describe("parseFlightQuery", () => {
  it("defaults: scheduleDate today, sort +scheduleTime, page 0, no delays, scheduleDateTime field", () => {
    const r = parse({});
    expect(r).toEqual({
      ok: true,
      value: {
        scheduleDate: TODAY,
        includeDelays: false,
        searchDateTimeField: "scheduleDateTime",
        sort: (parseSort("flights", DEFAULT_SORT.flights) as { terms: unknown }).terms,
        page: 0,
      },
    });
  });

  it.each([
    [{ fromScheduleDate: "2026-03-01" }],
    [{ toScheduleDate: "2026-03-01" }],
    [{ fromDateTime: "2026-03-01T00:00:00" }],
    [{ toDateTime: "2026-03-01T00:00:00" }],
  ])("no default scheduleDate when a range is given: %o", (query) => {
    const r = parse(query);
    expect(r.ok && r.value.scheduleDate).toBeUndefined();
  });

  it("an explicit scheduleDate still applies together with a range", () => {
    const r = parse({ scheduleDate: "2026-03-02", fromDateTime: "2026-03-01T00:00:00" });
    expect(r.ok && r.value.scheduleDate).toBe("2026-03-02");
  });

  it.each([
    ["scheduleDate", "scheduledate", "2026-03-01", "2026-03-02", "scheduleDate"],
    ["flightName", "flightname", "KL1234", "HV5678", "flightName"],
    ["flightDirection", "flightdirection", "A", "D", "flightDirection"],
  ] as const)("alias %s/%s: camel case wins when both are sent", (camel, lower, a, b, field) => {
    const both = parse(`${lower}=${b}&${camel}=${a}`);
    expect(both.ok && both.value[field]).toBe(a);
    const lowerOnly = parse(`${lower}=${b}`);
    expect(lowerOnly.ok && lowerOnly.value[field]).toBe(b);
  });

  it("alias includedelays/includeDelays: the lower-case spelling wins", () => {
    const a = parse("includeDelays=true&includedelays=false");
    expect(a.ok && a.value.includeDelays).toBe(false);
    const b = parse("includeDelays=false&includedelays=true");
    expect(b.ok && b.value.includeDelays).toBe(true);
    const camelOnly = parse("includeDelays=true");
    expect(camelOnly.ok && camelOnly.value.includeDelays).toBe(true);
  });

  it("the losing alias is not validated", () => {
    expect(parse("flightName=KL1234&flightname=x").ok).toBe(true);
    expect(parse("includedelays=true&includeDelays=maybe").ok).toBe(true);
    expect(problemOf("includedelays=maybe&includeDelays=true")).toBe("includedelays");
  });

  it.each([
    ["scheduleDate=2026-02-30", "scheduleDate"],
    ["scheduledate=20260301", "scheduledate"],
    ["scheduleTime=24:00", "scheduleTime"],
    ["scheduleTime=9:30", "scheduleTime"],
    ["flightName=KL12", "flightName"],
    ["flightname=KL1234567", "flightname"],
    ["flightDirection=X", "flightDirection"],
    ["airline=K", "airline"],
    ["airline=KLMX", "airline"],
    ["airline=KL&airlineCode=100", "airline"],
    ["airlineCode=KL", "airlineCode"],
    ["route=", "route"],
    ["route=AMS,,LHR", "route"],
    ["route=LONDON", "route"],
    ["includedelays=yes", "includedelays"],
    ["page=500", "page"],
    ["page=-1", "page"],
    ["page=1.0", "page"],
    ["sort=+flightNumber", "sort"],
    ["sort=", "sort"],
    ["fromDateTime=2026-03-01", "fromDateTime"],
    ["toDateTime=2026-03-01T10:00:00%2B01:00", "toDateTime"],
    ["fromDateTime=2026-03-02T00:00:00&toDateTime=2026-03-01T00:00:00", "fromDateTime"],
    ["searchDateTimeField=gate", "searchDateTimeField"],
    ["fromScheduleDate=2026-03-02&toScheduleDate=2026-03-01", "fromScheduleDate"],
    ["toScheduleDate=tomorrow", "toScheduleDate"],
    ["isOperationalFlight=1", "isOperationalFlight"],
  ])("refuses %s (problem names %s)", (query, param) => {
    expect(problemOf(query)).toBe(param);
  });

  it("ignores unknown parameters", () => {
    expect(parse("pageSize=100&foo=bar").ok).toBe(true);
  });

  it("reads route as a comma list of IATA or ICAO codes, in any case, upper-cased", () => {
    const r = parse("route=LHR,EGLL,jfk,kJfK");
    expect(r.ok && r.value.route).toEqual(["LHR", "EGLL", "JFK", "KJFK"]);
  });

  it("accepts every allowed sort field with every prefix, and a comma list of them", () => {
    const fields = SORT_FIELDS.flights;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...fields), fc.constantFrom("", "+", "-", " ")), {
          minLength: 1,
          maxLength: 4,
        }),
        (terms) => {
          const text = terms.map(([f, p]) => `${p}${f}`).join(",");
          const r = parse({ sort: text });
          expect(r.ok).toBe(true);
          if (r.ok) {
            expect(r.value.sort).toEqual(
              terms.map(([field, p]) => ({ field, descending: p === "-" })),
            );
          }
        },
      ),
    );
  });
});

describe("parseFlightIdsQuery", () => {
  const ids = (query: Record<string, string>) => parseFlightIdsQuery(new URLSearchParams(query));

  it("requires both bounds", () => {
    expect(ids({ fromDateTime: "2026-03-01T00:00:00" })).toMatchObject({
      ok: false,
      problem: { param: "toDateTime" },
    });
    expect(ids({ toDateTime: "2026-03-01T00:00:00" })).toMatchObject({
      ok: false,
      problem: { param: "fromDateTime" },
    });
  });

  it("accepts exactly three days and refuses one second more", () => {
    expect(ids({ fromDateTime: "2026-03-01T00:00:00", toDateTime: "2026-03-04T00:00:00" }).ok).toBe(
      true,
    );
    expect(
      ids({ fromDateTime: "2026-03-01T00:00:00", toDateTime: "2026-03-04T00:00:01" }),
    ).toMatchObject({
      ok: false,
      problem: { param: "toDateTime" },
    });
  });

  it("counts the span on the wall clock, also across the spring DST change", () => {
    // 2026-03-29 has only 23 hours in Amsterdam; three wall-clock days are still allowed.
    expect(ids({ fromDateTime: "2026-03-28T00:00:00", toDateTime: "2026-03-31T00:00:00" }).ok).toBe(
      true,
    );
  });

  it("refuses from after to", () => {
    expect(ids({ fromDateTime: "2026-03-02T00:00:00", toDateTime: "2026-03-01T00:00:00" }).ok).toBe(
      false,
    );
  });
});
