import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashSeed, Random } from "../../src/simulator/random.js";

const draw = (r: Random): number[] => Array.from({ length: 20 }, () => r.int(0, 1_000_000));

describe("Random", () => {
  it("repeats the same stream for the same seed and differs for another", () => {
    expect(draw(new Random(7))).toEqual(draw(new Random(7)));
    expect(draw(new Random(7))).not.toEqual(draw(new Random(8)));
  });

  it("derives independent named streams", () => {
    expect(draw(Random.derive(1, "day", "2026-03-29"))).toEqual(
      draw(Random.derive(1, "day", "2026-03-29")),
    );
    expect(draw(Random.derive(1, "day", "2026-03-29"))).not.toEqual(
      draw(Random.derive(1, "day", "2026-03-30")),
    );
    expect(hashSeed("a")).not.toBe(hashSeed("b"));
  });

  it("keeps draws inside their ranges", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: 0, max: 1e9 }),
        (seed, from, width) => {
          const r = new Random(seed);
          const n = r.int(from, from + width);
          expect(n).toBeGreaterThanOrEqual(from);
          expect(n).toBeLessThanOrEqual(from + width);
          const f = r.float();
          expect(f).toBeGreaterThanOrEqual(0);
          expect(f).toBeLessThan(1);
        },
      ),
    );
  });

  it("fills patterns and digit strings", () => {
    const r = new Random(3);
    expect(r.pattern("PH??#")).toMatch(/^PH[A-Z]{2}\d$/);
    expect(r.digits(17)).toMatch(/^\d{17}$/);
    expect([0, 1, 2].includes(r.weightedIndex([1, 0, 5]))).toBe(true);
    const counts = [0, 0];
    for (let i = 0; i < 2000; i++)
      counts[r.weightedIndex([1, 3])] = (counts[r.weightedIndex([1, 3])] ?? 0) + 1;
    expect(counts[1]).toBeGreaterThan(counts[0] ?? 0);
  });
});
