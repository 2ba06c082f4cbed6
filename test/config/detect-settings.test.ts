import { describe, expect, it } from "vitest";
import { detectorSettingsFromEnv, redisSettingsFromEnv } from "../../src/config/detect-settings.js";
import { DEFAULT_DETECTOR_SETTINGS } from "../../src/detect/detector.js";
import { ErrorCode } from "../../src/errors.js";

const configError = (setting: string) =>
  expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting });

describe("detectorSettingsFromEnv", () => {
  it("defaults every setting", () => {
    expect(detectorSettingsFromEnv({})).toEqual(DEFAULT_DETECTOR_SETTINGS);
    expect(DEFAULT_DETECTOR_SETTINGS).toMatchObject({
      intervalMs: 30_000,
      overlapMs: 60_000,
      overlapMinMs: 1_000,
      reconcileEveryMs: 3_600_000,
      horizon: { past: 1, future: 2 },
      pollTimeoutMs: 300_000,
    });
  });

  it("reads durations and days, flags overriding the environment", () => {
    const settings = detectorSettingsFromEnv(
      {
        POLL_INTERVAL: "2s",
        POLL_OVERLAP: "90s",
        POLL_OVERLAP_MIN: "5s",
        RECONCILE_INTERVAL: "0",
        HORIZON_PAST_DAYS: "0",
        HORIZON_FUTURE_DAYS: "5",
        SNAPSHOT_TTL: "1d",
        OUTBOX_RETENTION: "2h",
        POLL_TIMEOUT: "90s",
      },
      { POLL_INTERVAL: "500ms" },
    );
    expect(settings).toMatchObject({
      intervalMs: 500,
      overlapMs: 90_000,
      overlapMinMs: 5_000,
      reconcileEveryMs: 0,
      horizon: { past: 0, future: 5 },
      snapshotTtlMs: 86_400_000,
      outboxRetentionMs: 7_200_000,
      pollTimeoutMs: 90_000,
    });
  });

  it.each([
    ["POLL_INTERVAL", "soon"],
    ["POLL_INTERVAL", "50ms"],
    ["POLL_OVERLAP", "-1s"],
    ["POLL_OVERLAP_MIN", "2"],
    ["RECONCILE_INTERVAL", "15 minutes"],
    ["HORIZON_FUTURE_DAYS", "two"],
    ["OUTBOX_RETENTION", "1s"],
    ["POLL_TIMEOUT", "300"],
    ["POLL_TIMEOUT", "500ms"],
    ["POLL_TIMEOUT", "forever"],
  ])("names %s when it is %j", (name, value) => {
    expect(() => detectorSettingsFromEnv({ [name]: value })).toThrowError(configError(name));
  });

  it("refuses a horizon beyond two weeks", () => {
    expect(() => detectorSettingsFromEnv({ HORIZON_PAST_DAYS: "30" })).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID }),
    );
  });

  it("refuses snapshots that would expire while their flight is still watched", () => {
    expect(() =>
      detectorSettingsFromEnv({ HORIZON_PAST_DAYS: "3", SNAPSHOT_TTL: "3d" }),
    ).toThrowError(configError("SNAPSHOT_TTL"));
  });
});

describe("redisSettingsFromEnv", () => {
  it("defaults to the local Redis and the flightwatch prefix", () => {
    expect(redisSettingsFromEnv({})).toEqual({
      url: "redis://127.0.0.1:6379",
      prefix: "flightwatch",
      deliveryShards: 1,
    });
  });

  it("splits delivery over 8 shards on a cluster, or as DELIVERY_SHARDS says", () => {
    const cluster = "redis://127.0.0.1:7000?cluster";
    expect(redisSettingsFromEnv({ REDIS_URL: cluster }).deliveryShards).toBe(8);
    expect(redisSettingsFromEnv({ REDIS_URL: cluster, DELIVERY_SHARDS: "3" }).deliveryShards).toBe(
      3,
    );
    expect(redisSettingsFromEnv({ DELIVERY_SHARDS: " 256 " }).deliveryShards).toBe(256);
    expect(redisSettingsFromEnv({ DELIVERY_SHARDS: "1" }).deliveryShards).toBe(1);
    for (const bad of ["0", "257", "2.5", "-1", "four", "1e2", "12345"]) {
      expect(() => redisSettingsFromEnv({ DELIVERY_SHARDS: bad })).toThrowError(
        configError("DELIVERY_SHARDS"),
      );
    }
  });

  it("refuses other schemes and masks the password in its message", () => {
    expect(() => redisSettingsFromEnv({ REDIS_URL: "http://u:secret@host:6379" })).toThrowError(
      configError("REDIS_URL"),
    );
    try {
      redisSettingsFromEnv({ REDIS_URL: "not a url :secret@" });
    } catch (err) {
      expect(String(err)).not.toContain("secret");
    }
  });
});
