import { describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { ErrorCode, InvalidActionError, UnknownFlightError } from "../../src/errors.js";
import type { ScriptAction } from "../../src/simulator/script-action.js";
import { ManualClock } from "../../src/simulator/sim-clock.js";
import { createSimulator, type ScriptFailure } from "../../src/simulator/simulator.js";
import { formatApiDateTime } from "../../src/time/local-time.js";

const ZONE = "Europe/Amsterdam";
const START = Date.parse("2026-06-10T08:00:00Z");
const TODAY = "2026-06-10";

/** A static simulator (no evolution), so only scripts change data. */
function setup(failures: ScriptFailure[] = []) {
  const clock = new ManualClock(START);
  const sim = createSimulator({
    seed: 21,
    clock,
    evolve: false,
    onScriptError: (f) => failures.push(f),
  });
  return { sim, clock };
}

/** Today's operating flight with at least two codeshares. */
function codeshared(flights: Iterable<Flight>): Flight {
  const f = [...flights].find(
    (x) =>
      x.isOperationalFlight &&
      x.scheduleDate === TODAY &&
      (x.codeshares?.codeshares?.length ?? 0) >= 2,
  );
  if (!f) throw new Error("no codeshared flight in the fixture");
  return f;
}

const gate = (
  gateName: string,
  target: { flightName?: string; id?: string; scheduleDate?: string },
): ScriptAction => ({
  kind: "update",
  target,
  patch: { gate: gateName },
});

describe("scripting: apply now", () => {
  it("updates the operating flight by flightName and its codeshares' shared fields", () => {
    const { sim, clock } = setup();
    const op = codeshared(sim.store.all());
    clock.advance(1234);
    const ids = sim.apply({
      kind: "update",
      target: { flightName: op.flightName ?? "", scheduleDate: TODAY },
      patch: { gate: "D7", pier: "D", flightNumber: 9999 },
    });
    expect(ids[0]).toBe(op.id);
    expect(ids).toHaveLength(1 + (op.codeshares?.codeshares?.length ?? 0));
    const stamp = formatApiDateTime(START + 1234, ZONE);
    for (const id of ids) {
      const f = sim.store.get(id);
      expect(f?.gate).toBe("D7");
      expect(f?.lastUpdatedAt).toBe(stamp);
      expect(f?.mainFlight).toBe(op.flightName);
    }
    // Identity fields change on the addressed record only.
    expect(sim.store.get(op.id ?? "")?.flightNumber).toBe(9999);
    for (const id of ids.slice(1)) expect(sim.store.get(id)?.flightNumber).not.toBe(9999);
  });

  it("resolves a codeshare's flightName to the flight it markets", () => {
    const { sim } = setup();
    const op = codeshared(sim.store.all());
    const partner = op.codeshares?.codeshares?.[0] ?? "";
    const ids = sim.apply(gate("E18", { flightName: partner, scheduleDate: TODAY }));
    expect(ids[0]).toBe(op.id);
    expect(sim.store.get(op.id ?? "")?.gate).toBe("E18");
  });

  it("tells codeshares by mainFlight when they are marked operational, as real data does", () => {
    const clock = new ManualClock(START);
    const sim = createSimulator({
      seed: 21,
      clock,
      evolve: false,
      codesharesMarkedOperational: true,
    });
    expect([...sim.store.all()].every((f) => f.isOperationalFlight === true)).toBe(true);
    const op = [...sim.store.all()].find(
      (x) =>
        x.mainFlight === x.flightName &&
        x.scheduleDate === TODAY &&
        (x.codeshares?.codeshares?.length ?? 0) >= 2,
    );
    const partner = op?.codeshares?.codeshares?.[0] ?? "";
    const ids = sim.apply(gate("E2", { flightName: partner, scheduleDate: TODAY }));
    expect(ids[0]).toBe(op?.id);
    expect(ids).toHaveLength(1 + (op?.codeshares?.codeshares?.length ?? 0));
    for (const id of ids) expect(sim.store.get(id)?.gate).toBe("E2");
  });

  it("picks today's flight when a flightName flies every day", () => {
    const { sim } = setup();
    const op = codeshared(sim.store.all());
    const [id] = sim.apply(gate("B13", { flightName: op.flightName ?? "" }));
    expect(id).toBe(op.id);
    expect(sim.store.findByName(op.flightName ?? "").filter((f) => f.gate === "B13")).toHaveLength(
      1,
    );
  });

  it("removes a field given as null, as JSON cannot say undefined", () => {
    const { sim } = setup();
    const op = codeshared(sim.store.all());
    sim.apply({
      kind: "update",
      target: { id: op.id ?? "" },
      patch: { terminal: null } as unknown as Partial<Flight>,
    });
    expect(sim.store.get(op.id ?? "")).not.toHaveProperty("terminal");
    // Addressing the operating record by id takes its codeshares along too.
    for (const name of op.codeshares?.codeshares ?? []) {
      const cs = sim.store.findByName(name).find((f) => f.scheduleDate === TODAY);
      expect(cs).toBeDefined();
      expect(cs).not.toHaveProperty("terminal");
    }
  });

  it("removes a flight with its codeshares; by a codeshare's id only that record", () => {
    const { sim } = setup();
    const op = codeshared(sim.store.all());
    const before = sim.store.size;
    const csName = op.codeshares?.codeshares?.[1] ?? "";
    const cs = sim.store.findByName(csName).find((f) => f.scheduleDate === TODAY);
    expect(sim.apply({ kind: "remove", target: { id: cs?.id ?? "" } })).toEqual([cs?.id]);
    expect(sim.store.get(op.id ?? "")).toBeDefined();
    const removed = sim.apply({
      kind: "remove",
      target: { flightName: op.flightName ?? "", scheduleDate: TODAY },
    });
    expect(removed[0]).toBe(op.id);
    expect(sim.store.size).toBe(before - 1 - removed.length);
    expect(sim.store.get(op.id ?? "")).toBeUndefined();
  });

  it("adds a flight, inventing an 18-digit id when none is given", () => {
    const { sim } = setup();
    const [given] = sim.apply({
      kind: "add",
      flight: { id: "123456789012345678", flightName: "XX0001" },
    });
    expect(given).toBe("123456789012345678");
    const [made] = sim.apply({ kind: "add", flight: { flightName: "XX0002" } });
    expect(made).toMatch(/^\d{18}$/);
    expect(sim.store.get(made ?? "")?.lastUpdatedAt).toBe(formatApiDateTime(START, ZONE));
    expect(() => sim.apply({ kind: "add", flight: { id: "123456789012345678" } })).toThrowError(
      expect.objectContaining({ code: ErrorCode.SIM_INVALID_ACTION, field: "flight.id" }),
    );
  });

  it("names the selector when no flight matches", () => {
    const { sim } = setup();
    const target = { flightName: "ZZ9999", scheduleDate: TODAY };
    let error: unknown;
    try {
      sim.apply(gate("D1", target));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UnknownFlightError);
    expect(error).toMatchObject({ code: ErrorCode.SIM_UNKNOWN_FLIGHT, selector: target });
    expect(String((error as Error).message)).toContain("ZZ9999");
    expect(() => sim.apply({ kind: "remove", target: { id: "999" } })).toThrowError(
      expect.objectContaining({ code: ErrorCode.SIM_UNKNOWN_FLIGHT, selector: { id: "999" } }),
    );
  });

  it("rejects malformed actions, naming the field", () => {
    const { sim } = setup();
    const cases: [unknown, string][] = [
      [{ kind: "update", target: {}, patch: {} }, "action.target"],
      [{ kind: "update", target: { id: "12x" }, patch: {} }, "action.target.id"],
      [{ kind: "update", target: { id: "1" }, patch: { id: "2" } }, "action.patch.id"],
      [
        { kind: "update", target: { id: "1" }, patch: { lastUpdatedAt: "x" } },
        "action.patch.lastUpdatedAt",
      ],
      [{ kind: "rename" }, "action.kind"],
    ];
    for (const [action, field] of cases) {
      expect(() => sim.apply(action as ScriptAction)).toThrowError(
        expect.objectContaining({ code: ErrorCode.SIM_INVALID_ACTION, field }),
      );
    }
    expect(() => sim.schedule({ at: START, afterMs: 5, action: gate("D1", { id: "1" }) })).toThrow(
      InvalidActionError,
    );
    expect(() => sim.schedule({ action: gate("D1", { id: "1" }) })).toThrow(InvalidActionError);
  });
});

describe("scripting: scheduled", () => {
  it("fires exactly at its time, not before", () => {
    const { sim, clock } = setup();
    const op = codeshared(sim.store.all());
    const at = START + 90_000;
    sim.schedule({ at, action: gate("F4", { id: op.id ?? "" }) });
    clock.set(at - 1);
    expect(sim.tick().processed).toBe(0);
    expect(sim.store.get(op.id ?? "")?.gate).not.toBe("F4");
    clock.set(at);
    const result = sim.tick();
    expect(result.processed).toBe(1);
    expect(sim.store.get(op.id ?? "")?.gate).toBe("F4");
    expect(sim.store.get(op.id ?? "")?.lastUpdatedAt).toBe(formatApiDateTime(at, ZONE));
  });

  it("fires in time order, equal times in the order scheduled, afterMs counted from start", () => {
    const { sim, clock } = setup();
    const op = codeshared(sim.store.all());
    const target = { id: op.id ?? "" };
    const seen: string[] = [];
    sim.store.onChange((c) => {
      if (c.id === op.id) seen.push(String(c.after?.gate));
    });
    sim.schedule({ at: START + 3000, action: gate("C3", target) });
    sim.schedule({ afterMs: 1000, action: gate("C1", target) });
    sim.schedule({ at: START + 2000, action: gate("C2a", target) });
    sim.schedule({ at: START + 2000, action: gate("C2b", target) });
    expect(sim.pending().map((p) => p.at - START)).toEqual([1000, 2000, 2000, 3000]);
    clock.set(START + 10_000);
    sim.tick();
    expect(seen).toEqual(["C1", "C2a", "C2b", "C3"]);
    expect(sim.pending()).toEqual([]);
  });

  it("lists pending actions and drops unscheduled ones", () => {
    const { sim, clock } = setup();
    const op = codeshared(sim.store.all());
    const a = sim.schedule({ afterMs: 5000, action: gate("G2", { id: op.id ?? "" }) });
    const b = sim.schedule({ afterMs: 6000, action: gate("G3", { id: op.id ?? "" }) });
    expect(sim.pending()).toEqual([a, b]);
    expect(sim.unschedule(b.id)).toBe(true);
    expect(sim.unschedule(b.id)).toBe(false);
    clock.set(START + 7000);
    sim.tick();
    expect(sim.store.get(op.id ?? "")?.gate).toBe("G2");
  });

  it("adds and removes at their times", () => {
    const { sim, clock } = setup();
    sim.schedule({
      afterMs: 1000,
      action: { kind: "add", flight: { id: "555555555555555555", flightName: "XX0555" } },
    });
    sim.schedule({ afterMs: 2000, action: { kind: "remove", target: { flightName: "XX0555" } } });
    clock.set(START + 1000);
    sim.tick();
    expect(sim.store.get("555555555555555555")).toBeDefined();
    clock.set(START + 2000);
    sim.tick();
    expect(sim.store.get("555555555555555555")).toBeUndefined();
  });

  it("reports an action that fails when its time comes, and carries on", () => {
    const failures: ScriptFailure[] = [];
    const { sim, clock } = setup(failures);
    const op = codeshared(sim.store.all());
    sim.schedule({ afterMs: 1000, action: gate("D1", { flightName: "ZZ0001" }) });
    sim.schedule({ afterMs: 1000, action: gate("D2", { id: op.id ?? "" }) });
    clock.set(START + 1000);
    const result = sim.tick();
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]?.error).toMatchObject({ code: ErrorCode.SIM_UNKNOWN_FLIGHT });
    expect(failures).toHaveLength(1);
    expect(sim.store.get(op.id ?? "")?.gate).toBe("D2");
  });

  it("runs on the real-time timer once started", async () => {
    const clock = new ManualClock(START);
    const sim = createSimulator({ seed: 21, clock, evolve: false, tickIntervalMs: 5 });
    const op = codeshared(sim.store.all());
    sim.schedule({ afterMs: 1, action: gate("H1", { id: op.id ?? "" }) });
    clock.set(START + 1);
    const changed = new Promise<void>((resolve) => sim.store.onChange(() => resolve()));
    sim.start();
    expect(sim.running).toBe(true);
    await changed;
    sim.stop();
    expect(sim.running).toBe(false);
    expect(sim.store.get(op.id ?? "")?.gate).toBe("H1");
  });
});
