/**
 * Credentials never leave the request headers: make requests fail every way the
 * client knows and look for the secret everywhere an error or the client can be
 * printed (message, String, JSON, util.inspect with its cause) and in the events.
 */
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FlightApiClientOptions } from "../../src/api/client-options.js";
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import { ErrorCode, FlightwatchError } from "../../src/errors.js";
import {
  type ContractServer,
  sampleFlights,
  startContractServer,
} from "../support/contract-server.js";

const TOKEN = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.TOKENSIGNATURE";
const APP_ID = "app-id-7f3e9a";
const APP_KEY = "app-key-0123456789abcdef";

let server: ContractServer;
let foreign: ContractServer;
beforeAll(async () => {
  foreign = await startContractServer();
  server = await startContractServer({ flights: sampleFlights(6), pageSize: 2 });
});
afterAll(async () => {
  await server.close();
  await foreign.close();
});

/** The configured secrets must not appear (a body may echo others; the client cannot know them). */
function expectNoSecret(text: string, credentials: Partial<FlightApiClientOptions>): void {
  for (const secret of [credentials.token, credentials.appKey, credentials.appId]) {
    if (secret) expect(text).not.toContain(secret);
  }
}

async function failure(
  credentials: Partial<FlightApiClientOptions>,
  act: (client: FlightApiClient) => Promise<unknown>,
  options: Partial<FlightApiClientOptions> = {},
): Promise<{ err: FlightwatchError; printed: string[] }> {
  const events: unknown[] = [];
  const client = new FlightApiClient({
    baseUrl: server.baseUrl,
    maxAttempts: 2,
    sleep: async () => {},
    onExchange: (e) => events.push(e),
    ...credentials,
    ...options,
  });
  try {
    await act(client);
  } catch (err) {
    if (!(err instanceof FlightwatchError)) throw err;
    const printed = [
      err.message,
      String(err),
      JSON.stringify(err),
      inspect(err, { depth: 10, showHidden: true }),
      String(err.stack),
      inspect(client, { depth: 10, showHidden: true }),
      JSON.stringify(client),
      String(client),
      JSON.stringify(events),
    ];
    return { err, printed };
  } finally {
    await client.close();
  }
  throw new Error("expected the call to fail");
}

const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

const SCENARIOS: [
  string,
  (s: ContractServer) => void,
  (c: FlightApiClient) => Promise<unknown>,
  string,
  Partial<FlightApiClientOptions>?,
][] = [
  [
    "401",
    (s) => s.faults.push({ kind: "status", status: 401, body: TOKEN }),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_AUTH,
  ],
  [
    "403",
    (s) => s.faults.push({ kind: "status", status: 403, body: `bad key ${APP_KEY}` }),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_AUTH,
  ],
  [
    "400 echoing the credentials",
    (s) =>
      s.faults.push({
        kind: "status",
        status: 400,
        body: `Authorization: Bearer ${TOKEN} app_key=${APP_KEY}`,
      }),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_BAD_REQUEST,
  ],
  [
    "500 until retries run out",
    (s) =>
      s.faults.push(
        { kind: "status", status: 500, body: TOKEN },
        { kind: "status", status: 500, body: APP_KEY },
      ),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_HTTP,
  ],
  [
    "reset",
    (s) => s.faults.push({ kind: "reset" }, { kind: "reset" }),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_NETWORK,
  ],
  [
    "truncated",
    (s) => s.faults.push({ kind: "truncate" }, { kind: "truncate" }),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_MALFORMED,
  ],
  [
    "bad envelope echoing the token",
    (s) => s.faults.push({ kind: "body", body: JSON.stringify({ error: TOKEN }) }),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_MALFORMED,
  ],
  ["not found", () => {}, (c) => c.flightById("999"), ErrorCode.NOT_FOUND],
  [
    "foreign next link",
    (s) =>
      s.faults.push({
        kind: "link",
        link: `<${foreign.baseUrl}/flights?page=1&k=${APP_KEY}>; rel="next"`,
      }),
    (c) => collect(c.items("flights")),
    ErrorCode.UPSTREAM_LINK,
  ],
  [
    "next-link loop",
    (s) => s.faults.push({ kind: "link", link: `<${s.baseUrl}/flights?page=0>; rel="next"` }),
    (c) => collect(c.items("flights")),
    ErrorCode.UPSTREAM_LINK,
  ],
  [
    "page cap",
    () => {},
    (c) => collect(c.items("flights")),
    ErrorCode.UPSTREAM_PAGE_LIMIT,
    { maxPages: 2 },
  ],
  ["invalid parameter", () => {}, (c) => c.getFlights({ page: 9999 }), ErrorCode.INVALID_PARAM],
  [
    "hang",
    (s) => s.faults.push({ kind: "hang" }),
    (c) => c.getFlights(),
    ErrorCode.UPSTREAM_NETWORK,
    { headersTimeoutMs: 50, maxAttempts: 1 },
  ],
];

describe.each([
  ["a Bearer token", { token: TOKEN }],
  ["an app id and key", { appId: APP_ID, appKey: APP_KEY }],
] as const)("with %s", (_label, credentials) => {
  it.each(SCENARIOS)(
    "%s: the secret is nowhere in the error, the client or the events",
    async (_name, script, act, code, options) => {
      script(server);
      const { err, printed } = await failure(credentials, act, options);
      server.faults.splice(0);
      expect(err.code).toBe(code);
      for (const text of printed) expectNoSecret(text, credentials);
    },
  );
});

it("a refused connection leaks nothing either", async () => {
  const closed = await startContractServer();
  await closed.close();
  const client = new FlightApiClient({ baseUrl: closed.baseUrl, token: TOKEN, maxAttempts: 1 });
  const err = await client.getFlights().catch((e: unknown) => e);
  await client.close();
  expect(err).toBeInstanceOf(FlightwatchError);
  expectNoSecret(inspect(err, { depth: 10, showHidden: true }), { token: TOKEN });
  expectNoSecret(JSON.stringify(err), { token: TOKEN });
});

it("the redaction check can fail: the secret really is on the wire", () => {
  expect(server.requests.some((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  expect(server.requests.some((r) => r.headers.app_key === APP_KEY)).toBe(true);
});

it("a credential too short to mask leaves messages readable", async () => {
  const client = new FlightApiClient({ baseUrl: server.baseUrl, token: "t", maxAttempts: 1 });
  const err = await client.flightById("999").catch((e: unknown) => e);
  await client.close();
  expect(err).toBeInstanceOf(FlightwatchError);
  const message = (err as FlightwatchError).message;
  expect(message).toContain("flightById");
  expect(message).not.toContain("[redacted]");
});
