/**
 * Turns one plan event into the patch it makes to the flight record. Shared by
 * generation (replaying the events already past at start) and live evolution, so a
 * flight generated "already boarding" looks exactly like one that got there live.
 */
import type { Flight } from "../api/types.js";
import type { ApiTimeFormat } from "../time/local-time.js";
import type { FlightPlan, PlanEvent } from "./flight-plan.js";

const MIN = 60_000;
/** An expected departure this late or later shows DEL. */
const DELAYED_FROM = 10 * MIN;
/** An expected landing this far from schedule shows EXP. */
const EXPECTED_FROM = 5 * MIN;
/** States after which a flight stops progressing (until un-cancelled). */
const STOPPED = new Set(["CNX", "DIV", "TOM"]);

/**
 * The patch `event` makes to `current` (fields set to undefined are removed), or
 * undefined when the flight is cancelled, diverted or moved to tomorrow and the event
 * does not apply. Updates `plan.runtime` when the event applies.
 */
export function stepPlan(
  plan: FlightPlan,
  event: PlanEvent,
  current: Flight,
  format: ApiTimeFormat,
): Partial<Flight> | undefined {
  const states = current.publicFlightState?.flightStates ?? [];
  if (event.kind === "uncancel") {
    return states.includes("CNX") ? { publicFlightState: stateList(plan) } : undefined;
  }
  for (const s of states) if (STOPPED.has(s)) return undefined;
  const rt = plan.runtime;
  const s = plan.scheduleMs;
  const departure = plan.direction === "D";
  switch (event.kind) {
    case "registration":
      return { aircraftRegistration: event.text };
    case "gate": {
      const patch: Partial<Flight> = { gate: event.text, pier: event.pier };
      if (!departure) return patch;
      if (event.securityFilter) patch.expectedSecurityFilter = event.securityFilter;
      if (event.transferPositions) {
        patch.transferPositions = { transferPositions: [...event.transferPositions] };
      }
      setExpectedGateTimes(patch, plan, format);
      return patch;
    }
    case "gateChange":
      if (departure) rt.gch = true;
      return { gate: event.text, pier: event.pier, publicFlightState: stateList(plan) };
    case "estimate": {
      rt.estimateMs = event.value ?? 0;
      const at = s + rt.estimateMs;
      const patch: Partial<Flight> = { publicFlightState: stateList(plan) };
      if (departure) {
        patch.publicEstimatedOffBlockTime = format(at);
        if (current.gate !== undefined) setExpectedGateTimes(patch, plan, format);
      } else {
        patch.estimatedLandingTime = format(at);
        if (current.baggageClaim !== undefined) patch.expectedTimeOnBelt = format(at + 20 * MIN);
      }
      return patch;
    }
    case "wil":
      rt.wil = true;
      return { publicFlightState: stateList(plan) };
    case "progress":
      return progress(plan, event, current, format);
    case "belt":
      return {
        baggageClaim: { belts: [event.text ?? ""] },
        expectedTimeOnBelt: format(s + (rt.estimateMs ?? 0) + 20 * MIN),
      };
    case "beltChange":
      return { baggageClaim: { belts: [event.text ?? ""] } };
    case "cancel":
      return { publicFlightState: { flightStates: ["CNX"] } };
    case "tomorrow": {
      const next = format(event.value ?? s);
      const patch: Partial<Flight> = { publicFlightState: { flightStates: ["TOM"] } };
      if (departure) patch.publicEstimatedOffBlockTime = next;
      else patch.estimatedLandingTime = next;
      return patch;
    }
    case "divert":
      return { publicFlightState: { flightStates: ["DIV"] } };
  }
}

function progress(
  plan: FlightPlan,
  event: PlanEvent,
  current: Flight,
  format: ApiTimeFormat,
): Partial<Flight> {
  const rt = plan.runtime;
  rt.progress = event.state ?? rt.progress;
  rt.wil = false;
  // A gate change is news until the next step of the flight.
  rt.gch = false;
  if (rt.progress === "LND") rt.estimateMs = event.at - plan.scheduleMs;
  const patch: Partial<Flight> = { publicFlightState: stateList(plan) };
  switch (rt.progress) {
    case "DEP":
      patch.actualOffBlockTime = format(event.at);
      patch.expectedTimeGateOpen = undefined;
      patch.expectedTimeBoarding = undefined;
      patch.expectedTimeGateClosing = undefined;
      break;
    case "AIR":
      if (current.estimatedLandingTime === undefined) {
        patch.estimatedLandingTime = format(plan.scheduleMs + (rt.estimateMs ?? 0));
      }
      break;
    case "LND": {
      const landed = format(event.at);
      patch.actualLandingTime = landed;
      patch.estimatedLandingTime = landed;
      if (!plan.freight && event.value !== undefined) {
        patch.expectedTimeOnBelt = format(event.value);
      }
      break;
    }
  }
  return patch;
}

function stateList(plan: FlightPlan): { flightStates: string[] } {
  return { flightStates: statesOf(plan) };
}

/**
 * The public state list of a flight in progress. Side states sit around the main
 * one as in captured data: `["DEL","GTO"]`, `["BRD","GCH"]`, `["LND","EXP"]`; a
 * flight still scheduled shows only its side state (`["DEL"]`, `["EXP"]`).
 */
export function statesOf(plan: FlightPlan): string[] {
  const rt = plan.runtime;
  const p = rt.progress;
  const out: string[] = [];
  if (plan.direction === "D") {
    if ((rt.estimateMs ?? 0) >= DELAYED_FROM && p !== "DEP") out.push("DEL");
    if (rt.wil && p === "SCH") out.push("WIL");
    if (p !== "SCH" || out.length === 0) out.push(p);
    if (rt.gch && p !== "DEP") out.push("GCH");
    return out;
  }
  const expected = rt.estimateMs !== undefined && Math.abs(rt.estimateMs) >= EXPECTED_FROM;
  if (p !== "SCH" || !expected) out.push(p);
  if (expected) out.push("EXP");
  return out;
}

/** Sets expected gate-open, boarding and gate-closing times from the latest estimate. */
function setExpectedGateTimes(
  patch: Partial<Flight>,
  plan: FlightPlan,
  format: ApiTimeFormat,
): void {
  const offBlock = plan.scheduleMs + (plan.runtime.estimateMs ?? 0);
  patch.expectedTimeGateOpen = format(offBlock - 60 * MIN);
  patch.expectedTimeBoarding = format(offBlock - 40 * MIN);
  patch.expectedTimeGateClosing = format(offBlock - 20 * MIN);
}

/**
 * Applies a patch to a record being built (generation only; stored records are
 * copied). Removed fields are left as `undefined` for `compactRecord` to drop:
 * deleting keys one by one would push V8 objects into slow dictionary mode.
 * Returns whether the patch removed a field.
 */
export function mergePatch(record: Flight, patch: Partial<Flight>): boolean {
  let removes = false;
  for (const key in patch) {
    const value = patch[key];
    if (value === undefined) removes = true;
    record[key] = value;
  }
  return removes;
}

/** A copy of the record without its `undefined` fields. */
export function compactRecord(record: Flight): Flight {
  const out: Flight = {};
  for (const key in record) {
    const value = record[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
