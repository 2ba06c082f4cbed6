/**
 * Builders for the email tests: an alert about a flight, its notification through an
 * email channel, and the rule that holds the channel.
 */

import type { FlightIdentity } from "../../src/diff/flight-snapshot.js";
import type { Alert, AlertChange } from "../../src/dispatch/alert.js";
import type { EmailChannelSpec, Rule } from "../../src/rules/rule.js";
import { rule as baseRule } from "../rules/rule-builder.js";
import { alertChange, alertOf, kl1001 } from "../support/alert-builder.js";

export const ZONE = "Europe/Amsterdam";
export const FROM = "Flightwatch <alerts@flightwatch.example>";

/** KL1001 departing 2026-11-21 10:25 local (kl1001()), under an 18-digit API id. */
export function flight(overrides: Partial<FlightIdentity> = {}): FlightIdentity {
  return kl1001({ id: "123456789012345678", ...overrides });
}

/** A gate change from one event. */
export function gateChange(old: string, now: string): AlertChange {
  return alertChange({ kind: "gate", field: "gate", old, new: now, eventIds: [`e-${now}`] });
}

/** An alert of rule `r1` (or `ruleId`) with the given changes. */
export function alert(
  id: string,
  changes: AlertChange[] = [gateChange("D7", "D9")],
  identity: FlightIdentity = flight(),
  ruleId = "r1",
): Alert {
  return alertOf({
    id,
    ruleId,
    labels: { booking: "X7Q2LM" },
    flight: identity,
    current: { route: ["WAW"], gate: "D9" },
    changes,
  });
}

/** An email channel to the given addresses. */
export function emailChannel(
  to: string[] = ["anna@example.com"],
  overrides: Partial<EmailChannelSpec> = {},
): EmailChannelSpec {
  return {
    type: "email",
    name: "email",
    source: { file: "test.yaml", line: 3, column: 5 },
    to,
    ...overrides,
  };
}

/** The rule holding `channel`. */
export function ruleWith(channel: EmailChannelSpec, id = "r1"): Rule {
  return { ...baseRule(id), description: "Anna's flight", channels: [channel] };
}

/** The notification of an alert through a channel (the notifier's own). */
export { notificationOf } from "../../src/deliver/notification.js";
