import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agenda } from "../../src/simulator/agenda.js";

describe("Agenda", () => {
  it("pops by due time, equal times in insertion order, under any mix of pushes and pops", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(-1)), { maxLength: 300 }),
        (ops) => {
          const agenda = new Agenda<number>();
          const model: { at: number; seq: number }[] = [];
          let seq = 0;
          for (const op of ops) {
            if (op >= 0) {
              agenda.push(op, seq);
              model.push({ at: op, seq: seq++ });
            } else {
              model.sort((a, b) => a.at - b.at || a.seq - b.seq);
              const expected = model.shift();
              const got = agenda.pop();
              expect(got && { at: got.at, seq: got.item }).toEqual(expected);
            }
          }
          expect(agenda.size).toBe(model.length);
          model.sort((a, b) => a.at - b.at || a.seq - b.seq);
          expect(agenda.peek()?.item).toBe(model[0]?.seq);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is empty when drained", () => {
    const agenda = new Agenda<string>();
    expect(agenda.pop()).toBeUndefined();
    agenda.push(5, "a");
    expect(agenda.pop()?.item).toBe("a");
    expect(agenda.peek()).toBeUndefined();
  });
});
