/**
 * The OpenAPI document the API serves: valid OpenAPI 3.1 by @readme/openapi-parser
 * (the specification's schema plus the rules it does not cover: path parameters,
 * operation ids, security schemes), and true to the API — real answers of every
 * documented operation and status, over HTTP, match the document's schemas for that
 * operation, status and media type (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 has it).
 */
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/http-api/openapi-document.js";
import { type Answer, type ApiHarness, emailBody, SECRET, startApi } from "./api-harness.js";

type Document = Record<string, unknown>;

/** A JSON pointer token, as a URI fragment holds it. */
const token = (t: string): string => encodeURIComponent(t.replace(/~/g, "~0").replace(/\//g, "~1"));

/**
 * Checks answers against a document: the schema of the operation's response for the
 * answer's status and media type; a `$ref`erenced response is followed.
 */
function documentChecker(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: TypeScript types its default import as the module.
  addFormats.default(ajv);
  ajv.addSchema(document, "openapi.json");
  const at = (pointer: string[]): unknown =>
    pointer.reduce<unknown>((node, t) => (node as Record<string, unknown>)?.[t], document);

  /** The pointer of the response of `method` on `path` for `status`, or of a component response. */
  function responsePointer(path: string, method: string, status: number): string[] {
    const pointer = ["paths", path, method.toLowerCase(), "responses", String(status)];
    const response = at(pointer) as { $ref?: string } | undefined;
    if (response === undefined) throw new Error(`${method} ${path} documents no ${status}`);
    return response.$ref === undefined ? pointer : response.$ref.slice(2).split("/");
  }

  return {
    /** Problems of an answer against the response at `pointer` (empty: it matches). */
    errorsAt(pointer: string[], answer: Answer): string[] {
      const response = at(pointer) as { content?: Record<string, unknown> };
      const type = String(answer.headers["content-type"] ?? "").split(";")[0] as string;
      if (response.content === undefined) {
        return answer.text === "" ? [] : [`a body where the document says none: ${answer.text}`];
      }
      if (response.content[type] === undefined) {
        return [`media type ${type} is not one of ${Object.keys(response.content).join(", ")}`];
      }
      const schema = `openapi.json#/${[...pointer, "content", type, "schema"].map(token).join("/")}`;
      const check = ajv.getSchema(schema) ?? ajv.compile({ $ref: schema });
      return check(answer.json)
        ? []
        : (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
    },
    /** Problems of an answer to `method` on the documented `path`. */
    errors(path: string, method: string, answer: Answer): string[] {
      return this.errorsAt(responsePointer(path, method, answer.status), answer);
    },
  };
}

describe("the OpenAPI document", () => {
  let api: ApiHarness;
  let served: Document;
  let checker: ReturnType<typeof documentChecker>;
  beforeAll(async () => {
    api = await startApi("openapi");
    served = (await api.call("GET", "/api/v1/openapi.json", { key: null })).json;
    checker = documentChecker(served);
  });
  afterAll(async () => {
    await api.close();
  });

  it("is valid OpenAPI 3.1, as served", async () => {
    expect(served.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(served) as unknown as OpenAPIV3_1.Document);
    expect(result.valid ? "" : compileErrors(result)).toBe("");
    expect(result.specification).toBe("OpenAPI");
    expect(served).toEqual(openApiDocument());
  });

  it("is validated for real: a broken copy is refused", async () => {
    const broken = structuredClone(served) as { paths: Record<string, Record<string, unknown>> };
    // `{id}` in a path with no parameter declaring it.
    delete (broken.paths["/subscriptions/{id}"] as Record<string, unknown>).parameters;
    const result = await validate(broken as unknown as OpenAPIV3_1.Document);
    expect(result.valid).toBe(false);
  });

  it("describes every answer of the API: each real answer matches its schema", async () => {
    const seen: string[] = [];
    const check = (path: string, method: string, answer: Answer) => {
      seen.push(`${method} ${path} ${answer.status}`);
      expect(
        checker.errors(path, method, answer),
        `${method} ${path} ${answer.status}: ${answer.text}`,
      ).toEqual([]);
    };
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      api.call("POST", "/api/v1/subscriptions", { body, headers });

    const created = await post(emailBody({ labels: { booking: "X7Q2LM" } }), {
      "idempotency-key": "doc-1",
    });
    check("/subscriptions", "POST", created);
    check(
      "/subscriptions",
      "POST",
      await post(emailBody({ labels: { booking: "X7Q2LM" } }), { "idempotency-key": "doc-1" }),
    );
    const hook = await post({
      flight: "DL9341",
      date: emailBody().date,
      webhook: "https://app.example.com/hooks/fw",
      secret: SECRET,
      changes: ["gate", { kind: "departure_time", delay_at_least: "30m" }],
    });
    check("/subscriptions", "POST", hook);
    check("/subscriptions", "POST", await post(emailBody({ flight: "K", emial: "x" })));
    check("/subscriptions", "POST", await post(emailBody(), { "idempotency-key": "doc-1" }));
    check(
      "/subscriptions",
      "POST",
      await api.call("POST", "/api/v1/subscriptions", {
        raw: "{",
        headers: { "content-type": "application/json" },
      }),
    );
    check(
      "/subscriptions",
      "POST",
      await api.call("POST", "/api/v1/subscriptions", {
        raw: "x".repeat(70_000),
        headers: { "content-type": "application/json" },
      }),
    );
    check(
      "/subscriptions",
      "POST",
      await api.call("POST", "/api/v1/subscriptions", { body: emailBody(), key: null }),
    );
    const spent = await post(emailBody(), { "idempotency-key": "doc-2" });
    await api.call("DELETE", `/api/v1/subscriptions/${spent.json.id}`);
    check("/subscriptions", "POST", await post(emailBody(), { "idempotency-key": "doc-2" }));

    const page = await api.call("GET", "/api/v1/subscriptions?limit=1");
    expect(page.json.next).toEqual(expect.any(String));
    check("/subscriptions", "GET", page);
    check(
      "/subscriptions",
      "GET",
      await api.call("GET", `/api/v1/subscriptions?limit=1&cursor=${page.json.next}`),
    );
    check("/subscriptions", "GET", await api.call("GET", "/api/v1/subscriptions?limit=x"));
    check(
      "/subscriptions",
      "GET",
      await api.call("GET", "/api/v1/subscriptions", { key: "fwk_wrong" }),
    );

    const item = `/api/v1/subscriptions/${hook.json.id}`;
    check("/subscriptions/{id}", "GET", await api.call("GET", item));
    check("/subscriptions/{id}", "GET", await api.call("GET", "/api/v1/subscriptions/none"));
    check("/subscriptions/{id}", "GET", await api.call("GET", item, { key: null }));
    check("/subscriptions/{id}", "DELETE", await api.call("DELETE", item));
    check("/subscriptions/{id}", "DELETE", await api.call("DELETE", item));
    check("/openapi.json", "GET", await api.call("GET", "/api/v1/openapi.json", { key: null }));

    const notAllowed = await api.call("PUT", "/api/v1/subscriptions", { body: {} });
    expect(notAllowed.status).toBe(405);
    expect(checker.errorsAt(["components", "responses", "MethodNotAllowed"], notAllowed)).toEqual(
      [],
    );

    expect(seen).toEqual(
      expect.arrayContaining([
        "POST /subscriptions 201",
        "POST /subscriptions 200",
        "POST /subscriptions 400",
        "POST /subscriptions 401",
        "POST /subscriptions 409",
        "POST /subscriptions 413",
        "POST /subscriptions 422",
        "GET /subscriptions 200",
        "GET /subscriptions 400",
        "GET /subscriptions 401",
        "GET /subscriptions/{id} 200",
        "GET /subscriptions/{id} 401",
        "GET /subscriptions/{id} 404",
        "DELETE /subscriptions/{id} 204",
        "DELETE /subscriptions/{id} 404",
        "GET /openapi.json 200",
      ]),
    );
  });

  it("would notice an answer the document does not describe", async () => {
    const answer = await api.call("POST", "/api/v1/subscriptions", { body: emailBody() });
    const leaky: Answer = { ...answer, json: { ...answer.json, secret: SECRET } };
    expect(checker.errors("/subscriptions", "POST", leaky).join()).toContain(
      "must NOT have additional properties",
    );
  });

  it("describes the failure of a request on the daemon's side", async () => {
    const other = await startApi("openapi-500");
    try {
      other.apiRedis.disconnect();
      const answer = await other.call("GET", "/api/v1/subscriptions");
      expect(answer.status).toBe(500);
      expect(checker.errors("/subscriptions", "GET", answer)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
