/**
 * Every refusal of the subscriptions API, over real HTTP: each is
 * `application/problem+json` with `type`, `title`, `status`, `detail` and, where fields
 * are at fault, `errors` naming each — and a refused create writes nothing at all.
 */
import { connect } from "node:net";
import { Readable } from "node:stream";
import { request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Answer,
  type ApiHarness,
  emailBody,
  PAST_DATE,
  SECRET,
  startApi,
} from "./api-harness.js";

const COLLECTION = "/api/v1/subscriptions";

/** Expects a problem of `kind` with `status`; returns the fields its `errors` name. */
function expectProblem(answer: Answer, status: number, kind: string): string[] {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers["content-type"]).toBe("application/problem+json");
  expect(answer.json).toMatchObject({
    type: `urn:flightwatch:problem:${kind}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
  });
  expect(answer.json.detail.length).toBeGreaterThan(10);
  return (answer.json.errors ?? []).map((e: { field: string }) => e.field);
}

describe("refusals of the subscriptions API", () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await startApi("refusals");
  });
  afterEach(async () => {
    await api.close();
  });

  describe("422: fields that are wrong, each named", () => {
    const cases: [string, Record<string, unknown>, string[]][] = [
      ["no flight", { date: emailBody().date, email: "a@example.com" }, ["flight"]],
      ["a flight that is no flight number", emailBody({ flight: "K" }), ["flight"]],
      ["a date that is no date", emailBody({ date: "2026-13-45" }), ["date"]],
      ["an email that is no address", emailBody({ email: "anna at example" }), ["email"]],
      ["no channel", { flight: "KL601", date: emailBody().date }, ["email"]],
      ["two channels", emailBody({ webhook: "https://app.example.com/h" }), ["email"]],
      [
        "a webhook over plain http",
        { ...emailBody(), email: undefined, webhook: "http://app.example.com/h" },
        ["webhook"],
      ],
      [
        "a webhook secret that is no secret",
        {
          ...emailBody(),
          email: undefined,
          webhook: "https://app.example.com/h",
          secret: "hunter2",
        },
        ["webhook"],
      ],
      ["a secret without a webhook", emailBody({ secret: SECRET }), ["secret"]],
      ["an unknown preset", emailBody({ preset: "everything" }), ["preset"]],
      ["a preset and changes", emailBody({ preset: "essentials", changes: ["gate"] }), ["preset"]],
      ["an unknown change kind", emailBody({ changes: ["gaet"] }), ["changes"]],
      ["labels that are no object", emailBody({ labels: ["X7Q2LM"] }), ["labels"]],
      ["a label that is no text", emailBody({ labels: { booking: 7 } }), ["labels.booking"]],
      ["an email that is no string", emailBody({ email: 42 }), ["email"]],
      [
        "a misspelt field",
        { ...emailBody(), email: undefined, emial: "anna@example.com" },
        ["emial", "email"],
      ],
      ["a status (created subscriptions are active)", emailBody({ status: "pending" }), ["status"]],
    ];
    for (const [what, body, fields] of cases) {
      it(`refuses ${what}`, async () => {
        const answer = await api.call("POST", COLLECTION, { body });
        expect(expectProblem(answer, 422, "invalid-fields")).toEqual(fields);
        for (const e of answer.json.errors) expect(e.message.length).toBeGreaterThan(5);
        expect(await api.written()).toEqual([]);
      });
    }

    it("names every wrong field at once", async () => {
      const answer = await api.call("POST", COLLECTION, {
        body: { flight: "K", date: "tomorrow", email: "nobody" },
      });
      expect(expectProblem(answer, 422, "invalid-fields")).toEqual(["flight", "date"]);
      expect(answer.json.detail).toContain("flight:");
    });

    it("suggests the field a misspelt one meant", async () => {
      const answer = await api.call("POST", COLLECTION, {
        body: { ...emailBody(), email: undefined, emial: "anna@example.com" },
      });
      expect(answer.json.errors[0].message).toContain("did you mean `email`?");
    });

    it("refuses a flight date so long past that it would have expired", async () => {
      const answer = await api.call("POST", COLLECTION, { body: emailBody({ date: PAST_DATE }) });
      expect(expectProblem(answer, 422, "invalid-fields")).toEqual(["date"]);
      expect(await api.written()).toEqual([]);
      // Nor does a past date spend an idempotency key.
      const keyed = await api.call("POST", COLLECTION, {
        body: emailBody({ date: PAST_DATE }),
        headers: { "idempotency-key": "past-1" },
      });
      expect(keyed.status).toBe(422);
      expect(await api.written()).toEqual([]);
    });
  });

  describe("400: a body that is not a JSON object, or not JSON at all", () => {
    it("refuses unparsable JSON", async () => {
      const answer = await api.call("POST", COLLECTION, {
        raw: '{"flight": "KL601",',
        headers: { "content-type": "application/json" },
      });
      expectProblem(answer, 400, "invalid-json");
      expect(answer.json.detail).toContain("not JSON");
    });

    it("refuses JSON that is not an object, and an empty body", async () => {
      for (const raw of ['["KL601"]', "null", '"KL601"', ""]) {
        const answer = await api.call("POST", COLLECTION, {
          raw,
          headers: { "content-type": "application/json" },
        });
        expectProblem(answer, 400, "invalid-json");
      }
    });

    it("refuses another content type, or none, naming Content-Type", async () => {
      for (const type of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin1",
      ]) {
        const answer = await api.call("POST", COLLECTION, {
          raw: JSON.stringify(emailBody()),
          headers: { "content-type": type },
        });
        expect(expectProblem(answer, 400, "unsupported-content-type")).toEqual(["Content-Type"]);
      }
      const none = await api.call("POST", COLLECTION, { raw: JSON.stringify(emailBody()) });
      expect(expectProblem(none, 400, "unsupported-content-type")).toEqual(["Content-Type"]);
      const charset = await api.call("POST", COLLECTION, {
        raw: JSON.stringify(emailBody()),
        headers: { "content-type": "Application/JSON; charset=UTF-8" },
      });
      expect(charset.status).toBe(201);
    });

    it("refuses an Idempotency-Key that is empty or too long", async () => {
      for (const key of ["", "x".repeat(256), "two words"]) {
        const answer = await api.call("POST", COLLECTION, {
          body: emailBody(),
          headers: { "idempotency-key": key },
        });
        expect(expectProblem(answer, 400, "invalid-parameters")).toEqual(["Idempotency-Key"]);
      }
      expect(await api.written()).toEqual([]);
    });

    it("refuses wrong listing parameters, each named", async () => {
      const answer = await api.call(
        "GET",
        `${COLLECTION}?flights=KL601&date=today&limit=0&label=booking&status=gone`,
      );
      expect(expectProblem(answer, 400, "invalid-parameters").sort()).toEqual(
        ["date", "flights", "label", "limit", "status"].sort(),
      );
      expect(answer.json.errors[0].message).toContain("did you mean `flight`?");
      for (const query of [
        "cursor=garbage",
        "cursor=eyJwIjoiMCJ9",
        `limit=1001`,
        "flight=KL601&flight=KL602",
      ]) {
        const refused = await api.call("GET", `${COLLECTION}?${query}`);
        expect(refused.status, query).toBe(400);
      }
    });

    it("refuses a cursor sent with other filters than its own", async () => {
      for (let i = 0; i < 3; i++) await api.call("POST", COLLECTION, { body: emailBody() });
      const first = await api.call("GET", `${COLLECTION}?flight=KL601&limit=1`);
      const next = first.json.next as string;
      expect(next).toEqual(expect.any(String));
      expect(
        (await api.call("GET", `${COLLECTION}?flight=KL601&limit=1&cursor=${next}`)).status,
      ).toBe(200);
      const other = await api.call("GET", `${COLLECTION}?flight=KL602&limit=1&cursor=${next}`);
      expect(expectProblem(other, 400, "invalid-parameters")).toEqual(["cursor"]);
      // One made by hand from a real one: the store cannot read its position.
      const inner = JSON.parse(Buffer.from(next, "base64url").toString("utf8"));
      const forged = Buffer.from(JSON.stringify({ ...inner, p: "x1" })).toString("base64url");
      const refused = await api.call("GET", `${COLLECTION}?flight=KL601&limit=1&cursor=${forged}`);
      expect(expectProblem(refused, 400, "invalid-parameters")).toEqual(["cursor"]);
    });
  });

  describe("401: no key, a wrong key, a revoked key", () => {
    it("refuses requests without a key, and says how to send one", async () => {
      for (const [method, path] of [
        ["POST", COLLECTION],
        ["GET", COLLECTION],
        ["GET", `${COLLECTION}/abc`],
        ["DELETE", `${COLLECTION}/abc`],
      ] as const) {
        const answer = await api.call(method, path, { key: null, body: emailBody() });
        expect(expectProblem(answer, 401, "unauthorized")).toEqual(["Authorization"]);
        expect(answer.headers["www-authenticate"]).toBe('Bearer realm="flightwatch"');
        expect(answer.json.detail).toContain("api-keys create");
      }
      expect(await api.written()).toEqual([]);
    });

    it("refuses a wrong key, a key in another scheme, and a key with one character changed", async () => {
      const changed = `${api.key.slice(0, -1)}${api.key.endsWith("A") ? "B" : "A"}`;
      for (const authorization of [
        "Bearer fwk_nope",
        `Basic ${Buffer.from(`x:${api.key}`).toString("base64")}`,
        `Bearer ${changed}`,
        `Token ${api.key}`,
      ]) {
        const answer = await api.call("POST", COLLECTION, {
          body: emailBody(),
          headers: { authorization },
        });
        expect(expectProblem(answer, 401, "unauthorized"), authorization).toEqual([
          "Authorization",
        ]);
        expect(answer.text).not.toContain(api.key.slice(4));
      }
      expect(await api.written()).toEqual([]);
    });

    it("refuses a key from the moment it is revoked", async () => {
      const { key, apiKey } = await api.apiKeys.create("soon revoked");
      expect((await api.call("GET", COLLECTION, { key })).status).toBe(200);
      expect(await api.apiKeys.revoke(apiKey.id)).toBe(true);
      const answer = await api.call("GET", COLLECTION, { key });
      expectProblem(answer, 401, "unauthorized");
      expect(answer.headers["www-authenticate"]).toContain('error="invalid_token"');
      // The harness's own key still works.
      expect((await api.call("GET", COLLECTION)).status).toBe(200);
    });

    it("serves the OpenAPI document without a key", async () => {
      const answer = await api.call("GET", "/api/v1/openapi.json", { key: null });
      expect(answer.status).toBe(200);
      expect(answer.json.openapi).toBe("3.1.0");
    });
  });

  describe("404, 405, 413", () => {
    it("answers 404 for no such subscription, an impossible id and an unknown route", async () => {
      for (const path of [
        `${COLLECTION}/nope`,
        `${COLLECTION}/${"x".repeat(65)}`,
        `${COLLECTION}/a%2Fb`,
        "/api/v1/flights",
        "/api/v1",
      ]) {
        const answer = await api.call("GET", path);
        expectProblem(answer, 404, "not-found");
        expect(answer.json.instance).toBe(path.split("?")[0]);
      }
    });

    it("answers 405 with Allow for a method a path does not take", async () => {
      const put = await api.call("PUT", COLLECTION, { body: emailBody() });
      expectProblem(put, 405, "method-not-allowed");
      expect(put.headers.allow).toBe("GET, POST");
      const patch = await api.call("PATCH", `${COLLECTION}/abc`, { body: {} });
      expectProblem(patch, 405, "method-not-allowed");
      expect(patch.headers.allow).toBe("GET, DELETE");
      const post = await api.call("POST", "/api/v1/openapi.json", { body: {} });
      expect(post.headers.allow).toBe("GET");
      expect(await api.written()).toEqual([]);
    });

    it("answers 413 to a body over the limit, announced or streamed, and closes the connection", async () => {
      const big = JSON.stringify(emailBody({ labels: { note: "x".repeat(70_000) } }));
      const announced = await api.call("POST", COLLECTION, {
        raw: big,
        headers: { "content-type": "application/json" },
      });
      expectProblem(announced, 413, "body-too-large");
      expect(announced.headers.connection).toBe("close");
      // Chunked: no Content-Length, so the limit is found while reading.
      const chunks = Readable.from(
        (function* () {
          for (let i = 0; i < 100; i++) yield Buffer.alloc(1024, 32);
        })(),
      );
      const res = await request(`${api.server.url}${COLLECTION}`, {
        method: "POST",
        headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" },
        body: chunks,
      }).catch((err: unknown) => err as Error);
      if (res instanceof Error) {
        // The server may close the connection before the client has sent everything.
        expect(res.message).toMatch(/closed|reset|EPIPE|socket/i);
      } else {
        expect(res.statusCode).toBe(413);
        expect(res.headers["content-type"]).toBe("application/problem+json");
        await res.body.text();
      }
      expect(await api.written()).toEqual([]);
    });
  });

  describe("a client gone mid-body", () => {
    it("is nobody's error: nothing logged, nothing written, the server goes on", async () => {
      const errors: unknown[] = [];
      const quiet = await startApi("gone", { onError: (err) => errors.push(err) });
      try {
        const { port } = new URL(quiet.server.url);
        const socket = connect(Number(port), "127.0.0.1");
        await new Promise((resolve) => socket.once("connect", resolve));
        // Expect: 100-continue: the server's "100 Continue" says the request reached the API.
        socket.write(
          `POST ${COLLECTION} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${quiet.key}\r\n` +
            "Content-Type: application/json\r\nContent-Length: 500\r\nExpect: 100-continue\r\n\r\n",
        );
        await new Promise((resolve) => socket.once("data", resolve));
        await new Promise((resolve) => socket.write('{"flight": "KL', resolve));
        socket.destroy();
        const after = await quiet.call("GET", COLLECTION);
        expect(after.status).toBe(200);
        expect(errors).toEqual([]);
        expect(await quiet.written()).toEqual([]);
      } finally {
        await quiet.close();
      }
    });
  });

  describe("500: Redis away", () => {
    it("answers a problem that says no more than it should, and the server goes on", async () => {
      api.apiRedis.disconnect();
      const answer = await api.call("POST", COLLECTION, { body: emailBody() });
      expectProblem(answer, 500, "server-error");
      expect(answer.json.detail).toContain("Idempotency-Key");
      expect((await request(`${api.server.url}/healthz`)).statusCode).toBe(200);
    });
  });
});
