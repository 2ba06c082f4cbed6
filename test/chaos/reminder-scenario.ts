/**
 * The reminder kill scenario, shared by the chaos test (several kills) and its subset
 * in `npm test`: one `flightwatch run` on the wall clock against the simulator, a real
 * Redis and a webhook receiver; a rule asks for a reminder before the departure of two
 * flights, due about 45 s after the test starts, and the daemon is SIGKILLed and started
 * again every few seconds around that moment. The reminder of the flight that still
 * leaves arrives exactly once (one delivery, one id); the cancelled flight's never
 * does; the one far ahead has none yet.
 */
import { expect } from "vitest";
import { departure } from "../acceptance/cast.js";
import { webhook } from "../acceptance/deliveries.js";
import { timeline } from "../acceptance/timeline.js";

const MINUTE = 60_000;

/** How the scenario runs. */
export interface ReminderScenarioOptions {
  name: string;
  /** SIGKILL + start again this many times, `everyMs` apart from `firstMs` after t0. */
  kills: number;
  firstMs: number;
  everyMs: number;
}

export async function reminderScenario(options: ReminderScenarioOptions): Promise<void> {
  const start = Date.now();
  // The cast's schedule is in whole minutes; the reminder's `by` makes it due 45 s from
  // now whatever the rounding (the daemon takes its baseline within that, even on a
  // busy machine).
  const scheduled = Math.floor((start + 40 * MINUTE) / MINUTE) * MINUTE;
  const dueAt = start + 45_000;
  const by = `${Math.round((scheduled - dueAt) / 1000)}s`;
  const tl = timeline({
    name: options.name,
    cast: [
      departure("KL1890", { gate: "D4", in: "40m" }),
      departure("KL1891", { gate: "D5", in: "40m" }),
      departure("KL1892", { gate: "D6", in: "5h" }),
    ],
    rules: `
rules:
  - id: remind
    flights: { flight: [KL1890, KL1891, KL1892] }
    changes: []
    remind: [{ before: departure, by: ${by} }]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`,
  });
  tl.at("0s")
    .cancel("KL1891")
    .expect(
      webhook("remind")
        .about("KL1890")
        .saying(/^KL1890 departs in \d+ min from gate D4/),
      {
        within: "100s",
      },
    );
  for (let i = 0; i < options.kills; i++) {
    const at = options.firstMs + i * options.everyMs;
    tl.at(`${at}ms`).kill();
    tl.at(`${at + 1_500}ms`).restart();
  }
  const result = await tl.run();
  const reminders = result.deliveries.filter((d) => d.ruleId === "remind");
  // Exactly one, by delivery and by id; none for the cancelled flight or the far one.
  expect(reminders.map((d) => d.flight)).toEqual(["KL1890"]);
  expect(new Set(reminders.map((d) => d.id)).size).toBe(1);
  expect(reminders[0]?.receivedAt).toBeGreaterThanOrEqual(dueAt - 5_000);
}
