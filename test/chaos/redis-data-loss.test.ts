/**
 * Chaos: Redis loses flightwatch's data under a running daemon, five times (restarted
 * without persistence, by SHUTDOWN and by SIGKILL) while gates move: see
 * state-loss-scenario.ts. The fast subset in `npm test` is
 * test/acceptance/state-loss-subset.test.ts.
 */
import { describe, expect, it } from "vitest";
import { stateLossScenario } from "./state-loss-scenario.js";

describe("chaos: Redis loses its data", () => {
  it("re-baselines silently each time and delivers every value kept while it watched, once", async () => {
    const verdict = await stateLossScenario({ name: "chaos-loss", losses: 5, gapMs: 8_000 });
    expect(verdict.owed).toBeGreaterThan(20);
  }, 300_000);
});
