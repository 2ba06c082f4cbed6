/**
 * Conformance: the rules every request meets (contract sections "What the service
 * does", "Endpoints", "Authentication", "Errors"). Test names cite the rule.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleFlights } from "./support.js";
import { type ConformanceTarget, startTarget } from "./target.js";

let t: ConformanceTarget;
let flightId: string;
beforeAll(async () => {
  t = await startTarget();
  flightId = (await sampleFlights(t))[0]?.id ?? "";
});
afterAll(() => t.close());

const OPERATIONS = [
  "/flights",
  "/airlines",
  "/aircrafttypes",
  "/destinations",
  "/flights/ids?fromDateTime=2026-03-10T00:00:00&toDateTime=2026-03-10T01:00:00",
];

describe("request rules", () => {
  it.each(OPERATIONS)(
    "[Responses are JSON] %s answers content-type application/json",
    async (path) => {
      const reply = await t.get(path);
      if (reply.status === 204) return;
      expect(reply.status).toBe(200);
      expect(String(reply.headers["content-type"])).toMatch(/^application\/json\b/);
      expect(() => JSON.parse(reply.text)).not.toThrow();
    },
  );

  it("[Resources: Flight id is digits only] GET /flights/{id} returns that Flight", async () => {
    const reply = await t.get(`/flights/${flightId}`);
    expect(reply.status).toBe(200);
    const flight = JSON.parse(reply.text) as { id: string };
    expect(flight.id).toBe(flightId);
    expect(flight.id).toMatch(/^[0-9]+$/);
  });

  it("[Every operation is an HTTP GET] other methods are refused (simulator: 405)", async () => {
    for (const method of ["POST", "PUT", "DELETE"] as const) {
      const res = await request(`${t.base}/flights`, {
        method,
        headers: { accept: "application/json", resourceversion: "v4", ...t.credentials },
      });
      await res.body.text();
      expect(res.statusCode, method).toBeGreaterThanOrEqual(400);
      if (t.simulator) expect(res.statusCode, method).toBe(405);
    }
  });

  it.each([
    ["no credentials", { authorization: undefined, app_id: undefined, app_key: undefined }],
    ["an unknown bearer token", { authorization: "Bearer eyJ0.eyJ0.c2ln", app_id: undefined }],
  ])(
    "[Authentication: bearer token required] %s is refused (simulator: 401, empty body)",
    async (_l, h) => {
      const reply = await t.get("/airlines", h);
      expect([401, 403]).toContain(reply.status);
      if (t.simulator) {
        expect(reply.status).toBe(401);
        expect(reply.text).toBe("");
      }
    },
  );

  it("[Endpoints: Accept is required, only application/json] other media types are refused (simulator: 406)", async () => {
    const reply = await t.get("/airlines", { accept: "text/html" });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    if (t.simulator) expect(reply.status).toBe(406);
  });

  it("[Endpoints: Accept is required] a request without Accept is refused by the simulator (406)", async () => {
    if (!t.simulator) return; // what the real service does without Accept is not shown
    expect((await t.get("/airlines", { accept: undefined })).status).toBe(406);
  });

  it("[Versioning: ResourceVersion v4] a request sending ResourceVersion: v4 is served", async () => {
    expect((await t.get("/airlines", { resourceversion: "v4" })).status).toBe(200);
  });

  it.each([[`/flights/99${"9".repeat(16)}`], ["/airlines/Q9"], ["/destinations/QQQ"]])(
    "[Errors: 404 for a record named in the path that does not exist] %s",
    async (path) => {
      const reply = await t.get(path);
      expect(reply.status).toBe(404);
      if (t.simulator) expect(reply.text).toBe("");
    },
  );

  it("[Errors: unknown paths] a path that is no operation is 404", async () => {
    expect((await t.get("/gates")).status).toBe(404);
  });
});
