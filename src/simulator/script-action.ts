/**
 * Scripted changes to the simulator's data, as plain JSON so that tests in-process
 * and the admin HTTP interface speak the same language ("at t=3s the gate of
 * KL1234 becomes D7"). A flight is addressed by `id`, or by `flightName` (plus
 * optionally `scheduleDate`) which selects the operating record and, for `update`,
 * leaves codeshare records to follow it as the simulator's data model requires.
 */
import type { Flight } from "../api/types.js";

/** Which flight an action is about. */
export interface FlightSelector {
  id?: string;
  flightName?: string;
  /** `yyyy-MM-dd`, narrows `flightName` to one day. */
  scheduleDate?: string;
}

/** One scripted change. */
export type ScriptAction =
  | { kind: "add"; flight: Flight }
  | { kind: "update"; target: FlightSelector; patch: Partial<Flight> }
  | { kind: "remove"; target: FlightSelector };

/** A scripted change at a simulated time: absolute epoch ms, or ms after the simulator started. */
export interface ScheduledAction {
  at?: number;
  afterMs?: number;
  action: ScriptAction;
}
