/**
 * The daily timetable: which flights operate every day, at what local time, with
 * which numbers, aircraft and codeshares. Built once from the seed, like a real
 * airport's season schedule, so `KL1001` leaves at the same local time each day and
 * a flight name is unique within a day. Rotations pair a departure with the return
 * arrival of the same aircraft, which keeps arrivals and departures about even.
 */

import type { Occurrence } from "../time/local-time.js";
import { Random } from "./random.js";
import {
  AIRCRAFT_TYPES,
  AIRLINES,
  type DestinationInfo,
  destinationInfo,
  type EuArea,
} from "./reference-data.js";
import {
  FOREIGN_LONG_ARRIVAL_HOURS,
  FOREIGN_SHORT_ARRIVAL_HOURS,
  HOME_LONG_DEPARTURE_HOURS,
  HOME_SHORT_DEPARTURE_HOURS,
  OPERATIONS,
  type Operation,
  PIER_GROUPS,
  type Pier,
} from "./traffic-model.js";

/** The identity fields of an airline a flight record carries. */
export interface AirlineCodes {
  iata: string;
  icao: string;
  nvls: number;
}

/** A marketing flight number on another airline's flight. */
export interface CodeshareLeg {
  airline: AirlineCodes;
  flightNumber: number;
  flightName: string;
}

/** One operating flight of the daily timetable. */
export interface TimetableLeg {
  /** Stable index; names the flight's random stream. */
  key: number;
  /** Legs flown by the same aircraft share it. */
  rotation: number;
  airline: AirlineCodes;
  flightNumber: number;
  flightName: string;
  direction: "A" | "D";
  /** Local scheduled time, minutes after midnight. */
  minuteOfDay: number;
  /** Destinations (departures) or origins (arrivals), IATA codes. */
  route: string[];
  eu: EuArea;
  visa: boolean;
  blockMin: number;
  longHaul: boolean;
  aircraft: { iataMain: string; iataSub: string };
  serviceType: string;
  freight: boolean;
  lowCost: boolean;
  /** Piers the flight may use (all in one terminal); empty for freight. */
  piers: readonly Pier[];
  terminal: number | undefined;
  registrations: readonly string[];
  codeshares: CodeshareLeg[];
  /**
   * Which pass of the repeated autumn hour the flight is scheduled in, when the
   * timetable fixes it; otherwise each day draws one.
   */
  occurrence?: Occurrence;
}

/** Flights at or beyond this block time are long-haul. */
const LONG_HAUL_MIN = 300;
/** Local minutes between which hardly any flight is scheduled (00:30–05:30). */
const NIGHT_FROM = 30;
const NIGHT_TO = 330;
/**
 * Night freighters: one rotation per entry whose arrival is scheduled in the 02:00
 * hour, at that pass of the repeated hour on the autumn DST day. Schiphol's night is
 * quiet, not empty, and the DST days' missing and repeated hour must hold flights,
 * at both passes, for clients to meet them.
 */
const NIGHT_FREIGHT: readonly Occurrence[] = ["earlier", "later"];
/** Arrival hour weights of the night freighters: the 02:00 hour only. */
const NIGHT_FREIGHT_HOURS: readonly number[] = Array.from({ length: 24 }, (_, h) =>
  h === 2 ? 1 : 0,
);
/** Days of fewer records get no night freighters. */
const NIGHT_FREIGHT_MIN_RECORDS = 200;
/** Upper bound of records per day: beyond it flight numbers run out. */
export const MAX_RECORDS_PER_DAY = 20_000;

/** Builds the timetable: exactly `recordsPerDay` records a day, codeshares included. */
export function buildTimetable(seed: number, recordsPerDay: number): TimetableLeg[] {
  if (
    !Number.isInteger(recordsPerDay) ||
    recordsPerDay < 0 ||
    recordsPerDay > MAX_RECORDS_PER_DAY
  ) {
    throw new RangeError(`flightsPerDay must be an integer in 0..${MAX_RECORDS_PER_DAY}`);
  }
  const rng = Random.derive(seed, "timetable");
  const numbers = new FlightNumbers(rng);
  const weights = OPERATIONS.map((op) => op.weight);
  const legs: TimetableLeg[] = [];
  let records = 0;
  let rotation = 0;
  // Two records (arrival and departure, no codeshares) per night freighter, kept back.
  const night = recordsPerDay >= NIGHT_FREIGHT_MIN_RECORDS ? NIGHT_FREIGHT : [];
  const dayRecords = recordsPerDay - 2 * night.length;
  while (records < dayRecords) {
    const op = OPERATIONS[rng.weightedIndex(weights)];
    if (!op) break;
    const remaining = dayRecords - records;
    const rotationLegs = planRotation(op, rng, numbers, remaining, rotation++, legs.length);
    legs.push(...rotationLegs);
    for (const leg of rotationLegs) records += 1 + leg.codeshares.length;
  }
  const freighters = OPERATIONS.filter(
    (op) => op.freight && !op.home && !op.charter && !op.partners?.length,
  );
  for (const occurrence of night) {
    const op = rng.pick(freighters);
    const rotationLegs = planRotation(op, rng, numbers, 2, rotation++, legs.length, {
      hours: NIGHT_FREIGHT_HOURS,
      occurrence,
    });
    legs.push(...rotationLegs);
  }
  return legs;
}

/** A rotation whose first leg's time and repeated-hour pass are given. */
interface FirstLeg {
  hours: readonly number[];
  occurrence: Occurrence;
}

function planRotation(
  op: Operation,
  rng: Random,
  numbers: FlightNumbers,
  remaining: number,
  rotation: number,
  firstKey: number,
  firstLeg?: FirstLeg,
): TimetableLeg[] {
  const dest = destinationInfo(rng.pick(op.routes));
  const longHaul = dest.blockMin >= LONG_HAUL_MIN;
  const route = [dest.iata];
  const second = longHaul && rng.chance(0.05) ? secondStop(op, dest, rng) : undefined;
  if (second) route.push(second.iata);
  const area = worstArea([dest, ...(second ? [second] : [])]);
  const visa = dest.visa || (second?.visa ?? false);
  const blockMin = Math.max(dest.blockMin, second ? second.blockMin + 60 : 0);
  const piers = op.freight ? [] : pierGroup(op, area, longHaul, rng);
  const sub = rng.pick(op.fleet);
  const type = AIRCRAFT_TYPES.get(sub);
  if (!type) throw new Error(`traffic-model: unknown aircraft type ${sub}`);
  const airline = airlineCodes(op.airline);
  const single = remaining < 2;
  const base = numbers.take(op.airline, op.numbers, single ? 1 : 2);
  const partners = (op.partners ?? []).filter((p) => rng.chance(p.probability));
  // Trim codeshares so the day ends on exactly the requested record count.
  const legsCount = single ? 1 : 2;
  const maxPartners = Math.max(0, Math.floor(remaining / legsCount) - 1);
  const chosen = partners.slice(0, maxPartners);
  const partnerNumbers = chosen.map((p) => numbers.take(p.airline, [p.from, p.to], legsCount));

  const turn = op.freight ? rng.int(90, 240) : longHaul ? rng.int(100, 180) : rng.int(35, 75);
  const firstMinute = sampleMinute(
    rng,
    firstLeg?.hours ??
      (op.home
        ? longHaul
          ? HOME_LONG_DEPARTURE_HOURS
          : HOME_SHORT_DEPARTURE_HOURS
        : longHaul
          ? FOREIGN_LONG_ARRIVAL_HOURS
          : FOREIGN_SHORT_ARRIVAL_HOURS),
  );
  const gap = op.home ? 2 * blockMin + turn : turn;
  // Schiphol's night regime: a return that would fall in the night waits for the
  // morning instead (the aircraft night-stops at the other end).
  let secondMinute = roundTo5(firstMinute + gap) % 1440;
  if (secondMinute >= NIGHT_FROM && secondMinute < NIGHT_TO) {
    secondMinute = NIGHT_TO + rng.int(0, 18) * 5;
  }
  const directions: ("A" | "D")[] = op.home ? ["D", "A"] : ["A", "D"];
  const serviceType = op.freight
    ? rng.chance(op.charter ?? 0)
      ? "H"
      : "F"
    : rng.chance(op.charter ?? 0)
      ? "C"
      : "J";

  const legs: TimetableLeg[] = [];
  for (let i = 0; i < legsCount; i++) {
    const direction = directions[i] ?? "D";
    const flightNumber = base + i;
    legs.push({
      key: firstKey + i,
      rotation,
      airline,
      flightNumber,
      flightName: flightName(airline.iata, flightNumber),
      direction,
      minuteOfDay: i === 0 ? firstMinute : secondMinute,
      // Outbound lists the stops in flying order; the return flight reverses them.
      route: direction === "D" ? [...route] : [...route].reverse(),
      eu: area,
      visa,
      blockMin,
      longHaul,
      aircraft: { iataMain: type.iataMain, iataSub: type.iataSub },
      serviceType,
      freight: op.freight ?? false,
      lowCost: op.lowCost ?? false,
      piers,
      terminal: piers[0]?.terminal,
      registrations: op.registrations,
      codeshares: chosen.map((p, j) => {
        const codes = airlineCodes(p.airline);
        const n = (partnerNumbers[j] ?? 0) + i;
        return { airline: codes, flightNumber: n, flightName: flightName(codes.iata, n) };
      }),
      ...(i === 0 && firstLeg ? { occurrence: firstLeg.occurrence } : {}),
    });
  }
  return legs;
}

/** Printed flight name: prefix and a number padded to four digits (`KL0601`). */
export function flightName(prefix: string, flightNumber: number): string {
  return `${prefix}${String(flightNumber).padStart(4, "0")}`;
}

function airlineCodes(iata: string): AirlineCodes {
  const airline = AIRLINES.get(iata);
  if (!airline) throw new Error(`traffic-model: unknown airline ${iata}`);
  return { iata: airline.iata, icao: airline.icao, nvls: airline.nvls };
}

function secondStop(
  op: Operation,
  first: DestinationInfo,
  rng: Random,
): DestinationInfo | undefined {
  const candidates = op.routes
    .map(destinationInfo)
    .filter((d) => d.iata !== first.iata && Math.abs(d.blockMin - first.blockMin) <= 150);
  return candidates.length > 0 ? rng.pick(candidates) : undefined;
}

const AREA_RANK: Record<EuArea, number> = { S: 0, E: 1, N: 2 };

function worstArea(stops: readonly DestinationInfo[]): EuArea {
  let area: EuArea = "S";
  for (const stop of stops) if (AREA_RANK[stop.eu] > AREA_RANK[area]) area = stop.eu;
  return area;
}

function pierGroup(op: Operation, area: EuArea, longHaul: boolean, rng: Random): readonly Pier[] {
  if (area === "S") return op.lowCost ? PIER_GROUPS.schengenLowCost : PIER_GROUPS.schengen;
  if (!longHaul) {
    if (op.lowCost) return PIER_GROUPS.nonSchengenLowCost;
    return rng.chance(0.7) ? PIER_GROUPS.nonSchengen : PIER_GROUPS.intercontinental;
  }
  return rng.chance(0.3) ? PIER_GROUPS.nonSchengen : PIER_GROUPS.intercontinental;
}

function sampleMinute(rng: Random, hourWeights: readonly number[]): number {
  return rng.weightedIndex(hourWeights) * 60 + rng.int(0, 11) * 5;
}

function roundTo5(minutes: number): number {
  return Math.round(minutes / 5) * 5;
}

/**
 * Hands out flight numbers so each airline's numbers are unique within a day. Each
 * range fills upwards from its start with small random gaps, as real schedules do, so
 * the first number of a range (`KL1001`, `HV5001`) exists at the default volume.
 */
class FlightNumbers {
  private readonly used = new Map<string, Set<number>>();
  /** Next candidate per airline and range. */
  private readonly cursors = new Map<string, number>();

  constructor(private readonly rng: Random) {}

  /** First of `count` consecutive free numbers, preferring the range, then any 1..9999. */
  take(airline: string, range: readonly [number, number], count: number): number {
    let used = this.used.get(airline);
    if (!used) {
      used = new Set();
      this.used.set(airline, used);
    }
    const [from, to] = range;
    const free = (n: number): boolean => {
      for (let i = 0; i < count; i++) if (used.has(n + i) || n + i > 9999) return false;
      return true;
    };
    // Rotations start on odd numbers, as airlines number outbound and return n / n+1.
    const step = count > 1 ? 2 : 1;
    const first = count > 1 && from % 2 === 0 ? from + 1 : from;
    const key = `${airline}/${from}/${step}`;
    let n: number | undefined;
    for (
      let c = this.cursors.get(key) ?? first;
      n === undefined && c + count - 1 <= to;
      c += step
    ) {
      if (free(c)) n = c;
    }
    for (let c = first; n === undefined && c <= 9999; c += step) if (free(c)) n = c;
    for (let c = 1; n === undefined && c <= 9999; c++) if (free(c)) n = c;
    if (n === undefined) throw new RangeError(`no free flight numbers left for ${airline}`);
    for (let i = 0; i < count; i++) used.add(n + i);
    this.cursors.set(key, n + step * this.rng.int(1, 3));
    return n;
  }
}
