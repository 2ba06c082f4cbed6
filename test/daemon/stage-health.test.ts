import { describe, expect, it } from "vitest";
import { StageHealth } from "../../src/daemon/stage-health.js";

describe("StageHealth", () => {
  it("finds a stage stuck once it has failed without a break for the bound, and only then", () => {
    let now = 0;
    const health = new StageHealth({ stuckAfterMs: 60_000, quietMs: 10_000, monotonic: () => now });
    const fail = () => health.failed("dispatch", new Error("WRONGTYPE Operation against a key"));
    for (; now < 59_000; now += 500) fail();
    expect(health.stuck()).toEqual([]);
    for (; now <= 60_500; now += 500) fail();
    expect(health.stuck()).toEqual([
      {
        stage: "dispatch",
        forMs: 61_000,
        failures: 122,
        lastError: "WRONGTYPE Operation against a key",
      },
    ]);
    // A step that goes through ends the streak.
    health.ok("dispatch");
    expect(health.stuck()).toEqual([]);
  });

  it("starts a new streak after a quiet spell, and forgets a stage gone quiet", () => {
    let now = 0;
    const health = new StageHealth({ stuckAfterMs: 30_000, quietMs: 10_000, monotonic: () => now });
    health.failed("deliver", new Error("boom"));
    now = 25_000;
    health.failed("deliver", new Error("boom")); // 25 s after: a new streak
    now = 50_000;
    health.failed("deliver", new Error("boom")); // 25 s after again
    expect(health.stuck()).toEqual([]);
    // Failing every 5 s for 35 s is a streak; 15 s of quiet after it, it is not stuck.
    for (now = 100_000; now <= 135_000; now += 5_000) health.failed("notify", new Error("x"));
    expect(health.stuck().map((s) => s.stage)).toEqual(["notify"]);
    now += 15_000;
    expect(health.stuck()).toEqual([]);
  });
});
