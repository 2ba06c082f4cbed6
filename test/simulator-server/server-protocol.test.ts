/** Request rules around the operations: methods, paths, headers, credentials. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptsJson } from "../../src/simulator/http/simulator-server.js";
import { type Harness, send, startHarness, TOKEN } from "./harness.js";

describe("simulator server protocol", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      auth: { tokens: [TOKEN], appCredentials: [{ appId: "app", appKey: "key" }] },
    });
  });
  afterAll(() => h.close());

  it("serves JSON with content-type application/json and a content-length", async () => {
    const res = await h.get("/airlines/KL");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.text));
    expect(JSON.parse(res.text)).toMatchObject({ iata: "KL", icao: "KLM" });
  });

  it.each([
    "/",
    "/public/public-flights/v3/flights",
    "/public/public-flights/v4",
    "/public/public-flights/v4/",
    "/public/public-flights/v4/flights/",
    "/public/public-flights/v4/flights/1/extra",
    "/public/public-flights/v4/aircraftTypes",
    "/public/public-flights/v4/gates",
  ])("404 with an empty body for the unknown path %s", async (path) => {
    const res = await h.get(`${h.origin}${path}`);
    expect(res.status).toBe(404);
    expect(res.text).toBe("");
  });

  it.each([
    ["/flights/999999999999999999"],
    ["/airlines/ZZ"],
    ["/airlines/ZZZ"],
    ["/destinations/ZZZ"],
  ])("404 with an empty body for the unknown record %s", async (path) => {
    const res = await h.get(path);
    expect(res.status).toBe(404);
    expect(res.text).toBe("");
  });

  it.each([
    ["/flights/12a", /id/],
    ["/airlines/K", /airline/],
    ["/airlines/KLMX", /airline/],
    ["/destinations/LH", /iata/],
    ["/destinations/LHRX", /iata/],
    ["/destinations/%E0%A4%A", /percent/],
  ])("400 for the bad path parameter in %s", async (path, reason) => {
    const res = await h.get(path);
    expect(res.status).toBe(400);
    expect(res.text).toBe("");
    expect(String(res.headers["x-simulator-reason"])).toMatch(reason);
  });

  it.each(["POST", "PUT", "DELETE", "PATCH", "HEAD"])(
    "405 for %s, with Allow: GET",
    async (method) => {
      const res = await send(`${h.base}/flights`, {
        method,
        headers: { accept: "application/json", authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe("GET");
    },
  );

  it.each([
    ["no credentials", {}],
    ["a wrong token", { authorization: "Bearer nope" }],
    ["a non-bearer scheme", { authorization: `Basic ${TOKEN}` }],
    ["a wrong app key", { app_id: "app", app_key: "nope" }],
    ["an app id alone", { app_id: "app" }],
  ])("401 with an empty body for %s", async (_label, credentials) => {
    const res = await h.get("/airlines", { authorization: undefined, ...credentials });
    expect(res.status).toBe(401);
    expect(res.text).toBe("");
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("accepts app_id/app_key instead of a token, and a lower-case bearer scheme", async () => {
    expect(
      (await h.get("/airlines", { authorization: undefined, app_id: "app", app_key: "key" }))
        .status,
    ).toBe(200);
    expect((await h.get("/airlines", { authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });

  it.each([
    ["missing", undefined],
    ["text/html", "text/html"],
    ["application/xml", "application/xml"],
    ["json refused with q=0", "application/json;q=0, text/plain"],
  ])("406 when Accept is %s", async (_label, accept) => {
    const res = await h.get("/airlines", { accept });
    expect(res.status).toBe(406);
    expect(res.text).toBe("");
  });

  it("accepts wildcard Accept ranges and parameters", async () => {
    for (const accept of [
      "*/*",
      "application/*",
      "text/html, application/json;q=0.5",
      "application/json; charset=utf-8",
    ]) {
      expect((await h.get("/airlines", { accept })).status, accept).toBe(200);
    }
  });

  it("ResourceVersion may be absent by default, but must be v4 when sent", async () => {
    expect((await h.get("/airlines", { resourceversion: undefined })).status).toBe(200);
    expect((await h.get("/airlines", { resourceversion: "v3" })).status).toBe(403);
  });

  it("ignores unknown query parameters", async () => {
    expect((await h.get("/airlines?pageSize=1000&x=y")).status).toBe(200);
  });

  it("names the reason of a 400 in x-simulator-reason, header-safe", async () => {
    const res = await h.get("/flights?flightName=%E2%9C%88%E2%9C%88%E2%9C%88%E2%9C%88");
    expect(res.status).toBe(400);
    expect(String(res.headers["x-simulator-reason"])).toMatch(
      /^invalid parameter flightName: "\?+"/,
    );
  });
});

describe("configurable strictness", () => {
  it("resourceVersion: required refuses a request without it with 403", async () => {
    const h = await startHarness({ resourceVersion: "required" });
    try {
      expect((await h.get("/airlines", { resourceversion: undefined })).status).toBe(403);
      expect((await h.get("/airlines")).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it("requireAccept: false lets a request without Accept through, but not a wrong one", async () => {
    const h = await startHarness({ requireAccept: false });
    try {
      expect((await h.get("/airlines", { accept: undefined })).status).toBe(200);
      expect((await h.get("/airlines", { accept: "text/html" })).status).toBe(406);
    } finally {
      await h.close();
    }
  });

  it("auth: false needs no credentials", async () => {
    const h = await startHarness({ auth: false });
    try {
      expect((await h.get("/airlines", { authorization: undefined })).status).toBe(200);
      expect(h.sim.tokens).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it("without auth options a fresh JWT-shaped token is generated and required", async () => {
    const h = await startHarness({ auth: undefined });
    try {
      const [token] = h.sim.tokens;
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect((await h.get("/airlines")).status).toBe(401);
      expect((await h.get("/airlines", { authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});

describe("acceptsJson", () => {
  it.each([
    ["application/json", true],
    ["APPLICATION/JSON", true],
    ["*/*;q=0.1", true],
    ["text/plain, */*;q=0", false],
    ["application/jsonx", false],
    ["", false],
  ])("%s → %s", (accept, expected) => {
    expect(acceptsJson(accept, true)).toBe(expected);
  });
});
