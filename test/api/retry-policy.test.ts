import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BackoffOptions,
  backoffDelay,
  classifyAttempt,
  parseRetryAfter,
} from "../../src/api/retry-policy.js";

describe("classifyAttempt", () => {
  it.each([200, 203, 204, 299])("%i succeeds", (status) => {
    expect(classifyAttempt({ kind: "response", status })).toEqual({ ok: true });
  });

  it.each([
    [429, "rate_limited"],
    [500, "server_error"],
    [502, "server_error"],
    [503, "server_error"],
    [504, "server_error"],
    [599, "server_error"],
  ] as const)("%i is retried as %s", (status, reason) => {
    expect(classifyAttempt({ kind: "response", status })).toEqual({
      ok: false,
      reason,
      retry: true,
    });
  });

  it.each([
    [400, "bad_request"],
    [401, "auth"],
    [403, "auth"],
    [404, "not_found"],
    [405, "http_status"],
    [406, "http_status"],
    [408, "http_status"],
    [410, "http_status"],
    [301, "http_status"],
    [304, "http_status"],
    [100, "http_status"],
  ] as const)("%i is permanent (%s)", (status, reason) => {
    expect(classifyAttempt({ kind: "response", status })).toEqual({
      ok: false,
      reason,
      retry: false,
    });
  });

  it.each([
    ["UND_ERR_CONNECT_TIMEOUT", "timeout"],
    ["UND_ERR_HEADERS_TIMEOUT", "timeout"],
    ["UND_ERR_BODY_TIMEOUT", "timeout"],
    ["ETIMEDOUT", "timeout"],
    ["ECONNRESET", "connection"],
    ["UND_ERR_SOCKET", "connection"],
    ["ECONNREFUSED", "connection"],
    ["EPIPE", "connection"],
    ["UND_ERR_RES_CONTENT_LENGTH_MISMATCH", "connection"],
  ] as const)("network %s is retried as %s", (errorCode, reason) => {
    expect(classifyAttempt({ kind: "network", errorCode })).toEqual({
      ok: false,
      reason,
      retry: true,
    });
  });

  it.each([["ENOTFOUND"], ["ERR_TLS_CERT_ALTNAME_INVALID"], [undefined]])(
    "network %s is not retried",
    (errorCode) => {
      expect(classifyAttempt({ kind: "network", errorCode })).toEqual({
        ok: false,
        reason: "network",
        retry: false,
      });
    },
  );

  it("retries a success status whose body is not JSON (truncated)", () => {
    expect(classifyAttempt({ kind: "unparseable_body", status: 200 })).toEqual({
      ok: false,
      reason: "unparseable_body",
      retry: true,
    });
  });

  it("retries an attempt whose whole deadline passed, as a timeout", () => {
    expect(classifyAttempt({ kind: "deadline" })).toEqual({
      ok: false,
      reason: "timeout",
      retry: true,
    });
  });

  it("does not retry a body over the cap: the same page would come back as large", () => {
    expect(classifyAttempt({ kind: "body_too_large" })).toEqual({
      ok: false,
      reason: "body_too_large",
      retry: false,
    });
  });

  it.each([
    // A 300 is an answer about the request, not an acceptance: a receiver that
    // replies "multiple choices" has not taken the notification.
    [199, "http_status"],
    [300, "http_status"],
    [301, "http_status"],
    // Beyond the 5xx range is no server error to wait out.
    [600, "http_status"],
  ] as const)(
    "%i, at the edge of the success and server-error ranges, fails for good as %s",
    (status, reason) => {
      expect(classifyAttempt({ kind: "response", status })).toEqual({
        ok: false,
        reason,
        retry: false,
      });
    },
  );

  it("retries exactly 429 and 5xx among all statuses", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
        const verdict = classifyAttempt({ kind: "response", status });
        const transient = status === 429 || status >= 500;
        expect(verdict.ok).toBe(status >= 200 && status < 300);
        if (!verdict.ok) expect(verdict.retry).toBe(transient);
      }),
    );
  });
});

const OPTIONS: BackoffOptions = { baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 };

describe("backoffDelay", () => {
  it("is full jitter: 0 at random 0, just under the ceiling at random ≈ 1", () => {
    expect(backoffDelay(1, undefined, () => 0, OPTIONS)).toBe(0);
    expect(backoffDelay(1, undefined, () => 0.999999, OPTIONS)).toBe(499);
    expect(backoffDelay(3, undefined, () => 0.5, OPTIONS)).toBe(1000);
  });

  it("doubles its ceiling per attempt up to maxDelayMs", () => {
    const top = (attempt: number): number => backoffDelay(attempt, undefined, () => 1, OPTIONS);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(top)).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
    expect(top(1000)).toBe(30_000);
  });

  it("stays within [0, min(max, base·2^(n−1))) for any attempt and random", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const delay = backoffDelay(attempt, undefined, () => r, OPTIONS);
          const ceiling = Math.min(OPTIONS.maxDelayMs, OPTIONS.baseDelayMs * 2 ** (attempt - 1));
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(ceiling);
          expect(Number.isInteger(delay)).toBe(true);
        },
      ),
    );
  });

  it("honours Retry-After instead of the jitter, capped at maxRetryAfterMs", () => {
    expect(backoffDelay(1, 7000, () => 0.9, OPTIONS)).toBe(7000);
    expect(backoffDelay(5, 0, () => 0.9, OPTIONS)).toBe(0);
    expect(backoffDelay(1, 3_600_000, () => 0.9, OPTIONS)).toBe(60_000);
    expect(backoffDelay(1, 3_600_000, () => 0.9, { ...OPTIONS, maxRetryAfterMs: 2000 })).toBe(2000);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-21T10:00:00Z");

  it("reads delta-seconds", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter(["3", "9"], now)).toBe(3000);
  });

  it("reads an HTTP-date relative to now, a past date meaning 0", () => {
    expect(parseRetryAfter("Sat, 21 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Saturday, 21-Nov-26 10:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Sat Nov 21 10:00:05 2026", now)).toBeTypeOf("number");
    expect(parseRetryAfter("Fri, 20 Nov 2026 10:00:00 GMT", now)).toBe(0);
  });

  it("reads an HTTP-date with whitespace around it", () => {
    expect(parseRetryAfter(" Sat, 21 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("\tSat, 21 Nov 2026 10:00:30 GMT ", now)).toBe(30_000);
  });

  it("ignores a date after other words, which Date.parse alone would read", () => {
    expect(parseRetryAfter("not before Sat, 21 Nov 2026 10:00:30 GMT", now)).toBeUndefined();
  });

  it("ignores absent and unreadable values", () => {
    for (const value of [undefined, "", "soon", "-5", "1.5", "Sat, 99 Foo 2026"]) {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    }
  });
});
