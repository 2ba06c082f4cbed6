/**
 * The passenger pages' variables: PUBLIC_URL (https, or http on loopback; no query,
 * fragment or credentials; without its trailing slash), SUBSCRIPTION_SECRET (a
 * credential: long enough, printable), TRUST_PROXY and the subscribe form's rate limits.
 */
import { describe, expect, it } from "vitest";
import { readDaemonConfig } from "../../src/config/daemon-config.js";
import { ConfigError, ConfigProblemsError } from "../../src/errors.js";

const BASE = { FLIGHT_API_BASE_URL: "https://api.example/public-flights/v4" };

function problemsOf(env: Record<string, string>): string[] {
  try {
    readDaemonConfig({ ...BASE, ...env });
  } catch (err) {
    if (err instanceof ConfigProblemsError) return err.problems.map((p) => p.setting);
    if (err instanceof ConfigError) return [err.setting];
    throw err;
  }
  return [];
}

describe("the passenger pages' configuration", () => {
  it("is off without PUBLIC_URL", () => {
    const config = readDaemonConfig(BASE);
    expect(config.publicUrl).toBeUndefined();
    expect(config.subscriptionSecret).toBeUndefined();
    expect(config.trustProxy).toBe(false);
  });

  it("takes PUBLIC_URL without its trailing slash, path included", () => {
    expect(
      readDaemonConfig({ ...BASE, PUBLIC_URL: "https://flights.example.com/" }).publicUrl,
    ).toBe("https://flights.example.com");
    expect(
      readDaemonConfig({ ...BASE, PUBLIC_URL: "https://example.com/flightwatch/" }).publicUrl,
    ).toBe("https://example.com/flightwatch");
    expect(readDaemonConfig({ ...BASE, PUBLIC_URL: "http://127.0.0.1:8080" }).publicUrl).toBe(
      "http://127.0.0.1:8080",
    );
  });

  it("refuses a PUBLIC_URL in clear off loopback, or with a query, fragment or credentials", () => {
    for (const url of [
      "http://flights.example.com",
      "ftp://flights.example.com",
      "flights.example.com",
      "https://flights.example.com/?a=1",
      "https://flights.example.com/#top",
      "https://user:pw@flights.example.com",
    ]) {
      expect(problemsOf({ PUBLIC_URL: url }), url).toEqual(["PUBLIC_URL"]);
    }
  });

  it("takes SUBSCRIPTION_SECRET as a credential, and TRUST_PROXY as a boolean", () => {
    const config = readDaemonConfig({
      ...BASE,
      SUBSCRIPTION_SECRET: "a-long-enough-secret-1234",
      TRUST_PROXY: "true",
    });
    expect(config.subscriptionSecret).toBe("a-long-enough-secret-1234");
    expect(config.trustProxy).toBe(true);
    expect(problemsOf({ SUBSCRIPTION_SECRET: "short" })).toEqual(["SUBSCRIPTION_SECRET"]);
    expect(problemsOf({ TRUST_PROXY: "maybe" })).toEqual(["TRUST_PROXY"]);
  });

  it("takes the subscribe form's rate limits as <count>/<window>, each naming its variable when wrong", () => {
    expect(readDaemonConfig(BASE).subscribeLimits).toEqual({});
    expect(
      readDaemonConfig({
        ...BASE,
        SUBSCRIBE_LIMIT_CLIENT: "30/10m",
        SUBSCRIBE_LIMIT_EMAIL: " 5 / 2d ",
      }).subscribeLimits,
    ).toEqual({
      client: { count: 30, windowMs: 600_000 },
      email: { count: 5, windowMs: 2 * 86_400_000 },
    });
    for (const bad of ["10", "ten/1h", "0/1h", "10/500ms", "10/1 hour", "-1/1h", "10/"]) {
      expect(problemsOf({ SUBSCRIBE_LIMIT_EMAIL: bad }), bad).toEqual(["SUBSCRIBE_LIMIT_EMAIL"]);
    }
    let message = "";
    try {
      readDaemonConfig({ ...BASE, SUBSCRIBE_LIMIT_CLIENT: "ten/1h" });
    } catch (err) {
      message = String(err);
    }
    expect(message).toContain("SUBSCRIBE_LIMIT_CLIENT");
    expect(message).toContain("e.g. 10/1h");
  });
});
