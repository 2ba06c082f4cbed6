/**
 * Chaos: downtime catch-up. The daemon is stopped (SIGTERM) while ten simulated
 * minutes of changes happen upstream — their `lastUpdatedAt` spanning ten minutes (the
 * simulator's clock starts 11 minutes behind and jumps a minute after each change, so
 * no stamp is ahead of the daemon's clock) — then started again. Each change arrives once, as
 * the flight is now: a gate that went D1 → D2 → D3 while down is one alert D1 → D3
 * (never D2), for the rule that groups (`group_wait`) and the one that does not; a
 * delay that grew twice is one alert with the last time; a gate that went away and
 * came back, or a cancellation withdrawn, while down is nothing. A group left
 * waiting at the stop, whose flight moved on while the daemon was down, goes out as
 * the flight is now (D1 → D3), not with the value it had at the stop. Nothing is
 * lost though `POLL_OVERLAP` (1 s) is far shorter than the downtime and there is no
 * reconciliation to fall back on: the incremental read starts from the last stamp
 * seen, not from the daemon's clock.
 */
import { describe, expect, it } from "vitest";
import { ScaledClock } from "../../src/simulator/sim-clock.js";
import { afterSchedule, departure } from "../acceptance/cast.js";
import { webhook } from "../acceptance/deliveries.js";
import { timeline, type World } from "../acceptance/timeline.js";
import { sleep } from "../support/crash-run.js";

const GROUP_WAIT_S = 8;
const CHANGES = "[gate, departure_time, cancelled, uncancelled]";
const RULES = `
rules:
  - id: desk
    changes: ${CHANGES}
    group_wait: ${GROUP_WAIT_S}s
    channels: [{ type: webhook, name: desk, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}", format: json }]
  - id: feed
    changes: ${CHANGES}
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`;

/** Simulated minutes of downtime, one step of changes each. */
const MINUTES = 10;

describe("chaos: downtime catch-up", () => {
  it("delivers ten simulated minutes of changes once each, as the flights are now", async () => {
    const cast = [
      departure("KL2301", { gate: "D1", in: "2h" }), // moved before the stop, and while down
      departure("KL2302", { gate: "D1", in: "2h" }), // D1 → D2 → D3 while down
      departure("KL2303", { gate: "E1", in: "3h" }), // delayed 20m, then 45m
      departure("KL2304", { gate: "E2", in: "3h" }), // cancelled
      departure("KL2305", { gate: "F5", in: "3h" }), // F5 → F6 → F5: nothing
      departure("KL2306", { gate: "F6", in: "3h" }), // cancelled and un-cancelled: nothing
      departure("KL2307", { gate: "G1", in: "4h" }), // one move
      departure("KL2308", { gate: "G2", in: "4h" }), // untouched
    ];
    // Epoch ms (simulated) of each change made while the daemon was down.
    const stamps: number[] = [];
    const tl = timeline({
      name: "catch-up",
      cast,
      rules: RULES,
      env: { POLL_OVERLAP: "1s", RECONCILE_INTERVAL: "0" },
      simulatorBehind: `${MINUTES + 1}m`,
      // Longer than a group: a late second alert would still be seen.
      settle: `${GROUP_WAIT_S + 4}s`,
    });

    tl.at("1s")
      .gate("KL2301", "D2")
      .expect(webhook("feed").about("KL2301").change({ field: "gate", old: "D1", new: "D2" }));
    // Stopped while the desk's group about KL2301 waits (due 8 s after the move).
    tl.at("3s").stop(0);
    tl.at("4s").do(`${MINUTES} simulated minutes of changes`, async (w: World) => {
      const clock = w.sim.simulator.clock;
      if (!(clock instanceof ScaledClock)) throw new Error("the simulator's clock cannot skip");
      const plan: ((w: World) => void)[] = [
        () => w.apply(gate("KL2302", "D2")),
        () => w.apply(gate("KL2305", "F6")),
        () => w.apply(delay(w, "KL2303", 20)),
        () => w.apply(gate("KL2301", "D3")),
        () => w.apply(states(w, "KL2306", ["CNX"])),
        () => w.apply(gate("KL2302", "D3")),
        () => w.apply(states(w, "KL2304", ["CNX"])),
        () => w.apply(gate("KL2305", "F5")),
        () => w.apply(delay(w, "KL2303", 45)),
        () => w.apply(states(w, "KL2306", ["SCH"])),
        () => w.apply(gate("KL2307", "G7")),
      ];
      for (const [minute, change] of plan.entries()) {
        change(w);
        stamps.push(clock.now());
        w.note(`simulated minute ${minute}: change ${minute + 1} of ${plan.length}`);
        if (minute < MINUTES) {
          clock.skip(60_000);
          // Real downtime too: longer than the group of KL2301 waits.
          await sleep(1_000);
        }
      }
    });
    tl.at("20s")
      .restart(0)
      // Within a start-up on a loaded machine, a poll and a group_wait.
      .expect(webhook("desk").about("KL2301").change({ field: "gate", old: "D1", new: "D3" }), {
        within: "60s",
      })
      .expect(webhook("feed").about("KL2301").change({ field: "gate", old: "D2", new: "D3" }), {
        within: "60s",
      })
      .expect(webhook("desk").about("KL2302").change({ field: "gate", old: "D1", new: "D3" }), {
        within: "60s",
      })
      .expect(webhook("feed").about("KL2302").change({ field: "gate", old: "D1", new: "D3" }), {
        within: "60s",
      })
      .expect(webhook("desk").about("KL2303").change({ delayMinutes: 45 }), { within: "60s" })
      .expect(webhook("feed").about("KL2303").change({ delayMinutes: 45 }), { within: "60s" })
      .expect(webhook("desk").about("KL2304").change({ state: "CNX", action: "added" }), {
        within: "60s",
      })
      .expect(webhook("feed").about("KL2304").change({ state: "CNX", action: "added" }), {
        within: "60s",
      })
      .expect(webhook("desk").about("KL2307").change({ field: "gate", old: "G1", new: "G7" }), {
        within: "60s",
      })
      .expect(webhook("feed").about("KL2307").change({ field: "gate", old: "G1", new: "G7" }), {
        within: "60s",
      });
    // Strict: anything else — D2 again, a 20-minute delay, F6, KL2306, KL2308, a
    // second alert of any flight — fails the timeline.
    const result = await tl.run();

    // The upstream's stamps of the downtime's changes span the ten minutes.
    expect(Math.max(...stamps) - Math.min(...stamps)).toBeGreaterThanOrEqual(MINUTES * 60_000);
    // All in the daemon's past when it came back.
    expect(Math.max(...stamps)).toBeLessThan(result.t0 + 20_000);
    const desk = result.deliveries.filter((d) => d.ruleId === "desk");
    const feed = result.deliveries.filter((d) => d.ruleId === "feed");
    // One alert per flight and rule after the restart; each carries one change.
    expect(desk.map((d) => d.flight).sort()).toEqual(
      ["KL2301", "KL2302", "KL2303", "KL2304", "KL2307"].sort(),
    );
    expect(desk.every((d) => d.changes.length === 1)).toBe(true);
    expect(feed).toHaveLength(6);
    console.info(
      `catch-up: ${stamps.length} changes over ${
        (Math.max(...stamps) - Math.min(...stamps)) / 60_000
      } simulated minutes while down; ${desk.length} desk alerts, ${feed.length} feed alerts`,
    );
  }, 180_000);
});

const gate = (flight: string, to: string) => ({
  kind: "update" as const,
  target: { flightName: flight },
  patch: { gate: to, pier: to.slice(0, 1) },
});

const states = (_w: World, flight: string, flightStates: string[]) => ({
  kind: "update" as const,
  target: { flightName: flight },
  patch: { publicFlightState: { flightStates } },
});

/** The estimated off-block `minutes` after the schedule, written as the upstream does. */
function delay(w: World, flight: string, minutes: number) {
  return {
    kind: "update" as const,
    target: { flightName: flight },
    patch: { publicEstimatedOffBlockTime: afterSchedule(w.record(flight), `${minutes}m`) },
  };
}
