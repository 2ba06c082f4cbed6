/**
 * The webhook body: a CloudEvents 1.0 structured event (the default) or a plain JSON
 * object carrying the same data. Pure, and deterministic: the same notification, rule
 * and zone give the same bytes, so a retry sends what the first attempt sent (as long
 * as the rule's description is unchanged). The field names are a public contract
 * (docs/delivery.md): add fields, never rename or remove them.
 */
import type { ChangeValue } from "../diff/change.js";
import type { CheckinSummary, FlightIdentity, SnapshotFields } from "../diff/flight-snapshot.js";
import type { AlertChange } from "../dispatch/alert.js";
import { languageOf } from "../render/alert-template.js";
import { describeAlert } from "../render/alert-text.js";
import type { WebhookChannelSpec } from "../rules/rule.js";
import { formatApiDateTime } from "../time/local-time.js";
import type { SendContext } from "./channel-sender.js";
import { alertEventType, REMINDER_EVENT_TYPE, TEST_EVENT_TYPE } from "./event-type.js";
import type { Notification } from "./notification.js";

/** What rendering needs besides the notification: the live rule and the airport zone. */
export type WebhookMessageContext = Pick<SendContext, "rule" | "zone">;

/** A rendered request body and the content type that announces it. */
export interface WebhookMessage {
  contentType: "application/cloudevents+json" | "application/json";
  body: string;
}

/** CloudEvents `source`: the rule that produced the alert, as a URI reference. */
export function eventSource(ruleId: string): string {
  return `/flightwatch/rules/${encodeURIComponent(ruleId)}`;
}

/** The body for a webhook channel in its format. */
export function webhookMessage(
  notification: Notification,
  channel: WebhookChannelSpec,
  context: WebhookMessageContext,
): WebhookMessage {
  const alert = notification.alert;
  // A receiver that acts on flight events must not act on a test.
  const type = alert.test
    ? TEST_EVENT_TYPE
    : alert.reminder !== undefined
      ? REMINDER_EVENT_TYPE
      : alertEventType(alert.changes);
  const data = webhookData(notification, context);
  // Orders a rule's notifications about a flight (see Alert.sequence); receivers that
  // get them out of order keep the highest.
  const sequence = alert.sequence !== undefined ? { sequence: alert.sequence } : {};
  if (channel.format === "json") {
    return {
      contentType: "application/json",
      body: JSON.stringify({ id: notification.id, type, ...sequence, ...data }),
    };
  }
  const event = {
    specversion: "1.0",
    id: notification.id,
    source: eventSource(alert.ruleId),
    type,
    subject: alert.flight.id,
    time: new Date(alert.decidedAt).toISOString(),
    datacontenttype: "application/json",
    // A CloudEvents extension attribute (lower-case letters and digits, an integer).
    ...sequence,
    data,
  };
  return { contentType: "application/cloudevents+json", body: JSON.stringify(event) };
}

/**
 * The event data, the same in both formats. Our own instants (`openedAt`,
 * `decidedAt`) are UTC ISO 8601; flight times are ISO 8601 with the airport's offset,
 * as the upstream writes them and as the changes' time values already are.
 */
export function webhookData(notification: Notification, context: WebhookMessageContext) {
  const { alert } = notification;
  const { rule, zone } = context;
  return {
    summary: describeAlert(alert, zone, languageOf(rule)),
    alertId: alert.id,
    rule: {
      id: alert.ruleId,
      ...(rule.description !== undefined ? { description: rule.description } : {}),
      // As the alert was decided: what the rule said when it matched.
      labels: alert.labels,
    },
    flight: flightData(alert.flight, zone),
    ...(alert.current ? { current: currentData(alert.current, zone) } : {}),
    changes: alert.changes.map((change) => changeData(change, zone)),
    ...(alert.reminder !== undefined
      ? {
          reminder: {
            name: alert.reminder.name,
            before: alert.reminder.before,
            byMinutes: alert.reminder.byMinutes,
            at: formatApiDateTime(alert.reminder.at, zone),
            inMinutes: alert.reminder.inMinutes,
          },
        }
      : {}),
    openedAt: new Date(alert.openedAt).toISOString(),
    decidedAt: new Date(alert.decidedAt).toISOString(),
    ...(alert.test ? { test: true } : {}),
    ...(notification.replayOf !== undefined ? { replayOf: notification.replayOf } : {}),
  };
}

/** The `data` object of a webhook event. */
export type WebhookData = ReturnType<typeof webhookData>;

function flightData(flight: FlightIdentity, zone: string) {
  return {
    key: flight.key,
    id: flight.id,
    mainFlight: flight.mainFlight,
    flightNames: flight.flightNames,
    ...(flight.direction !== undefined ? { direction: flight.direction } : {}),
    ...(flight.scheduleDate !== undefined ? { scheduleDate: flight.scheduleDate } : {}),
    ...(flight.scheduled !== undefined
      ? { scheduled: formatApiDateTime(flight.scheduled, zone) }
      : {}),
    ...(flight.prefixIATA !== undefined ? { prefixIATA: flight.prefixIATA } : {}),
    ...(flight.prefixICAO !== undefined ? { prefixICAO: flight.prefixICAO } : {}),
    ...(flight.operational !== undefined ? { operational: flight.operational } : {}),
  };
}

/** The snapshot's fields with epoch-ms instants written as the upstream writes times. */
function currentData(current: SnapshotFields, zone: string) {
  const { times, checkin, ...rest } = current;
  const out: Record<string, unknown> = { ...rest };
  if (times) {
    const written: Record<string, string> = {};
    for (const [field, ms] of Object.entries(times)) {
      if (ms !== undefined) written[field] = formatApiDateTime(ms, zone);
    }
    out.times = written;
  }
  if (checkin) out.checkin = checkinData(checkin, zone);
  return out;
}

function checkinData(checkin: CheckinSummary, zone: string) {
  return {
    ...(checkin.opens !== undefined ? { opens: formatApiDateTime(checkin.opens, zone) } : {}),
    ...(checkin.closes !== undefined ? { closes: formatApiDateTime(checkin.closes, zone) } : {}),
    rows: checkin.rows,
    desks: checkin.desks,
  };
}

/** One change with a fixed key order; absent values stay absent (unknown, not null). */
function changeData(change: AlertChange, zone: string) {
  return {
    kind: change.kind,
    field: change.field,
    action: change.action,
    ...(change.old !== undefined ? { old: valueData(change.old, zone) } : {}),
    ...(change.new !== undefined ? { new: valueData(change.new, zone) } : {}),
    ...(change.state !== undefined ? { state: change.state } : {}),
    ...(change.shiftMinutes !== undefined ? { shiftMinutes: change.shiftMinutes } : {}),
    ...(change.delayMinutes !== undefined ? { delayMinutes: change.delayMinutes } : {}),
    eventIds: change.eventIds,
    ...(change.correction ? { correction: true } : {}),
  };
}

/** Check-in values carry epoch-ms instants; the other values are already as sent. */
function valueData(value: ChangeValue, zone: string) {
  return typeof value === "object" && !Array.isArray(value) ? checkinData(value, zone) : value;
}
