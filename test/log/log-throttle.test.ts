import { describe, expect, it } from "vitest";
import { LogThrottle } from "../../src/log/log-throttle.js";

/** A clock the test moves by hand. */
function manualClock(start = 1_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
  };
}

describe("LogThrottle (injected clock)", () => {
  it("lets `limit` lines through per window and holds back the rest", () => {
    const clock = manualClock();
    const throttle = new LogThrottle({ limit: 3, windowMs: 60_000, now: clock.now });
    const admitted = Array.from({ length: 10 }, () => throttle.admit());
    expect(admitted.filter((a) => a.write)).toHaveLength(3);
    expect(admitted.slice(3).every((a) => !a.write)).toBe(true);
  });

  it("the first line of a later window says how many were held back, once", () => {
    const clock = manualClock();
    const throttle = new LogThrottle({ limit: 2, windowMs: 60_000, now: clock.now });
    for (let i = 0; i < 7; i++) throttle.admit();
    clock.advance(59_999);
    expect(throttle.admit()).toEqual({ write: false });
    clock.advance(1);
    expect(throttle.admit()).toEqual({ write: true, suppressed: 6 });
    expect(throttle.admit()).toEqual({ write: true, suppressed: 0 });
    expect(throttle.admit()).toEqual({ write: false });
  });

  it("a window opens at the first line after the last one closed, not on a grid", () => {
    const clock = manualClock();
    const throttle = new LogThrottle({ limit: 1, windowMs: 10_000, now: clock.now });
    expect(throttle.admit().write).toBe(true);
    clock.advance(25_000);
    expect(throttle.admit().write).toBe(true);
    clock.advance(9_999);
    expect(throttle.admit().write).toBe(false);
    clock.advance(1);
    expect(throttle.admit()).toEqual({ write: true, suppressed: 1 });
  });
});
