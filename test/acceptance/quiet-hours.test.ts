/**
 * Quiet hours through the real daemon, on the wall clock: a rule whose window is on
 * now and ends at the next whole minute (UTC) holds a gate change until that minute,
 * and sends it then as one message — while a cancellation, critical, goes at once.
 */
import { expect as assert, describe, it } from "vitest";
import { departure } from "./cast.js";
import { webhook } from "./deliveries.js";
import { timeline } from "./timeline.js";

/** `HH:MM` of an instant in UTC. */
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe("acceptance: quiet hours", () => {
  it("hold what is not critical to the window's end; a cancellation goes at once", async () => {
    // The window: from an hour ago to the first whole minute at least 40 s away (the
    // daemons start within that, even on a busy machine).
    const end = Math.ceil((Date.now() + 40_000) / 60_000) * 60_000;
    const tl = timeline({
      name: "quiet-hours",
      cast: [
        // Three hours ahead: a gate change is not critical (that is within an hour).
        departure("KL1880", { gate: "D4", in: "3h" }),
        departure("KL1881", { gate: "D5", in: "4h" }),
      ],
      rules: `
rules:
  - id: night
    changes: [gate, cancelled]
    quiet_hours: { from: "${hhmm(end - 3_600_000)}", to: "${hhmm(end)}", zone: UTC }
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`,
    });
    tl.at("0s")
      .gate("KL1880", "D6")
      .expect(webhook("night").about("KL1880").change({ field: "gate", old: "D4", new: "D8" }), {
        within: "130s",
      });
    tl.at("2s")
      .gate("KL1880", "D8")
      .cancel("KL1881")
      .expect(webhook("night").about("KL1881"), { within: "15s" });
    const result = await tl.run();
    const [gate] = result.deliveries.filter((d) => d.flight === "KL1880");
    const [cancelled] = result.deliveries.filter((d) => d.flight === "KL1881");
    // One message for the night's two moves, not before the window's end.
    assert(result.deliveries.filter((d) => d.flight === "KL1880")).toHaveLength(1);
    assert(gate?.receivedAt).toBeGreaterThanOrEqual(end);
    assert(cancelled?.receivedAt).toBeLessThan(end);
  }, 240_000);
});
