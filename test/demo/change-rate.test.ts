import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ChangeRate } from "../../src/demo/change-rate.js";

describe("ChangeRate", () => {
  it("counts per bucket over the window ending now, oldest first", () => {
    const rate = new ChangeRate({ buckets: 4, bucketMs: 1000 });
    rate.add(10_000, 2);
    rate.add(10_999, 1);
    rate.add(12_500, 5);
    expect(rate.series(12_500)).toEqual([0, 3, 0, 5]);
    expect(rate.series(13_000)).toEqual([3, 0, 5, 0]);
    // The window slid past the first bucket: it is gone, and its slot reused empty.
    rate.add(14_000, 1);
    expect(rate.series(14_000)).toEqual([0, 5, 0, 1]);
  });

  it("starts afresh after a jump of a whole window either way", () => {
    const rate = new ChangeRate({ buckets: 3, bucketMs: 1000 });
    rate.add(5_000, 4);
    rate.add(60_000, 1);
    expect(rate.series(60_000)).toEqual([0, 0, 1]);
    rate.add(1_000, 2); // a restarted clock
    expect(rate.series(1_000)).toEqual([0, 0, 2]);
    rate.add(500, 1); // a little back: its own bucket
    expect(rate.series(1_000)).toEqual([0, 1, 2]);
  });

  it("never holds more than its buckets, however long it runs", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 200 }), (steps) => {
        const rate = new ChangeRate({ buckets: 5, bucketMs: 100 });
        let now = 0;
        const events: number[] = [];
        for (const step of steps) {
          now += step;
          rate.add(now);
          events.push(now);
        }
        // The series equals a plain count of the events in each of the last 5 buckets.
        const end = Math.floor(now / 100);
        const expected = [4, 3, 2, 1, 0].map(
          (back) => events.filter((t) => Math.floor(t / 100) === end - back).length,
        );
        expect(rate.series(now)).toEqual(expected);
      }),
    );
  });
});
