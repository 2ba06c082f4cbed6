/**
 * A hand-filled FlightStore for server tests: three schedule days around a fixed
 * "now", both directions, several airlines and routes, delays (one pushing a late
 * flight onto the next day), codeshares and non-operational flights. Every value is
 * derived from the flight's index, so tests can compute expectations themselves.
 */
import type { Flight } from "../../src/api/types.js";
import { FlightStore } from "../../src/simulator/flight-store.js";
import { ManualClock } from "../../src/simulator/sim-clock.js";
import { formatApiDateTime, fromLocalDateTime } from "../../src/time/local-time.js";

export const ZONE = "Europe/Amsterdam";
/** Simulated now: 2026-03-10 11:00 local (+01:00). */
export const NOW_MS = Date.UTC(2026, 2, 10, 10, 0, 0);
export const TODAY = "2026-03-10";
export const DAYS = ["2026-03-09", "2026-03-10", "2026-03-11"] as const;
export const FLIGHTS_PER_DAY = 30;

export const AIRLINES = [
  { iata: "KL", icao: "KLM", nvls: 100, publicName: "KLM" },
  { iata: "HV", icao: "TRA", nvls: 101, publicName: "Transavia" },
  { iata: "DL", icao: "DAL", nvls: 102, publicName: "Delta Air Lines" },
  { iata: "BA", icao: "BAW", nvls: 103, publicName: "British Airways" },
  { iata: "LH", icao: "DLH", nvls: 104, publicName: "Lufthansa" },
];

export const AIRCRAFT_TYPES = [
  {
    iataMain: "73H",
    iataSub: "73H",
    longDescription: "Boeing 737-800",
    shortDescription: "B737-800",
  },
  {
    iataMain: "73H",
    iataSub: "73W",
    longDescription: "Boeing 737-700",
    shortDescription: "B737-700",
  },
  { iataMain: "E90", iataSub: "E90", longDescription: "Embraer 190", shortDescription: "E190" },
  { iataMain: "789", iataSub: "789", longDescription: "Boeing 787-9", shortDescription: "B787-9" },
  {
    iataMain: "32N",
    iataSub: "32N",
    longDescription: "Airbus A320neo",
    shortDescription: "A320neo",
  },
];

export const DESTINATIONS = [
  {
    iata: "LHR",
    city: "London",
    country: "United Kingdom",
    publicName: { dutch: "Londen", english: "London" },
  },
  {
    iata: "CDG",
    city: "Paris",
    country: "France",
    publicName: { dutch: "Parijs", english: "Paris" },
  },
  {
    iata: "JFK",
    city: "New York",
    country: "United States",
    publicName: { dutch: "New York", english: "New York" },
  },
  {
    iata: "FRA",
    city: "Frankfurt",
    country: "Germany",
    publicName: { dutch: "Frankfurt", english: "Frankfurt" },
  },
  {
    iata: "BCN",
    city: "Barcelona",
    country: "Spain",
    publicName: { dutch: "Barcelona", english: "Barcelona" },
  },
  {
    iata: "ATL",
    city: "Atlanta",
    country: "United States",
    publicName: { dutch: "Atlanta", english: "Atlanta" },
  },
];

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** Local `HH:mm:ss` schedule time of flight k of a day. */
export function scheduleTimeOf(k: number): string {
  return `${pad(5 + Math.floor((k * 18) / FLIGHTS_PER_DAY))}:${pad((k * 7) % 60)}:00`;
}

/** The fixture's flights, in store order. */
export function fixtureFlights(): Flight[] {
  const out: Flight[] = [];
  DAYS.forEach((date, d) => {
    for (let k = 0; k < FLIGHTS_PER_DAY; k++) {
      const airline = AIRLINES[k % AIRLINES.length]!;
      const direction = k % 2 === 0 ? "D" : "A";
      const time = scheduleTimeOf(k);
      const scheduleMs = fromLocalDateTime(`${date}T${time}`, ZONE)!;
      const number = 1000 + d * 100 + k;
      const destination = DESTINATIONS[k % DESTINATIONS.length]!;
      const second = DESTINATIONS[(k + 2) % DESTINATIONS.length]!;
      const delayMin = (k % 4) * 10;
      const flight: Flight = {
        id: `1${pad(d, 2)}${pad(k, 3)}${"0".repeat(12)}`,
        lastUpdatedAt: formatApiDateTime(NOW_MS - ((k * 37 + d * 11) % 120) * 60_000, ZONE),
        scheduleDateTime: formatApiDateTime(scheduleMs, ZONE),
        scheduleDate: date,
        scheduleTime: time,
        flightDirection: direction,
        flightName: `${airline.iata}${number}`,
        flightNumber: number,
        prefixIATA: airline.iata,
        prefixICAO: airline.icao,
        airlineCode: airline.nvls,
        mainFlight: `${airline.iata}${number}`,
        isOperationalFlight: k % 7 !== 0,
        serviceType: "J",
        route: {
          destinations: k % 5 === 0 ? [destination.iata, second.iata] : [destination.iata],
          eu: "S",
          visa: false,
        },
        aircraftType: { iataMain: "73H", iataSub: "73H" },
        publicFlightState: { flightStates: ["SCH"] },
        schemaVersion: "4",
      };
      if (k % 3 !== 0) {
        const field = direction === "A" ? "estimatedLandingTime" : "publicEstimatedOffBlockTime";
        flight[field] = formatApiDateTime(scheduleMs + delayMin * 60_000, ZONE);
      }
      if (k % 2 === 1) flight.gate = `D${k}`;
      out.push(flight);
    }
  });
  // A late arrival on the first day, delayed past midnight onto the second.
  out.push({
    id: "190000000000000001",
    lastUpdatedAt: formatApiDateTime(NOW_MS - 3_600_000, ZONE),
    scheduleDateTime: formatApiDateTime(fromLocalDateTime(`${DAYS[0]}T23:40:00`, ZONE)!, ZONE),
    scheduleDate: DAYS[0],
    scheduleTime: "23:40:00",
    estimatedLandingTime: formatApiDateTime(fromLocalDateTime(`${DAYS[1]}T00:35:00`, ZONE)!, ZONE),
    flightDirection: "A",
    flightName: "KL1999",
    flightNumber: 1999,
    prefixIATA: "KL",
    prefixICAO: "KLM",
    airlineCode: 100,
    mainFlight: "KL1999",
    isOperationalFlight: true,
    route: { destinations: ["JFK"] },
    codeshares: { codeshares: ["DL9999"] },
  });
  // Its codeshare: a separate record sharing mainFlight.
  out.push({
    id: "190000000000000002",
    lastUpdatedAt: formatApiDateTime(NOW_MS - 3_600_000, ZONE),
    scheduleDateTime: formatApiDateTime(fromLocalDateTime(`${DAYS[0]}T23:40:00`, ZONE)!, ZONE),
    scheduleDate: DAYS[0],
    scheduleTime: "23:40:00",
    estimatedLandingTime: formatApiDateTime(fromLocalDateTime(`${DAYS[1]}T00:35:00`, ZONE)!, ZONE),
    flightDirection: "A",
    flightName: "DL9999",
    flightNumber: 9999,
    prefixIATA: "DL",
    prefixICAO: "DAL",
    airlineCode: 102,
    mainFlight: "KL1999",
    isOperationalFlight: false,
    route: { destinations: ["JFK"] },
  });
  return out;
}

/** A store holding the fixture, on a manual clock at NOW_MS. */
export function fixtureStore(): { store: FlightStore; clock: ManualClock } {
  const clock = new ManualClock(NOW_MS);
  const store = new FlightStore({ clock, zone: ZONE });
  store.reference = {
    airlines: AIRLINES.map((a) => ({ ...a })),
    aircraftTypes: AIRCRAFT_TYPES.map((a) => ({ ...a })),
    destinations: DESTINATIONS.map((d) => ({ ...d, publicName: { ...d.publicName } })),
  };
  for (const flight of fixtureFlights()) store.upsert(flight, { stamp: false });
  return { store, clock };
}
