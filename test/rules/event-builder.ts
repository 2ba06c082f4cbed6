/**
 * Builds `ChangeEvent`s for matcher tests: a departure KL601 (codeshare DL9341) at pier
 * D, gate D7, terminal 2, scheduled 2026-11-21T10:00Z, with a gate change by default.
 */
import type { Change, ChangeEvent } from "../../src/diff/change.js";
import type { FlightIdentity, SnapshotFields } from "../../src/diff/flight-snapshot.js";

/** The default flight's scheduled instant. */
export const SCHEDULED = Date.parse("2026-11-21T10:00:00Z");

/** What a test may override; `flight` and `current` replace (not merge) when given as null. */
export interface EventParts extends Partial<Change> {
  flight?: Partial<FlightIdentity>;
  current?: SnapshotFields | null;
  id?: string;
  /** The observation's `lastUpdatedAt`; default `VERSION`. */
  version?: number;
}

/** The default version: events of the default flight are one observation unless told otherwise. */
export const VERSION = SCHEDULED - 3_600_000;

let counter = 0;

/** A change event of the default flight with the given overrides. */
export function changeEvent(parts: EventParts = {}): ChangeEvent {
  const { flight, current, id, version, ...change } = parts;
  const identity: FlightIdentity = {
    key: "D:2026-11-21:KL601",
    id: "100000000000000001",
    mainFlight: "KL601",
    flightNames: ["KL0601", "DL9341"],
    direction: "D",
    scheduleDate: "2026-11-21",
    scheduled: SCHEDULED,
    prefixIATA: "KL",
    prefixICAO: "KLM",
    operational: true,
    ...flight,
  };
  const event: ChangeEvent = {
    id: id ?? `e${++counter}`,
    kind: "gate",
    field: "gate",
    action: "changed",
    old: "D5",
    new: "D7",
    ...change,
    flight: identity,
    version: version ?? VERSION,
  };
  if (current !== null) {
    event.current = current ?? {
      gate: "D7",
      pier: "D",
      terminal: 2,
      states: ["SCH"],
      route: ["WAW"],
      serviceType: "J",
      times: { publicEstimatedOffBlockTime: SCHEDULED + 5 * 60_000 },
    };
  }
  return event;
}
