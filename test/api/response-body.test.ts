import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseCollectionBody,
  parseFlightIdsBody,
  parseRecordBody,
} from "../../src/api/response-body.js";
import { MAX_RECORD_DEPTH, stripNulls, TOO_DEEP } from "../../src/api/strip-nulls.js";

const hasNull = (value: unknown): boolean =>
  value === null ||
  (typeof value === "object" &&
    value !== undefined &&
    Object.values(value as Record<string, unknown>).some(hasNull));

describe("stripNulls", () => {
  it("drops null keys and null array elements at every depth", () => {
    expect(
      stripNulls({
        gate: null,
        route: { destinations: ["LHR", null], visa: null, eu: "E" },
        checkinAllocations: { checkinAllocations: [{ rows: null, startTime: "x" }] },
        codeshares: null,
      }),
    ).toEqual({
      route: { destinations: ["LHR"], eu: "E" },
      checkinAllocations: { checkinAllocations: [{ startTime: "x" }] },
    });
    expect(stripNulls(null)).toBeUndefined();
    expect(stripNulls(5)).toBe(5);
  });

  it("never leaves a null anywhere and keeps everything else", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const stripped = stripNulls(value);
        expect(hasNull(stripped)).toBe(false);
        // Stripping is idempotent: a value without nulls comes back equal.
        expect(stripNulls(stripped)).toEqual(stripped);
      }),
    );
  });

  it("refuses nesting deeper than its limit instead of overflowing the stack", () => {
    const nested = (depth: number): unknown =>
      JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    expect(stripNulls(nested(MAX_RECORD_DEPTH))).toEqual(nested(MAX_RECORD_DEPTH));
    expect(stripNulls(nested(MAX_RECORD_DEPTH + 1))).toBe(TOO_DEEP);
    expect(stripNulls({ a: [{ b: nested(10_000) }] })).toBe(TOO_DEEP);
    expect(stripNulls({ a: { b: 1 } }, 2)).toEqual({ a: { b: 1 } });
    expect(stripNulls({ a: { b: {} } }, 2)).toBe(TOO_DEEP);
  });

  it("does not let a __proto__ key reach a prototype", () => {
    const out = stripNulls(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')) as Record<
      string,
      unknown
    >;
    expect(out).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe("parseCollectionBody", () => {
  it("returns records, unknown fields kept and nulls gone", () => {
    const parsed = parseCollectionBody("flights", {
      flights: [
        { id: "123456789012345678", gate: null, futureField: { x: 1 }, terminal: 2 },
        { id: "2", route: { destinations: ["LHR"], visa: null, newFlag: true } },
      ],
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        items: [
          { id: "123456789012345678", futureField: { x: 1 }, terminal: 2 },
          { id: "2", route: { destinations: ["LHR"], newFlag: true } },
        ],
        malformed: [],
      },
    });
  });

  it("takes a flight record already validated (same id, same lastUpdatedAt text) from `reuse`, and validates the rest", () => {
    const stamp = "2026-11-21T06:00:00.000+01:00";
    const kept = { id: "1", gate: "D7", lastUpdatedAt: stamp };
    const reuse = new Map([["1", kept]]);
    const parsed = parseCollectionBody(
      "flights",
      {
        flights: [
          { id: "1", gate: "D7", lastUpdatedAt: stamp },
          // Same stamp written otherwise (the offset as +0100): validated again.
          { id: "1", gate: "D7", lastUpdatedAt: "2026-11-21T06:00:00.000+0100" },
          { id: "1", gate: "D9", lastUpdatedAt: "2026-11-21T06:00:05.000+01:00" },
          { id: "2", gate: null, lastUpdatedAt: stamp },
        ],
      },
      reuse,
    );
    expect(parsed.ok && parsed.value.reused).toBe(1);
    expect(parsed.ok && parsed.value.items[0]).toBe(kept);
    expect(parsed.ok && parsed.value.items.slice(1)).toEqual([
      { id: "1", gate: "D7", lastUpdatedAt: "2026-11-21T06:00:00.000+0100" },
      { id: "1", gate: "D9", lastUpdatedAt: "2026-11-21T06:00:05.000+01:00" },
      { id: "2", lastUpdatedAt: stamp },
    ]);
    // Only flights: other collections never take from it.
    const airlines = parseCollectionBody("airlines", { airlines: [{ iata: "KL" }] }, reuse);
    expect(airlines.ok && airlines.value.reused).toBeUndefined();
  });

  it("skips and reports a bad record (index, id, field, why) and keeps the rest", () => {
    const parsed = parseCollectionBody("flights", {
      flights: [
        { id: "1", gate: "D7" },
        { id: "2", route: { visa: "yes" }, terminal: 1.5 },
        "not a record",
        null,
        { id: 3 },
        { id: "4" },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.value.items.map((f) => f.id)).toEqual(["1", "4"]);
    const [second, third, fourth, fifth] = parsed.value.malformed;
    expect(second?.index).toBe(1);
    expect(second?.id).toBe("2");
    expect(second?.problems.some((p) => p.startsWith("route.visa:"))).toBe(true);
    expect(second?.problems.some((p) => p.startsWith("terminal:"))).toBe(true);
    expect(third).toMatchObject({ index: 2, problems: ["expected a record object, got a string"] });
    expect(third?.id).toBeUndefined();
    expect(fourth).toMatchObject({ index: 3, problems: ["expected a record object, got null"] });
    expect(fifth?.id).toBe("3");
    expect(fifth?.problems[0]).toMatch(/^id:/);
  });

  it("names the top-level field of the first problem, or `record`: a closed set", () => {
    const parsed = parseCollectionBody("flights", {
      flights: [
        { id: "1", route: { visa: "yes" }, terminal: 1.5 },
        { id: "2", checkinAllocations: { checkinAllocations: [{ startTime: "soon" }] } },
        "not a record",
        { id: "4", x: JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`) },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.problem);
    // The first problem in the schema's field order: terminal before route.
    expect(parsed.value.malformed.map((m) => m.field)).toEqual([
      "terminal",
      "checkinAllocations",
      "record",
      "record",
    ]);
  });

  it("keeps a skipped flight's identifying fields when they are valid themselves", () => {
    const parsed = parseCollectionBody("flights", {
      flights: [
        {
          id: "123456789012345678",
          flightName: "DL9341",
          mainFlight: "KL1234",
          flightDirection: "D",
          scheduleDate: "2026-11-21",
          scheduleDateTime: "2026-11-21T10:00:00.000+01:00",
          gate: 7,
          lastUpdatedAt: null,
        },
        // The direction itself is broken: which flight this is cannot be told.
        { id: "2", flightName: "KL1", flightDirection: "X", scheduleDate: "2026-11-21" },
        { id: "3", terminal: "three" },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.problem);
    const [codeshare, broken, bare] = parsed.value.malformed;
    expect(codeshare?.identity).toEqual({
      id: "123456789012345678",
      flightName: "DL9341",
      mainFlight: "KL1234",
      flightDirection: "D",
      scheduleDate: "2026-11-21",
      scheduleDateTime: "2026-11-21T10:00:00.000+01:00",
    });
    expect(broken?.identity).toBeUndefined();
    expect(bare?.identity).toEqual({ id: "3" });
    // Other collections carry no identity.
    const airlines = parseCollectionBody("airlines", { airlines: [{ iata: 7 }] });
    expect(airlines.ok && airlines.value.malformed[0]).toEqual({
      index: 0,
      field: "iata",
      problems: [expect.stringMatching(/^iata:/)],
    });
  });

  it("rejects an 18-digit id sent as a number and a non-digit id", () => {
    const parsed = parseCollectionBody("flights", {
      flights: [{ id: 123456789012345680 }, { id: "KL1234" }],
    });
    expect(parsed.ok && parsed.value.malformed.map((m) => m.index)).toEqual([0, 1]);
  });

  it("reports a numeric id only while it is exact (a safe integer)", () => {
    // JSON.parse rounds 123456789012345678 to 123456789012345680: naming another flight.
    const parsed = parseCollectionBody(
      "flights",
      JSON.parse('{"flights":[{"id":123456789012345678},{"id":42},{"id":1.5}]}'),
    );
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.value.malformed.map((m) => m.id)).toEqual([undefined, "42", undefined]);
  });

  it("checks nested shapes, enums and timestamps", () => {
    const bad = [
      { flightDirection: "X" },
      { lastUpdatedAt: "yesterday" },
      {
        checkinAllocations: {
          checkinAllocations: [{ rows: { rows: [{ desks: { desks: [{ position: "1" }] } }] } }],
        },
      },
      { baggageClaim: { belts: [1] } },
      { transferPositions: { transferPositions: ["a"] } },
    ];
    const good = [
      {
        lastUpdatedAt: "2026-11-21T10:00:00.000+01:00",
        scheduleDateTime: "2026-11-21T10:00:00.000+0100",
      },
      { expectedTimeOnBelt: "2026-11-21T10:00:00Z", flightDirection: "A" },
    ];
    const parsed = parseCollectionBody("flights", { flights: [...bad, ...good] });
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.value.items).toHaveLength(good.length);
    expect(parsed.value.malformed.map((m) => m.problems[0]?.split(":")[0])).toEqual([
      "flightDirection",
      "lastUpdatedAt",
      "checkinAllocations.checkinAllocations.0.rows.rows.0.desks.desks.0.position",
      "baggageClaim.belts.0",
      "transferPositions.transferPositions.0",
    ]);
  });

  it("reads every collection under its own envelope field", () => {
    expect(
      parseCollectionBody("airlines", { airlines: [{ iata: "KL", nvls: 100 }] }),
    ).toMatchObject({
      ok: true,
      value: { items: [{ iata: "KL", nvls: 100 }] },
    });
    expect(
      parseCollectionBody("aircraftTypes", { aircraftTypes: [{ iataMain: "73H" }] }),
    ).toMatchObject({ ok: true, value: { items: [{ iataMain: "73H" }] } });
    expect(
      parseCollectionBody("destinations", {
        destinations: [{ iata: "AMS", publicName: { english: "Amsterdam", dutch: null } }],
      }),
    ).toMatchObject({
      ok: true,
      value: { items: [{ iata: "AMS", publicName: { english: "Amsterdam" } }] },
    });
  });

  it("treats no content (204) as an empty page", () => {
    expect(parseCollectionBody("flights", undefined)).toEqual({
      ok: true,
      value: { items: [], malformed: [] },
    });
  });

  it.each([
    [[], /expected an object/],
    ["text", /expected an object/],
    [{}, /"flights" array, it is missing/],
    [{ flights: null }, /it is missing/],
    [{ flights: {} }, /got an object/],
    [{ airlines: [] }, /"flights" array/],
  ])("fails the whole body for a wrong envelope: %j", (body, problem) => {
    const parsed = parseCollectionBody("flights", body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });
});

describe("parseRecordBody", () => {
  it("returns one valid record", () => {
    expect(parseRecordBody("airlines", { iata: "KL", icao: null })).toEqual({
      ok: true,
      value: { iata: "KL" },
    });
  });

  it("fails for no content or a bad record", () => {
    expect(parseRecordBody("flights", undefined).ok).toBe(false);
    const bad = parseRecordBody("destinations", { iata: 7 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problem).toMatch(/^iata:/);
    expect(parseRecordBody("flights", [1]).ok).toBe(false);
  });
});

describe("parseFlightIdsBody", () => {
  it("returns the bare array of string ids; 204 is empty", () => {
    expect(parseFlightIdsBody(["123456789012345678", "2"])).toEqual({
      ok: true,
      value: ["123456789012345678", "2"],
    });
    expect(parseFlightIdsBody(undefined)).toEqual({ ok: true, value: [] });
  });

  it("fails for an envelope or for ids that are not strings", () => {
    expect(parseFlightIdsBody({ flights: [] }).ok).toBe(false);
    expect(parseFlightIdsBody([123456789012345680]).ok).toBe(false);
    expect(parseFlightIdsBody(["1", null]).ok).toBe(false);
  });
});
