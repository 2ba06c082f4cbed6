import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { FaultInjector, type FaultPlan } from "../../src/simulator/http/faults.js";
import { CLIENT_HEADERS, type Harness, startHarness } from "./harness.js";

const FLIGHT = "/flights/101000000000000000";
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const kinds = (plans: FaultPlan[]) => plans.map((p) => p.action.kind);

describe("FaultInjector", () => {
  it("reproduces the same decisions from the same seed", () => {
    const settings = { dropRate: 0.2, rateLimitRate: 0.2, serverErrorRate: 0.2, truncateRate: 0.3 };
    const a = new FaultInjector({ seed: 42, settings });
    const b = new FaultInjector({ seed: 42, settings });
    const c = new FaultInjector({ seed: 43, settings });
    const run = (f: FaultInjector) => Array.from({ length: 200 }, () => f.plan());
    const planA = run(a);
    expect(run(b)).toEqual(planA);
    expect(run(c)).not.toEqual(planA);
    expect(new Set(kinds(planA))).toEqual(new Set(["none", "drop", "rateLimit", "serverError"]));
  });

  it("changing one rate does not shift the decisions of another", () => {
    const base = new FaultInjector({ seed: 7, settings: { serverErrorRate: 0.3 } });
    const withTruncation = new FaultInjector({
      seed: 7,
      settings: { serverErrorRate: 0.3, truncateRate: 0.9 },
    });
    const run = (f: FaultInjector) => kinds(Array.from({ length: 300 }, () => f.plan()));
    expect(run(withTruncation)).toEqual(run(base));
  });

  it("injects at roughly the configured rate and counts each kind", () => {
    const f = new FaultInjector({ seed: 1, settings: { serverErrorRate: 0.25 } });
    for (let i = 0; i < 4000; i++) f.plan();
    const c = f.counters;
    const errors = Object.values(c.serverErrors).reduce((a, b) => a + b, 0);
    expect(c.requests).toBe(4000);
    expect(errors).toBeGreaterThan(900);
    expect(errors).toBeLessThan(1100);
    expect(Object.keys(c.serverErrors).sort()).toEqual(["500", "502", "503"]);
    f.resetCounters();
    expect(f.counters).toMatchObject({ requests: 0, serverErrors: {} });
  });

  it("refuses invalid settings with a ConfigError naming the field", () => {
    const f = new FaultInjector();
    expect(() => f.update({ serverErrorRate: 1.5 })).toThrowError(
      expect.objectContaining({
        code: ErrorCode.CONFIG_INVALID,
        setting: "faults.serverErrorRate",
      }),
    );
    expect(() => f.update({ serverErrorStatuses: [404] })).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID }),
    );
    expect(() => f.update({ nonsense: 1 } as never)).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID }),
    );
    expect(f.settings.serverErrorRate).toBe(0);
  });

  it("replace resets unspecified settings; update keeps them", () => {
    const f = new FaultInjector({ settings: { dropRate: 0.5, latencyMs: 10 } });
    expect(f.update({ latencyMs: 20 })).toMatchObject({ dropRate: 0.5, latencyMs: 20 });
    expect(f.replace({ jitterMs: 5 })).toMatchObject({ dropRate: 0, latencyMs: 0, jitterMs: 5 });
  });
});

describe("faults over HTTP", () => {
  it("5xx: answers the configured statuses with empty bodies", async () => {
    h = await startHarness({ faults: { serverErrorRate: 1 } });
    const statuses = new Set<number>();
    for (let i = 0; i < 30; i++) {
      const res = await h.get(FLIGHT);
      expect(res.text).toBe("");
      statuses.add(res.status);
    }
    expect(statuses).toEqual(new Set([500, 502, 503]));
    h.sim.faults.update({ serverErrorStatuses: [502] });
    expect((await h.get(FLIGHT)).status).toBe(502);
    const c = h.sim.faults.counters;
    expect(Object.values(c.serverErrors).reduce((a, b) => a + b, 0)).toBe(31);
  });

  it("429: carries Retry-After with the configured seconds", async () => {
    h = await startHarness({ faults: { rateLimitRate: 1, retryAfterSeconds: 7 } });
    const res = await h.get(FLIGHT);
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("7");
    expect(h.sim.faults.counters.rateLimited).toBe(1);
  });

  it("latency: delays each response by latency plus jitter, through the injected sleep", async () => {
    const waits: number[] = [];
    h = await startHarness({
      faults: { latencyMs: 50, jitterMs: 10 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    for (let i = 0; i < 20; i++) expect((await h.get(FLIGHT)).status).toBe(200);
    expect(waits).toHaveLength(20);
    for (const ms of waits) {
      expect(ms).toBeGreaterThanOrEqual(50);
      expect(ms).toBeLessThan(60);
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
    expect(h.sim.faults.counters.delayed).toBe(20);
  });

  it("truncate: the body ends mid-JSON and the client sees an error, not a short document", async () => {
    h = await startHarness({ faults: { truncateRate: 1 } });
    const res = await request(`${h.base}${FLIGHT}`, { headers: CLIENT_HEADERS });
    expect(res.statusCode).toBe(200);
    const declared = Number(res.headers["content-length"]);
    expect(declared).toBeGreaterThan(100);
    await expect(res.body.text()).rejects.toThrow();
    expect(h.sim.faults.counters.truncated).toBe(1);
    // Only successful bodies are cut: a 404 is answered whole and not counted.
    expect((await h.get("/flights/1")).status).toBe(404);
    expect(h.sim.faults.counters.truncated).toBe(1);
  });

  it("drop: the connection is destroyed before any response", async () => {
    h = await startHarness({ faults: { dropRate: 1 } });
    await expect(h.get(FLIGHT)).rejects.toThrow();
    expect(h.sim.faults.counters.dropped).toBe(1);
  });

  it("faults change at run time and switch off again", async () => {
    h = await startHarness();
    expect((await h.get(FLIGHT)).status).toBe(200);
    h.sim.faults.update({ serverErrorRate: 1, serverErrorStatuses: [503] });
    expect((await h.get(FLIGHT)).status).toBe(503);
    h.sim.faults.update({ serverErrorRate: 0 });
    expect((await h.get(FLIGHT)).status).toBe(200);
  });

  it("stamp lag: a change appears with lastUpdatedAt in the past by the lag", async () => {
    h = await startHarness({ faults: { stampLagMs: 5000 } });
    expect(h.store.stampLagMs).toBe(5000);
    h.store.update("101000000000000000", { gate: "D99" });
    const flight = await h.json<{ lastUpdatedAt: string; gate: string }>(FLIGHT);
    expect(flight.gate).toBe("D99");
    expect(Date.parse(flight.lastUpdatedAt)).toBe(h.clock.now() - 5000);
    h.sim.faults.update({ stampLagMs: 0 });
    expect(h.store.stampLagMs).toBe(0);
    expect(h.sim.faults.settings.stampLagMs).toBe(0);
  });

  it("reports each response to onResponse, with the fault applied", async () => {
    const log: string[] = [];
    h = await startHarness({
      faults: { rateLimitRate: 1 },
      onResponse: (e) => log.push(`${e.status} ${e.fault ?? "-"}`),
    });
    await h.get(FLIGHT);
    expect(log).toEqual(["429 rateLimit"]);
  });
});
