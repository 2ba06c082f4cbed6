/**
 * Passengers for the simulated airport: a few subscriptions (the essentials, by
 * email, with reminders 15 minutes before boarding and 20 before departure) to
 * departures that are still ahead in simulated time — boarding soon, so the first
 * minute of `npm start` shows passenger notifications and reminders beside the ops and
 * partner ones (at night, when too few depart within the hour, the first departures
 * of the morning: a few minutes of `npm start`). One of them follows its flight by a
 * codeshare number, as a ticket would say. Only for the embedded simulator under a
 * prefix of its own, which goes when it stops.
 */
import type { Flight } from "../api/types.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import { parseApiDateTime } from "../time/local-time.js";
import { checkSubscription, type Subscription } from "./subscription.js";
import type { SubscriptionStore } from "./subscription-store.js";

/** Departures scheduled this far ahead of the simulated now are picked: boarding is near. */
const FROM_MS = 25 * 60_000;
const TO_MS = 75 * 60_000;

/** Subscribes `count` demo passengers to departures soon; resolves to what it stored. */
export async function seedDemoSubscriptions(
  store: SubscriptionStore,
  flights: Iterable<Flight>,
  now: number,
  zone: string,
  count = 3,
): Promise<Subscription[]> {
  const ahead: { flight: Flight; at: number }[] = [];
  for (const f of flights) {
    if (f.flightDirection !== "D" || f.isOperationalFlight === false) continue;
    if (f.mainFlight === undefined || f.flightName !== f.mainFlight) continue;
    const at = f.scheduleDateTime ? parseApiDateTime(f.scheduleDateTime, zone) : undefined;
    if (at === undefined || at < now + FROM_MS) continue;
    ahead.push({ flight: f, at });
  }
  ahead.sort((a, b) => a.at - b.at);
  // Those boarding soon; at night, when fewer depart then, the first departures ahead.
  const soon = ahead.filter((a) => a.at <= now + TO_MS);
  const picked = (soon.length >= count ? soon : ahead.slice(0, count)).map((a) => a.flight);
  // The first passenger's flight is sold under codeshares, when one of them is.
  const shared = picked.findIndex((f) => (f.codeshares?.codeshares?.length ?? 0) > 0);
  if (shared > 0) picked.unshift(...picked.splice(shared, 1));
  const subscriptions: Subscription[] = [];
  for (const [i, f] of picked.slice(0, count).entries()) {
    // The first passenger's ticket carries a codeshare number, when the flight has one.
    const codeshare = i === 0 ? f.codeshares?.codeshares?.[0] : undefined;
    const checked = checkSubscription(
      {
        flight: normaliseFlightNumber(codeshare ?? "") ?? f.mainFlight,
        date: f.scheduleDate,
        email: `passenger${i + 1}@example.com`,
        labels: { booking: `DEMO${i + 1}` },
        remind: ["15m before boarding", "20m before departure"],
      },
      { zone },
      `demo-passenger-${i + 1}`,
      now,
    );
    if ("subscription" in checked) subscriptions.push(checked.subscription);
  }
  await store.add(subscriptions, Date.now());
  return subscriptions;
}
