/**
 * Generates one airport-local day of flight records from the timetable: ids,
 * schedule times, aircraft registrations, check-in desks, codeshare records, and each
 * flight's plan. Records come out as they stand at `nowMs`: events of the plan that
 * are already past are replayed, so yesterday's flights have landed and today's
 * morning flights are boarding when the simulator starts.
 */
import type { CheckinAllocations, Desk, Flight } from "../api/types.js";
import { type ApiTimeFormat, apiTimeFormatter, offsetMinutes } from "../time/local-time.js";
import { AirportDay, dayNumber } from "./airport-day.js";
import { buildFlightPlan, type FlightPlan } from "./flight-plan.js";
import { buildTimetable, type TimetableLeg } from "./flight-timetable.js";
import { compactRecord, mergePatch, stepPlan } from "./plan-step.js";
import { hashSeed, mixSeed, Random } from "./random.js";
import { CHECKIN_ROWS_BY_TERMINAL } from "./traffic-model.js";

const MIN = 60_000;
const HOUR = 60 * MIN;

/** Options of a FlightGenerator. */
export interface FlightGeneratorOptions {
  seed: number;
  zone: string;
  /** Records per local day, codeshares included. */
  flightsPerDay: number;
  /** Multiplier on random drift, gate changes and disruptions. */
  changeRate: number;
  /**
   * Mark codeshare records `isOperationalFlight: true` as captured real data does
   * (default false: only the operating record is marked operational).
   */
  codesharesMarkedOperational?: boolean;
}

/** One generated flight: its plan and its records (operating first, then codeshares). */
export interface GeneratedFlight {
  plan: FlightPlan;
  records: Flight[];
}

/** What every flight of one generated day shares. */
interface DayContext {
  day: AirportDay;
  ids: FlightIds;
  nowMs: number;
  flightSeed: number;
  rotationSeed: number;
  /** Registration per rotation: both legs fly the same aircraft. */
  registrations: Map<number, string>;
}

/** Fields that belong to one flight number; codeshare records keep their own. */
export const IDENTITY_FIELDS: ReadonlySet<string> = new Set([
  "id",
  "flightName",
  "flightNumber",
  "prefixIATA",
  "prefixICAO",
  "airlineCode",
  "isOperationalFlight",
  "mainFlight",
  "lastUpdatedAt",
]);

/** Generates days of flights for one seed, zone and traffic volume. */
export class FlightGenerator {
  readonly timetable: readonly TimetableLeg[];
  readonly format: ApiTimeFormat;
  readonly offsets: (instantMs: number) => number;

  constructor(private readonly options: FlightGeneratorOptions) {
    this.timetable = timetableFor(options.seed, options.flightsPerDay);
    this.offsets = (instantMs) => offsetMinutes(instantMs, options.zone);
    this.format = apiTimeFormatter(options.zone);
  }

  /** The local date as an AirportDay in the generator's zone. */
  day(date: string): AirportDay {
    return new AirportDay(date, this.options.zone, this.offsets);
  }

  /** All flights of a local date, as they stand at `nowMs`. */
  generateDay(date: string, nowMs: number): GeneratedFlight[] {
    const { seed } = this.options;
    const context: DayContext = {
      day: this.day(date),
      ids: new FlightIds(date),
      nowMs,
      // Per-flight streams are the day's seed mixed with the flight's key: as
      // independent as named streams, without hashing a string per flight.
      flightSeed: hashSeed(`${seed}|flight|${date}`),
      rotationSeed: hashSeed(`${seed}|rotation|${date}`),
      registrations: new Map(),
    };
    return this.timetable.map((leg) => this.generateFlight(leg, context));
  }

  private generateFlight(leg: TimetableLeg, context: DayContext): GeneratedFlight {
    const { changeRate } = this.options;
    const { day, ids, nowMs } = context;
    const fmt = this.format;
    const rng = new Random(mixSeed(context.flightSeed, leg.key));
    // Drawn even when the timetable fixes the pass, so every flight's stream stays put.
    const drawn = rng.chance(0.5) ? "later" : "earlier";
    const occurrence = leg.occurrence ?? drawn;
    const scheduleMs = day.instantOf(leg.minuteOfDay, occurrence);
    const scheduled = fmt(scheduleMs);
    const id = ids.next(rng);
    const codeshareIds = leg.codeshares.map(() => ids.next(rng));
    // Both legs of a rotation fly the same aircraft.
    let registration = context.registrations.get(leg.rotation);
    if (registration === undefined) {
      const aircraftRng = new Random(mixSeed(context.rotationSeed, leg.rotation));
      registration = aircraftRng.pattern(aircraftRng.pick(leg.registrations));
      context.registrations.set(leg.rotation, registration);
    }

    let record: Flight = {
      id,
      flightName: leg.flightName,
      flightNumber: leg.flightNumber,
      flightDirection: leg.direction,
      prefixIATA: leg.airline.iata,
      prefixICAO: leg.airline.icao,
      airlineCode: leg.airline.nvls,
      mainFlight: leg.flightName,
      isOperationalFlight: true,
      scheduleDateTime: scheduled,
      scheduleDate: scheduled.slice(0, 10),
      scheduleTime: scheduled.slice(11, 19),
      aircraftType: { ...leg.aircraft },
      route: { destinations: [...leg.route], eu: leg.eu, visa: leg.visa },
      serviceType: leg.serviceType,
      publicFlightState: { flightStates: ["SCH"] },
      schemaVersion: "4",
    };
    if (leg.terminal !== undefined) record.terminal = leg.terminal;
    if (leg.codeshares.length > 0) {
      record.codeshares = { codeshares: leg.codeshares.map((c) => c.flightName) };
    }
    if (leg.direction === "D" && !leg.freight && rng.chance(0.95)) {
      record.checkinAllocations = checkinAllocations(leg, scheduleMs, rng, fmt);
    }

    const plan = buildFlightPlan(
      {
        direction: leg.direction,
        scheduleMs,
        freight: leg.freight,
        blockMin: leg.blockMin,
        piers: leg.piers,
        terminal: leg.terminal,
        registration,
        operatingId: id,
        codeshareIds,
        changeRate,
      },
      rng,
    );
    // Published some time before the day, or just before now for flights added late.
    let stamp = Math.min(
      scheduleMs - rng.int(20 * HOUR, 72 * HOUR),
      nowMs - rng.int(MIN, 3 * HOUR),
    );
    let removed = false;
    for (; plan.cursor < plan.events.length; plan.cursor++) {
      const event = plan.events[plan.cursor];
      if (!event || event.at > nowMs) break;
      const patch = stepPlan(plan, event, record, fmt);
      if (patch) {
        if (mergePatch(record, patch)) removed = true;
        stamp = event.at;
      }
    }
    record.lastUpdatedAt = fmt(stamp);
    if (removed) record = compactRecord(record);

    const records = [record];
    leg.codeshares.forEach((c, i) => {
      records.push({
        ...record,
        id: codeshareIds[i],
        flightName: c.flightName,
        flightNumber: c.flightNumber,
        prefixIATA: c.airline.iata,
        prefixICAO: c.airline.icao,
        airlineCode: c.airline.nvls,
        isOperationalFlight: this.options.codesharesMarkedOperational === true,
      });
    });
    return { plan, records };
  }
}

const timetables = new Map<string, readonly TimetableLeg[]>();

/**
 * The timetable of a seed and volume, memoised: tests build many simulators with one
 * seed, and a timetable is never changed once built.
 */
function timetableFor(seed: number, flightsPerDay: number): readonly TimetableLeg[] {
  const key = `${seed}/${flightsPerDay}`;
  let timetable = timetables.get(key);
  if (!timetable) {
    timetable = buildTimetable(seed, flightsPerDay);
    if (timetables.size >= 8) timetables.clear();
    timetables.set(key, timetable);
  }
  return timetable;
}

/**
 * 18-digit ids: `1`, the date's day number (5 digits), 12 random digits. The day
 * prefix keeps ids unique across days, a set keeps them unique within one.
 */
class FlightIds {
  private readonly prefix: string;
  private readonly used = new Set<string>();

  constructor(date: string) {
    this.prefix = `1${String(dayNumber(date) % 100_000).padStart(5, "0")}`;
  }

  next(rng: Random): string {
    for (;;) {
      const id = `${this.prefix}${rng.digits(12)}`;
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }
}

// Shared, never mutated: records are read-only once generated.
const BUSINESS = Object.freeze({ code: "BUS", description: "Business" });
const ECONOMY = Object.freeze({ code: "ECO", description: "Economy" });

const DESKS = new Map<string, { desks: Desk[] }>();

/**
 * A row's desks: 1..count, the first `business` of them for business class. Rows
 * with the same layout share one frozen list; records are read-only once generated.
 */
function desksOf(count: number, business: number): { desks: Desk[] } {
  const key = `${count}/${business}`;
  let desks = DESKS.get(key);
  if (!desks) {
    const list: Desk[] = [];
    for (let d = 1; d <= count; d++) {
      list.push(Object.freeze({ position: d, checkinClass: d <= business ? BUSINESS : ECONOMY }));
    }
    desks = Object.freeze({ desks: Object.freeze(list) as Desk[] });
    DESKS.set(key, desks);
  }
  return desks;
}

const REMARKS = [
  "Self-service bag drop available",
  "Check-in online recommended",
  "Extra security checks: arrive early",
];

function checkinAllocations(
  leg: TimetableLeg,
  scheduleMs: number,
  rng: Random,
  fmt: ApiTimeFormat,
): CheckinAllocations {
  const [firstRow, lastRow] = CHECKIN_ROWS_BY_TERMINAL[leg.terminal ?? 1] ?? [1, 7];
  const rowCount = leg.longHaul ? rng.int(2, 3) : rng.int(1, 2);
  const start = rng.int(firstRow, Math.max(firstRow, lastRow - rowCount + 1));
  const business = leg.lowCost ? 0 : leg.longHaul ? 3 : 1;
  const rows = [];
  for (let r = 0; r < rowCount; r++) {
    const deskCount = leg.longHaul ? rng.int(8, 12) : rng.int(4, 10);
    rows.push({ position: String(start + r), desks: desksOf(deskCount, business) });
  }
  const opensBefore = (leg.longHaul ? rng.int(36, 48) : rng.int(24, 36)) * 5 * MIN;
  const closesBefore = (leg.longHaul ? 60 : 40) * MIN;
  const allocations: CheckinAllocations = {
    checkinAllocations: [
      {
        startTime: fmt(scheduleMs - opensBefore),
        endTime: fmt(scheduleMs - closesBefore),
        rows: { rows },
      },
    ],
  };
  if (rng.chance(0.1)) allocations.remarks = { remarks: [rng.pick(REMARKS)] };
  return allocations;
}
