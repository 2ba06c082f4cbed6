import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/diff/change.js";
import type { FlappingSpec } from "../../src/rules/rule.js";
import { Driver, gate, MINUTE, rule } from "./dispatch-builder.js";

const T0 = Date.parse("2026-11-21T08:00:00Z");

/** One poll: time passes, the gate reads some value; maybe a redelivery, maybe a late flush. */
const step = fc.record({
  afterMs: fc.integer({ min: 0, max: 4 * MINUTE }),
  gate: fc.constantFrom("A", "B", "C", "D"),
  redeliver: fc.boolean(),
  flushLate: fc.boolean(),
});

const settings = fc.record({
  groupWaitMs: fc.constantFrom(0, MINUTE, 3 * MINUTE),
  coolDownMs: fc.constantFrom(0, 5 * MINUTE),
  flapping: fc.constantFrom<(FlappingSpec | undefined)[]>(
    undefined,
    { windowMs: 4 * MINUTE, action: "suppress" },
    { windowMs: 4 * MINUTE, action: "correct" },
  ),
});

/**
 * Runs a gate through a sequence of values, flushing when due (or late), and returns the
 * driver with every alert sent and the gate's final value.
 */
function run(
  config: { groupWaitMs: number; coolDownMs: number; flapping: FlappingSpec | undefined },
  steps: { afterMs: number; gate: string; redeliver: boolean; flushLate: boolean }[],
): { d: Driver; final: string } {
  const { flapping, ...rest } = config;
  const d = new Driver(rule(flapping ? { ...rest, flapping } : rest));
  let now = T0;
  let current = "A";
  let last: ChangeEvent | undefined;
  for (const [i, s] of steps.entries()) {
    now += s.afterMs;
    // The runtime loop calls flushDue at dueAt; a late one leaves it to the next admit.
    while (!s.flushLate && d.dueAt !== undefined && d.dueAt <= now) d.flush(d.dueAt);
    if (s.gate !== current) {
      last = gate(current, s.gate, i + 1);
      current = s.gate;
      d.admit(now, [last]);
    }
    if (s.redeliver && last) d.admit(now, [last]);
  }
  while (d.dueAt !== undefined) d.flush(Math.max(d.dueAt, now));
  return { d, final: current };
}

describe("alert decisions, property", () => {
  it("the alerts form a chain from the first value to the last: nothing lost, nothing twice", () => {
    fc.assert(
      fc.property(settings, fc.array(step, { maxLength: 40 }), (config, steps) => {
        const { d, final } = run(config, steps);
        let told = "A";
        const seen = new Set<string>();
        let decided = 0;
        for (const alert of d.sent) {
          expect(alert.changes).toHaveLength(1);
          const change = alert.changes[0];
          expect(change?.old).toBe(told);
          expect(change?.new).not.toBe(told);
          told = change?.new as string;
          for (const id of change?.eventIds ?? []) {
            expect(seen.has(id)).toBe(false);
            seen.add(id);
          }
          expect(alert.decidedAt).toBeGreaterThanOrEqual(decided);
          decided = alert.decidedAt;
        }
        expect(told).toBe(final);
      }),
      { numRuns: 500 },
    );
  });

  it("with group_wait only, every alert waits exactly its group's wait", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(MINUTE, 3 * MINUTE),
        fc.array(step, { maxLength: 40 }),
        (groupWaitMs, steps) => {
          const { d } = run(
            { groupWaitMs, coolDownMs: 0, flapping: undefined },
            steps.map((s) => ({ ...s, flushLate: false })),
          );
          for (const alert of d.sent) expect(alert.decidedAt - alert.openedAt).toBe(groupWaitMs);
        },
      ),
      { numRuns: 200 },
    );
  });
});
