/**
 * The fast subset of test/chaos/clock-jump.test.ts for `npm test`: the daemon's wall
 * clock stepped back an hour under libfaketime while gates move, mail waits to retry
 * and a group waits for its time, judged by the chaos ledger (clock-jump-scenario.ts).
 */
import { describe, expect, it } from "vitest";
import { clockJumpScenario } from "../chaos/clock-jump-scenario.js";

describe("the clock jumps back an hour (fast subset of the chaos test)", () => {
  it("keeps polling, retrying and grouping on time, and delivers every value once", async () => {
    const verdict = await clockJumpScenario({
      name: "clock-subset",
      beforeMs: 8_000,
      afterMs: 10_000,
    });
    expect(verdict.owed).toBeGreaterThan(5);
  }, 120_000);
});
