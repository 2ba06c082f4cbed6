/**
 * The maskers, exactly: what each credential shape becomes, what is left for the
 * reader, and the messages that must come through untouched.
 */
import { describe, expect, it } from "vitest";
import { maskSecrets, secretMasker } from "../../src/log/mask-secrets.js";
import { maskEndpointUrl, maskUrl } from "../../src/log/mask-url.js";
import { isSecretField, isUrlField, redactValue } from "../../src/log/redact-value.js";

describe("maskUrl", () => {
  it.each([
    ["redis://:pw@cache:6379/0", "redis://:***@cache:6379/0"],
    ["smtp://mailer:p%40ss@smtp.example.com:587", "smtp://mailer:***@smtp.example.com:587"],
    // WHATWG reads the last `@` as the end of the userinfo: so does the mask.
    ["redis://:p@ss@cache:6379", "redis://:***@cache:6379"],
    ["a redis://:x@h1 and smtp://u:y@h2, then", "a redis://:***@h1 and smtp://u:***@h2, then"],
    ["http://host:8080/path and mail x@y.com", "http://host:8080/path and mail x@y.com"],
    ["redis://cache:6379", "redis://cache:6379"],
  ])("%s → %s", (input, expected) => {
    expect(maskUrl(input)).toBe(expected);
  });
});

describe("maskEndpointUrl", () => {
  it("keeps scheme, host and 8 characters of path; drops userinfo and query", () => {
    expect(maskEndpointUrl("https://hooks.slack.com/services/T0/B0/xyz")).toBe(
      "https://hooks.slack.com/services…",
    );
    expect(maskEndpointUrl("https://u:p@example.org/a?token=x")).toBe("https://example.org/a");
    expect(maskEndpointUrl("not a url")).toBe("(not a URL)");
  });
});

describe("maskSecrets", () => {
  it.each([
    [
      "POST https://hooks.slack.com/services/T000/B000/XXXXsecret failed: 404",
      "POST https://hooks.slack.com/services/*** failed: 404",
    ],
    ["Authorization: Bearer abc.def-ghi", "Authorization: ***"],
    ["sent Bearer abc.def-ghi upstream", "sent Bearer *** upstream"],
    ["authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization: ***"],
    ["header Basic dXNlcjpwYXNzd29yZA== sent", "header Basic *** sent"],
    ["token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln here", "token *** here"],
    ["secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw done", "secret whsec_*** done"],
    // Slack tokens: the kind (bot, user, app-level) stays.
    ["token xoxb-1234-5678-AbCdEfGh rejected", "token xoxb-*** rejected"],
    ["('xoxp-99-88-zz', xapp-1-A0-123-abc)", "('xoxp-***', xapp-***)"],
    [
      "GET https://api.example.com/x?page=2&token=abc123&api_key=k#frag",
      "GET https://api.example.com/x?page=2&token=***&api_key=***#frag",
    ],
    ['cfg {"password":"hun\\"ter2","user":"bob"}', 'cfg {"password":"***","user":"bob"}'],
    ["cfg { password: 'hunter2', user: 'bob' }", "cfg { password: '***', user: 'bob' }"],
    [
      "FLIGHT_API_TOKEN=abc,123 FLIGHT_API_APP_KEY=k3y POLL_INTERVAL=30s",
      "FLIGHT_API_TOKEN=*** FLIGHT_API_APP_KEY=*** POLL_INTERVAL=30s",
    ],
    ["app_key: 0123abcd\nnext line", "app_key: ***\nnext line"],
    ["App-Id: my-app", "App-Id: ***"],
    // Token-like values after "Bearer"/"Basic": digits, symbols or long; punctuation stays.
    ["(sent Bearer tok3n).", "(sent Bearer ***)."],
    // Letters only, but not a word of prose: mixed case, or longer than any such word.
    ['sent with "Bearer aAaaaaaaabBc" to upstream', 'sent with "Bearer ***" to upstream'],
    ["sent Bearer qwertyuiopasdfg now", "sent Bearer *** now"],
    ["retry with Bearer abcdefghijklmnopqrstuvwxyz now", "retry with Bearer *** now"],
    ["bearer dev-token-0001, then", "bearer ***, then"],
    ["with Basic dXNlcjpwYXNzd29yZA==.", "with Basic ***."],
  ])("%s", (input, expected) => {
    expect(maskSecrets(input)).toBe(expected);
  });

  it.each([
    "APP_KEY: is not set; give FLIGHT_API_TOKEN or FLIGHT_API_APP_ID and FLIGHT_API_APP_KEY",
    "REDIS_URL: no Redis answers at redis://cache:6379 (ECONNREFUSED)",
    "poll 3 incremental: 120 records, 4 changes, 2 pages, next page https://api.example.com/flights?page=3",
    "rules/gate.yaml:3:5 rule `gate-change`: unknown key `tokn` — did you mean `token`?",
    "delivered notification n_01HZX to https://hooks.slack.com… (200) after 1 attempt",
    "getFlights: HTTP 401 after 1 attempt [FW_ERR_UPSTREAM_AUTH]",
    // Words after "Bearer"/"Basic" in prose are not credentials.
    "FLIGHT_API_TOKEN: set either FLIGHT_API_TOKEN (Bearer token) or FLIGHT_API_APP_ID/FLIGHT_API_APP_KEY, not both",
    "the contract specifies Bearer tokens; Basic authentication is not supported.",
    "a Bearer token, sent in the Authorization header",
    "a Bearer token-based scheme",
  ])("leaves a message without credentials alone: %s", (message) => {
    expect(maskSecrets(message)).toBe(message);
  });
});

describe("secretMasker", () => {
  it("masks given values and their percent-encoded forms, longest first, ignoring short ones", () => {
    const mask = secretMasker(["long-secret-value/1", "long-secret", "tiny"]);
    expect(mask("a long-secret-value/1 b long-secret c tiny")).toBe(
      "a [redacted] b [redacted] c tiny",
    );
    expect(mask(`q=${encodeURIComponent("long-secret-value/1")}`)).toBe("q=[redacted]");
  });
});

describe("field names", () => {
  it("credential names in any spelling; ordinary names are not", () => {
    for (const name of ["token", "app_key", "App-Key", "appKey", "x-api-key", "Authorization"]) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of ["slackToken", "webhookSecret", "smtpPassword", "pass", "auth"]) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of ["tokens", "tokenCount", "key", "passengers", "author", "flightId", "url"]) {
      expect(isSecretField(name), name).toBe(false);
    }
    for (const name of ["url", "smtpUrl", "REDIS_URL", "webhookUri", "endpoint", "href"]) {
      expect(isUrlField(name), name).toBe(true);
    }
  });

  it("a credential field holding a flag or nothing says so", () => {
    expect(redactValue({ token: true, password: null, secret: undefined, apiKey: 12 })).toEqual({
      token: true,
      password: null,
      apiKey: "[redacted]",
    });
  });
});
