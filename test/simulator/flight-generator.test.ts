import { describe, expect, it } from "vitest";
import { FLIGHT_DATE_TIME_FIELDS, type Flight } from "../../src/api/types.js";
import { IDENTITY_FIELDS } from "../../src/simulator/flight-generator.js";
import { AIRCRAFT_TYPES, AIRLINES, DESTINATIONS } from "../../src/simulator/reference-data.js";
import { ManualClock } from "../../src/simulator/sim-clock.js";
import { createSimulator } from "../../src/simulator/simulator.js";
import {
  formatApiDateTime,
  fromLocalDateTime,
  parseApiDateTime,
  toLocalDateTime,
} from "../../src/time/local-time.js";

const ZONE = "Europe/Amsterdam";
const API_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;
const START = Date.parse("2026-06-10T08:30:00Z");

function flights(seed: number, startMs: number, extra: { flightsPerDay?: number } = {}): Flight[] {
  const sim = createSimulator({ seed, clock: new ManualClock(startMs), evolve: false, ...extra });
  return [...sim.store.all()].sort((a, b) => (a.id ?? "").localeCompare(b.id ?? ""));
}

const shared = (f: Flight): Record<string, unknown> =>
  Object.fromEntries(Object.entries(f).filter(([k]) => !IDENTITY_FIELDS.has(k)));

describe("generated flights", () => {
  const all = flights(7, START);
  const operating = all.filter((f) => f.isOperationalFlight);
  const codeshares = all.filter((f) => f.isOperationalFlight === false);

  it("is the same for the same seed and start, and differs for another seed", () => {
    expect(flights(7, START)).toEqual(all);
    const other = flights(8, START);
    expect(other.map((f) => f.flightName)).not.toEqual(all.map((f) => f.flightName));
  });

  it("keeps a day's schedule when only the start time differs", () => {
    const later = flights(7, START + 5 * 3_600_000);
    const schedule = (list: Flight[]): string[] =>
      list.map((f) => `${f.id} ${f.flightName} ${f.scheduleDateTime}`);
    expect(schedule(later)).toEqual(schedule(all));
  });

  it("has flightsPerDay records on each of yesterday, today and tomorrow", () => {
    expect(all).toHaveLength(3 * 1400);
    const perDay = new Map<string, number>();
    for (const f of all)
      perDay.set(f.scheduleDate ?? "", (perDay.get(f.scheduleDate ?? "") ?? 0) + 1);
    expect(perDay).toEqual(
      new Map([
        ["2026-06-09", 1400],
        ["2026-06-10", 1400],
        ["2026-06-11", 1400],
      ]),
    );
    expect(flights(3, START, { flightsPerDay: 101 })).toHaveLength(303);
  });

  it("is about half arrivals, half departures, with codeshares among them", () => {
    const arrivals = all.filter((f) => f.flightDirection === "A").length;
    expect(arrivals / all.length).toBeGreaterThan(0.4);
    expect(arrivals / all.length).toBeLessThan(0.6);
    expect(codeshares.length / all.length).toBeGreaterThan(0.15);
    expect(codeshares.length / all.length).toBeLessThan(0.5);
  });

  it("peaks in the morning and evening, quiet at night", () => {
    const hours = new Array<number>(24).fill(0);
    for (const f of operating) {
      const hour = Number(f.scheduleTime?.slice(0, 2));
      hours[hour] = (hours[hour] ?? 0) + 1;
    }
    const perHour = (from: number, to: number): number =>
      hours.slice(from, to + 1).reduce((a, b) => a + b, 0) / (to - from + 1);
    expect(perHour(1, 3)).toBeLessThan(perHour(7, 9) / 50);
    expect(perHour(7, 9)).toBeGreaterThan(perHour(12, 15) * 1.2);
    expect(perHour(17, 19)).toBeGreaterThan(perHour(12, 15) * 1.2);
  });

  it("gives every record a unique 18-digit string id", () => {
    for (const f of all) expect(f.id).toMatch(/^[1-9]\d{17}$/);
    expect(new Set(all.map((f) => f.id)).size).toBe(all.length);
  });

  it("keeps flight names unique within a day, consistent with their parts", () => {
    const names = new Set<string>();
    for (const f of all) {
      const key = `${f.scheduleDate} ${f.flightName}`;
      expect(names.has(key), key).toBe(false);
      names.add(key);
      expect(f.flightName).toBe(`${f.prefixIATA}${String(f.flightNumber).padStart(4, "0")}`);
      expect(Number.isInteger(f.flightNumber)).toBe(true);
      const airline = AIRLINES.get(f.prefixIATA ?? "");
      expect(airline?.icao).toBe(f.prefixICAO);
      expect(airline?.nvls).toBe(f.airlineCode);
    }
  });

  it("numbers each airline's flights from the start of its range, outbound odd, return even", () => {
    for (const seed of [7, 8]) {
      const names = new Set(
        flights(seed, START).map((f) => `${f.flightName} ${f.flightDirection}`),
      );
      for (const expected of ["KL1001 D", "KL1002 A", "HV5001 D", "HV5002 A", "U27801 D"]) {
        expect(names.has(expected), `${expected} (seed ${seed})`).toBe(true);
      }
    }
  });

  it("makes codeshare records that share mainFlight and operational fields with the operating record", () => {
    const byKey = new Map(operating.map((f) => [`${f.scheduleDate} ${f.flightName}`, f]));
    expect(codeshares.length).toBeGreaterThan(100);
    for (const cs of codeshares) {
      const op = byKey.get(`${cs.scheduleDate} ${cs.mainFlight}`);
      expect(op, cs.flightName).toBeDefined();
      expect(op?.mainFlight).toBe(op?.flightName);
      expect(op?.codeshares?.codeshares).toContain(cs.flightName);
      expect(cs.flightName).not.toBe(op?.flightName);
      expect(cs.id).not.toBe(op?.id);
      expect(shared(cs)).toEqual(shared(op ?? {}));
      expect(cs.lastUpdatedAt).toBe(op?.lastUpdatedAt);
    }
    for (const op of operating) {
      for (const name of op.codeshares?.codeshares ?? []) {
        const cs = codeshares.find(
          (f) => f.flightName === name && f.scheduleDate === op.scheduleDate,
        );
        expect(cs?.mainFlight, name).toBe(op.flightName);
      }
    }
  });

  it("writes every date-time in the API format", () => {
    for (const f of all) {
      const times: string[] = FLIGHT_DATE_TIME_FIELDS.flatMap((k) => (f[k] ? [f[k]] : []));
      for (const a of f.checkinAllocations?.checkinAllocations ?? []) {
        times.push(a.startTime ?? "", a.endTime ?? "");
      }
      for (const t of times) {
        expect(t).toMatch(API_TIME);
        const ms = parseApiDateTime(t, ZONE);
        expect(ms).toBeDefined();
        expect(formatApiDateTime(ms ?? 0, ZONE)).toBe(t);
      }
      expect(f.lastUpdatedAt).toBeDefined();
      expect(parseApiDateTime(f.lastUpdatedAt ?? "", ZONE)).toBeLessThanOrEqual(START);
    }
  });

  it("has the API's shapes: route, aircraft, check-in desks, belts, terminals, gates", () => {
    for (const f of all) {
      expect(f.schemaVersion).toBe("4");
      expect(["J", "C", "F", "H"]).toContain(f.serviceType);
      expect(["A", "D"]).toContain(f.flightDirection);
      for (const d of f.route?.destinations ?? []) expect(DESTINATIONS.has(d), d).toBe(true);
      const first = DESTINATIONS.get(f.route?.destinations?.[0] ?? "");
      expect(first).toBeDefined();
      if (f.route?.eu === "S") expect(f.route.visa).toBe(false);
      const type = AIRCRAFT_TYPES.get(f.aircraftType?.iataSub ?? "");
      expect(type?.iataMain).toBe(f.aircraftType?.iataMain);
      if (f.terminal !== undefined) expect([1, 2, 3]).toContain(f.terminal);
      if (f.gate !== undefined) expect(f.gate.startsWith(f.pier ?? "?")).toBe(true);
      for (const belt of f.baggageClaim?.belts ?? []) expect(belt).toMatch(/^\d+$/);
      if (f.baggageClaim) expect(f.flightDirection).toBe("A");
      if (f.checkinAllocations) {
        expect(f.flightDirection).toBe("D");
        for (const a of f.checkinAllocations.checkinAllocations ?? []) {
          for (const row of a.rows?.rows ?? []) {
            expect(row.position).toMatch(/^\d+$/);
            for (const desk of row.desks?.desks ?? []) {
              expect(Number.isInteger(desk.position)).toBe(true);
              expect(desk.checkinClass?.code).toMatch(/^(ECO|BUS)$/);
              expect(desk.checkinClass?.description).toBeTruthy();
            }
          }
        }
      }
    }
    expect(all.some((f) => f.checkinAllocations)).toBe(true);
    expect(all.some((f) => f.baggageClaim?.belts?.length)).toBe(true);
    expect(all.some((f) => f.serviceType === "F")).toBe(true);
  });

  it("leaves fields out until they are known", () => {
    const farAhead = operating.filter(
      (f) => (parseApiDateTime(f.scheduleDateTime ?? "", ZONE) ?? 0) > START + 30 * 3_600_000,
    );
    expect(farAhead.length).toBeGreaterThan(100);
    const withGate = farAhead.filter((f) => f.gate !== undefined).length;
    expect(withGate).toBe(0);
    for (const f of farAhead) {
      expect(f.actualOffBlockTime).toBeUndefined();
      expect(f.actualLandingTime).toBeUndefined();
      expect(f.estimatedLandingTime).toBeUndefined();
      expect(f.publicFlightState?.flightStates).toEqual(["SCH"]);
    }
    const arrivalsDone = operating.filter(
      (f) => f.flightDirection === "A" && f.scheduleDate === "2026-06-09",
    );
    expect(arrivalsDone.some((f) => f.aircraftRegistration === undefined)).toBe(true);
  });

  it("shows yesterday's flights finished and today's in every stage", () => {
    const yesterday = operating.filter((f) => f.scheduleDate === "2026-06-09");
    const finished = yesterday.filter((f) => {
      const s = f.publicFlightState?.flightStates ?? [];
      return (
        s.includes("DEP") || s.includes("ARR") || s.some((x) => ["CNX", "DIV", "TOM"].includes(x))
      );
    });
    expect(finished.length / yesterday.length).toBeGreaterThan(0.99);
    for (const f of yesterday) {
      if (f.publicFlightState?.flightStates?.includes("DEP"))
        expect(f.actualOffBlockTime).toBeDefined();
      if (f.publicFlightState?.flightStates?.includes("ARR"))
        expect(f.actualLandingTime).toBeDefined();
    }
    const states = new Set(operating.flatMap((f) => f.publicFlightState?.flightStates ?? []));
    for (const s of [
      "SCH",
      "GTO",
      "BRD",
      "GCL",
      "GTD",
      "DEP",
      "AIR",
      "FIR",
      "LND",
      "ARR",
      "DEL",
      "EXP",
      "CNX",
    ]) {
      expect(states.has(s), s).toBe(true);
    }
  });
});

describe("schedule times across DST changes", () => {
  for (const [day, startUtc] of [
    ["2026-03-29", "2026-03-29T10:00:00Z"],
    ["2026-10-25", "2026-10-25T10:00:00Z"],
    ["2026-03-30", "2026-03-30T10:00:00Z"],
  ] as const) {
    it(`keeps scheduleDate/scheduleTime consistent with scheduleDateTime around ${day}`, () => {
      const list = flights(11, Date.parse(startUtc));
      for (const f of list) {
        const ms = parseApiDateTime(f.scheduleDateTime ?? "", ZONE) ?? Number.NaN;
        expect(`${f.scheduleDate}T${f.scheduleTime}`).toBe(toLocalDateTime(ms, ZONE));
        expect(f.scheduleDateTime).toBe(formatApiDateTime(ms, ZONE));
        const dayStart = fromLocalDateTime(`${f.scheduleDate}T00:00:00`, ZONE) ?? 0;
        expect(ms).toBeGreaterThanOrEqual(dayStart);
      }
    });
  }

  it("never schedules in the spring gap; a day of 23 hours still holds its flights", () => {
    const spring = flights(11, Date.parse("2026-03-29T10:00:00Z")).filter(
      (f) => f.scheduleDate === "2026-03-29",
    );
    expect(spring).toHaveLength(1400);
    expect(spring.some((f) => f.scheduleTime?.startsWith("02:"))).toBe(false);
    expect(spring.some((f) => f.scheduleDateTime?.endsWith("+01:00"))).toBe(true);
    expect(spring.some((f) => f.scheduleDateTime?.endsWith("+02:00"))).toBe(true);
  });

  it.each([1, 11, 20260310])(
    "schedules flights in both passes of the repeated autumn hour, none in the spring gap (seed %i)",
    (seed) => {
      const inTwoHour = (f: Flight) => f.scheduleTime?.startsWith("02:") === true;
      const autumn = flights(seed, Date.parse("2026-10-25T10:00:00Z")).filter(
        (f) => f.scheduleDate === "2026-10-25" && inTwoHour(f),
      );
      const offsets = new Set(autumn.map((f) => f.scheduleDateTime?.slice(-6)));
      expect(offsets).toEqual(new Set(["+02:00", "+01:00"]));
      const spring = flights(seed, Date.parse("2026-03-29T10:00:00Z")).filter(
        (f) => f.scheduleDate === "2026-03-29",
      );
      expect(spring.filter(inTwoHour)).toEqual([]);
      // The same night flights exist on an ordinary day, at 02:xx.
      const names = new Set(autumn.map((f) => f.flightName));
      const ordinary = flights(seed, START).filter(
        (f) => f.scheduleDate === "2026-06-10" && names.has(f.flightName),
      );
      expect(ordinary.length).toBe(names.size);
      for (const f of ordinary) expect(inTwoHour(f), f.flightName).toBe(true);
    },
  );
});
