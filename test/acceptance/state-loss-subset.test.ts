/**
 * The fast subset of test/chaos/redis-data-loss.test.ts for `npm test`: Redis restarted
 * twice without its data under a running daemon while gates move, judged by the same
 * ledger (state-loss-scenario.ts).
 */
import { describe, expect, it } from "vitest";
import { stateLossScenario } from "../chaos/state-loss-scenario.js";

describe("Redis loses its data (fast subset of the chaos test)", () => {
  it("re-baselines silently and delivers every value kept while it watched, once", async () => {
    const verdict = await stateLossScenario({ name: "loss-subset", losses: 2, gapMs: 7_000 });
    expect(verdict.owed).toBeGreaterThan(5);
  }, 120_000);
});
