/**
 * Alerts: what the dispatcher decides to send for one rule and one flight — the net
 * changes of a group window, after cool-down, hysteresis and flap handling. Delivery
 * turns each alert into one notification per channel of the rule.
 */
import type { Change } from "../diff/change.js";
import type { FlightIdentity, SnapshotFields } from "../diff/flight-snapshot.js";
import type { ReminderMoment } from "../rules/rule.js";

/** The net change of one field over a group window. */
export interface AlertChange extends Change {
  /** Ids of the change events folded into it, oldest first. */
  eventIds: string[];
  /** It reverts the previous alert of this field within the rule's flap window. */
  correction?: boolean;
}

/** One decided alert of one rule about one flight. */
export interface Alert {
  /** Deterministic: from the rule id, the flight key and the ids of the events it carries. */
  id: string;
  ruleId: string;
  /** The rule's labels, echoed. */
  labels: Record<string, string>;
  flight: FlightIdentity;
  /** The flight's fields as of the newest change in the alert. */
  current?: SnapshotFields;
  /** At least one, in the order their fields first changed; none in a reminder. */
  changes: AlertChange[];
  /** A reminder (docs/rules.md, "Reminders"): a moment of the flight is near. */
  reminder?: AlertReminder;
  /** When the group opened (first matched change) and when the alert was decided, epoch ms. */
  openedAt: number;
  decidedAt: number;
  /**
   * Orders the alerts of one rule about one flight: the version (`lastUpdatedAt`, epoch
   * ms) of the newest observation of the flight the alert reflects, and always above
   * the rule's previous alert about the flight. Receivers order by it; alerts of several
   * rules about one observation share it. (Absent in alerts decided before it existed.)
   */
  sequence?: number;
  /**
   * A sample made by `flightwatch channels test`: no flight changed. Every channel says
   * so (a `TEST` mark in subjects and headlines, the webhook event type
   * `flightwatch.test`).
   */
  test?: true;
}

/** What a reminder reminds of. */
export interface AlertReminder {
  /** `boarding-30m`: the reminder's name in the rule. */
  name: string;
  before: ReminderMoment;
  /** How long before the moment the rule asked for it, minutes. */
  byMinutes: number;
  /** The moment, epoch ms, as the latest estimate had it when the reminder went. */
  at: number;
  /** Minutes from the decision to the moment (at least 1). */
  inMinutes: number;
}
