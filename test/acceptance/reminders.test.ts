/**
 * Reminders through the real daemon, on the wall clock, with the daemon killed three
 * times around the due time (the chaos set does it more often: test/chaos/reminders.test.ts).
 */
import { describe, it } from "vitest";
import { reminderScenario } from "../chaos/reminder-scenario.js";

describe("acceptance: reminders", () => {
  it("arrive once, across kills around their due time; none for a cancelled flight", async () => {
    await reminderScenario({ name: "reminders", kills: 3, firstMs: 25_000, everyMs: 9_000 });
  }, 240_000);
});
