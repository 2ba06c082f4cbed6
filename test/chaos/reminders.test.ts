/**
 * The reminder chaos test: the daemon SIGKILLed eight times, every four seconds, across
 * a reminder's due time. It arrives exactly once (reminder-scenario.ts).
 */
import { describe, it } from "vitest";
import { reminderScenario } from "./reminder-scenario.js";

describe("chaos: reminders across SIGKILLs", () => {
  it("arrive once across 8 kills around their due time", async () => {
    await reminderScenario({ name: "reminders-chaos", kills: 8, firstMs: 15_000, everyMs: 4_000 });
  }, 300_000);
});
