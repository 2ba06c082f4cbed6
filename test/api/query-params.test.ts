import { describe, expect, it } from "vitest";
import {
  airlineByCodePath,
  buildCollectionQuery,
  buildFlightIdsQuery,
  destinationByCodePath,
  flightByIdPath,
} from "../../src/api/query-params.js";
import { ErrorCode, InvalidParamError } from "../../src/errors.js";

const ZONE = "Europe/Amsterdam";

/** Runs `fn` and returns the InvalidParamError it throws. */
function invalid(fn: () => unknown): InvalidParamError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidParamError) return err;
    throw err;
  }
  throw new Error("expected an InvalidParamError");
}

const flights = (query: Record<string, unknown>) => () =>
  buildCollectionQuery("flights", query as never, ZONE);

describe("buildCollectionQuery: flights", () => {
  it("sends camel-case names in a fixed order whatever the caller's order", () => {
    const pairs = buildCollectionQuery(
      "flights",
      {
        page: 3,
        sort: "-scheduleTime, flightName",
        includeDelays: true,
        flightDirection: "D",
        scheduleDate: "2026-11-21",
        route: ["LHR", "CDG"],
        isOperationalFlight: false,
        airlineCode: 100,
        searchDateTimeField: "lastUpdatedAt",
        fromScheduleDate: "2026-11-20",
        toScheduleDate: "2026-11-22",
        scheduleTime: "23:59",
        flightName: "KL1234",
      },
      ZONE,
    );
    expect(pairs).toEqual([
      ["scheduleDate", "2026-11-21"],
      ["scheduleTime", "23:59"],
      ["flightName", "KL1234"],
      ["flightDirection", "D"],
      ["airlineCode", "100"],
      ["route", "LHR,CDG"],
      ["includeDelays", "true"],
      ["searchDateTimeField", "lastUpdatedAt"],
      ["fromScheduleDate", "2026-11-20"],
      ["toScheduleDate", "2026-11-22"],
      ["isOperationalFlight", "false"],
      ["page", "3"],
      ["sort", "-scheduleTime, flightName"],
    ]);
  });

  it("accepts IATA and ICAO route codes in any case, unchanged", () => {
    expect(buildCollectionQuery("flights", { route: "lhr,EGLL,Cdg,4X9" }, ZONE)).toEqual([
      ["route", "lhr,EGLL,Cdg,4X9"],
    ]);
  });

  it("sends nothing for an empty query and skips undefined values", () => {
    expect(buildCollectionQuery("flights", undefined, ZONE)).toEqual([]);
    expect(buildCollectionQuery("flights", { gate: undefined } as never, ZONE)).toEqual([]);
  });

  it("converts Date and epoch inputs to airport-local date-times", () => {
    const winter = Date.parse("2026-11-21T09:00:00Z"); // 10:00 in Amsterdam (+01:00)
    const summer = new Date("2026-07-01T09:00:00Z"); // 11:00 in Amsterdam (+02:00)
    expect(buildCollectionQuery("flights", { fromDateTime: winter }, ZONE)).toEqual([
      ["fromDateTime", "2026-11-21T10:00:00"],
    ]);
    expect(buildCollectionQuery("flights", { toDateTime: summer }, ZONE)).toEqual([
      ["toDateTime", "2026-07-01T11:00:00"],
    ]);
    expect(
      buildCollectionQuery("flights", { fromDateTime: summer, toDateTime: winter }, ZONE),
    ).toEqual([
      ["fromDateTime", "2026-07-01T11:00:00"],
      ["toDateTime", "2026-11-21T10:00:00"],
    ]);
    expect(buildCollectionQuery("flights", { fromDateTime: "2026-11-21T00:00:00" }, "UTC")).toEqual(
      [["fromDateTime", "2026-11-21T00:00:00"]],
    );
  });

  it.each([
    [{ page: -1 }, "page"],
    [{ page: 500 }, "page"],
    [{ page: 1.5 }, "page"],
    [{ page: "1" }, "page"],
    [{ flightName: "KL12" }, "flightName"],
    [{ flightName: "KL1234567" }, "flightName"],
    [{ flightDirection: "X" }, "flightDirection"],
    [{ airline: "K" }, "airline"],
    [{ airline: "KLMX" }, "airline"],
    [{ airline: "KL", airlineCode: 100 }, "airline"],
    [{ airlineCode: -1 }, "airlineCode"],
    [{ airlineCode: 2 ** 31 }, "airlineCode"],
    [{ airlineCode: "100" }, "airlineCode"],
    [{ route: "" }, "route"],
    [{ route: [] }, "route"],
    [{ route: "LHR,,CDG" }, "route"],
    [{ route: ["LHR", "A,B"] }, "route"],
    [{ route: " LHR" }, "route"],
    [{ route: "LHR, CDG" }, "route"],
    [{ route: "LH" }, "route"],
    [{ route: "EHAMX" }, "route"],
    [{ route: "LH-R" }, "route"],
    [{ route: ["LHR", 5] }, "route"],
    [{ includeDelays: "true" }, "includeDelays"],
    [{ isOperationalFlight: 1 }, "isOperationalFlight"],
    [{ sort: "gate" }, "sort"],
    [{ sort: "+scheduleTime,-nope" }, "sort"],
    [{ sort: "" }, "sort"],
    [{ searchDateTimeField: "gate" }, "searchDateTimeField"],
    [{ scheduleDate: "2026-02-30" }, "scheduleDate"],
    [{ scheduleDate: "21-11-2026" }, "scheduleDate"],
    [{ fromScheduleDate: "2026-13-01" }, "fromScheduleDate"],
    [{ toScheduleDate: "2026-1-01" }, "toScheduleDate"],
    [{ scheduleTime: "24:00" }, "scheduleTime"],
    [{ scheduleTime: "9:30" }, "scheduleTime"],
    [{ scheduleTime: "09:30:00" }, "scheduleTime"],
    [{ fromDateTime: "2026-11-21T10:00" }, "fromDateTime"],
    [{ fromDateTime: "2026-11-21T10:00:00+01:00" }, "fromDateTime"],
    [{ toDateTime: "2026-11-21T25:00:00" }, "toDateTime"],
    [{ toDateTime: new Date(Number.NaN) }, "toDateTime"],
    [{ toDateTime: Number.POSITIVE_INFINITY }, "toDateTime"],
    [{ fromDateTime: 1e20 }, "fromDateTime"],
    [{ toDateTime: -1e17 }, "toDateTime"],
    [{ fromDateTime: new Date(8.64e15) }, "fromDateTime"],
    [{ fromDateTime: 1e20, toDateTime: 0 }, "fromDateTime"],
    [{ fromDateTime: 0, toDateTime: new Date(8.64e15) }, "toDateTime"],
    [{ fromDateTime: 1000, toDateTime: 0 }, "toDateTime"],
    [{ fromDateTime: "2026-11-21T10:00:01", toDateTime: "2026-11-21T10:00:00" }, "toDateTime"],
    [{ fromScheduleDate: "2026-11-22", toScheduleDate: "2026-11-21" }, "toScheduleDate"],
    [{ flightname: "KL1234" }, "flightname"],
    [{ includedelays: true }, "includedelays"],
    [{ scheduledate: "2026-11-21" }, "scheduledate"],
    [{ pageSize: 50 }, "pageSize"],
  ])("rejects %j naming %s", (query, param) => {
    const err = invalid(flights(query));
    expect(err.code).toBe(ErrorCode.INVALID_PARAM);
    expect(err.param).toBe(param);
    expect(err.message).toContain(`\`${param}\``);
  });

  it("converts a window of two instants together, covering the autumn change's repeated hour", () => {
    // 00:30Z..01:10Z is 02:30 CEST..02:10 CET: each end alone gives an inverted window.
    const from = Date.parse("2026-10-25T00:30:00Z");
    const to = new Date("2026-10-25T01:10:00Z");
    const expected = [
      ["fromDateTime", "2026-10-25T02:00:00"],
      ["toDateTime", "2026-10-25T03:00:00"],
    ];
    expect(buildCollectionQuery("flights", { fromDateTime: from, toDateTime: to }, ZONE)).toEqual(
      expected,
    );
    expect(buildFlightIdsQuery({ fromDateTime: from, toDateTime: to }, ZONE)).toEqual(expected);
  });

  it("converts a window of two instants across the spring change (the missing hour)", () => {
    const from = Date.parse("2026-03-29T00:30:00Z"); // 01:30 CET
    const to = Date.parse("2026-03-29T01:10:00Z"); // 03:10 CEST
    expect(buildCollectionQuery("flights", { fromDateTime: from, toDateTime: to }, ZONE)).toEqual([
      ["fromDateTime", "2026-03-29T01:30:00"],
      ["toDateTime", "2026-03-29T03:10:00"],
    ]);
  });

  it("accepts bounds in order, equal bounds included", () => {
    expect(
      buildCollectionQuery(
        "flights",
        {
          fromDateTime: "2026-11-21T10:00:00",
          toDateTime: "2026-11-21T10:00:00",
          fromScheduleDate: "2026-11-21",
          toScheduleDate: "2026-11-21",
        },
        ZONE,
      ),
    ).toHaveLength(4);
  });

  it("tells a caller who uses a lower-case alias the camel-case spelling", () => {
    expect(invalid(flights({ flightdirection: "A" })).message).toContain("use `flightDirection`");
  });
});

describe("buildCollectionQuery: other collections", () => {
  it("validates sort fields per collection", () => {
    expect(buildCollectionQuery("airlines", { sort: "-publicName,+nvls" }, ZONE)).toEqual([
      ["sort", "-publicName,+nvls"],
    ]);
    expect(buildCollectionQuery("destinations", { sort: "+publicName.english" }, ZONE)).toEqual([
      ["sort", "+publicName.english"],
    ]);
    expect(invalid(() => buildCollectionQuery("airlines", { sort: "iataMain" }, ZONE)).param).toBe(
      "sort",
    );
    expect(invalid(() => buildCollectionQuery("aircraftTypes", { sort: "iata" }, ZONE)).param).toBe(
      "sort",
    );
    expect(invalid(() => buildCollectionQuery("destinations", { sort: "nvls" }, ZONE)).param).toBe(
      "sort",
    );
  });

  it("checks iataMain and iataSub are exactly 3 characters", () => {
    expect(
      buildCollectionQuery("aircraftTypes", { iataMain: "73H", iataSub: "738" }, ZONE),
    ).toEqual([
      ["iataMain", "73H"],
      ["iataSub", "738"],
    ]);
    expect(
      invalid(() => buildCollectionQuery("aircraftTypes", { iataMain: "73" }, ZONE)).param,
    ).toBe("iataMain");
    expect(
      invalid(() => buildCollectionQuery("aircraftTypes", { iataSub: "7388" }, ZONE)).param,
    ).toBe("iataSub");
  });

  it("rejects parameters of other endpoints", () => {
    const err = invalid(() =>
      buildCollectionQuery("airlines", { flightDirection: "A" } as never, ZONE),
    );
    expect(err.param).toBe("flightDirection");
    expect(err.message).toContain("not a parameter of getAirlines");
    expect(invalid(() => buildCollectionQuery("destinations", { page: 500 }, ZONE)).param).toBe(
      "page",
    );
  });
});

describe("buildFlightIdsQuery", () => {
  it("accepts a range of exactly three days and converts instants", () => {
    expect(
      buildFlightIdsQuery(
        { fromDateTime: "2026-11-21T00:00:00", toDateTime: "2026-11-24T00:00:00" },
        ZONE,
      ),
    ).toEqual([
      ["fromDateTime", "2026-11-21T00:00:00"],
      ["toDateTime", "2026-11-24T00:00:00"],
    ]);
    const from = Date.parse("2026-11-20T23:00:00Z");
    expect(
      buildFlightIdsQuery({ fromDateTime: from, toDateTime: new Date(from + 3600_000) }, ZONE),
    ).toEqual([
      ["fromDateTime", "2026-11-21T00:00:00"],
      ["toDateTime", "2026-11-21T01:00:00"],
    ]);
  });

  it("rejects a range longer than three days, naming toDateTime", () => {
    const err = invalid(() =>
      buildFlightIdsQuery(
        { fromDateTime: "2026-11-21T00:00:00", toDateTime: "2026-11-24T00:00:01" },
        ZONE,
      ),
    );
    expect(err.param).toBe("toDateTime");
    expect(err.message).toContain("three days");
  });

  it("measures the range on the wall clock, whatever DST does", () => {
    const ids = (fromDateTime: string, toDateTime: string) =>
      buildFlightIdsQuery({ fromDateTime, toDateTime }, ZONE);
    // Autumn: 72 wall-clock hours (73 real) are allowed; one second more is not.
    expect(ids("2026-10-24T00:00:00", "2026-10-27T00:00:00")).toHaveLength(2);
    expect(invalid(() => ids("2026-10-24T00:00:00", "2026-10-27T00:00:01")).param).toBe(
      "toDateTime",
    );
    // Spring: 72.5 wall-clock hours (71.5 real) are refused.
    expect(invalid(() => ids("2026-03-28T00:00:00", "2026-03-31T00:30:00")).param).toBe(
      "toDateTime",
    );
    expect(ids("2026-03-28T00:00:00", "2026-03-31T00:00:00")).toHaveLength(2);
  });

  it("requires both bounds, in order", () => {
    expect(
      invalid(() => buildFlightIdsQuery({ toDateTime: "2026-11-21T00:00:00" } as never, ZONE))
        .param,
    ).toBe("fromDateTime");
    expect(
      invalid(() => buildFlightIdsQuery({ fromDateTime: "2026-11-21T00:00:00" } as never, ZONE))
        .param,
    ).toBe("toDateTime");
    expect(
      invalid(() =>
        buildFlightIdsQuery(
          { fromDateTime: "2026-11-21T00:00:01", toDateTime: "2026-11-21T00:00:00" },
          ZONE,
        ),
      ).param,
    ).toBe("toDateTime");
    expect(
      invalid(() =>
        buildFlightIdsQuery({ fromDateTime: "2026-11-21", toDateTime: "2026-11-22" }, ZONE),
      ).param,
    ).toBe("fromDateTime");
  });
});

describe("path parameters", () => {
  it("accepts digits-only flight ids given as strings", () => {
    expect(flightByIdPath("123456789012345678")).toBe("/flights/123456789012345678");
    for (const id of ["", "12a", "-1", " 1", "1.0"])
      expect(invalid(() => flightByIdPath(id)).param).toBe("id");
    expect(invalid(() => flightByIdPath(123)).message).toContain("2^53");
  });

  it("accepts 2–3 character airline codes", () => {
    expect(airlineByCodePath("KL")).toBe("/airlines/KL");
    expect(airlineByCodePath("KLM")).toBe("/airlines/KLM");
    for (const code of ["K", "KLMX", "..", "K/", 12]) {
      expect(invalid(() => airlineByCodePath(code)).param).toBe("airline");
    }
  });

  it("accepts exactly 3 character destination codes", () => {
    expect(destinationByCodePath("AMS")).toBe("/destinations/AMS");
    for (const code of ["AM", "AMST", "A/S", undefined]) {
      expect(invalid(() => destinationByCodePath(code)).param).toBe("iata");
    }
  });
});
