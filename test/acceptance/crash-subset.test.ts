/**
 * The fast subset of the SIGKILL chaos test (test/chaos/sigkill.test.ts), for
 * `npm test`: the same scenario with three kills — at a random instant, by the
 * process itself after a send and before its acknowledgement, and at a random
 * instant again — while gates move. Every gate value owed arrives exactly once per
 * rule and nothing else does.
 */
import { describe, expect, it } from "vitest";
import { sigkillScenario } from "../chaos/sigkill-scenario.js";

describe("acceptance: a daemon killed three times", () => {
  it("delivers every alert exactly once across 3 kills", async () => {
    const outcome = await sigkillScenario({
      name: "crash-subset",
      kills: 3,
      crashPoints: ["deliver.after-send"],
      catchUpMs: 15_000,
      randomAfterMs: { start: [300, 2_000], running: [200, 1_500] },
    });
    console.info(
      `crash-subset (seed ${outcome.seed}): ${outcome.kills.map((k) => k.how).join(", ")}; ${
        outcome.moves
      } moves, ${outcome.verdict.notifications} notifications, ${outcome.seconds} s`,
    );
    expect(outcome.kills.map((k) => k.how.replace(/:\d+$/, ""))).toEqual([
      "random",
      "deliver.after-send",
      "random",
    ]);
  }, 60_000);
});
