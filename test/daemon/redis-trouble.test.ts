/**
 * The daemon's error log during a Redis outage: one warning when it starts, a reminder
 * per interval while it lasts, one info line when Redis is back; a job that lost its
 * lock is a warning too; every other error is logged at error level, as before.
 */
import { describe, expect, it } from "vitest";
import {
  isLockLost,
  isRedisConnectionError,
  RedisTroubleLog,
  redisRefusal,
} from "../../src/daemon/redis-trouble.js";
import { ErrorCode, FlightwatchError } from "../../src/errors.js";
import { captureLog } from "../log/log-capture.js";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" });
const maxRetries = () =>
  Object.assign(new Error("Reached the max retries per request limit (which is 3)."), {
    name: "MaxRetriesPerRequestError",
  });

describe("RedisTroubleLog", () => {
  it("tells connection trouble from other errors", () => {
    expect(isRedisConnectionError(refused())).toBe(true);
    expect(isRedisConnectionError(maxRetries())).toBe(true);
    expect(isRedisConnectionError(new Error("Connection is closed."))).toBe(true);
    expect(
      isRedisConnectionError(new Error("LOADING Redis is loading the dataset in memory")),
    ).toBe(true);
    expect(
      isRedisConnectionError(new FlightwatchError(ErrorCode.REDIS_UNAVAILABLE, "no Redis")),
    ).toBe(true);
    expect(isRedisConnectionError(new Error("Missing lock for job msg_1. moveToFinished"))).toBe(
      false,
    );
    expect(isRedisConnectionError(new Error("WRONGTYPE Operation against a key"))).toBe(false);
    expect(isRedisConnectionError("ECONNREFUSED")).toBe(false);
    expect(isLockLost(new Error("could not renew lock for job repeat:poll:1"))).toBe(true);
    expect(isLockLost(new Error("Missing lock for job msg_1. moveToFinished"))).toBe(true);
    expect(isLockLost(new Error("Missing key for job repeat:poll:1. moveToFinished"))).toBe(true);
    expect(isLockLost(refused())).toBe(false);
  });

  it("warns once per outage and per reminder interval, and says when Redis is back", () => {
    const capture = captureLog();
    let now = 1_000;
    const trouble = new RedisTroubleLog(capture.logger, { repeatMs: 10_000, now: () => now });
    // An outage of 25 s: three connections failing every 200 ms.
    for (; now < 26_000; now += 200) {
      trouble.error(refused(), "pipeline error");
      trouble.error(refused(), "delivery worker error");
      trouble.error(maxRetries(), "pipeline error");
    }
    trouble.recovered();
    trouble.recovered();
    // A second outage, a job that lost its lock in it, and a fault of another kind.
    trouble.error(refused(), "delivery worker error");
    trouble.error(new Error("Missing lock for job msg_1. moveToFinished"), "delivery worker error");
    trouble.error(new Error("WRONGTYPE Operation against a key"), "pipeline error");
    const lines = capture.entries().map((e) => [e.level, e.msg, e.source, e.heldBack, e.downMs]);
    expect(lines).toEqual([
      [
        "warn",
        "Redis out of reach; retrying until it answers",
        "pipeline error",
        undefined,
        undefined,
      ],
      ["warn", "Redis still out of reach after 10 s; retrying", "pipeline error", 149, 10_000],
      ["warn", "Redis still out of reach after 20 s; retrying", "pipeline error", 149, 20_000],
      ["info", "Redis answers again after 25 s; carrying on", undefined, undefined, 25_000],
      [
        "warn",
        "Redis out of reach; retrying until it answers",
        "delivery worker error",
        undefined,
        undefined,
      ],
      [
        "warn",
        "a job outlived its lock (Redis away longer than the lock, or this process stalled): another worker runs it again",
        "delivery worker error",
        undefined,
        undefined,
      ],
      ["error", "pipeline error", undefined, undefined, undefined],
    ]);
    expect(capture.entries()[3]?.errors).toBe(375);
  });
});

describe("Redis refusing commands", () => {
  const replyError = (message: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(message), { name: "ReplyError", ...extra });

  it("tells each refusal by kind, with what the operator should do", () => {
    const cases: [string, string | undefined][] = [
      ["OOM command not allowed when used memory > 'maxmemory'.", "oom"],
      ["READONLY You can't write against a read only replica.", "readonly"],
      [
        "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)",
        "readonly",
      ],
      ["MOVED 2661 127.0.0.1:7100", "cluster"],
      ["ASK 2661 127.0.0.1:7101", "cluster"],
      // A cluster failing over is out of reach for a while, not a refusal.
      ["CLUSTERDOWN The cluster is down", undefined],
      ["CROSSSLOT Keys in request don't hash to the same slot", "crossslot"],
      ["NOAUTH Authentication required.", "auth"],
      ["WRONGPASS invalid username-password pair or user is disabled.", "auth"],
      ["NOPERM this user has no permissions to run the 'xadd' command", "auth"],
      ["MISCONF Redis is configured to save RDB snapshots, but it's currently unable", "misconf"],
      ["WRONGTYPE Operation against a key holding the wrong kind of value", undefined],
      ["NOGROUP No such key 'x' or consumer group 'g'", undefined],
    ];
    for (const [message, reason] of cases) {
      expect(redisRefusal(replyError(message))?.reason, message).toBe(reason);
    }
    // A transaction refused as a whole is refused for its commands' reason.
    const aborted = replyError("EXECABORT Transaction discarded because of previous errors.", {
      previousErrors: [replyError("OOM command not allowed when used memory > 'maxmemory'.")],
    });
    expect(redisRefusal(aborted)?.reason).toBe("oom");
    expect(redisRefusal("OOM")).toBeUndefined();
    expect(redisRefusal(replyError("MOVED 1 x"))?.advice).toMatch(
      /add it \(redis:\/\/host:6379\?cluster/,
    );
    for (const message of [
      "CLUSTERDOWN The cluster is down",
      "Too many Cluster redirections. Last error: Error: Connection is closed.",
      "Failed to refresh slots cache.",
      "None of startup nodes is available",
    ]) {
      expect(isRedisConnectionError(new Error(message)), message).toBe(true);
    }
  });

  it("logs one error line per kind and reminder interval, counting each error", () => {
    const capture = captureLog();
    let now = 0;
    const reasons: string[] = [];
    const trouble = new RedisTroubleLog(capture.logger, {
      repeatMs: 10_000,
      now: () => now,
      onError: (reason) => reasons.push(reason),
    });
    const oom = () => replyError("OOM command not allowed when used memory > 'maxmemory'.");
    for (; now < 25_000; now += 250) {
      trouble.error(oom(), "poll failed");
      trouble.error(oom(), "delivery worker error");
    }
    trouble.error(replyError("READONLY You can't write against a read only replica."), "x");
    const lines = capture.entries().map((e) => [e.level, e.reason, e.heldBack]);
    expect(lines).toEqual([
      ["error", "oom", undefined],
      ["error", "oom", 79],
      ["error", "oom", 79],
      ["error", "readonly", undefined],
    ]);
    expect(reasons.filter((r) => r === "oom")).toHaveLength(200);
    expect(reasons.at(-1)).toBe("readonly");
  });
});
