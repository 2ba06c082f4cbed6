/**
 * The logger's shape: valid JSON lines with label levels, ISO times, base fields and
 * child bindings; level filtering; errors with code and cause chain; the text format;
 * LOG_LEVEL parsing.
 */
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { ConfigError, ErrorCode, FlightwatchError, UpstreamError } from "../../src/errors.js";
import { LOG_LEVELS, parseLogLevel } from "../../src/log/logger.js";
import { captureLog } from "./log-capture.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("JSON format", () => {
  it("writes one JSON object per line: label level, ISO time, base fields, message", () => {
    const { logger, lines, entries } = captureLog();
    const before = Date.now();
    logger.info("poll 3 done");
    logger.warn({ changes: 2, note: 'quotes " and \\ and\nnewline' }, "second");
    const after = Date.now();

    expect(lines()).toHaveLength(2);
    for (const line of lines()) expect(() => JSON.parse(line)).not.toThrow();
    const [first, second] = entries();
    expect(first).toMatchObject({
      level: "info",
      service: "flightwatch",
      pid: process.pid,
      hostname: hostname(),
      msg: "poll 3 done",
    });
    expect(first?.time).toMatch(ISO_MS);
    const t = Date.parse(String(first?.time));
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
    expect(second).toMatchObject({
      level: "warn",
      changes: 2,
      note: 'quotes " and \\ and\nnewline',
    });
    // Level and time first, so that `head -c` and grep see them.
    expect(lines()[0]).toMatch(/^\{"level":"info","time":"/);
  });

  it("adds base fields to the defaults, and can replace them; they are masked too", () => {
    const { logger, entries, output } = captureLog({
      base: { version: "1.2.3", hostname: "box-1", redis: "redis://:base-secret-1@cache:6379" },
    });
    logger.info("x");
    expect(entries()[0]).toMatchObject({
      service: "flightwatch",
      version: "1.2.3",
      hostname: "box-1",
      pid: process.pid,
      redis: "redis://:***@cache:6379",
    });
    expect(output()).not.toContain("base-secret-1");
  });

  it("child loggers carry their bindings, grandchildren their parents' too", () => {
    const { logger, entries } = captureLog();
    const poller = logger.child({ role: "poller" });
    const flight = poller.child({ flightId: "123456789012345678" });
    const delivery = logger.child({ role: "worker" }).child({
      notificationId: "n_1",
      channel: "slack",
      ruleId: "gate-change",
    });
    flight.info("changed");
    delivery.info("sent");
    poller.info("idle");
    expect(entries()).toMatchObject([
      { role: "poller", flightId: "123456789012345678", msg: "changed" },
      { role: "worker", notificationId: "n_1", channel: "slack", ruleId: "gate-change" },
      { role: "poller", msg: "idle" },
    ]);
    expect(entries()[2]).not.toHaveProperty("flightId");
  });

  it("writes the levels at or above the configured one, and nothing when silent", () => {
    const levels = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
    const written = (level: (typeof LOG_LEVELS)[number]): unknown[] => {
      const { logger, entries } = captureLog({ level });
      for (const l of levels) logger[l](l);
      return entries().map((e) => e.level);
    };
    expect(written("trace")).toEqual(levels);
    expect(written("info")).toEqual(["info", "warn", "error", "fatal"]);
    expect(written("error")).toEqual(["error", "fatal"]);
    expect(written("silent")).toEqual([]);
  });

  it("defaults to info", () => {
    const { logger, entries } = captureLog({ level: undefined });
    logger.debug("hidden");
    logger.info("shown");
    expect(entries().map((e) => e.msg)).toEqual(["shown"]);
  });

  it("writes an error with its type, code, message, stack, own fields and cause chain", () => {
    const { logger, entries } = captureLog();
    const root = new Error("socket hang up");
    const upstream = new UpstreamError(
      ErrorCode.UPSTREAM_NETWORK,
      "getFlights: network error after 3 attempts",
      {
        operation: "getFlights",
        url: "https://api.example.com/public-flights/flights",
        attempts: 3,
      },
      { cause: root },
    );
    const top = new FlightwatchError(ErrorCode.UPSTREAM_HTTP, "poll failed", { cause: upstream });
    logger.error({ err: top, poll: 7 }, "poll failed");
    logger.error(new ConfigError("LOG_LEVEL", "bad"));

    const [first, second] = entries();
    expect(first).toMatchObject({
      level: "error",
      poll: 7,
      msg: "poll failed",
      err: {
        type: "FlightwatchError",
        code: "FW_ERR_UPSTREAM_HTTP",
        message: "poll failed",
        cause: {
          type: "UpstreamError",
          code: "FW_ERR_UPSTREAM_NETWORK",
          details: { operation: "getFlights", attempts: 3 },
          cause: { type: "Error", message: "socket hang up" },
        },
      },
    });
    const err = first?.err as { stack: string; cause: { stack: string } };
    expect(err.stack).toContain("FlightwatchError: poll failed\n    at ");
    expect(err.cause.stack).toContain("UpstreamError: getFlights");
    // Logged alone, the error's message becomes the entry's message.
    expect(second).toMatchObject({
      msg: "LOG_LEVEL: bad",
      err: { type: "ConfigError", code: "FW_ERR_CONFIG_INVALID", setting: "LOG_LEVEL" },
    });
  });

  it("survives a cause cycle and values JSON cannot hold", () => {
    const { logger, entries } = captureLog();
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;
    logger.error({ err: a, loop, big: 2n ** 70n, when: new Date(0), body: Buffer.from("secret") });
    const entry = entries()[0];
    expect(entry).toMatchObject({
      err: { message: "a", cause: { message: "b", cause: "[circular]" } },
      loop: { name: "loop", self: "[circular]" },
      big: "1180591620717411303424",
      when: "1970-01-01T00:00:00.000Z",
      body: "[Buffer 6 bytes]",
    });
  });
});

describe("text format", () => {
  it("writes one readable line per entry: time, level, message, context fields first", () => {
    const { logger, output, lines } = captureLog({ format: "text" });
    logger
      .child({ role: "poller" })
      .info({ changes: 3, ruleId: "gate", flightId: "123456789012345678" }, "poll 3 incremental");
    logger.warn({ reason: "no route", multi: "a\nb" }, "line one\nline two");
    logger.error(
      {
        err: new FlightwatchError(ErrorCode.REDIS_UNAVAILABLE, "down", {
          cause: new Error("ECONNREFUSED"),
        }),
      },
      "redis",
    );

    expect(output().endsWith("\n")).toBe(true);
    expect(lines()).toHaveLength(3);
    expect(lines()[0]).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}poll 3 incremental role=poller flightId=123456789012345678 ruleId=gate changes=3$/,
    );
    expect(lines()[1]).toMatch(/ WARN {2}line one\\nline two reason="no route" multi="a\\nb"$/);
    expect(lines()[2]).toMatch(
      / ERROR redis err="FlightwatchError: down \[FW_ERR_REDIS_UNAVAILABLE\] ← Error: ECONNREFUSED"$/,
    );
    // pid, hostname and service are in every JSON line; a terminal does not need them.
    expect(output()).not.toContain("hostname");
  });

  it("filters levels like the JSON format", () => {
    const { logger, lines } = captureLog({ format: "text", level: "warn" });
    logger.info("no");
    logger.warn("yes");
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toContain("WARN  yes");
  });
});

describe("parseLogLevel", () => {
  it("accepts every level in any case, and defaults to info when unset or empty", () => {
    for (const level of LOG_LEVELS) {
      expect(parseLogLevel(level)).toBe(level);
      expect(parseLogLevel(` ${level.toUpperCase()} `)).toBe(level);
    }
    expect(parseLogLevel(undefined)).toBe("info");
    expect(parseLogLevel("")).toBe("info");
  });

  it("refuses anything else, naming the variable and every accepted value", () => {
    const err = (() => {
      try {
        parseLogLevel("verbose", "FLIGHTWATCH_LOG_LEVEL");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe(ErrorCode.CONFIG_INVALID);
    expect((err as ConfigError).setting).toBe("FLIGHTWATCH_LOG_LEVEL");
    const message = (err as ConfigError).message;
    expect(message).toContain("FLIGHTWATCH_LOG_LEVEL");
    expect(message).toContain('"verbose"');
    for (const level of LOG_LEVELS) expect(message).toContain(level);
    expect(() => parseLogLevel("warning")).toThrow(/^LOG_LEVEL: /);
  });
});
