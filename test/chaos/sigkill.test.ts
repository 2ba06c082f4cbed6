/**
 * Chaos: SIGKILL the daemon 20 times in one run and start it again — ten times at a
 * random instant (some while it starts up), ten times at the named crash points of
 * src/crash-point.ts (after the detection commit, before the dispatch commit, between
 * enqueueing and acknowledging an alert, after a send and before its acknowledgement,
 * …) — while gates keep moving. Every gate value owed arrives exactly once per rule
 * (signed webhook, grouped webhook, email), in order, under one notification id;
 * nothing else arrives; the last daemon is ready and stops cleanly. See
 * sigkill-scenario.ts; `CHAOS_SEED=<n>` replays a run.
 */
import { describe, expect, it } from "vitest";
import { sigkillScenario } from "./sigkill-scenario.js";

const KILLS = 20;

describe("chaos: SIGKILL at random moments and at crash points", () => {
  it(`delivers every alert exactly once across ${KILLS} kills`, async () => {
    const outcome = await sigkillScenario({ name: "chaos-sigkill", kills: KILLS });
    const byHow = new Map<string, number>();
    for (const k of outcome.kills) byHow.set(k.how, (byHow.get(k.how) ?? 0) + 1);
    console.info(
      `sigkill (seed ${outcome.seed}): ${outcome.kills.length} kills (${[...byHow]
        .map(([how, n]) => `${n} ${how}`)
        .join(", ")}; ${outcome.kills.filter((k) => !k.wasRunning).length} during start-up), ${
        outcome.moves
      } gate moves, ${outcome.verdict.notifications} notifications (${
        outcome.verdict.repeats
      } repeated under their id after a kill), ${outcome.verdict.owed} owed values (${
        outcome.verdict.owedByPoll
      } seen by a committed poll) all delivered, ${outcome.seconds} s`,
    );
    expect(outcome.kills.length).toBeGreaterThanOrEqual(20);
    // At least half of the kills were the process's own, at a crash point.
    expect(outcome.kills.filter((k) => k.how !== "random").length).toBeGreaterThanOrEqual(8);
  });
});
