/**
 * Alerts about one departure, for the tests that render or send alerts (text,
 * templates, Slack, email): KL1001 to WAW, a gate change D7 → D9, and whatever a test
 * overrides. The values are the ones those tests assert on; change them here only
 * with every assertion that quotes them.
 */
import type { FlightIdentity } from "../../src/diff/flight-snapshot.js";
import type { Alert, AlertChange } from "../../src/dispatch/alert.js";

/** KL1001's scheduled departure: 2026-11-21 10:25 in Amsterdam (UTC+1). */
export const KL1001_SCHEDULED = Date.UTC(2026, 10, 21, 9, 25);

/** KL1001 departing 2026-11-21 10:25 local, sold as DL9341 too. */
export function kl1001(overrides: Partial<FlightIdentity> = {}): FlightIdentity {
  return {
    key: "D:2026-11-21:KL1001",
    id: "1",
    mainFlight: "KL1001",
    flightNames: ["KL1001", "DL9341"],
    direction: "D",
    scheduleDate: "2026-11-21",
    scheduled: KL1001_SCHEDULED,
    ...overrides,
  };
}

/** A change of `kind` and `field`: `changed`, from no events, unless given. */
export function alertChange(
  change: Partial<AlertChange> & Pick<AlertChange, "kind" | "field">,
): AlertChange {
  return { action: "changed", eventIds: [], ...change };
}

/** Alert `a1` of rule `r1` about kl1001() to WAW: gate D7 → D9, opened and decided at 0. */
export function alertOf(parts: Partial<Alert> = {}): Alert {
  return {
    id: "a1",
    ruleId: "r1",
    labels: {},
    flight: kl1001(),
    current: { route: ["WAW"] },
    changes: [alertChange({ kind: "gate", field: "gate", old: "D7", new: "D9" })],
    openedAt: 0,
    decidedAt: 0,
    ...parts,
  };
}
