/**
 * The sample `flightwatch channels test` sends: an alert marked `test`, about a flight
 * the rule could take (its first flight number and its direction, when it names them),
 * two hours ahead, whose gate moved D5 → D7. Each call makes a new alert id, so each
 * test is a notification of its own (receivers that drop repeated ids take every test).
 */
import { randomBytes } from "node:crypto";
import type { Alert } from "../dispatch/alert.js";
import type { Rule } from "../rules/rule.js";
import { toLocalDate } from "../time/local-time.js";

/** The flight number of a sample when the rule names none. */
export const SAMPLE_FLIGHT = "KL1001";

/** A test alert for `rule` at `now` (epoch ms), dated in the airport's `zone`. */
export function sampleAlert(rule: Rule, now: number, zone: string): Alert {
  const id = randomBytes(16).toString("base64url");
  const flightName = rule.flights.flights?.[0] ?? SAMPLE_FLIGHT;
  const direction = rule.flights.direction ?? "D";
  // Two hours ahead, on a whole five minutes.
  const scheduled = Math.ceil((now + 2 * 3_600_000) / 300_000) * 300_000;
  const date = toLocalDate(scheduled, zone);
  return {
    // An alert id's shape (22 characters of base64url), drawn at random.
    id,
    ruleId: rule.id,
    labels: rule.labels,
    flight: {
      key: `${direction}:${date}:${flightName}`,
      id: "0",
      mainFlight: flightName,
      direction,
      scheduleDate: date,
      scheduled,
      flightNames: [flightName],
      operational: true,
    },
    current: { gate: "D7", pier: "D", route: [direction === "D" ? "LHR" : "JFK"] },
    changes: [
      // No change event was seen: the one it stands for is named after the test.
      {
        kind: "gate",
        field: "gate",
        action: "changed",
        old: "D5",
        new: "D7",
        eventIds: [`test-${id}`],
      },
    ],
    openedAt: now,
    decidedAt: now,
    // The lowest sequence there is: a receiver that keeps the highest per flight never
    // keeps a test's values over a real event's.
    sequence: 1,
    test: true,
  };
}
