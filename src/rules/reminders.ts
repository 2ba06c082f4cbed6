/**
 * Reminders' clock (docs/rules.md, "Reminders"): the instant of the moment a reminder
 * comes before, from the flight's latest known fields — an estimate when there is one,
 * else the schedule — or none, when the moment is gone: the flight was cancelled or
 * moved to another day, or its states show the moment has come already (a flight that
 * is boarding gets no "boarding starts in 30 min"). Pure.
 */
import type { FlightIdentity, SnapshotFields } from "../diff/flight-snapshot.js";
import type { Reminder, ReminderMoment } from "./rule.js";

/** States after which a flight's moment has no reminder: it is gone or has come. */
const GONE = ["CNX", "TOM", "DIV"];
const PAST: Readonly<Record<ReminderMoment, readonly string[]>> = {
  boarding: ["BRD", "GCL", "GTD", "DEP"],
  gate_closing: ["GCL", "GTD", "DEP"],
  departure: ["DEP"],
  arrival: ["LND", "FIB", "ARR"],
};

/**
 * When the moment is, epoch ms, as the fields have it now; undefined when it is unknown,
 * gone (cancelled, moved to tomorrow, diverted) or has come already.
 */
export function momentOf(
  before: ReminderMoment,
  flight: Pick<FlightIdentity, "direction" | "scheduled">,
  fields: SnapshotFields | undefined,
): number | undefined {
  const states = fields?.states;
  if (states?.some((s) => GONE.includes(s) || PAST[before].includes(s))) return undefined;
  const times = fields?.times;
  switch (before) {
    case "boarding":
      return flight.direction === "A" ? undefined : times?.expectedTimeBoarding;
    case "gate_closing":
      return flight.direction === "A" ? undefined : times?.expectedTimeGateClosing;
    case "departure":
      if (flight.direction !== "D" || times?.actualOffBlockTime !== undefined) return undefined;
      return times?.publicEstimatedOffBlockTime ?? flight.scheduled;
    case "arrival":
      if (flight.direction !== "A" || times?.actualLandingTime !== undefined) return undefined;
      return times?.estimatedLandingTime ?? flight.scheduled;
  }
}

/** A reminder's name, stable while the rule asks for it: `boarding-30m`. */
export function reminderName(reminder: Reminder): string {
  return `${reminder.before}-${durationText(reminder.byMs)}`;
}

/** `3h`, `1h30m`, `45m`, `90s`: the shortest exact writing of a duration. */
export function durationText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const text = `${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}${s > 0 ? `${s}s` : ""}`;
  return text === "" ? "0s" : text;
}
