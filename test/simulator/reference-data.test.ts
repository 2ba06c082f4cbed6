import { describe, expect, it } from "vitest";
import {
  AIRCRAFT_TYPES,
  AIRLINES,
  DESTINATIONS,
  referenceData,
} from "../../src/simulator/reference-data.js";
import { OPERATIONS } from "../../src/simulator/traffic-model.js";

const PAGE = 20;

describe("reference data", () => {
  it("spans several pages of 20 in each collection", () => {
    const ref = referenceData();
    expect(ref.airlines.length).toBeGreaterThanOrEqual(3 * PAGE);
    expect(ref.aircraftTypes.length).toBeGreaterThanOrEqual(3 * PAGE);
    expect(ref.destinations.length).toBeGreaterThanOrEqual(150);
  });

  it("has unique keys", () => {
    const ref = referenceData();
    const unique = (values: unknown[]): number => new Set(values).size;
    expect(unique(ref.airlines.map((a) => a.iata))).toBe(ref.airlines.length);
    expect(unique(ref.airlines.map((a) => a.icao))).toBe(ref.airlines.length);
    expect(unique(ref.airlines.map((a) => a.nvls))).toBe(ref.airlines.length);
    expect(unique(ref.destinations.map((d) => d.iata))).toBe(ref.destinations.length);
    expect(unique(ref.aircraftTypes.map((t) => `${t.iataMain}/${t.iataSub}`))).toBe(
      ref.aircraftTypes.length,
    );
  });

  it("has the real codes of the main carriers", () => {
    expect(AIRLINES.get("KL")).toEqual({ iata: "KL", icao: "KLM", nvls: 100, publicName: "KLM" });
    expect(AIRLINES.get("HV")).toMatchObject({ icao: "TRA", nvls: 164 });
    expect(AIRLINES.get("DL")).toMatchObject({ icao: "DAL", nvls: 58 });
    expect(AIRLINES.get("U2")).toMatchObject({ icao: "EZY", publicName: "easyJet" });
  });

  it("gives records the API's shapes and formats", () => {
    const ref = referenceData();
    for (const a of ref.airlines) {
      expect(a.iata).toMatch(/^[A-Z0-9]{2}$/);
      expect(a.icao).toMatch(/^[A-Z]{3}$/);
      expect(Number.isInteger(a.nvls)).toBe(true);
    }
    for (const t of ref.aircraftTypes) {
      expect(t.iataMain).toMatch(/^[A-Z0-9]{3}$/);
      expect(t.iataSub).toMatch(/^[A-Z0-9]{3}$/);
      expect(t.longDescription).toBeTruthy();
      expect(t.shortDescription).toBeTruthy();
    }
    for (const d of ref.destinations) {
      expect(d.iata).toMatch(/^[A-Z]{3}$/);
      expect(d.publicName?.dutch).toBeTruthy();
      expect(d.publicName?.english).toBeTruthy();
      expect(d.city).toBeTruthy();
      expect(d.country).toBeTruthy();
    }
  });

  it("keeps Schengen and visa flags consistent per country", () => {
    const byCountry = new Map<string, string>();
    for (const d of DESTINATIONS.values()) {
      if (d.eu === "S") expect(d.visa).toBe(false);
      const flags = `${d.eu}/${d.visa}`;
      expect(byCountry.get(d.country) ?? flags).toBe(flags);
      byCountry.set(d.country, flags);
    }
    expect(DESTINATIONS.get("LHR")?.eu).toBe("E");
    expect(DESTINATIONS.get("CDG")?.eu).toBe("S");
    expect(DESTINATIONS.get("JFK")?.eu).toBe("N");
  });

  it("covers every airline, route and aircraft the traffic model uses", () => {
    for (const op of OPERATIONS) {
      expect(AIRLINES.has(op.airline), op.airline).toBe(true);
      for (const r of op.routes) expect(DESTINATIONS.has(r), r).toBe(true);
      for (const t of op.fleet) expect(AIRCRAFT_TYPES.has(t), t).toBe(true);
      for (const p of op.partners ?? []) expect(AIRLINES.has(p.airline), p.airline).toBe(true);
    }
  });

  it("hands out fresh copies", () => {
    const a = referenceData();
    a.airlines[0] = {};
    expect(referenceData().airlines[0]).not.toEqual({});
  });
});
