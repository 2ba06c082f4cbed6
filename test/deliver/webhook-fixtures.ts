/**
 * Builders for the webhook tests: a rule with one webhook channel, alerts made from
 * real change events (the dispatch builders) with their real deterministic ids, and
 * the notification a rule's channel gets for an alert.
 */

import type { SendContext } from "../../src/deliver/channel-sender.js";
import { type Notification, notificationsOf } from "../../src/deliver/notification.js";
import type { ChangeEvent } from "../../src/diff/change.js";
import type { SnapshotFields } from "../../src/diff/flight-snapshot.js";
import type { Alert, AlertChange } from "../../src/dispatch/alert.js";
import { alertId } from "../../src/dispatch/alert-id.js";
import type { Rule, WebhookChannelSpec } from "../../src/rules/rule.js";
import { MINUTE, rule, SCHEDULED, ZONE } from "../dispatch/dispatch-builder.js";

export { at, flight, gate, state, time, ZONE } from "../dispatch/dispatch-builder.js";

/** A fixed secret for signing tests (`whsec_` and 32 bytes of base64). */
export const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
/** Another valid secret, for the wrong-secret case. */
export const OTHER_SECRET = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;

/** A webhook channel to `url`. */
export function webhookChannel(
  url: string,
  overrides: Partial<WebhookChannelSpec> = {},
): WebhookChannelSpec {
  return {
    type: "webhook",
    name: "hook",
    url,
    format: "cloudevents",
    source: { file: "rules/test.yaml", line: 5, column: 5 },
    ...overrides,
  };
}

/** The rule `r1` (labels `team: ops`) with the given channel and a description. */
export function webhookRule(channel: WebhookChannelSpec): Rule {
  return rule({ description: "Gate moves of KL1234", channels: [channel] });
}

/** The alert a rule would decide for these events (the newest event's fields as current). */
export function alertOf(
  events: readonly ChangeEvent[],
  overrides: Partial<Alert> = {},
  current: SnapshotFields | undefined = events.at(-1)?.current,
): Alert {
  const first = events[0] as ChangeEvent;
  const changes = events.map((e): AlertChange => {
    const { id, flight, version, current: _, ...change } = e;
    return { ...change, eventIds: [id] };
  });
  return {
    id: alertId(
      "r1",
      first.flight.key,
      events.map((e) => e.id),
    ),
    ruleId: "r1",
    labels: { team: "ops" },
    flight: first.flight,
    ...(current ? { current } : {}),
    changes,
    openedAt: SCHEDULED - 90 * MINUTE,
    decidedAt: SCHEDULED - 89 * MINUTE,
    ...overrides,
  };
}

/** The notification of the alert through the rule's only channel. */
export function notificationOf(alert: Alert, forRule: Rule): Notification {
  return notificationsOf(alert, forRule)[0] as Notification;
}

/** A send context for attempt `attempt` on the clock `now`. */
export function sendContext(forRule: Rule, now: () => number, attempt = 1): SendContext {
  return { rule: forRule, zone: ZONE, now, attempt };
}
