/**
 * Poll reports and delivery records for the demo view's tests, shaped as the detector
 * and the delivery workers build them; change events and alerts come from the shared
 * builders (test/rules/event-builder.ts, test/support/alert-builder.ts).
 */
import type { DeliveryRecord } from "../../src/deliver/delivery-log.js";
import { notificationId } from "../../src/deliver/notification.js";
import type { PollReport } from "../../src/detect/detector.js";
import type { ChangeEvent } from "../../src/diff/change.js";
import type { Alert } from "../../src/dispatch/alert.js";
import { changeEvent } from "../rules/event-builder.js";

/** 2026-11-21 10:00 in Amsterdam: the demo's airport clock at start. */
export const DEMO_START = Date.parse("2026-11-21T09:00:00Z");

/** The demo airport's zone. */
export const ZONE = "Europe/Amsterdam";

/** A committed poll at `at` carrying `events` (incremental unless told). */
export function pollReport(
  at: number,
  events: ChangeEvent[] = [],
  parts: Partial<PollReport> = {},
): PollReport {
  return {
    outcome: "committed",
    mode: "incremental",
    startedAt: at,
    durationMs: 42,
    requests: 2,
    records: 17,
    flights: 15,
    events,
    ...parts,
  };
}

/** KL601 boarding and its gate moved D5 → D7, as one poll's events. */
export function boardingAndGate(): ChangeEvent[] {
  return [
    changeEvent({ kind: "gate", field: "gate", old: "D5", new: "D7" }),
    changeEvent({
      kind: "state",
      field: "publicFlightState",
      action: "added",
      old: undefined,
      new: undefined,
      state: "BRD",
    }),
  ];
}

/** The record a delivery worker writes for `alert` through `channel` (type `type`). */
export function deliveryOf(
  alert: Alert,
  channel: string,
  type: DeliveryRecord["type"],
  parts: Partial<DeliveryRecord> = {},
): DeliveryRecord {
  return {
    at: 1_700_000_000_000,
    id: notificationId(alert.id, channel),
    ruleId: alert.ruleId,
    channel,
    type,
    flight: alert.flight.key,
    destination: type === "console" ? "stdout" : "https://hooks.example.com/…",
    attempt: 1,
    result: "delivered",
    ...parts,
  };
}
