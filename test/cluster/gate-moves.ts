/**
 * The cluster tests' timeline: departures at gates three hours ahead and one rule that
 * sends each gate change as a signed webhook; `move` changes a gate at a step and
 * expects its webhook exactly once within `within`.
 */
import { departure } from "../acceptance/cast.js";
import { webhook } from "../acceptance/deliveries.js";
import { type Timeline, timeline } from "../acceptance/timeline.js";

/** A timeline on the Redis at `redisUrl` with these departures and their gates. */
export function gateTimeline(
  name: string,
  redisUrl: string,
  gates: Readonly<Record<string, string>>,
): { tl: Timeline; move(at: string, flight: string, to: string, within: string): void } {
  const current = new Map(Object.entries(gates));
  const tl = timeline({
    name,
    redisUrl,
    cast: [...current].map(([flight, gate]) => departure(flight, { gate, in: "3h" })),
    rules: `
rules:
  - id: gates
    changes: [gate]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`,
  });
  return {
    tl,
    move(at, flight, to, within) {
      const from = current.get(flight);
      current.set(flight, to);
      tl.at(at)
        .gate(flight, to)
        .expect(webhook("gates").about(flight).change({ field: "gate", old: from, new: to }), {
          within,
        });
    },
  };
}
