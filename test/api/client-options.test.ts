import { describe, expect, it } from "vitest";
import { resolveClientOptions } from "../../src/api/client-options.js";
import { clientOptionsFromEnv } from "../../src/config/client-settings.js";
import { ConfigError, ErrorCode } from "../../src/errors.js";

const BASE = "http://127.0.0.1:8080/public/public-flights/v4";

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("clientOptionsFromEnv", () => {
  it("reads the base URL, a token and the tuning variables", () => {
    expect(
      clientOptionsFromEnv({
        FLIGHT_API_BASE_URL: `${BASE}/`,
        FLIGHT_API_TOKEN: "tok",
        AIRPORT_TIMEZONE: "Europe/Lisbon",
        FLIGHT_API_CONNECT_TIMEOUT: "2s",
        FLIGHT_API_TIMEOUT: "15s",
        FLIGHT_API_MAX_ATTEMPTS: "6",
        FLIGHT_API_MAX_RETRY_AFTER: "2m",
        FLIGHT_API_REQUEST_TIMEOUT: "90s",
        FLIGHT_API_MAX_BODY: "8MB",
      }),
    ).toEqual({
      baseUrl: BASE,
      token: "tok",
      airportTimezone: "Europe/Lisbon",
      connectTimeoutMs: 2000,
      headersTimeoutMs: 15_000,
      bodyTimeoutMs: 15_000,
      maxAttempts: 6,
      maxRetryAfterMs: 120_000,
      requestTimeoutMs: 90_000,
      maxBodyBytes: 8 * 1024 * 1024,
    });
  });

  it.each([
    ["512KB", 512 * 1024],
    ["1.5MB", 1.5 * 1024 * 1024],
    ["1gib", 1024 ** 3],
    ["4096 B", 4096],
  ])("reads FLIGHT_API_MAX_BODY=%s as %i bytes", (text, bytes) => {
    expect(
      clientOptionsFromEnv({ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_MAX_BODY: text }).maxBodyBytes,
    ).toBe(bytes);
  });

  it("wants a unit on FLIGHT_API_REQUEST_TIMEOUT and FLIGHT_API_MAX_BODY, and says so", () => {
    const timeout = configError(() =>
      clientOptionsFromEnv({ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_REQUEST_TIMEOUT: "60" }),
    );
    expect(timeout.setting).toBe("FLIGHT_API_REQUEST_TIMEOUT");
    expect(timeout.message).toContain("has no unit");
    const size = configError(() =>
      clientOptionsFromEnv({ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_MAX_BODY: "32" }),
    );
    expect(size.setting).toBe("FLIGHT_API_MAX_BODY");
    expect(size.message).toContain("32MB");
  });

  it("reads app id and key; empty variables count as unset", () => {
    expect(
      clientOptionsFromEnv({
        FLIGHT_API_BASE_URL: BASE,
        FLIGHT_API_APP_ID: "id",
        FLIGHT_API_APP_KEY: "key",
        FLIGHT_API_TOKEN: "",
      }),
    ).toEqual({ baseUrl: BASE, appId: "id", appKey: "key" });
  });

  it("names FLIGHT_API_BASE_URL and hints at the simulator when it is missing", () => {
    const err = configError(() => clientOptionsFromEnv({}));
    expect(err.code).toBe(ErrorCode.CONFIG_INVALID);
    expect(err.setting).toBe("FLIGHT_API_BASE_URL");
    expect(err.message).toContain("flightwatch simulate");
  });

  it.each([
    [{ FLIGHT_API_BASE_URL: "ftp://h/v4" }, "FLIGHT_API_BASE_URL"],
    [{ FLIGHT_API_BASE_URL: "not a url" }, "FLIGHT_API_BASE_URL"],
    [{ FLIGHT_API_BASE_URL: "https://u:p@h/v4" }, "FLIGHT_API_BASE_URL"],
    [{ FLIGHT_API_BASE_URL: "https://h/v4?x=1" }, "FLIGHT_API_BASE_URL"],
    [{ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_APP_ID: "id" }, "FLIGHT_API_APP_KEY"],
    [{ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_APP_KEY: "key" }, "FLIGHT_API_APP_ID"],
    [
      {
        FLIGHT_API_BASE_URL: BASE,
        FLIGHT_API_TOKEN: "t",
        FLIGHT_API_APP_ID: "i",
        FLIGHT_API_APP_KEY: "k",
      },
      "FLIGHT_API_TOKEN",
    ],
    [{ FLIGHT_API_BASE_URL: BASE, AIRPORT_TIMEZONE: "Mars/Olympus" }, "AIRPORT_TIMEZONE"],
    [{ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_TIMEOUT: "soon" }, "FLIGHT_API_TIMEOUT"],
    [
      { FLIGHT_API_BASE_URL: BASE, FLIGHT_API_CONNECT_TIMEOUT: "0ms" },
      "FLIGHT_API_CONNECT_TIMEOUT",
    ],
    [{ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_MAX_ATTEMPTS: "0" }, "FLIGHT_API_MAX_ATTEMPTS"],
    [{ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_MAX_ATTEMPTS: "three" }, "FLIGHT_API_MAX_ATTEMPTS"],
    [
      { FLIGHT_API_BASE_URL: BASE, FLIGHT_API_REQUEST_TIMEOUT: "soon" },
      "FLIGHT_API_REQUEST_TIMEOUT",
    ],
    [
      { FLIGHT_API_BASE_URL: BASE, FLIGHT_API_REQUEST_TIMEOUT: "10ms" },
      "FLIGHT_API_REQUEST_TIMEOUT",
    ],
    [{ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_MAX_BODY: "32 parsecs" }, "FLIGHT_API_MAX_BODY"],
    [{ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_MAX_BODY: "100B" }, "FLIGHT_API_MAX_BODY"],
  ])("rejects %j naming %s", (env, setting) => {
    expect(configError(() => clientOptionsFromEnv(env)).setting).toBe(setting);
  });

  it("never puts a credential value into its messages", () => {
    const secret = "s3cr3t-app-key-value";
    const err = configError(() =>
      clientOptionsFromEnv({ FLIGHT_API_BASE_URL: BASE, FLIGHT_API_APP_KEY: secret }),
    );
    expect(err.message).not.toContain(secret);
    const both = configError(() =>
      clientOptionsFromEnv({
        FLIGHT_API_BASE_URL: BASE,
        FLIGHT_API_TOKEN: secret,
        FLIGHT_API_APP_ID: "i",
        FLIGHT_API_APP_KEY: secret,
      }),
    );
    expect(both.message).not.toContain(secret);
  });
});

describe("resolveClientOptions", () => {
  it("applies defaults", () => {
    const resolved = resolveClientOptions({ baseUrl: `${BASE}//` });
    expect(resolved).toMatchObject({
      baseUrl: BASE,
      airportTimezone: "Europe/Amsterdam",
      maxAttempts: 4,
      maxPages: 500,
      connectTimeoutMs: 10_000,
      headersTimeoutMs: 30_000,
      bodyTimeoutMs: 30_000,
      requestTimeoutMs: 60_000,
      maxBodyBytes: 32 * 1024 * 1024,
    });
  });

  it.each([
    [{ baseUrl: "file:///etc/passwd" }, "baseUrl"],
    [{ baseUrl: BASE, maxPages: 501 }, "maxPages"],
    [{ baseUrl: BASE, maxAttempts: 0 }, "maxAttempts"],
    [{ baseUrl: BASE, headersTimeoutMs: 1.5 }, "headersTimeoutMs"],
    [{ baseUrl: BASE, requestTimeoutMs: 0 }, "requestTimeoutMs"],
    [{ baseUrl: BASE, maxBodyBytes: 10 }, "maxBodyBytes"],
    [{ baseUrl: BASE, appId: "x" }, "appKey"],
    [{ baseUrl: BASE, token: "t", appId: "x", appKey: "y" }, "token"],
  ])("rejects %j naming %s", (options, setting) => {
    expect(configError(() => resolveClientOptions(options)).setting).toBe(setting);
  });
});
