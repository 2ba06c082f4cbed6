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

/** One change of the gate (always to another value), arriving up to `lateBy` slots late. */
const reorderedStep = fc.record({
  afterMs: fc.integer({ min: 0, max: 4 * MINUTE }),
  hop: fc.integer({ min: 1, max: 3 }),
  lateBy: fc.integer({ min: 0, max: 2 }),
  redeliver: fc.boolean(),
  flushLate: fc.boolean(),
});

/**
 * Runs a gate through a sequence of changes (versions 1, 2, …), each admitted at the
 * arrival slot its lateness gives it, so an event is overtaken by at most two newer ones.
 */
function runReordered(
  config: { groupWaitMs: number; coolDownMs: number; flapping: FlappingSpec | undefined },
  steps: { afterMs: number; hop: number; lateBy: number; redeliver: boolean; flushLate: boolean }[],
): { d: Driver; events: ChangeEvent[]; final: string } {
  const { flapping, ...rest } = config;
  const d = new Driver(rule(flapping ? { ...rest, flapping } : rest));
  const gates = ["A", "B", "C", "D"];
  let current = 0;
  const events = steps.map((s, i) => {
    const next = (current + s.hop) % gates.length;
    const e = gate(gates[current], gates[next] as string, i + 1);
    current = next;
    return e;
  });
  const arrival = events
    .map((e, i) => ({ e, key: i + (steps[i]?.lateBy ?? 0) }))
    .sort((a, b) => a.key - b.key)
    .map(({ e }) => e);
  let now = T0;
  for (const [slot, s] of steps.entries()) {
    now += s.afterMs;
    while (!s.flushLate && d.dueAt !== undefined && d.dueAt <= now) d.flush(d.dueAt);
    const e = arrival[slot] as ChangeEvent;
    d.admit(now, [e]);
    if (s.redeliver) d.admit(now, [e]);
  }
  while (d.dueAt !== undefined) d.flush(Math.max(d.dueAt, now));
  return { d, events, final: gates[current] as string };
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

  it("events reordered within a small window: the alerts still chain to the newest value, nothing twice", () => {
    fc.assert(
      fc.property(
        settings,
        fc.array(reorderedStep, { minLength: 1, maxLength: 40 }),
        (config, steps) => {
          const { d, events, final } = runReordered(config, steps);
          let told: string | undefined;
          const seen = new Set<string>();
          for (const alert of d.sent) {
            expect(alert.changes).toHaveLength(1);
            const change = alert.changes[0];
            // The first alert starts wherever the rule first saw the gate; then each from the last.
            if (told !== undefined) expect(change?.old).toBe(told);
            expect(change?.new).not.toBe(change?.old);
            told = change?.new as string;
            for (const id of change?.eventIds ?? []) {
              expect(seen.has(id)).toBe(false);
              seen.add(id);
            }
          }
          if (told !== undefined) expect(told).toBe(final);
          // Every event was decided: announced, folded into a net-zero change, or late.
          for (const e of events) expect(d.state?.done).toContain(e.id);
        },
      ),
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
