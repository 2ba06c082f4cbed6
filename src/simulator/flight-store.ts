/**
 * The simulator's in-memory data: flights plus reference collections. Every change
 * to a flight goes through `update`/`upsert`, which stamp `lastUpdatedAt` from the
 * clock (minus the configured stamp lag, a fault the real service shows), so no
 * change can forget to bump it. Readers get the live records; they must not mutate them.
 */
import type { AircraftType, Airline, Destination, Flight } from "../api/types.js";
import { formatApiDateTime, parseApiDateTime } from "../time/local-time.js";
import type { SimClock } from "./sim-clock.js";

/** Options of a FlightStore. */
export interface FlightStoreOptions {
  clock: SimClock;
  /** Airport IANA zone, for timestamps (default Europe/Amsterdam). */
  zone: string;
  /** `lastUpdatedAt` is stamped this many ms in the past (fault injection; default 0). */
  stampLagMs?: number;
}

/** A change a listener hears about: the record after the change (undefined = removed). */
export interface FlightChange {
  id: string;
  before: Flight | undefined;
  after: Flight | undefined;
}

/** Reference data served by the collection endpoints. */
export interface ReferenceData {
  airlines: Airline[];
  aircraftTypes: AircraftType[];
  destinations: Destination[];
}

/** In-memory flights keyed by id, with `lastUpdatedAt` stamping and change listeners. */
export class FlightStore {
  readonly clock: SimClock;
  readonly zone: string;
  stampLagMs: number;
  reference: ReferenceData = { airlines: [], aircraftTypes: [], destinations: [] };

  private readonly flights = new Map<string, Flight>();
  private readonly listeners = new Set<(change: FlightChange) => void>();
  /** Bumped on every change; lets readers cache derived views (sorted lists). */
  private revision = 0;
  private lastStamp = { instant: Number.NaN, text: "" };

  constructor(options: FlightStoreOptions) {
    this.clock = options.clock;
    this.zone = options.zone;
    this.stampLagMs = options.stampLagMs ?? 0;
  }

  /** Number of changes so far; changes whenever any flight changes. */
  get version(): number {
    return this.revision;
  }

  get size(): number {
    return this.flights.size;
  }

  /** All flights, in insertion order. Do not mutate the records. */
  all(): IterableIterator<Flight> {
    return this.flights.values();
  }

  get(id: string): Flight | undefined {
    return this.flights.get(id);
  }

  /** Finds flights by printed flight name (e.g. `KL1234`); codeshares included. */
  findByName(flightName: string): Flight[] {
    const out: Flight[] = [];
    for (const f of this.flights.values()) if (f.flightName === flightName) out.push(f);
    return out;
  }

  /**
   * Inserts or replaces a whole record and stamps it. `id` is required.
   * Pass `stamp: false` only when loading generated history (keeps its own stamp).
   * `stampAt` stamps as of that simulated time instead of the clock's now.
   */
  upsert(flight: Flight, options: { stamp?: boolean; stampAt?: number } = {}): Flight {
    if (!flight.id) throw new Error("FlightStore.upsert: flight.id is required");
    const before = this.flights.get(flight.id);
    const after: Flight = { ...flight };
    if (options.stamp !== false) after.lastUpdatedAt = this.stamp(options.stampAt);
    this.flights.set(flight.id, after);
    this.changed({ id: flight.id, before, after });
    return after;
  }

  /**
   * Adds generated records as they are, neither copied nor stamped: the store takes
   * ownership, so the caller must not change them afterwards. Listeners hear each one.
   * For loading thousands of fresh records at start-up; `id` is required.
   */
  adopt(flights: Iterable<Flight>): void {
    for (const flight of flights) {
      if (!flight.id) throw new Error("FlightStore.adopt: flight.id is required");
      const before = this.flights.get(flight.id);
      this.flights.set(flight.id, flight);
      this.changed({ id: flight.id, before, after: flight });
    }
  }

  /**
   * Changes a flight: `patch` fields replace the record's (a field set to `undefined`
   * is deleted), then `lastUpdatedAt` is stamped. Returns the new record, or
   * undefined when no flight has this id. `stampAt` stamps as of that simulated time
   * instead of the clock's now, so one change to several records (an operating
   * flight and its codeshares) carries one stamp even while the clock runs.
   */
  update(
    id: string,
    patch: Partial<Flight>,
    options: { stampAt?: number } = {},
  ): Flight | undefined {
    const before = this.flights.get(id);
    if (!before) return undefined;
    const after: Flight = { ...before };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete after[key];
      else after[key] = value;
    }
    after.lastUpdatedAt = this.stamp(options.stampAt);
    this.flights.set(id, after);
    this.changed({ id, before, after });
    return after;
  }

  /** Removes a flight; returns whether it existed. */
  remove(id: string): boolean {
    const before = this.flights.get(id);
    if (!before) return false;
    this.flights.delete(id);
    this.changed({ id, before, after: undefined });
    return true;
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: (change: FlightChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Epoch ms of a record's `lastUpdatedAt` (0 when absent). */
  lastUpdatedMs(flight: Flight): number {
    return flight.lastUpdatedAt ? (parseApiDateTime(flight.lastUpdatedAt, this.zone) ?? 0) : 0;
  }

  private stamp(at = this.clock.now()): string {
    const instant = at - this.stampLagMs;
    // One tick stamps many records with the same time; formatting costs ~10 µs.
    if (instant !== this.lastStamp.instant) {
      this.lastStamp = { instant, text: formatApiDateTime(instant, this.zone) };
    }
    return this.lastStamp.text;
  }

  private changed(change: FlightChange): void {
    this.revision++;
    for (const listener of this.listeners) listener(change);
  }
}
