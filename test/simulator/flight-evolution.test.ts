import { describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { IDENTITY_FIELDS } from "../../src/simulator/flight-generator.js";
import type { FlightChange } from "../../src/simulator/flight-store.js";
import { ManualClock } from "../../src/simulator/sim-clock.js";
import { createSimulator, type Simulator } from "../../src/simulator/simulator.js";
import { formatApiDateTime, parseApiDateTime } from "../../src/time/local-time.js";

const ZONE = "Europe/Amsterdam";
const MIN = 60_000;
const HOUR = 60 * MIN;
const START = Date.parse("2026-06-10T04:00:00Z"); // 06:00 local
const DEPARTURE_STEPS = ["SCH", "GTO", "BRD", "GCL", "GTD", "DEP"];
const ARRIVAL_STEPS = ["SCH", "AIR", "FIR", "LND", "FIB", "ARR"];
const STOPPED = ["CNX", "DIV", "TOM"];

interface Run {
  sim: Simulator;
  clock: ManualClock;
  changes: FlightChange[];
}

function run(options: { seed?: number; changeRate?: number; start?: number } = {}): Run {
  const clock = new ManualClock(options.start ?? START);
  const sim = createSimulator({ seed: options.seed ?? 5, clock, changeRate: options.changeRate });
  const changes: FlightChange[] = [];
  sim.store.onChange((c) => changes.push(c));
  return { sim, clock, changes };
}

/** Moves the clock in `stepMs` steps up to `untilMs`, ticking after each. */
function advance(r: Run, untilMs: number, stepMs = MIN): void {
  while (r.clock.now() < untilMs) {
    r.clock.set(Math.min(untilMs, r.clock.now() + stepMs));
    r.sim.tick();
  }
}

const states = (f: Flight | undefined): string[] => f?.publicFlightState?.flightStates ?? [];
const scheduled = (f: Flight): number => parseApiDateTime(f.scheduleDateTime ?? "", ZONE) ?? 0;

/** The main steps a flight went through, in order, from its change history. */
function steps(initial: Flight, history: FlightChange[], order: string[]): string[] {
  const seen: string[] = [];
  for (const s of [states(initial), ...history.map((c) => states(c.after))]) {
    const main = order.filter((step) => s.includes(step));
    const last = main[main.length - 1];
    // A flight still scheduled may show only a side state (["DEL"], ["EXP"]).
    const step = last ?? (s.some((x) => STOPPED.includes(x)) ? undefined : "SCH");
    if (step && seen[seen.length - 1] !== step) seen.push(step);
  }
  return seen;
}

describe("live evolution", () => {
  it("takes departures through SCH → GTO → BRD → GCL → GTD → DEP, and arrivals through SCH → AIR → FIR → LND → FIB → ARR", () => {
    const r = run();
    const watched = [...r.sim.store.all()].filter(
      (f) =>
        f.isOperationalFlight &&
        f.serviceType !== "F" &&
        f.serviceType !== "H" &&
        scheduled(f) > START + 5 * HOUR &&
        scheduled(f) < START + 7 * HOUR,
    );
    // Long-haul arrivals may be airborne already: watch flights that have not started.
    const notStarted = watched.filter(
      (f) => steps(f, [], f.flightDirection === "D" ? DEPARTURE_STEPS : ARRIVAL_STEPS)[0] === "SCH",
    );
    const initial = new Map(notStarted.map((f) => [f.id ?? "", f]));
    advance(r, START + 14 * HOUR); // past the longest delay (6 h)
    let departures = 0;
    let arrivals = 0;
    for (const [id, f] of initial) {
      const history = r.changes.filter((c) => c.id === id);
      if (history.some((c) => states(c.after).some((s) => STOPPED.includes(s)))) continue;
      if (f.flightDirection === "D") {
        departures++;
        expect(steps(f, history, DEPARTURE_STEPS), f.flightName).toEqual(DEPARTURE_STEPS);
      } else {
        arrivals++;
        expect(steps(f, history, ARRIVAL_STEPS), f.flightName).toEqual(ARRIVAL_STEPS);
      }
    }
    expect(departures).toBeGreaterThan(20);
    expect(arrivals).toBeGreaterThan(20);
  });

  it("times the steps relative to the schedule: gate open ~-60, boarding ~-40, closing ~-20 (plus delay)", () => {
    const r = run({ changeRate: 0 });
    const departures = [...r.sim.store.all()].filter(
      (f) =>
        f.isOperationalFlight &&
        f.flightDirection === "D" &&
        f.serviceType === "J" &&
        scheduled(f) > START + 2 * HOUR &&
        scheduled(f) < START + 3 * HOUR,
    );
    advance(r, START + 4 * HOUR);
    for (const f of departures) {
      const when = (step: string): number => {
        const c = r.changes.find((x) => x.id === f.id && states(x.after).includes(step));
        return (parseApiDateTime(c?.after?.lastUpdatedAt ?? "", ZONE) ?? Number.NaN) - scheduled(f);
      };
      // Punctual airport (changeRate 0): no delay, only a few minutes of jitter.
      expect(Math.abs(when("GTO") + 60 * MIN)).toBeLessThanOrEqual(4 * MIN);
      expect(Math.abs(when("BRD") + 40 * MIN)).toBeLessThanOrEqual(4 * MIN);
      expect(Math.abs(when("GCL") + 20 * MIN)).toBeLessThanOrEqual(3 * MIN);
      expect(when("DEP")).toBeGreaterThanOrEqual(0);
      expect(when("DEP")).toBeLessThanOrEqual(6 * MIN);
    }
    expect(departures.length).toBeGreaterThan(10);
  });

  it("stamps every change with the clock's time through the store", () => {
    const r = run();
    let checked = 0;
    r.sim.store.onChange((c) => {
      if (!c.after) return;
      expect(c.after.lastUpdatedAt).toBe(formatApiDateTime(r.clock.now(), ZONE));
      checked++;
    });
    advance(r, START + 2 * HOUR, 7 * MIN);
    expect(checked).toBeGreaterThan(200);
  });

  it("changes codeshare records with their operating flight: same change, same stamp", () => {
    const r = run();
    advance(r, START + 6 * HOUR, 5 * MIN);
    const all = [...r.sim.store.all()];
    const byKey = new Map(
      all.filter((f) => f.isOperationalFlight).map((f) => [`${f.scheduleDate} ${f.flightName}`, f]),
    );
    const shared = (f: Flight | undefined): Record<string, unknown> =>
      Object.fromEntries(Object.entries(f ?? {}).filter(([k]) => !IDENTITY_FIELDS.has(k)));
    let compared = 0;
    for (const cs of all.filter((f) => f.isOperationalFlight === false)) {
      const op = byKey.get(`${cs.scheduleDate} ${cs.mainFlight}`);
      expect(shared(cs)).toEqual(shared(op));
      expect(cs.lastUpdatedAt).toBe(op?.lastUpdatedAt);
      compared++;
    }
    expect(compared).toBeGreaterThan(500);
    // Every operating change in a tick came with its codeshares' changes.
    const changedOperating = r.changes.filter(
      (c) => c.after?.codeshares && c.after.isOperationalFlight,
    );
    expect(changedOperating.length).toBeGreaterThan(50);
  });

  it("shows side states together with main ones, as real data does", () => {
    const r = run({ seed: 9 });
    advance(r, START + 12 * HOUR, 5 * MIN);
    const combos = new Set(r.changes.map((c) => states(c.after).join(",")));
    expect([...combos].some((c) => /DEL,(GTO|BRD|GCL|GTD)/.test(c))).toBe(true);
    expect([...combos].some((c) => /(AIR|FIR|LND|ARR),EXP/.test(c))).toBe(true);
    expect(combos.has("CNX")).toBe(true);
  });

  it("scales the number of changes with changeRate", () => {
    const count = (changeRate: number): number => {
      const r = run({ changeRate });
      advance(r, START + 8 * HOUR, 10 * MIN);
      return r.changes.length;
    };
    const quiet = count(0);
    const normal = count(1);
    const busy = count(4);
    expect(quiet).toBeLessThan(normal);
    expect(normal * 1.2).toBeLessThan(busy);
  });

  it("keeps a punctual airport at changeRate 0: no delays, gate changes or disruptions", () => {
    const r = run({ changeRate: 0 });
    advance(r, START + 12 * HOUR, 10 * MIN);
    const seen = new Set(r.changes.flatMap((c) => states(c.after)));
    for (const s of ["DEL", "EXP", "GCH", "CNX", "DIV", "TOM"]) expect(seen.has(s), s).toBe(false);
    expect(seen.has("DEP")).toBe(true);
  });

  it("stops cancelled, diverted and moved flights; an un-cancelled flight carries on", () => {
    const r = run({ seed: 3, changeRate: 15 });
    advance(r, START + 20 * HOUR, 10 * MIN);
    const byId = new Map<string, FlightChange[]>();
    for (const c of r.changes) byId.set(c.id, [...(byId.get(c.id) ?? []), c]);
    const stopped = { CNX: 0, DIV: 0, TOM: 0, uncancelled: 0 };
    for (const history of byId.values()) {
      const at = history.findIndex((c) => states(c.after).some((s) => STOPPED.includes(s)));
      if (at < 0) continue;
      const state = states(history[at]?.after)[0] as "CNX" | "DIV" | "TOM";
      stopped[state]++;
      const later = history.slice(at + 1);
      if (state !== "CNX") {
        expect(later).toEqual([]);
      } else if (later.length > 0) {
        // The only way on after CNX is an un-cancel that restores a live state.
        expect(states(later[0]?.after)).not.toContain("CNX");
        stopped.uncancelled++;
      }
    }
    expect(stopped.CNX).toBeGreaterThan(5);
    expect(stopped.DIV).toBeGreaterThan(0);
    expect(stopped.TOM).toBeGreaterThan(0);
    expect(stopped.uncancelled).toBeGreaterThan(0);
  });

  it("cancels and diverts as the upstream does: the state list is replaced, never appended to", () => {
    const r = run({ seed: 3, changeRate: 15 });
    advance(r, START + 20 * HOUR, 10 * MIN);
    const seen = { CNX: 0, DIV: 0, uncancel: 0 };
    // Updates only: records added or removed (roll-over) are not transitions.
    for (const c of r.changes.filter((x) => x.before && x.after)) {
      const before = states(c.before);
      const after = states(c.after);
      for (const code of ["CNX", "DIV"] as const) {
        if (!after.includes(code) || before.includes(code)) continue;
        seen[code]++;
        // ["BRD"] → ["CNX"], ["AIR","EXP"] → ["DIV"]: the other states withdrawn.
        expect(after, `${c.after?.flightName} ${before} → ${after}`).toEqual([code]);
        expect(before.length).toBeGreaterThan(0);
      }
      if (before.includes("CNX") && !after.includes("CNX")) {
        seen.uncancel++;
        // An un-cancel replaces ["CNX"] with the live states, never with nothing.
        expect(before).toEqual(["CNX"]);
        expect(after.length).toBeGreaterThan(0);
      }
    }
    expect(seen.CNX).toBeGreaterThan(5);
    expect(seen.DIV).toBeGreaterThan(0);
    expect(seen.uncancel).toBeGreaterThan(0);
  });

  it("stops a flight cancelled by a script", () => {
    const r = run();
    const f = [...r.sim.store.all()].find(
      (x) => x.isOperationalFlight && x.flightDirection === "D" && scheduled(x) > START + 2 * HOUR,
    );
    r.sim.apply({
      kind: "update",
      target: { id: f?.id ?? "" },
      patch: { publicFlightState: { flightStates: ["CNX"] } },
    });
    advance(r, scheduled(f ?? {}) + 2 * HOUR, 10 * MIN);
    const after = r.sim.store.get(f?.id ?? "");
    expect(states(after)).toEqual(["CNX"]);
    expect(after?.actualOffBlockTime).toBeUndefined();
  });

  it("does not depend on how often tick runs", () => {
    const fine = run({ seed: 12 });
    const coarse = run({ seed: 12 });
    advance(fine, START + 5 * HOUR, MIN);
    advance(coarse, START + 5 * HOUR, 47 * MIN);
    const strip = (sim: Simulator): Flight[] =>
      [...sim.store.all()].map(({ lastUpdatedAt: _stamp, ...rest }) => rest);
    expect(strip(coarse.sim)).toEqual(strip(fine.sim));
  });

  it("processes nothing ahead of the clock", () => {
    const r = run();
    expect(() => r.sim.advanceTo(START + 1)).toThrow(RangeError);
    const next = r.sim.nextDueAt() ?? 0;
    expect(next).toBeGreaterThan(START);
    r.clock.set(next - 1);
    expect(r.sim.tick().processed).toBe(0);
    r.clock.set(next);
    expect(r.sim.tick().processed).toBeGreaterThan(0);
  });

  it("rolls over at local midnight: a new tomorrow appears, the day before yesterday goes", () => {
    const r = run({ start: Date.parse("2026-10-24T20:00:00Z") }); // 22:00 local
    const before = r.sim.store.size;
    advance(r, Date.parse("2026-10-24T22:30:00Z"), 10 * MIN); // 00:30 on the 25th (25 h day)
    const dates = new Set([...r.sim.store.all()].map((f) => f.scheduleDate));
    expect(dates).toEqual(new Set(["2026-10-24", "2026-10-25", "2026-10-26"]));
    expect(r.sim.store.size).toBe(before);
    const added = r.changes.filter((c) => !c.before && c.after);
    expect(added).toHaveLength(1400);
    expect(new Set(added.map((c) => c.after?.lastUpdatedAt)).size).toBe(1);
    expect(r.changes.filter((c) => !c.after)).toHaveLength(1400);
  });

  it("runs 10,000 flights", () => {
    const clock = new ManualClock(START);
    const sim = createSimulator({ seed: 2, clock, flightsPerDay: 3334 });
    expect(sim.store.size).toBe(10_002);
    let processed = 0;
    for (let i = 0; i < 60; i++) {
      clock.advance(MIN);
      processed += sim.tick().processed;
    }
    expect(processed).toBeGreaterThan(100);
  });
});
