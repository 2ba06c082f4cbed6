/**
 * The OpenAPI 3.1 document of the HTTP API, served at /api/v1/openapi.json: paths,
 * parameters, the subscription's schemas (JSON Schema 2020-12, as 3.1 has it), problem
 * details and the bearer-key security scheme. Written by hand beside the handler it
 * describes; test/http-api/openapi-document.test.ts validates it against the OpenAPI
 * 3.1 specification and checks real answers of the API against its schemas, so the two
 * cannot drift apart unnoticed.
 */
import { LANGUAGES } from "../render/language.js";
import { SUBSCRIPTION_STATUSES } from "../subscriptions/subscription.js";
import { VERSION } from "../version.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./list-query.js";
import {
  PROBLEM_KINDS,
  PROBLEM_MEDIA_TYPE,
  type ProblemKind,
  problemType,
} from "./problem-details.js";

/** Where the API is served on the daemon's HTTP port. */
export const API_BASE_PATH = "/api/v1";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const answer = (name: string) => ({ $ref: `#/components/responses/${name}` });
const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** A problem response of these kinds (they share a status). */
function problemResponse(description: string, kinds: readonly ProblemKind[]) {
  return {
    description,
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: {
          allOf: [ref("Problem")],
          properties: { type: { enum: kinds.map(problemType) } },
        },
      },
    },
  };
}

const LABELS = {
  type: "object",
  description:
    "Names to texts, echoed in every notification (a booking reference). At most 20; a name is 1–64 letters, digits, `_`, `.` or `-`; a text at most 200 characters.",
  maxProperties: 20,
  propertyNames: { pattern: "^[A-Za-z0-9_.-]{1,64}$" },
  additionalProperties: { type: "string", maxLength: 200 },
  examples: [{ booking: "X7Q2LM" }],
};

/** A subscription's reminders. */
const REMIND = {
  type: "array",
  maxItems: 10,
  items: { type: "string", pattern: "^\\S+\\s+before\\s+\\S.*$" },
  description:
    "Reminders before a moment of the flight (departure, boarding, gate_closing, arrival), from its latest estimate: sent once, moved when the estimate moves, dropped when the flight is cancelled.",
  examples: [["30m before boarding", "3h before departure"]],
} as const;

/** A subscription's quiet hours. */
const QUIET_HOURS = {
  type: "string",
  pattern: "^\\d{1,2}:\\d{2}\\s*-\\s*\\d{1,2}:\\d{2}(\\s+\\S+)?$",
  description:
    "Quiet hours: from-to in local time (the airport's zone, or one given after a space). Within them only critical changes (cancellation, diversion, a gate change within an hour of the flight) go at once; the rest waits for their end and goes as one message.",
  examples: ["23:00-07:00", "22:30-06:30 Europe/London"],
} as const;

/** The language of a subscription's notifications. */
const LANGUAGE = {
  type: "string",
  enum: [...LANGUAGES],
  default: "en",
  description: "The language of its notifications' words: English or Dutch.",
};

const CHANGES = {
  type: "array",
  minItems: 1,
  description:
    'Change selectors written as in rule files (docs/rules.md): a kind such as `gate`, or an object such as `{"kind": "departure_time", "delay_at_least": "30m"}`. Instead of `preset`.',
  items: { type: ["string", "object"] },
  examples: [["gate", { kind: "departure_time", delay_at_least: "30m" }]],
};

/** The document (a fresh copy each call). */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "flightwatch subscriptions API",
      version: VERSION,
      summary: "Passenger subscriptions to flights: create, read, list, delete.",
      description:
        "Subscriptions are served on the daemon's HTTP port (HTTP_PORT). Every request but this document's needs an API key made with `flightwatch api-keys create`, sent as `Authorization: Bearer <key>`. Refusals are problem details (RFC 9457): `type` says which kind, `errors` names each field at fault.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: API_BASE_PATH }],
    security: [{ apiKey: [] }],
    paths: {
      "/subscriptions": {
        post: {
          operationId: "createSubscription",
          summary: "Subscribe a recipient to one flight on one date",
          description:
            "The subscription is active at once (the calling backend has its passenger's consent). With an `Idempotency-Key`, a retry with the same body returns the subscription the first request made (200) instead of making another; the same key with another body is refused (422).",
          parameters: [parameter("IdempotencyKey")],
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref("SubscriptionCreate") } },
          },
          responses: {
            "201": {
              description: "Created.",
              headers: { Location: { $ref: "#/components/headers/Location" } },
              content: { "application/json": { schema: ref("Subscription") } },
            },
            "200": {
              description:
                "A retry under the same `Idempotency-Key`: the subscription the first request made.",
              headers: { Location: { $ref: "#/components/headers/Location" } },
              content: { "application/json": { schema: ref("Subscription") } },
            },
            "400": answer("BadRequest"),
            "401": answer("Unauthorized"),
            "409": problemResponse(
              "The subscription made under this `Idempotency-Key` was deleted or has expired; use a new key to subscribe again.",
              ["idempotency-key-spent"],
            ),
            "413": answer("TooLarge"),
            "422": problemResponse(
              "Fields are invalid (`errors` names each), or the `Idempotency-Key` was used with another body.",
              ["invalid-fields", "idempotency-key-reused"],
            ),
            "500": answer("ServerError"),
          },
        },
        get: {
          operationId: "listSubscriptions",
          summary: "List subscriptions, soonest to expire first, a page at a time",
          parameters: [
            {
              name: "flight",
              in: "query",
              description: "Only this flight number (any spelling: `kl 0601` is KL601).",
              schema: { type: "string" },
            },
            {
              name: "date",
              in: "query",
              description: "Only this schedule date.",
              schema: { type: "string", format: "date" },
            },
            {
              name: "recipient",
              in: "query",
              description: "Only this email address or webhook URL, as given.",
              schema: { type: "string" },
            },
            {
              name: "label",
              in: "query",
              description: "Only those with this label, as `name:value`.",
              schema: { type: "string", pattern: "^[^:]+:" },
              examples: { booking: { value: "booking:X7Q2LM" } },
            },
            {
              name: "status",
              in: "query",
              schema: { type: "string", enum: [...SUBSCRIPTION_STATUSES] },
            },
            {
              name: "limit",
              in: "query",
              description: "Most subscriptions on the page.",
              schema: {
                type: "integer",
                minimum: 1,
                maximum: MAX_PAGE_SIZE,
                default: DEFAULT_PAGE_SIZE,
              },
            },
            {
              name: "cursor",
              in: "query",
              description:
                "The `next` of the page before, with the same filters. Absent: the first page.",
              schema: { type: "string" },
            },
          ],
          responses: {
            "200": {
              description: "A page.",
              headers: {
                Link: {
                  description: 'The next page, `<…>; rel="next"`, when there is one.',
                  schema: { type: "string" },
                },
              },
              content: { "application/json": { schema: ref("SubscriptionPage") } },
            },
            "400": answer("BadRequest"),
            "401": answer("Unauthorized"),
            "500": answer("ServerError"),
          },
        },
      },
      "/subscriptions/{id}": {
        parameters: [
          {
            name: "id",
            in: "path",
            required: true,
            schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
          },
        ],
        get: {
          operationId: "getSubscription",
          summary: "Read one subscription",
          responses: {
            "200": {
              description: "The subscription.",
              content: { "application/json": { schema: ref("Subscription") } },
            },
            "401": answer("Unauthorized"),
            "404": answer("NotFound"),
            "500": answer("ServerError"),
          },
        },
        delete: {
          operationId: "deleteSubscription",
          summary: "Delete a subscription: nothing more is sent for it",
          responses: {
            "204": { description: "Deleted." },
            "401": answer("Unauthorized"),
            "404": answer("NotFound"),
            "500": answer("ServerError"),
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          security: [],
          responses: {
            "200": {
              description: "The OpenAPI 3.1 document of the API.",
              content: { "application/json": { schema: { type: "object" } } },
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "fwk_ and 43 base64url characters",
          description:
            "A key made with `flightwatch api-keys create`; revoked with `api-keys revoke`.",
        },
      },
      headers: {
        Location: {
          description: "The subscription's own URL.",
          schema: { type: "string" },
        },
      },
      parameters: {
        IdempotencyKey: {
          name: "Idempotency-Key",
          in: "header",
          description:
            "Makes a retried create safe: 1–255 visible ASCII characters (a UUID, say), plain or as a quoted string; remembered for a day, per API key.",
          schema: { type: "string", minLength: 1, maxLength: 257 },
        },
      },
      schemas: {
        SubscriptionCreate: {
          type: "object",
          description: "Give one channel (`email`, or `webhook` with an optional `secret`).",
          properties: {
            flight: {
              type: "string",
              description: "Flight number: the operating one or any codeshare (KL1001).",
              examples: ["KL1001"],
            },
            date: {
              type: "string",
              format: "date",
              description: "The flight's schedule date, local to the airport.",
            },
            direction: {
              type: "string",
              enum: ["departure", "arrival"],
              description:
                "Only the departure, or only the arrival, of that number on that date (a number may do both, e.g. a codeshare). Absent: both.",
            },
            email: { type: "string", format: "email" },
            webhook: {
              type: "string",
              format: "uri",
              description:
                "POST signed JSON (Standard Webhooks) here: https, or http to hosts in OUTBOUND_ALLOW.",
            },
            secret: {
              type: "string",
              pattern: "^whsec_",
              description: "With `webhook`: the signing secret, `whsec_` and base64 (≥ 16 bytes).",
              writeOnly: true,
            },
            preset: {
              type: "string",
              enum: ["essentials", "none"],
              default: "essentials",
              description:
                "What to hear about: essentials is gate, boarding, departure or arrival 15 minutes or more late, cancellation, diversion, belt.",
            },
            changes: CHANGES,
            labels: LABELS,
            language: LANGUAGE,
            quietHours: QUIET_HOURS,
            remind: REMIND,
          },
          required: ["flight", "date"],
          oneOf: [{ required: ["email"] }, { required: ["webhook"] }],
          not: { required: ["preset", "changes"] },
          additionalProperties: false,
        },
        Subscription: {
          type: "object",
          properties: {
            id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
            flight: {
              type: "string",
              description: "Normal form: upper case, no spaces or leading zeros.",
              pattern: "^([A-Z]{3}|[A-Z][A-Z0-9]|[0-9][A-Z])\\d{1,4}[A-Z]?$",
            },
            date: { type: "string", format: "date" },
            direction: { type: "string", enum: ["departure", "arrival"] },
            preset: { type: "string" },
            changes: CHANGES,
            email: { type: "string" },
            webhook: {
              type: "string",
              description: "The webhook URL; its secret is never shown.",
            },
            language: LANGUAGE,
            quietHours: QUIET_HOURS,
            remind: REMIND,
            labels: LABELS,
            status: { type: "string", enum: [...SUBSCRIPTION_STATUSES] },
            createdAt: { type: "string", format: "date-time" },
            expiresAt: {
              type: "string",
              format: "date-time",
              description:
                "When it is forgotten: SUBSCRIPTION_RETENTION after the end of its flight's date.",
            },
          },
          required: ["id", "flight", "date", "labels", "status", "createdAt", "expiresAt"],
          oneOf: [{ required: ["email"] }, { required: ["webhook"] }],
          additionalProperties: false,
        },
        SubscriptionPage: {
          type: "object",
          properties: {
            subscriptions: { type: "array", items: ref("Subscription") },
            next: {
              type: "string",
              description: "The cursor of the next page; absent on the last.",
            },
          },
          required: ["subscriptions"],
          additionalProperties: false,
        },
        Problem: {
          type: "object",
          description: "Problem details (RFC 9457).",
          properties: {
            type: {
              type: "string",
              format: "uri",
              description: "The kind of problem, stable: match on it.",
              enum: Object.keys(PROBLEM_KINDS).map((k) => problemType(k as ProblemKind)),
            },
            title: { type: "string" },
            status: { type: "integer", minimum: 400, maximum: 599 },
            detail: { type: "string", description: "What was wrong and how to fix it." },
            instance: { type: "string", description: "The path of the request." },
            errors: {
              type: "array",
              description: "Each field, parameter or header at fault.",
              items: {
                type: "object",
                properties: {
                  field: { type: "string", examples: ["flight", "labels.booking"] },
                  message: { type: "string" },
                },
                required: ["field", "message"],
                additionalProperties: false,
              },
            },
          },
          required: ["type", "title", "status", "detail"],
          additionalProperties: false,
        },
      },
      responses: {
        BadRequest: problemResponse(
          "The body is not a JSON object or not application/json, or a query parameter or header is invalid.",
          ["invalid-json", "unsupported-content-type", "invalid-parameters"],
        ),
        Unauthorized: {
          ...problemResponse("No API key, or one that is unknown or revoked.", ["unauthorized"]),
          headers: {
            "WWW-Authenticate": { schema: { type: "string" }, description: "`Bearer realm=…`" },
          },
        },
        NotFound: problemResponse("No such subscription (or it has expired).", ["not-found"]),
        MethodNotAllowed: {
          ...problemResponse("The path does not take this method.", ["method-not-allowed"]),
          headers: { Allow: { schema: { type: "string" }, description: "The methods it takes." } },
        },
        TooLarge: problemResponse("The body is larger than the limit (64 KB).", ["body-too-large"]),
        ServerError: problemResponse("Something failed on the daemon's side (Redis away?).", [
          "server-error",
        ]),
      },
    },
  };
}
