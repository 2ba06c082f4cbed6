import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { normaliseFlightNumber } from "../../src/rules/flight-number.js";
import { createSimulator } from "../../src/simulator/simulator.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { seedDemoSubscriptions } from "../../src/subscriptions/demo-passengers.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { fromLocalDateTime, parseApiDateTime, toLocalDate } from "../../src/time/local-time.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";

describe("the demo's passengers", () => {
  let t: TestRedis;

  beforeEach(async () => {
    t = await testRedis("demo-subs");
  });

  afterEach(async () => {
    await t.cleanup();
  });

  it("follow three departures boarding soon, the first by a codeshare number, with the essentials by email", async () => {
    // Today's mid-morning, whatever the hour the test runs at: departures every few
    // minutes (today's: the subscriptions expire by real time, days after their date).
    const now = fromLocalDateTime(`${toLocalDate(Date.now(), ZONE)}T10:00`, ZONE) as number;
    const sim = createSimulator({ seed: 3, startMs: now, speed: 1, evolve: false });
    const store = new SubscriptionStore(t.redis, redisKeys(t.prefix), { zone: ZONE });
    const seeded = await seedDemoSubscriptions(store, sim.store.all(), now, ZONE);
    const flights = [...sim.store.all()];
    expect(seeded).toHaveLength(3);
    for (const [i, s] of seeded.entries()) {
      expect(s).toMatchObject({
        id: `demo-passenger-${i + 1}`,
        preset: "essentials",
        status: "active",
        channel: { type: "email", to: `passenger${i + 1}@example.com` },
        // Due within the first minute of `npm start` (60× real time) for most of them.
        remind: ["15m before boarding", "20m before departure"],
      });
      expect(await store.get(s.id)).toEqual(s);
      // Its flight departs 25–75 minutes from now.
      const flight = flights.find(
        (f) =>
          f.scheduleDate === s.date &&
          f.flightDirection === "D" &&
          [f.mainFlight ?? "", ...(f.codeshares?.codeshares ?? [])]
            .map(normaliseFlightNumber)
            .includes(s.flight),
      );
      const at = parseApiDateTime(flight?.scheduleDateTime ?? "", ZONE) as number;
      expect(at - now).toBeGreaterThanOrEqual(25 * 60_000);
      expect(at - now).toBeLessThanOrEqual(75 * 60_000);
      // The first one's ticket says a codeshare number.
      if (i === 0) expect(s.flight).not.toBe(normaliseFlightNumber(flight?.mainFlight ?? ""));
    }
  });

  it("at night, when fewer depart within the hour, follow the first departures ahead", async () => {
    // 01:00: the night's few departures; a demo started then still has its passengers.
    const now = fromLocalDateTime(`${toLocalDate(Date.now(), ZONE)}T01:00`, ZONE) as number;
    const sim = createSimulator({ seed: 3, startMs: now, speed: 1, evolve: false });
    const store = new SubscriptionStore(t.redis, redisKeys(t.prefix), { zone: ZONE });
    const seeded = await seedDemoSubscriptions(store, sim.store.all(), now, ZONE);
    // The departures (main flights) 25 minutes or more ahead, earliest first.
    const ahead = [...sim.store.all()]
      .filter(
        (f) =>
          f.flightDirection === "D" &&
          f.isOperationalFlight !== false &&
          f.flightName === f.mainFlight &&
          (parseApiDateTime(f.scheduleDateTime ?? "", ZONE) as number) >= now + 25 * 60_000,
      )
      .sort(
        (a, b) =>
          (parseApiDateTime(a.scheduleDateTime ?? "", ZONE) as number) -
          (parseApiDateTime(b.scheduleDateTime ?? "", ZONE) as number),
      );
    const soon = ahead.filter(
      (f) => (parseApiDateTime(f.scheduleDateTime ?? "", ZONE) as number) <= now + 75 * 60_000,
    );
    // The night is quiet enough for the case to be the one it names.
    expect(soon.length).toBeLessThan(3);
    expect(seeded).toHaveLength(3);
    const followed = seeded.map((s) =>
      ahead.findIndex((f) =>
        [f.mainFlight ?? "", ...(f.codeshares?.codeshares ?? [])]
          .map(normaliseFlightNumber)
          .includes(s.flight),
      ),
    );
    expect([...followed].sort((a, b) => a - b)).toEqual([0, 1, 2]);
  });
});
