import { describe, expect, it } from "vitest";
import { readEmailSettings } from "../../src/config/email-settings.js";
import { describeEmailSettings } from "../../src/deliver/email-settings.js";
import { ConfigError, ErrorCode } from "../../src/errors.js";

const FROM = "Flightwatch <alerts@example.com>";

/** The ConfigError thrown for `env`, or a failure when none is. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    readEmailSettings(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("no ConfigError");
}

describe("email settings", () => {
  it("is not configured without SMTP_URL (unset or empty)", () => {
    expect(readEmailSettings({})).toBeUndefined();
    expect(readEmailSettings({ SMTP_URL: " ", EMAIL_FROM: FROM })).toBeUndefined();
  });

  it("reads smtp:// with the default port 25 and no credentials", () => {
    expect(readEmailSettings({ SMTP_URL: "smtp://mail.example.com", EMAIL_FROM: FROM })).toEqual({
      host: "mail.example.com",
      port: 25,
      secure: false,
      from: FROM,
      fromAddress: "alerts@example.com",
      allowPlaintextAuth: false,
    });
  });

  it("reads SMTP_ALLOW_PLAINTEXT_AUTH as true or false, naming it when it is neither", () => {
    const url = "smtp://u:p@mail.example.com:587";
    for (const [value, allowed] of [
      ["true", true],
      ["1", true],
      ["false", false],
      ["", false],
    ] as const) {
      const settings = readEmailSettings({
        SMTP_URL: url,
        EMAIL_FROM: FROM,
        SMTP_ALLOW_PLAINTEXT_AUTH: value,
      });
      expect(settings?.allowPlaintextAuth, value).toBe(allowed);
    }
    expect(() =>
      readEmailSettings({ SMTP_URL: url, EMAIL_FROM: FROM, SMTP_ALLOW_PLAINTEXT_AUTH: "sure" }),
    ).toThrow(expect.objectContaining({ setting: "SMTP_ALLOW_PLAINTEXT_AUTH" }));
    // Without SMTP_URL too: a typo must not wait for the day email is turned on.
    expect(() => readEmailSettings({ SMTP_ALLOW_PLAINTEXT_AUTH: "maybe" })).toThrow(
      expect.objectContaining({ setting: "SMTP_ALLOW_PLAINTEXT_AUTH" }),
    );
    expect(readEmailSettings({ SMTP_ALLOW_PLAINTEXT_AUTH: "true" })).toBeUndefined();
  });

  it("reads the pool's size, SMTP_MAX_CONNECTIONS and SMTP_MAX_MESSAGES, naming each that is no count", () => {
    const env = { SMTP_URL: "smtp://mail.example.com", EMAIL_FROM: FROM };
    expect(
      readEmailSettings({ ...env, SMTP_MAX_CONNECTIONS: " 12 ", SMTP_MAX_MESSAGES: "5000" }),
    ).toMatchObject({ maxConnections: 12, maxMessages: 5000 });
    const unset = readEmailSettings({ ...env, SMTP_MAX_CONNECTIONS: "" });
    expect(unset).not.toHaveProperty("maxConnections");
    expect(unset).not.toHaveProperty("maxMessages");
    for (const [name, value] of [
      ["SMTP_MAX_CONNECTIONS", "0"],
      ["SMTP_MAX_CONNECTIONS", "101"],
      ["SMTP_MAX_CONNECTIONS", "2.5"],
      ["SMTP_MAX_MESSAGES", "-1"],
      ["SMTP_MAX_MESSAGES", "lots"],
    ] as const) {
      const err = configError({ ...env, [name]: value });
      expect(err.message, value).toContain(name);
      expect(err.message, value).toContain(`got "${value}"`);
      expect(err.message).toMatch(/expected a whole number from 1 to [\d,]+/);
    }
    expect(configError({ SMTP_MAX_CONNECTIONS: "many" }).message).toContain("SMTP_MAX_CONNECTIONS");
  });

  it("reads smtps:// with the default port 465 and percent-decoded credentials", () => {
    const settings = readEmailSettings({
      SMTP_URL: "smtps://alerts%40example.com:p%3As%2Fw%40rd%25@smtp.example.com",
      EMAIL_FROM: "alerts@example.com",
    });
    expect(settings).toMatchObject({
      host: "smtp.example.com",
      port: 465,
      secure: true,
      auth: { user: "alerts@example.com", pass: "p:s/w@rd%" },
      fromAddress: "alerts@example.com",
    });
  });

  it("takes an explicit port and an IPv6 host", () => {
    const settings = readEmailSettings({ SMTP_URL: "smtp://[::1]:2525/", EMAIL_FROM: FROM });
    expect(settings).toMatchObject({ host: "::1", port: 2525, secure: false });
    expect(describeEmailSettings(settings!)).toBe(`smtp://[::1]:2525, from ${FROM}`);
  });

  it.each([
    ["not a URL", "mail.example.com:25", "not a URL"],
    ["another scheme", "https://mail.example.com", "smtp:// or smtps://"],
    ["a query", "smtp://mail.example.com?pool=true", "no path, query"],
    ["a path", "smtp://mail.example.com/x", "no path, query"],
    ["port 0", "smtp://mail.example.com:0", "port 0"],
    ["a port out of range", "smtp://mail.example.com:70000", "not a URL"],
    ["a user without a password", "smtp://me@mail.example.com", "no password"],
    ["a password without a user", "smtp://:secret@mail.example.com", "no user name"],
    ["a bad %-escape", "smtp://me:se%zzcret@mail.example.com", "%-escape"],
  ])("refuses %s, naming SMTP_URL and never the password", (_what, url, expected) => {
    const err = configError({ SMTP_URL: url, EMAIL_FROM: FROM });
    expect(err.code).toBe(ErrorCode.CONFIG_INVALID);
    expect(err.setting).toBe("SMTP_URL");
    expect(err.message).toContain(expected);
    expect(err.message).not.toContain("secret");
    expect(err.message).not.toContain("se%zzcret");
  });

  it("never repeats an unparseable URL, which may hold the password", () => {
    const err = configError({ SMTP_URL: "smtp://me:hunter2@exa mple.com", EMAIL_FROM: FROM });
    expect(err.message).not.toContain("hunter2");
  });

  it.each([
    ["missing", undefined, "is not set"],
    ["not an address", "Flightwatch", "not one email address"],
    ["two addresses", "a@example.com, b@example.com", "not one email address"],
  ])("refuses EMAIL_FROM %s when SMTP_URL is set", (_what, from, expected) => {
    const err = configError({ SMTP_URL: "smtp://mail.example.com", EMAIL_FROM: from });
    expect(err.setting).toBe("EMAIL_FROM");
    expect(err.message).toContain(expected);
  });

  it("describes the settings for logs with the password masked", () => {
    const settings = readEmailSettings({
      SMTP_URL: "smtps://alerts%40example.com:hunter2@smtp.example.com:587",
      EMAIL_FROM: FROM,
    });
    const text = describeEmailSettings(settings!);
    expect(text).toBe(`smtps://alerts%40example.com:***@smtp.example.com:587, from ${FROM}`);
    expect(text).not.toContain("hunter2");
  });
});
