import { afterEach, describe, expect, it } from "vitest";
import { type DetectHarness, detectHarness } from "./detect-harness.js";

describe("Detector against the simulator and a real Redis", () => {
  let h: DetectHarness;
  afterEach(async () => {
    await h?.close();
  });

  it("takes a silent baseline, then reports a gate change once, folded over codeshares", async () => {
    h = await detectHarness();
    const baseline = await h.detector.poll();
    expect(baseline).toMatchObject({ outcome: "committed", mode: "baseline", events: [] });
    expect(baseline.flights).toBeGreaterThan(100);
    expect(await h.outbox()).toEqual([]);
    // Noted for the reminders, which no event will schedule: every flight it took in.
    expect(await h.redis.redis.scard(h.keys.silentFlights)).toBe(baseline.flights);

    const flight = h.moveGate("Z99");
    const poll = await h.detector.poll();
    expect(poll).toMatchObject({ outcome: "committed", mode: "incremental" });
    expect(poll.events).toHaveLength(1);
    const [event] = poll.events;
    expect(event).toMatchObject({
      kind: "gate",
      field: "gate",
      action: "changed",
      old: flight.gate,
      new: "Z99",
    });
    expect(event?.flight.flightNames).toEqual([
      flight.flightName,
      ...[...(flight.codeshares?.codeshares ?? [])].sort(),
    ]);
    expect(await h.outbox()).toEqual(poll.events);

    h.clock.advance(1_000);
    const again = await h.detector.poll();
    expect(again.events).toEqual([]);
    expect(await h.outbox()).toHaveLength(1);
    // Flights seen before are not noted again.
    expect(await h.redis.redis.scard(h.keys.silentFlights)).toBe(baseline.flights);
    // Incremental: a handful of requests, not the whole horizon.
    expect(poll.requests).toBeLessThan(baseline.requests);
  });
});
