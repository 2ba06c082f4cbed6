/**
 * The names log entries use for what they are about, so that one flight, rule or
 * notification can be followed through every stage by one query
 * (`{flightId="…"}` in Loki, `flightId:"…"` in Kibana).
 */

/** Fields that say what an entry is about; bind them with `logger.child(fields)`. */
export interface LogFields {
  /** The process's part: `poller`, `worker` or `all`; sub-parts such as `http` may refine it. */
  role?: string;
  /** Upstream flight record id (18 digits, a string). */
  flightId?: string;
  /** Change event id (deterministic, from the differ). */
  eventId?: string;
  /** Rule id from the rule files. */
  ruleId?: string;
  /** Alert id (one per rule and flight decision). */
  alertId?: string;
  /** Notification id: one alert on one channel; also the delivery job id. */
  notificationId?: string;
  /** Channel type: `slack`, `email`, `webhook`, `console`. */
  channel?: string;
  /** `ep_…` id of an HTTP endpoint (never its URL: that is a secret). */
  endpointId?: string;
}

/** The order in which the text format prints these fields, before any others. */
export const CONTEXT_FIELDS: readonly (keyof LogFields)[] = [
  "role",
  "flightId",
  "eventId",
  "ruleId",
  "alertId",
  "notificationId",
  "channel",
  "endpointId",
];
