/**
 * Values derived from a flight record that filters and sorts need over and over:
 * instants of its date-time fields and their airport-local wall-clock readings.
 * Parsing timestamps dominates the cost of a query, so each record's facts are
 * computed once and remembered per record object; the store replaces the object
 * on every change, so a remembered fact can never go stale.
 */
import type { Flight } from "../../api/types.js";
import { parseApiDateTime, toLocalDateTime } from "../../time/local-time.js";

interface Memo {
  instant: Map<string, number | undefined>;
  local: Map<string, string | undefined>;
}

/** Memoised derived values of flight records, for one airport zone. */
export class FlightFacts {
  readonly zone: string;
  private readonly memo = new WeakMap<Flight, Memo>();

  constructor(zone: string) {
    this.zone = zone;
  }

  /** Epoch ms of a date-time field, or undefined when absent or unparsable. */
  instant(flight: Flight, field: string): number | undefined {
    const memo = this.memoOf(flight);
    if (memo.instant.has(field)) return memo.instant.get(field);
    const value = flight[field];
    const ms = typeof value === "string" ? parseApiDateTime(value, this.zone) : undefined;
    memo.instant.set(field, ms);
    return ms;
  }

  /**
   * Airport-local `yyyy-MM-dd'T'HH:mm:ss` of a date-time field (milliseconds cut,
   * so an inclusive bound at second precision covers its whole second).
   */
  local(flight: Flight, field: string): string | undefined {
    const memo = this.memoOf(flight);
    if (memo.local.has(field)) return memo.local.get(field);
    const ms = this.instant(flight, field);
    const text = ms === undefined ? undefined : toLocalDateTime(ms, this.zone);
    memo.local.set(field, text);
    return text;
  }

  /** The flight's schedule date: its `scheduleDate`, else the local date of `scheduleDateTime`. */
  scheduleDate(flight: Flight): string | undefined {
    return flight.scheduleDate ?? this.local(flight, "scheduleDateTime")?.slice(0, 10);
  }

  /** The flight's local `HH:mm:ss` schedule time: its `scheduleTime`, else from `scheduleDateTime`. */
  scheduleTime(flight: Flight): string | undefined {
    return flight.scheduleTime ?? this.local(flight, "scheduleDateTime")?.slice(11, 19);
  }

  /**
   * Local date-time the flight really happens at, when a delay is known: the
   * actual time if there is one, else the estimate (landing for arrivals,
   * off-block for departures).
   */
  movedLocal(flight: Flight): string | undefined {
    const fields =
      flight.flightDirection === "A"
        ? ["actualLandingTime", "estimatedLandingTime"]
        : ["actualOffBlockTime", "publicEstimatedOffBlockTime"];
    for (const field of fields) {
      const text = this.local(flight, field);
      if (text !== undefined) return text;
    }
    return undefined;
  }

  private memoOf(flight: Flight): Memo {
    let memo = this.memo.get(flight);
    if (!memo) {
      memo = { instant: new Map(), local: new Map() };
      this.memo.set(flight, memo);
    }
    return memo;
  }
}
