import { describe, expect, it } from "vitest";
import { JumpSafeClock } from "../../src/time/jump-safe-clock.js";

/** A wall clock and a monotonic one, moved by hand. */
function clocks(start = 1_800_000_000_000) {
  const c = { wall: start, mono: 0 };
  return {
    c,
    pass(ms: number) {
      c.wall += ms;
      c.mono += ms;
    },
  };
}

describe("JumpSafeClock", () => {
  it("follows the wall clock while it behaves, forward steps included", () => {
    const { c, pass } = clocks();
    const clock = new JumpSafeClock({ wall: () => c.wall, monotonic: () => c.mono });
    expect(clock.now()).toBe(c.wall);
    pass(5_000);
    expect(clock.now()).toBe(c.wall);
    c.wall += 3_600_000; // stepped forward: taken at once
    expect(clock.now()).toBe(c.wall);
    c.wall -= 400; // jitter below the tolerance: never backwards, though
    const before = clock.now();
    pass(1_000);
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    expect(clock.offsetMs).toBe(0);
  });

  it("carries on over a step back, then converges on the wall clock at half speed", () => {
    const { c, pass } = clocks();
    const jumps: number[] = [];
    const clock = new JumpSafeClock({
      wall: () => c.wall,
      monotonic: () => c.mono,
      onJump: (ms) => jumps.push(ms),
    });
    clock.now();
    pass(10_000);
    const beforeStep = clock.now();
    c.wall -= 3_600_000; // an hour back (NTP step, VM resume)
    pass(1_000);
    const after = clock.now();
    expect(jumps).toHaveLength(1);
    expect(jumps[0]).toBeCloseTo(3_600_000, -3);
    // Still on its own timeline: a wait of a minute set before the step ends within two.
    expect(after).toBeGreaterThanOrEqual(beforeStep);
    expect(after - beforeStep).toBeLessThanOrEqual(1_000);
    const due = beforeStep + 60_000;
    let waited = 1_000;
    while (clock.now() < due) {
      pass(1_000);
      waited += 1_000;
    }
    expect(waited).toBeLessThanOrEqual(121_000);
    // Two hours later it reads the wall clock again, having never gone back.
    let last = clock.now();
    for (let i = 0; i < 7_300; i++) {
      pass(1_000);
      const now = clock.now();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    expect(clock.offsetMs).toBe(0);
    expect(clock.now()).toBe(c.wall);
    expect(jumps).toHaveLength(1);
  });

  it("reads sparsely: no false step when the offset runs out between two readings", () => {
    const { c, pass } = clocks();
    const jumps: number[] = [];
    const clock = new JumpSafeClock({
      wall: () => c.wall,
      monotonic: () => c.mono,
      onJump: (ms) => jumps.push(ms),
    });
    clock.now();
    c.wall -= 5_000;
    pass(100);
    clock.now();
    pass(60_000); // the 5 s offset is spent long before this reading
    expect(clock.now()).toBe(c.wall);
    expect(jumps).toHaveLength(1);
  });
});

describe("JumpSafeClock readings", () => {
  it("are whole milliseconds while it absorbs a step (Redis takes only integers)", () => {
    const c = { wall: 1_800_000_000_000, mono: 0.25 };
    const clock = new JumpSafeClock({ wall: () => c.wall, monotonic: () => c.mono });
    clock.now();
    c.wall -= 3_600_000;
    for (let i = 0; i < 50; i++) {
      c.mono += 333.333;
      c.wall += 333;
      expect(Number.isInteger(clock.now())).toBe(true);
    }
  });
});
