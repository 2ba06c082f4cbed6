/**
 * The admin interface driving the real Simulator facade, on a manual clock: a
 * scheduled change must be invisible through the API before its time and visible
 * from its time on.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import { ManualClock } from "../../src/simulator/sim-clock.js";
import { createSimulator } from "../../src/simulator/simulator.js";
import { parseApiDateTime } from "../../src/time/local-time.js";
import { send } from "./harness.js";

const T0 = Date.UTC(2026, 5, 15, 8, 0, 0); // 10:00 local, summer time
let running: RunningSimulator | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(options: { manual?: boolean } = { manual: true }) {
  const clock = new ManualClock(T0);
  const simulator = createSimulator({
    seed: 5,
    flightsPerDay: 200,
    changeRate: 0,
    ...(options.manual ? { clock } : { startMs: T0 }),
  });
  running = await startSimulator({ simulator, live: false, admin: true, auth: false });
  // A flight of tomorrow: live evolution does not touch it within the test's minutes.
  const tomorrow = [...simulator.store.all()].find(
    (f) => f.scheduleDate === "2026-06-16" && !f.codeshares && f.mainFlight === f.flightName,
  ) as Flight;
  return { clock, simulator, running, flight: tomorrow };
}

const admin = (method: string, path: string, body?: unknown) =>
  send(`${running?.url}/_admin${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const fetchFlight = async (id: string): Promise<Flight> =>
  JSON.parse(
    (await send(`${running?.baseUrl}/flights/${id}`, { headers: { accept: "application/json" } }))
      .text,
  );

describe("admin interface over the Simulator facade", () => {
  it("a scheduled change is invisible before its time and visible at it", async () => {
    const { clock, flight } = await start();
    const id = flight.id as string;
    const scheduled = await admin("POST", "/scheduled", {
      afterMs: 60_000,
      action: { kind: "update", target: { id }, patch: { gate: "Z9" } },
    });
    expect(scheduled.status).toBe(202);
    const pending = JSON.parse((await admin("GET", "/scheduled")).text).pending;
    expect(pending).toEqual([expect.objectContaining({ at: T0 + 60_000 })]);

    clock.advance(59_999);
    await admin("POST", "/tick");
    expect((await fetchFlight(id)).gate).not.toBe("Z9");

    // Moving the clock through the admin interface ticks, so the change shows at once.
    const moved = JSON.parse((await admin("POST", "/clock", { skipMs: 1 })).text);
    expect(moved.now).toBe(T0 + 60_000);
    const after = await fetchFlight(id);
    expect(after.gate).toBe("Z9");
    expect(parseApiDateTime(after.lastUpdatedAt as string, "Europe/Amsterdam")).toBe(T0 + 60_000);
    expect(JSON.parse((await admin("GET", "/scheduled")).text).pending).toEqual([]);
  });

  it("POST /actions by flightName changes the flight now and returns the ids touched", async () => {
    const { flight } = await start();
    const res = await admin("POST", "/actions", {
      kind: "update",
      target: { flightName: flight.flightName, scheduleDate: flight.scheduleDate },
      patch: { gate: "Y1" },
    });
    expect(res.status).toBe(200);
    const [ids] = JSON.parse(res.text).results as string[][];
    expect(ids?.[0]).toBe(flight.id);
    expect((await fetchFlight(flight.id as string)).gate).toBe("Y1");
  });

  it("an action on an unknown flight is 404 with the facade's error code", async () => {
    await start();
    const res = await admin("POST", "/actions", {
      kind: "update",
      target: { id: "123" },
      patch: { gate: "Y1" },
    });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toMatchObject({ code: "FW_ERR_SIM_UNKNOWN_FLIGHT" });
  });

  it("DELETE /scheduled/{id} drops a pending action", async () => {
    const { clock, flight } = await start();
    const res = await admin("POST", "/scheduled", {
      afterMs: 1000,
      action: { kind: "update", target: { id: flight.id }, patch: { gate: "X1" } },
    });
    const [{ id }] = JSON.parse(res.text).results as [{ id: number }];
    expect((await admin("DELETE", `/scheduled/${id}`)).status).toBe(200);
    expect((await admin("DELETE", `/scheduled/${id}`)).status).toBe(404);
    clock.advance(5000);
    await admin("POST", "/tick");
    expect((await fetchFlight(flight.id as string)).gate).not.toBe("X1");
  });

  it("GET /state reports the facade; POST /clock changes the speed of a scaled clock", async () => {
    await start({ manual: false });
    const state = JSON.parse((await admin("GET", "/state")).text);
    expect(state).toMatchObject({ seed: 5, speed: 1, zone: "Europe/Amsterdam" });
    // A scaled clock runs from T0 while the simulator is built: startedAt is just after it.
    expect(state.startedAt).toBeGreaterThanOrEqual(T0);
    expect(state.startedAt).toBeLessThan(T0 + 60_000);
    expect(state.counts.flights).toBeGreaterThan(100);
    expect(state.counts.airlines).toBeGreaterThan(20);
    const res = await admin("POST", "/clock", { speed: 10 });
    expect(JSON.parse(res.text).speed).toBe(10);
    expect((await admin("POST", "/clock", { speed: -1 })).status).toBe(400);
  });
});
