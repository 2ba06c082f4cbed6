/**
 * Random secrets, embedded where credentials travel (URL userinfo, Slack paths, bearer
 * headers, Standard Webhooks secrets, query parameters, environment and header dumps)
 * and logged every way, never appear in the output — raw or percent-encoded — and
 * every JSON line still parses.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ErrorCode, FlightwatchError } from "../../src/errors.js";
import type { Logger } from "../../src/log/logger.js";
import { maskSecrets } from "../../src/log/mask-secrets.js";
import { captureLog } from "./log-capture.js";

/** Enough length and variety that the secret cannot turn up in a line by chance. */
const varied = (s: string): boolean => new Set(s).size >= 5;

const printable = fc
  .string({ unit: "grapheme-ascii", minLength: 10, maxLength: 40 })
  .filter(varied);
const visible = printable.filter((s) => !/\s/.test(s));
const alnum = fc.stringMatching(/^[A-Za-z0-9]{12,40}$/).filter(varied);
const b64token = fc.stringMatching(/^[A-Za-z0-9._~+/-]{12,40}=*$/).filter(varied);
const base64 = fc.stringMatching(/^[A-Za-z0-9+/]{16,44}={0,2}$/).filter(varied);
const enc = encodeURIComponent;

/** A secret and the text that carries it. */
type Embedding = fc.Arbitrary<{ secret: string; text: string }>;

const EMBEDDINGS: Embedding[] = [
  fc
    .record({
      secret: printable,
      scheme: fc.constantFrom("redis", "rediss", "smtp", "smtps", "https"),
    })
    .map(({ secret, scheme }) => ({
      secret,
      text: `${scheme}://user:${enc(secret)}@host.example:1234/0`,
    })),
  printable.map((secret) => ({ secret, text: `redis://:${enc(secret)}@cache.internal:6379` })),
  alnum.map((secret) => ({ secret, text: `https://hooks.slack.com/services/T0A1/B0B2/${secret}` })),
  b64token.map((secret) => ({ secret, text: `authorization: Bearer ${secret}` })),
  b64token.map((secret) => ({ secret, text: `sent with "Bearer ${secret}" to upstream` })),
  base64.map((secret) => ({ secret, text: `secret whsec_${secret}` })),
  fc
    .record({
      secret: printable,
      name: fc.constantFrom(
        "token",
        "access_token",
        "api_key",
        "key",
        "secret",
        "signature",
        "sig",
        "X-Amz-Signature",
      ),
    })
    .map(({ secret, name }) => ({
      secret,
      text: `https://api.example.com/v?page=2&${name}=${enc(secret)}&x=1`,
    })),
  fc
    .record({
      secret: visible,
      name: fc.constantFrom(
        "FLIGHT_API_TOKEN",
        "FLIGHT_API_APP_KEY",
        "SMTP_PASSWORD",
        "secret",
        "password",
      ),
    })
    .map(({ secret, name }) => ({ secret, text: `env ${name}=${secret} POLL_INTERVAL=30s` })),
  fc
    .record({
      secret: visible,
      name: fc.constantFrom("app_key", "app-id", "Authorization", "x-api-key"),
    })
    .map(({ secret, name }) => ({ secret, text: `request headers: ${name}: ${secret}` })),
];

/** Ways text reaches an entry. */
const PATHS: ReadonlyArray<(logger: Logger, text: string) => void> = [
  (l, t) => l.info(`message ${t}`),
  (l, t) => l.info("printf %s", t),
  (l, t) => l.info({ detail: t }, "field"),
  (l, t) => l.info({ a: [{ b: { c: t } }] }, "nested"),
  (l, t) => l.child({ ctx: t }).child({ role: "x" }).info("binding"),
  (l, t) => l.error(new Error(`failed ${t}`)),
  (l, t) =>
    l.error({
      err: new FlightwatchError(ErrorCode.UPSTREAM_NETWORK, "gave up", {
        cause: new Error("attempt 3", { cause: new Error(t) }),
      }),
    }),
];

describe("random secrets", () => {
  it("never appear in a log line, whichever way and format they are logged", () => {
    fc.assert(
      fc.property(
        fc.oneof(...EMBEDDINGS),
        fc.nat(PATHS.length - 1),
        fc.constantFrom("json" as const, "text" as const),
        ({ secret, text }, pathIndex, format) => {
          const { logger, output, lines } = captureLog({ format });
          PATHS[pathIndex]?.(logger, text);
          const out = output();
          expect(out).not.toContain(secret);
          expect(out).not.toContain(enc(secret));
          if (format === "json") for (const line of lines()) JSON.parse(line);
        },
      ),
      { numRuns: 600 },
    );
  });

  it("masking is idempotent, and text without credential shapes passes unchanged", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.oneof(...EMBEDDINGS).map((e) => e.text),
        ),
        (text) => {
          const once = maskSecrets(text);
          expect(maskSecrets(once)).toBe(once);
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9 .,()-]*$/), (text) => {
        expect(maskSecrets(text)).toBe(text);
      }),
    );
  });
});
