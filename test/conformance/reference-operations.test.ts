/**
 * Conformance: airlines, aircraft types and destinations (operations getAirlines,
 * getAirlinesByCode, getAircraftTypes, getDestinations, getDestinationsByCode).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AircraftType, Airline, Destination } from "../../src/api/types.js";
import { collect, recordsOf } from "./support.js";
import { type ConformanceTarget, startTarget } from "./target.js";

let t: ConformanceTarget;
let airlines: Airline[];
let types: AircraftType[];
let destinations: Destination[];
beforeAll(async () => {
  t = await startTarget();
  airlines = await collect<Airline>(t, "/airlines", "airlines", 2);
  types = await collect<AircraftType>(t, "/aircrafttypes", "aircraftTypes", 2);
  destinations = await collect<Destination>(t, "/destinations", "destinations", 2);
});
afterAll(() => t.close());

describe("reference collections", () => {
  it("[Collection envelopes: AirlineList.airlines, Airline fields]", () => {
    expect(airlines.length).toBeGreaterThan(0);
    for (const a of airlines) {
      if (a.iata !== undefined) expect(typeof a.iata).toBe("string");
      if (a.nvls !== undefined) expect(Number.isInteger(a.nvls)).toBe(true);
    }
  });

  it("[getAirlinesByCode: an IATA code] returns that airline", async () => {
    const a = airlines.find((x) => x.iata?.length === 2) as Airline;
    const reply = await t.get(`/airlines/${a.iata}`);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ iata: a.iata });
  });

  it("[getAirlinesByCode: an ICAO code] returns that airline", async () => {
    const a = airlines.find((x) => x.icao?.length === 3) as Airline;
    const reply = await t.get(`/airlines/${a.icao}`);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ icao: a.icao });
  });

  it("[Collection envelopes: AircraftTypeList.aircraftTypes]", () => {
    expect(types.length).toBeGreaterThan(0);
  });

  it("[getAircraftTypes: iataMain filters on the main IATA code]", async () => {
    const main = types[0]?.iataMain as string;
    // The unfiltered pages hold other values, so an ignored filter would show.
    expect(types.some((x) => x.iataMain !== main)).toBe(true);
    const got = recordsOf<AircraftType>(
      await t.get(`/aircrafttypes?iataMain=${main}`),
      "aircraftTypes",
    );
    expect(got.length).toBeGreaterThan(0);
    for (const x of got) expect(x.iataMain).toBe(main);
  });

  it("[getAircraftTypes: iataSub filters on the sub IATA code]", async () => {
    const sub = types[0]?.iataSub as string;
    expect(types.some((x) => x.iataSub !== sub)).toBe(true);
    const got = recordsOf<AircraftType>(
      await t.get(`/aircrafttypes?iataSub=${sub}`),
      "aircraftTypes",
    );
    expect(got.length).toBeGreaterThan(0);
    for (const x of got) expect(x.iataSub).toBe(sub);
  });

  it("[getAircraftTypes: iataMain and iataSub together]", async () => {
    const { iataMain, iataSub } = types[0] as AircraftType;
    expect(types.some((x) => x.iataMain !== iataMain || x.iataSub !== iataSub)).toBe(true);
    const got = recordsOf<AircraftType>(
      await t.get(`/aircrafttypes?iataMain=${iataMain}&iataSub=${iataSub}`),
      "aircraftTypes",
    );
    expect(got.length).toBeGreaterThan(0);
    for (const x of got) expect([x.iataMain, x.iataSub]).toEqual([iataMain, iataSub]);
  });

  it("[Collection envelopes: DestinationList.destinations, publicName with dutch and english]", () => {
    expect(destinations.length).toBeGreaterThan(0);
    for (const d of destinations) {
      if (d.publicName !== undefined) expect(typeof d.publicName).toBe("object");
    }
  });

  it("[getDestinationsByCode: iata, exactly 3 characters] returns that destination", async () => {
    const d = destinations.find((x) => x.iata?.length === 3) as Destination;
    const reply = await t.get(`/destinations/${d.iata}`);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual(d);
  });
});
