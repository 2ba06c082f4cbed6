/**
 * Chaos: a running daemon's wall clock is stepped back an hour while gates move, with
 * mail waiting to retry and groups waiting for their time: see clock-jump-scenario.ts.
 * The fast subset in `npm test` is test/acceptance/clock-jump-subset.test.ts.
 */
import { describe, expect, it } from "vitest";
import { clockJumpScenario } from "./clock-jump-scenario.js";

describe("chaos: the clock jumps back an hour", () => {
  it("keeps polling, retrying and grouping on time, and delivers every value once", async () => {
    const verdict = await clockJumpScenario({
      name: "chaos-clock",
      beforeMs: 15_000,
      afterMs: 30_000,
    });
    expect(verdict.owed).toBeGreaterThan(30);
  }, 300_000);
});
