import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RingBuffer } from "../../src/demo/ring-buffer.js";

describe("RingBuffer", () => {
  it("keeps the newest items up to its capacity, newest first", () => {
    const ring = new RingBuffer<number>(3);
    expect(ring.newest()).toEqual([]);
    for (const i of [1, 2, 3, 4, 5]) ring.push(i);
    expect(ring.size).toBe(3);
    expect(ring.newest()).toEqual([5, 4, 3]);
    expect(ring.newest(2)).toEqual([5, 4]);
    expect(ring.newest(10)).toEqual([5, 4, 3]);
    expect(ring.find((i) => i % 2 === 0)).toBe(4);
    expect(ring.find((i) => i === 1)).toBeUndefined();
  });

  it("holds exactly the last `capacity` of any sequence pushed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer()), (capacity, items) => {
        const ring = new RingBuffer<number>(capacity);
        for (const item of items) ring.push(item);
        expect(ring.size).toBe(Math.min(capacity, items.length));
        expect(ring.newest()).toEqual(items.slice(-capacity).reverse());
      }),
    );
  });

  it("refuses a capacity that holds nothing", () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
    expect(() => new RingBuffer(1.5)).toThrow(RangeError);
  });
});
