/**
 * The admin interface over HTTP. The facade here is a small stand-in over the
 * fixture store (apply by id, schedule, tick), enough to prove the wiring; the
 * real Simulator facade is exercised in admin-facade.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FlightStore } from "../../src/simulator/flight-store.js";
import type { SimulatorControl } from "../../src/simulator/http/admin-routes.js";
import type { ScheduledAction, ScriptAction } from "../../src/simulator/script-action.js";
import type { ManualClock } from "../../src/simulator/sim-clock.js";
import { fixtureStore, NOW_MS } from "./fixture-store.js";
import { type Harness, send, startHarness } from "./harness.js";

const ID = "101000000000000000";
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A stand-in facade: actions by id, a schedule applied by tick when due. */
function standIn(store: FlightStore, clock: ManualClock): SimulatorControl {
  const queue: { at: number; action: ScriptAction }[] = [];
  const apply = (action: ScriptAction): unknown => {
    if (action.kind === "add") return store.upsert(action.flight).id;
    const id = action.target.id ?? "";
    return action.kind === "update" ? store.update(id, action.patch)?.id : store.remove(id);
  };
  return {
    store,
    clock,
    startedAt: NOW_MS,
    apply,
    schedule: (s: ScheduledAction) => {
      queue.push({ at: s.at ?? NOW_MS + (s.afterMs ?? 0), action: s.action });
      return queue.length;
    },
    pending: () => queue.map((q) => ({ at: q.at, action: q.action })),
    tick: () => {
      let applied = 0;
      for (let i = queue.length - 1; i >= 0; i--) {
        const item = queue[i];
        if (item && item.at <= clock.now()) {
          apply(item.action);
          queue.splice(i, 1);
          applied++;
        }
      }
      return applied;
    },
  };
}

function startAdmin(): Promise<Harness> {
  const fixture = fixtureStore();
  const simulator = standIn(fixture.store, fixture.clock);
  return startHarness({ admin: true, auth: false, simulator }, fixture);
}

const admin = (method: string, path: string, body?: unknown) =>
  send(`${h?.origin}/_admin${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const gateOf = async (): Promise<unknown> => {
  const res = await send(`${h?.base}/flights/${ID}`, { headers: { accept: "application/json" } });
  return (JSON.parse(res.text) as { gate?: string }).gate;
};

describe("admin interface", () => {
  it("is off by default: its paths are 404", async () => {
    h = await startHarness();
    expect((await send(`${h.origin}/_admin/state`)).status).toBe(404);
  });

  it("GET /state reports simulated time, counts and faults", async () => {
    h = await startAdmin();
    const res = await admin("GET", "/state");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(res.text)).toMatchObject({
      now: NOW_MS,
      nowLocal: "2026-03-10T11:00:00",
      zone: "Europe/Amsterdam",
      counts: {
        flights: h.store.size,
        airlines: 5,
        aircraftTypes: 5,
        destinations: 6,
        scheduled: 0,
      },
      faults: { serverErrorRate: 0 },
      counters: { requests: 0 },
    });
  });

  it("GET/PUT/PATCH /faults change the faults the API injects", async () => {
    h = await startAdmin();
    expect(
      JSON.parse(
        (await admin("PATCH", "/faults", { rateLimitRate: 1, retryAfterSeconds: 3 })).text,
      ),
    ).toMatchObject({
      rateLimitRate: 1,
      retryAfterSeconds: 3,
    });
    const limited = await send(`${h.base}/airlines`, { headers: { accept: "application/json" } });
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("3");
    expect(JSON.parse((await admin("GET", "/faults/counters")).text)).toMatchObject({
      rateLimited: 1,
    });
    // PUT replaces: the rate limit goes back to none.
    expect(JSON.parse((await admin("PUT", "/faults", { latencyMs: 0 })).text).rateLimitRate).toBe(
      0,
    );
    expect(
      (await send(`${h.base}/airlines`, { headers: { accept: "application/json" } })).status,
    ).toBe(200);
    expect(JSON.parse((await admin("DELETE", "/faults/counters")).text).rateLimited).toBe(0);
    expect(JSON.parse((await admin("GET", "/faults")).text).rateLimitRate).toBe(0);
  });

  it("admin requests are not subject to faults", async () => {
    h = await startAdmin();
    await admin("PATCH", "/faults", { dropRate: 1 });
    expect((await admin("GET", "/state")).status).toBe(200);
  });

  it("refuses bad fault settings with 400 and a coded JSON error", async () => {
    h = await startAdmin();
    const res = await admin("PATCH", "/faults", { dropRate: 3 });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ code: "FW_ERR_CONFIG_INVALID" });
    expect((await admin("PATCH", "/faults", "not an object")).status).toBe(400);
    const notJson = await send(`${h.origin}/_admin/faults`, { method: "PATCH", body: "{" });
    expect(notJson.status).toBe(400);
  });

  it("POST /actions applies a change now", async () => {
    h = await startAdmin();
    const res = await admin("POST", "/actions", {
      kind: "update",
      target: { id: ID },
      patch: { gate: "E1" },
    });
    expect(res.status).toBe(200);
    expect(await gateOf()).toBe("E1");
    const many = await admin("POST", "/actions", [
      { kind: "update", target: { id: ID }, patch: { gate: "E2" } },
      { kind: "update", target: { id: ID }, patch: { gate: "E3" } },
    ]);
    expect(JSON.parse(many.text).results).toHaveLength(2);
    expect(await gateOf()).toBe("E3");
  });

  it("refuses a malformed action with 400 naming the field, applying nothing", async () => {
    h = await startAdmin();
    const bad = await admin("POST", "/actions", [
      { kind: "update", target: { id: ID }, patch: { gate: "X" } },
      { kind: "update", target: {}, patch: {} },
    ]);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ code: "FW_ERR_SIM_INVALID_ACTION" });
    expect(JSON.parse(bad.text).error).toMatch(/\[1\]\.target/);
    expect(await gateOf()).not.toBe("X");
    expect((await admin("POST", "/actions", { kind: "explode" })).status).toBe(400);
  });

  it("POST /scheduled: the change is invisible before its time and visible at it", async () => {
    h = await startAdmin();
    const res = await admin("POST", "/scheduled", {
      afterMs: 60_000,
      action: { kind: "update", target: { id: ID }, patch: { gate: "F9" } },
    });
    expect(res.status).toBe(202);
    expect(JSON.parse((await admin("GET", "/scheduled")).text).pending).toHaveLength(1);
    h.clock.advance(59_999);
    await admin("POST", "/tick");
    expect(await gateOf()).not.toBe("F9");
    h.clock.advance(1);
    await admin("POST", "/tick");
    expect(await gateOf()).toBe("F9");
    expect(JSON.parse((await admin("GET", "/scheduled")).text).pending).toHaveLength(0);
  });

  it("refuses a scheduled action with both or neither of at and afterMs", async () => {
    h = await startAdmin();
    const action = { kind: "remove", target: { id: ID } };
    expect((await admin("POST", "/scheduled", { action })).status).toBe(400);
    expect((await admin("POST", "/scheduled", { at: 1, afterMs: 1, action })).status).toBe(400);
  });

  it("POST /clock answers 501 when the clock cannot change speed", async () => {
    h = await startAdmin();
    const res = await admin("POST", "/clock", { speed: 10 });
    expect(res.status).toBe(501);
  });

  it("unknown admin routes are 404, wrong methods 405", async () => {
    h = await startAdmin();
    expect((await admin("GET", "/nothing")).status).toBe(404);
    expect((await admin("DELETE", "/state")).status).toBe(405);
  });
});
