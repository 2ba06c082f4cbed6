/**
 * A flight's life, decided up front: the timed events that will happen to it (gate
 * assigned, estimate drifts, boarding, off-block, landing, belt, a cancellation...).
 * Drawing the whole timeline from the flight's own random stream when it is
 * generated makes evolution deterministic given the seed and the clock: how often
 * `tick()` runs, or in which order flights are processed, cannot change the outcome.
 */
import type { Random } from "./random.js";
import { BELTS_BY_TERMINAL, type Pier } from "./traffic-model.js";

const MIN = 60_000;
const HOUR = 60 * MIN;

/** What happens at a plan event. */
export type PlanEventKind =
  | "registration"
  | "gate"
  | "gateChange"
  | "estimate"
  | "wil"
  | "progress"
  | "belt"
  | "beltChange"
  | "cancel"
  | "uncancel"
  | "tomorrow"
  | "divert";

/** One timed event of a flight's plan. */
export interface PlanEvent {
  /** Simulated epoch ms. */
  at: number;
  kind: PlanEventKind;
  /** `progress`: the new main state (GTO, BRD, ..., ARR). */
  state?: string;
  /** `estimate`: delay in ms; `tomorrow`: the new estimate, epoch ms; `progress` LND: on-belt time. */
  value?: number;
  /** Gate, belt or registration text. */
  text?: string;
  /** Pier of a `gate`/`gateChange`. */
  pier?: string;
  /** Departure `gate`: the security filter passengers use, and transfer positions if any. */
  securityFilter?: string;
  transferPositions?: number[];
}

/** The mutable facts evolution tracks beside the record, to derive the state list. */
export interface PlanRuntime {
  progress: string;
  /** Latest published delay (ms), or undefined before the first estimate. */
  estimateMs: number | undefined;
  wil: boolean;
  gch: boolean;
}

/** A flight's plan: its events in time order and where evolution stands. */
export interface FlightPlan {
  direction: "A" | "D";
  scheduleMs: number;
  freight: boolean;
  /** Record ids this plan drives: the operating flight, then its codeshares. */
  operatingId: string;
  codeshareIds: string[];
  events: PlanEvent[];
  /** Index of the next event to apply. */
  cursor: number;
  runtime: PlanRuntime;
}

/** What the plan builder needs to know about a flight. */
export interface PlanInput {
  direction: "A" | "D";
  scheduleMs: number;
  freight: boolean;
  blockMin: number;
  piers: readonly Pier[];
  terminal: number | undefined;
  registration: string;
  operatingId: string;
  codeshareIds: string[];
  /** Multiplier on random drift, gate/belt changes and disruptions (0 = punctual airport). */
  changeRate: number;
}

/** Base rates at changeRate 1, per flight. */
const RATES = {
  driftUpdates: 1.5,
  gateChange: 0.08,
  beltChange: 0.03,
  cancelDeparture: 0.015,
  cancelArrival: 0.012,
  uncancel: 0.15,
  divert: 0.004,
  tomorrow: 0.003,
} as const;

/** Builds a flight's plan from its own random stream. */
export function buildFlightPlan(input: PlanInput, rng: Random): FlightPlan {
  const events = input.direction === "D" ? departureEvents(input, rng) : arrivalEvents(input, rng);
  // Stable sort keeps same-time events in the order they were planned.
  events.sort((a, b) => a.at - b.at);
  return {
    direction: input.direction,
    scheduleMs: input.scheduleMs,
    freight: input.freight,
    operatingId: input.operatingId,
    codeshareIds: input.codeshareIds,
    events,
    cursor: 0,
    runtime: { progress: "SCH", estimateMs: undefined, wil: false, gch: false },
  };
}

/** A gate of one of the piers, different from `avoid` when possible. */
export function pickGate(
  piers: readonly Pier[],
  rng: Random,
  avoid?: string,
): { gate: string; pier: string } | undefined {
  if (piers.length === 0) return undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const p = rng.pick(piers);
    const gate = `${p.pier}${rng.int(p.from, p.to)}`;
    if (gate !== avoid || attempt === 4) return { gate, pier: p.pier };
  }
  return undefined;
}

function departureEvents(input: PlanInput, rng: Random): PlanEvent[] {
  const { scheduleMs: s, changeRate: rate } = input;
  const delay = rate > 0 ? departureDelay(rng) : 0;
  const offBlock = s + delay + rng.int(0, 4 * MIN) + rng.int(0, 59_999);
  const gateOpen = s + delay - 60 * MIN + jitter(rng, 3);
  const events: PlanEvent[] = [];
  const passenger = !input.freight;

  if (rng.chance(passenger ? 0.85 : 0.7)) {
    events.push({
      at: s - rng.int(4 * HOUR, 20 * HOUR),
      kind: "registration",
      text: input.registration,
    });
  }
  let gateAt: number | undefined;
  let gate: { gate: string; pier: string } | undefined;
  if (passenger) {
    gateAt = rng.chance(0.2) ? s - rng.int(12 * HOUR, 20 * HOUR) : s - rng.int(90 * MIN, 4 * HOUR);
    gate = pickGate(input.piers, rng);
    const transfer = rng.chance(0.1) ? [rng.int(1, 12)] : undefined;
    if (gate) {
      events.push({
        at: gateAt,
        kind: "gate",
        text: gate.gate,
        pier: gate.pier,
        securityFilter: `VF${input.terminal ?? 1}`,
        ...(transfer ? { transferPositions: transfer } : {}),
      });
    }
    const changeFrom = gateAt + 10 * MIN;
    const changeTo = s + delay - 45 * MIN;
    if (gate && changeTo > changeFrom && rng.chance(Math.min(0.9, RATES.gateChange * rate))) {
      const moved = pickGate(input.piers, rng, gate.gate);
      if (moved) {
        const at = rng.int(changeFrom, changeTo);
        events.push({ at, kind: "gateChange", text: moved.gate, pier: moved.pier });
      }
    }
  }
  // Estimates drift towards the real delay and settle before the gate opens.
  const settleAt = gateOpen - rng.int(10 * MIN, 40 * MIN);
  events.push(...estimateEvents(rng, rate, delay, s - 3 * HOUR, settleAt, 5 * MIN));
  if (passenger && rng.chance(0.5)) {
    events.push({ at: gateOpen - rng.int(15 * MIN, 40 * MIN), kind: "wil" });
  }
  if (passenger) {
    events.push({ at: gateOpen, kind: "progress", state: "GTO" });
    events.push({ at: s + delay - 40 * MIN + jitter(rng, 3), kind: "progress", state: "BRD" });
    events.push({ at: s + delay - 20 * MIN + jitter(rng, 2), kind: "progress", state: "GCL" });
    events.push({ at: s + delay - 10 * MIN + jitter(rng, 2), kind: "progress", state: "GTD" });
  }
  events.push({ at: offBlock, kind: "progress", state: "DEP" });
  const firstOperational = passenger ? gateOpen : offBlock;
  return disrupt(events, rng, rate, {
    cancelP: RATES.cancelDeparture,
    windowFrom: s - 4 * HOUR,
    windowTo: Math.min(s - 20 * MIN, firstOperational - 10 * MIN),
    tomorrowValue: s + 24 * HOUR + rng.int(-2 * HOUR, 2 * HOUR),
    divertAt: undefined,
  });
}

function arrivalEvents(input: PlanInput, rng: Random): PlanEvent[] {
  const { scheduleMs: s, changeRate: rate } = input;
  const delay = rate > 0 ? arrivalDelay(rng) : 0;
  const landing = s + delay + rng.int(-59_999, 59_999);
  const airborne = landing - Math.max(30, input.blockMin) * MIN + jitter(rng, 5);
  const passenger = !input.freight;
  const events: PlanEvent[] = [];

  if (rng.chance(passenger ? 0.3 : 0.5)) {
    events.push({ at: airborne, kind: "registration", text: input.registration });
  }
  // The first estimate comes with the flight plan, drift follows in flight.
  events.push(
    ...estimateEvents(
      rng,
      rate,
      delay,
      airborne - rng.int(20 * MIN, 60 * MIN),
      landing - 25 * MIN - rng.int(MIN, 5 * MIN),
      3 * MIN,
    ),
  );
  events.push({ at: airborne, kind: "progress", state: "AIR" });
  events.push({ at: landing - 25 * MIN + jitter(rng, 3), kind: "progress", state: "FIR" });
  if (passenger) {
    if (rng.chance(0.5)) {
      const gate = pickGate(input.piers, rng);
      const at = landing - rng.int(40 * MIN, 90 * MIN);
      if (gate) events.push({ at, kind: "gate", text: gate.gate, pier: gate.pier });
    }
    const belts = beltRange(input.terminal);
    const beltAt = landing - rng.int(15 * MIN, 30 * MIN);
    const belt = String(rng.int(belts[0], belts[1]));
    events.push({ at: beltAt, kind: "belt", text: belt });
    if (rng.chance(Math.min(0.9, RATES.beltChange * rate))) {
      let other = String(rng.int(belts[0], belts[1]));
      if (other === belt) other = String(belt === String(belts[0]) ? belts[1] : belts[0]);
      events.push({ at: beltAt + rng.int(5 * MIN, 15 * MIN), kind: "beltChange", text: other });
    }
  }
  const onBelt = landing + rng.int(15 * MIN, 30 * MIN) + rng.int(0, 59_999);
  events.push({ at: landing, kind: "progress", state: "LND", value: onBelt });
  if (passenger) {
    events.push({ at: landing + rng.int(12 * MIN, 20 * MIN), kind: "progress", state: "FIB" });
  }
  events.push({ at: landing + rng.int(30 * MIN, 45 * MIN), kind: "progress", state: "ARR" });
  return disrupt(events, rng, rate, {
    cancelP: RATES.cancelArrival,
    windowFrom: airborne - 3 * HOUR,
    windowTo: airborne - 30 * MIN,
    tomorrowValue: s + 24 * HOUR + rng.int(-2 * HOUR, 2 * HOUR),
    divertAt: landing - rng.int(10 * MIN, 30 * MIN),
  });
}

/**
 * Drift updates between `from` and `settleAt`, converging on `delay`, then one
 * settling estimate of exactly `delay` when it is worth publishing.
 */
function estimateEvents(
  rng: Random,
  rate: number,
  delay: number,
  from: number,
  settleAt: number,
  publishAbove: number,
): PlanEvent[] {
  if (rate <= 0) return [];
  const events: PlanEvent[] = [];
  const count = Math.min(10, rng.poisson(RATES.driftUpdates * rate));
  const span = settleAt - from;
  if (span > 0) {
    const times: number[] = [];
    for (let i = 0; i < count; i++) times.push(from + rng.int(0, span - 1));
    times.sort((a, b) => a - b);
    for (const at of times) {
      const remaining = (settleAt - at) / span;
      const noise = rng.normal(0, 15 * MIN) * remaining;
      events.push({
        at,
        kind: "estimate",
        value: roundToMinute(Math.max(-10 * MIN, delay + noise)),
      });
    }
  }
  if (events.length > 0 || Math.abs(delay) >= publishAbove) {
    events.push({ at: settleAt, kind: "estimate", value: roundToMinute(delay) });
  }
  return events;
}

interface DisruptionWindow {
  cancelP: number;
  windowFrom: number;
  windowTo: number;
  tomorrowValue: number;
  divertAt: number | undefined;
}

/** Possibly cancels (and un-cancels), moves to tomorrow or diverts the flight. */
function disrupt(events: PlanEvent[], rng: Random, rate: number, w: DisruptionWindow): PlanEvent[] {
  const cancel = rng.chance(Math.min(0.5, w.cancelP * rate));
  const tomorrow = rng.chance(Math.min(0.2, RATES.tomorrow * rate));
  const divert = rng.chance(Math.min(0.2, RATES.divert * rate));
  const uncancel = rng.chance(RATES.uncancel);
  const at = w.windowTo > w.windowFrom ? rng.int(w.windowFrom, w.windowTo) : w.windowFrom;
  if (cancel) {
    const cancelEvent: PlanEvent = { at, kind: "cancel" };
    const back = at + rng.int(15 * MIN, 60 * MIN);
    if (uncancel && back < w.windowTo + 5 * MIN) {
      return [...events, cancelEvent, { at: back, kind: "uncancel" }];
    }
    return [...events.filter((e) => e.at < at), cancelEvent];
  }
  if (tomorrow) {
    return [...events.filter((e) => e.at < at), { at, kind: "tomorrow", value: w.tomorrowValue }];
  }
  if (divert && w.divertAt !== undefined) {
    const divertAt = w.divertAt;
    return [...events.filter((e) => e.at < divertAt), { at: divertAt, kind: "divert" }];
  }
  return events;
}

/** Departure delay: mostly punctual, a long tail of late flights. */
function departureDelay(rng: Random): number {
  const r = rng.float();
  if (r < 0.55) return rng.int(0, 4) * MIN;
  if (r < 0.8) return rng.int(5, 20) * MIN;
  if (r < 0.93) return rng.int(20, 60) * MIN;
  if (r < 0.985) return rng.int(60, 180) * MIN;
  return rng.int(180, 360) * MIN;
}

/** Arrival delay: early arrivals are common, the tail is shorter than for departures. */
function arrivalDelay(rng: Random): number {
  const r = rng.float();
  if (r < 0.35) return rng.int(-25, -1) * MIN;
  if (r < 0.7) return rng.int(0, 10) * MIN;
  if (r < 0.88) return rng.int(10, 30) * MIN;
  if (r < 0.97) return rng.int(30, 90) * MIN;
  return rng.int(90, 240) * MIN;
}

function jitter(rng: Random, minutes: number): number {
  return rng.int(-minutes * MIN, minutes * MIN);
}

function roundToMinute(ms: number): number {
  return Math.round(ms / MIN) * MIN;
}

/** Belts of the flight's terminal; arrival halls mirror the departure halls. */
function beltRange(terminal: number | undefined): readonly [number, number] {
  return BELTS_BY_TERMINAL[terminal ?? 3] ?? [14, 26];
}
