/**
 * Secrets never reach a log line: every kind of secret, through every way text gets
 * into an entry (message, printf argument, field, nested object, child binding, error
 * message, stack, cause, own error field), in both formats. Each case also checks that
 * what a reader needs (host, user, variable name, error code) is still there.
 */
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { readEmailSettings } from "../../src/config/email-settings.js";
import { describeEmailSettings } from "../../src/deliver/email-settings.js";
import { ErrorCode, FlightwatchError, UpstreamError } from "../../src/errors.js";
import type { Logger } from "../../src/log/logger.js";
import { connectRedis } from "../../src/store/redis-connection.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { captureLog } from "./log-capture.js";

const S = "Zq8vN3xK7wP2mR5t"; // shapeless: only its surroundings say it is a secret

/** One kind of secret in the text that carries it, and the parts that must survive. */
interface SecretKind {
  kind: string;
  text: string;
  secret: string;
  keep: string[];
}

const KINDS: SecretKind[] = [
  {
    kind: "Redis URL password",
    text: `redis://:${S}@cache.internal:6379/0`,
    secret: S,
    keep: ["redis://", "cache.internal:6379"],
  },
  {
    kind: "SMTP URL password",
    text: `smtp://mailer:${S}@smtp.example.com:587`,
    secret: S,
    keep: ["mailer", "smtp.example.com:587"],
  },
  {
    kind: "Slack webhook path",
    text: `https://hooks.slack.com/services/T0AAA1111/B0BBB2222/${S}`,
    secret: S,
    keep: ["https://hooks.slack.com/"],
  },
  {
    kind: "bearer token",
    text: `Authorization: Bearer ${S}.x-y_z`,
    secret: S,
    keep: ["Authorization"],
  },
  {
    kind: "JWT without Bearer",
    text: "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmbGlnaHR3YXRjaCJ9.c2lnbmF0dXJlLXZhbHVl",
    secret: "eyJzdWIiOiJmbGlnaHR3YXRjaCJ9",
    keep: ["token"],
  },
  {
    kind: "Standard Webhooks secret",
    text: `secret whsec_${S}+/A=`,
    secret: S,
    keep: ["whsec_"],
  },
  {
    kind: "token query parameter",
    text: `https://api.example.com/flights?page=2&token=${S}&sort=id`,
    secret: S,
    keep: ["api.example.com", "page=2", "token="],
  },
  {
    kind: "signature query parameter",
    text: `https://files.example.com/x.json?X-Amz-Signature=${S}`,
    secret: S,
    keep: ["files.example.com", "X-Amz-Signature="],
  },
  {
    kind: "environment assignment",
    text: `FLIGHT_API_APP_KEY=${S} POLL_INTERVAL=30s`,
    secret: S,
    keep: ["FLIGHT_API_APP_KEY=", "POLL_INTERVAL=30s"],
  },
  { kind: "header dump", text: `app_key: ${S}`, secret: S, keep: ["app_key"] },
  // Inside a %j argument the quotes are escaped twice: the mask then runs to the end.
  {
    kind: "JSON in a message",
    text: `{"password":"${S}","user":"ops"}`,
    secret: S,
    keep: ["password"],
  },
];

/** One way text reaches an entry. */
interface LogPath {
  path: string;
  log(logger: Logger, text: string): void;
  /** The text format shows an error's type, message, code and causes, not its stack or fields. */
  hiddenInText?: boolean;
}

const PATHS: LogPath[] = [
  { path: "message", log: (l, t) => l.info(`connecting to ${t}`) },
  { path: "printf argument", log: (l, t) => l.info("connecting to %s", t) },
  { path: "printf object", log: (l, t) => l.info("state %j", { target: t }) },
  { path: "field", log: (l, t) => l.info({ target: t }, "connecting") },
  { path: "nested field", log: (l, t) => l.info({ a: { b: [{ c: t }] } }, "nested") },
  { path: "Map value", log: (l, t) => l.info({ m: new Map([["k", t]]) }, "map") },
  { path: "child binding", log: (l, t) => l.child({ target: t }).info("bound") },
  { path: "grandchild binding", log: (l, t) => l.child({ role: "x" }).child({ t }).info("bound") },
  {
    path: "setBindings",
    log: (l, t) => {
      const child = l.child({});
      child.setBindings({ target: t });
      child.info("rebound");
    },
  },
  { path: "err.message (error alone)", log: (l, t) => l.error(new Error(`failed: ${t}`)) },
  {
    path: "err.message (err field)",
    log: (l, t) => l.error({ err: new Error(`failed: ${t}`) }, "x"),
  },
  {
    path: "err.stack only",
    log: (l, t) => {
      const err = new Error(`failed: ${t}`);
      void err.stack; // V8 writes the stack on first read: from the original message
      err.message = "failed";
      l.error({ err }, "x");
    },
    hiddenInText: true,
  },
  {
    path: "err.cause chain",
    log: (l, t) => {
      const inner = new Error(`connect ${t}`);
      const middle = new Error("retry gave up", { cause: inner });
      l.error({
        err: new FlightwatchError(ErrorCode.REDIS_UNAVAILABLE, "REDIS_URL: down", {
          cause: middle,
        }),
      });
    },
  },
  {
    path: "own field of an error",
    log: (l, t) => l.error({ err: Object.assign(new Error("x"), { request: { target: t } }) }, "x"),
    hiddenInText: true,
  },
  {
    path: "AggregateError member",
    log: (l, t) => l.error({ err: new AggregateError([new Error(t)], "all failed") }, "x"),
    hiddenInText: true,
  },
  { path: "error in a field of another name", log: (l, t) => l.warn({ last: new Error(t) }, "x") },
  { path: "printf error", log: (l, t) => l.warn("gave up: %s", new Error(t)) },
];

describe.each(["json", "text"] as const)("%s format", (format) => {
  describe.each(KINDS)("$kind", ({ text, secret, keep }) => {
    it.each(PATHS)("never shows the secret through $path, keeps the useful part", (path) => {
      const { log, hiddenInText } = path;
      const { logger, output } = captureLog({ format });
      log(logger, text);
      const out = output();
      expect(out).not.toBe("");
      expect(out).not.toContain(secret);
      expect(out).not.toContain(encodeURIComponent(secret));
      if (format === "json" || !hiddenInText) for (const part of keep) expect(out).toContain(part);
    });
  });
});

describe("fields named like credentials", () => {
  it.each(["json", "text"] as const)("are replaced whole, at any depth (%s)", (format) => {
    const { logger, output } = captureLog({ format });
    logger.info(
      {
        token: S,
        appKey: S,
        app_key: S,
        appId: S,
        password: S,
        secret: S,
        authorization: S,
        headers: { authorization: S, app_key: S, "x-api-key": S, "App-Key": S, accept: "json" },
        config: { smtp: { auth: { user: "mailer", pass: S } }, webhookSecret: S, slackToken: S },
        channels: [{ type: "webhook", signingSecret: S }],
      },
      "settings",
    );
    logger.child({ apiToken: S, role: "poller" }).info("child");
    expect(output()).not.toContain(S);
    expect(output()).toContain("[redacted]");
    expect(output()).toContain("json"); // neighbours of a secret stay
    expect(output()).toContain("poller");
  });

  it("URL fields keep scheme, host and the start of the path; the rest may be the credential", () => {
    const { logger, entries } = captureLog();
    logger.info({
      channel: { type: "webhook", url: `https://receiver.example.org/hooks/in/${S}` },
      smtpUrl: `smtp://mailer:${S}@smtp.example.com:587`,
      redisUrl: `redis://:${S}@cache.internal:6379`,
      endpoint: `https://hooks.slack.com/services/T0/B0/${S}`,
    });
    const entry = entries()[0];
    expect(JSON.stringify(entry)).not.toContain(S);
    expect(entry).toMatchObject({
      channel: { type: "webhook", url: "https://receiver.example.org/hooks/in…" },
      smtpUrl: "smtp://smtp.example.com:587",
      redisUrl: "redis://cache.internal:6379",
    });
    expect(String(entry?.endpoint)).toMatch(/^https:\/\/hooks\.slack\.com\//);
  });

  it("email settings as an object lose the password; describeEmailSettings keeps the host", () => {
    const settings = readEmailSettings({
      SMTP_URL: `smtps://mailer:${S}@smtp.example.com`,
      EMAIL_FROM: "Flightwatch <alerts@example.com>",
    });
    const { logger, output } = captureLog();
    logger.info({ email: settings }, "email settings");
    logger.info({ email: settings && describeEmailSettings(settings) }, "email");
    expect(output()).not.toContain(S);
    expect(output()).toContain("smtps://mailer:***@smtp.example.com:465");
  });
});

describe("printf arguments", () => {
  const state = { session: { cookie: S, privateKey: S, user: "ops" } };
  it.each([
    ["%j", (l: Logger) => l.info("state %j", state)],
    ["%o", (l: Logger) => l.info("state %o", state)],
    ["%O", (l: Logger) => l.info("state %O", state)],
  ])("get the field-name rules too (%s)", (_, log) => {
    const { logger, output } = captureLog();
    log(logger);
    expect(output()).not.toContain(S);
    expect(output()).toContain("ops");
  });
});

describe("secrets given by value", () => {
  it("are masked wherever they appear, percent-encoded too, even without a recognisable shape", () => {
    const secret = "shapeless/secret+value";
    const { logger, output } = captureLog({ secrets: [secret, "short"] });
    logger.info(`posting with ${secret}`);
    logger.info({ note: `q=${encodeURIComponent(secret)}` }, "encoded");
    logger.child({ who: secret }).warn({ err: new Error(`x ${secret}`) }, "error");
    logger.info("a short secret is left alone: short");
    expect(output()).not.toContain(secret);
    expect(output()).not.toContain(encodeURIComponent(secret));
    expect(output()).toContain("[redacted]");
    expect(output()).toContain("left alone: short");
  });
});

describe("errors from the project's own code paths", () => {
  it("connectRedis failing at a URL with a password: code and variable shown, password not", async () => {
    // A port that refuses connections: open one, note its number, close it.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const err = await connectRedis(`redis://:${S}@127.0.0.1:${port}`, { timeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FlightwatchError);
    for (const format of ["json", "text"] as const) {
      const { logger, output } = captureLog({ format });
      logger.fatal({ err }, "cannot start");
      expect(output()).not.toContain(S);
      expect(output()).toContain(ErrorCode.REDIS_UNAVAILABLE);
      expect(output()).toContain("REDIS_URL");
      expect(output()).toContain("127.0.0.1");
    }
  });

  it("an ioredis reply to AUTH carries the password in err.command.args: not logged", async () => {
    const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      const err = await redis.call("auth", S).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      // The real error holds it: this is what the logger must not write.
      expect(JSON.stringify((err as { command?: unknown }).command)).toContain(S);
      const { logger, output, entries } = captureLog();
      logger.error({ err }, "auth");
      expect(output()).not.toContain(S);
      expect(entries()[0]).toMatchObject({
        err: { command: { name: "auth", args: "[redacted]" } },
      });
    } finally {
      redis.disconnect();
    }
  });

  it("UpstreamError details keep operation and host", () => {
    const err = new UpstreamError(ErrorCode.UPSTREAM_AUTH, "getFlights: HTTP 401", {
      operation: "getFlights",
      url: `https://api.example.com/public-flights/flights?page=1&app_key=${S}`,
      status: 401,
    });
    const { logger, entries, output } = captureLog();
    logger.error({ err }, "poll failed");
    expect(output()).not.toContain(S);
    expect(entries()[0]).toMatchObject({
      err: {
        code: ErrorCode.UPSTREAM_AUTH,
        details: {
          operation: "getFlights",
          status: 401,
          url: expect.stringContaining("api.example.com"),
        },
      },
    });
  });
});
