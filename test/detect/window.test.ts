/**
 * The overlap of an incremental read, from the stamp lag seen (src/detect/window.ts):
 * how large it is, how long a lag is remembered, and when the lag counts as measured.
 */
import { describe, expect, it } from "vitest";
import {
  LAG_EVIDENCE,
  LAG_HALF_LIFE_MS,
  lagMeasured,
  nextLagEvidence,
  nextStampLag,
  overlapFor,
  stampLag,
  UNMEASURED_OVERLAP_MS,
} from "../../src/detect/window.js";

const S = 1000;
const NOW = Date.parse("2026-11-26T12:00:00Z");
const bounds = { overlapMs: 60 * S, overlapMinMs: 1 * S };

describe("the stamp lag remembered", () => {
  it("is none before any was seen, or when the one kept is not positive", () => {
    expect(stampLag({}, NOW)).toBe(0);
    expect(stampLag({ lagMs: 0, lagAt: NOW }, NOW)).toBe(0);
    expect(stampLag({ lagMs: -500, lagAt: NOW }, NOW)).toBe(0);
  });

  it("is whole when just seen, halves every half-life, and quarters after two", () => {
    expect(stampLag({ lagMs: 2_000, lagAt: NOW }, NOW)).toBe(2_000);
    expect(stampLag({ lagMs: 2_000, lagAt: NOW }, NOW + LAG_HALF_LIFE_MS)).toBeCloseTo(1_000, 6);
    expect(stampLag({ lagMs: 2_000, lagAt: NOW }, NOW + 2 * LAG_HALF_LIFE_MS)).toBeCloseTo(500, 6);
  });

  it("is whole when seen 'in the future' (a clock stepped back) or without a time", () => {
    expect(stampLag({ lagMs: 2_000, lagAt: NOW + 3_600_000 }, NOW)).toBe(2_000);
    expect(stampLag({ lagMs: 2_000 }, NOW)).toBe(2_000);
  });

  it("keeps a larger lag, rounded, with when it was seen; never a smaller one", () => {
    expect(nextStampLag({}, NOW, 1_234.6)).toEqual({ lagMs: 1_235, lagAt: NOW });
    expect(nextStampLag({ lagMs: 2_000, lagAt: NOW }, NOW, 3_000)).toEqual({
      lagMs: 3_000,
      lagAt: NOW,
    });
    expect(nextStampLag({ lagMs: 2_000, lagAt: NOW }, NOW, 2_000)).toEqual({});
    expect(nextStampLag({ lagMs: 2_000, lagAt: NOW }, NOW, 1_999)).toEqual({});
    expect(nextStampLag({ lagMs: 2_000, lagAt: NOW }, NOW, 0)).toEqual({});
    expect(nextStampLag({}, NOW, 0)).toEqual({});
    expect(nextStampLag({}, NOW, -5)).toEqual({});
  });

  it("takes a smaller lag once the larger one has decayed below it", () => {
    const later = NOW + LAG_HALF_LIFE_MS; // 2,000 has become 1,000
    expect(nextStampLag({ lagMs: 2_000, lagAt: NOW }, later, 1_500)).toEqual({
      lagMs: 1_500,
      lagAt: later,
    });
  });
});

describe("the overlap", () => {
  it("is the lag and a half plus a second, rounded up to whole seconds", () => {
    expect(overlapFor(2_000, bounds)).toBe(4 * S); // 3 s + 1 s
    expect(overlapFor(2_001, bounds)).toBe(5 * S); // 4.0015 s → 5 s
    expect(overlapFor(10_000, bounds)).toBe(16 * S);
    expect(overlapFor(0, bounds)).toBe(1 * S);
  });

  it("stays within POLL_OVERLAP_MIN and POLL_OVERLAP, the maximum winning when they cross", () => {
    expect(overlapFor(0, { overlapMs: 60 * S, overlapMinMs: 5 * S })).toBe(5 * S);
    expect(overlapFor(100_000, bounds)).toBe(60 * S);
    expect(overlapFor(0, { overlapMs: 3 * S, overlapMinMs: 10 * S })).toBe(3 * S);
    expect(overlapFor(0, { overlapMs: 60 * S, overlapMinMs: 0 })).toBe(1 * S);
  });

  it("is at least two seconds while the lag is not measured, within the maximum", () => {
    expect(UNMEASURED_OVERLAP_MS).toBe(2 * S);
    expect(overlapFor(0, bounds, false)).toBe(2 * S);
    expect(overlapFor(0, bounds, true)).toBe(1 * S);
    expect(overlapFor(4_000, bounds, false)).toBe(7 * S);
    expect(overlapFor(0, { overlapMs: 60 * S, overlapMinMs: 5 * S }, false)).toBe(5 * S);
    expect(overlapFor(0, { overlapMs: 1 * S, overlapMinMs: 1 * S }, false)).toBe(1 * S);
  });
});

describe("the lag counts as measured", () => {
  it("after a hundred new versions, counted across polls and no further", () => {
    expect(LAG_EVIDENCE).toBe(100);
    expect(lagMeasured({})).toBe(false);
    expect(lagMeasured({ lagEvidence: 99 })).toBe(false);
    expect(lagMeasured({ lagEvidence: 100 })).toBe(true);
    expect(nextLagEvidence({}, 40)).toEqual({ lagEvidence: 40 });
    expect(nextLagEvidence({ lagEvidence: 40 }, 40)).toEqual({ lagEvidence: 80 });
    expect(nextLagEvidence({ lagEvidence: 80 }, 40)).toEqual({ lagEvidence: 100 });
    expect(nextLagEvidence({ lagEvidence: 99 }, 1)).toEqual({ lagEvidence: 100 });
  });

  it("changes nothing after a poll without new versions, or once measured", () => {
    expect(nextLagEvidence({ lagEvidence: 10 }, 0)).toEqual({});
    expect(nextLagEvidence({ lagEvidence: 10 }, -1)).toEqual({});
    expect(nextLagEvidence({ lagEvidence: 100 }, 5)).toEqual({});
  });
});
