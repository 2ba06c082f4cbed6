/**
 * The rule model: what the loader makes of a rule file and what the matcher, the
 * dispatcher and the CLI work with. Everything here is validated and normalised
 * (codes upper-case, durations in milliseconds, absolute times in epoch ms), so later
 * stages never re-check user input. The file format itself is described in docs/rules.md.
 */

import type { Language } from "../render/language.js";
import type { ChangeSelector } from "./change-options.js";
import type { FlightFilter } from "./flight-criteria.js";

export type { ChangeSelector } from "./change-options.js";
export type { FlightFilter } from "./flight-criteria.js";
export type { ScheduleWindow, TimeBound } from "./schedule-window.js";

/** Where something was written: file (as given to the loader), 1-based line and column. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** One alert rule. */
export interface Rule {
  /** Unique over all loaded files. */
  id: string;
  description?: string;
  /** Free key/values echoed in every notification (FlightStats' `nameValues`). */
  labels: Record<string, string>;
  /** Where the rule starts (its `id`), for messages. */
  source: SourcePosition;
  /** Which flights; an empty filter matches every flight. */
  flights: FlightFilter;
  /** Which changes, tried in order; undefined = every change. */
  changes?: ChangeSelector[];
  /** Where to send; at least one. */
  channels: ChannelSpec[];
  /** Hold a flight's matched changes this long and send them as one message (0 = no hold). */
  groupWaitMs: number;
  /** Do not repeat the same alert (same field, same new value) within this time (0 = off). */
  coolDownMs: number;
  /** Flap handling; undefined = off. */
  flapping?: FlappingSpec;
  /** The language of its notifications' words (`en`, `nl`); undefined = English. */
  language?: Language;
  /** Quiet hours: a local window in which only critical changes go at once; undefined = none. */
  quietHours?: QuietHours;
  /** Reminders before the flight's moments (at most MAX_REMINDERS); undefined = none. */
  reminders?: readonly Reminder[];
}

/** The moments of a flight a reminder can come before. */
export const REMINDER_MOMENTS = ["departure", "boarding", "gate_closing", "arrival"] as const;
export type ReminderMoment = (typeof REMINDER_MOMENTS)[number];

/** Most reminders one rule or subscription may ask for. */
export const MAX_REMINDERS = 10;

/** A reminder `byMs` before a moment of the flight, as the latest estimate has it. */
export interface Reminder {
  before: ReminderMoment;
  byMs: number;
}

/**
 * Quiet hours (see quiet-hours.ts): within a local time-of-day window, a flight's
 * changes wait for the window's end and go then, as one alert per flight, unless one of
 * them is critical — which goes at once, with what waited.
 */
export interface QuietHours {
  /** Minutes after local midnight the window starts (inclusive) and ends; from > to spans midnight. */
  fromMinute: number;
  toMinute: number;
  /** The zone of the window: the recipients' (default the airport's). */
  zone: string;
  /** Changes that go at once, as selectors of `changes`. */
  critical: ChangeSelector[];
}

/** Flap handling of a rule. */
export interface FlappingSpec {
  windowMs: number;
  /**
   * `suppress`: hold each change for the window and send the net change (A→B→A sends
   * nothing). `correct`: send at once; a revert within the window is sent as one
   * correction, further changes in the window are held and sent as their net change.
   */
  action: "suppress" | "correct";
}

/** A destination of a rule's alerts. */
export type ChannelSpec =
  | SlackChannelSpec
  | EmailChannelSpec
  | WebhookChannelSpec
  | ConsoleChannelSpec;

interface ChannelBase {
  /** Name for logs and output: given, or `<type>` / `<type>-<n>` when a rule has several. */
  name: string;
  source: SourcePosition;
  /** When failed deliveries are tried again; the default schedule when absent. */
  retry?: RetrySchedule;
}

/** A channel's retry schedule (see retry-schedule.ts). */
export interface RetrySchedule {
  /** Delay before each retry, in order; the last one repeats until `forMs` is used up. */
  delaysMs: number[];
  /** No retry is scheduled past this much nominal time after the first attempt. */
  forMs: number;
}

/**
 * A Slack channel: an incoming webhook (`url`), or a channel of a workspace through the
 * Web API with a bot token (`token` + `channel`), where each flight gets one living
 * message, updated in place, and its changes as replies in that message's thread.
 * Exactly one of the two forms; `url` and `token` tell them apart.
 */
export type SlackChannelSpec = SlackWebhookChannelSpec | SlackApiChannelSpec;

interface SlackChannelBase extends ChannelBase {
  type: "slack";
  /** Optional template override for the message text (a living message's thread replies). */
  template?: string;
}

/** A Slack incoming webhook. */
export interface SlackWebhookChannelSpec extends SlackChannelBase {
  /** Incoming-webhook URL (secret: mask it in output). */
  url: string;
  token?: undefined;
  channelId?: undefined;
}

/** A Slack channel through the Web API: one living message per flight. */
export interface SlackApiChannelSpec extends SlackChannelBase {
  url?: undefined;
  /** The app's bot token, `xoxb-…` (secret: mask it in output). */
  token: string;
  /** The Slack channel's id (`C0123ABCDEF`), as written in the rule file's `channel`. */
  channelId: string;
}

/** Email to fixed recipients. */
export interface EmailChannelSpec extends ChannelBase {
  type: "email";
  to: string[];
  subject?: string;
  template?: string;
  /** RFC 8058 one-click unsubscribe URL for `List-Unsubscribe`. */
  unsubscribeUrl?: string;
}

/** A JSON POST to a URL, optionally signed. */
export interface WebhookChannelSpec extends ChannelBase {
  type: "webhook";
  url: string;
  /** Standard Webhooks signing secret (`whsec_…`); unsigned when absent. */
  secret?: string;
  /** Body: a CloudEvents 1.0 structured event (default) or plain JSON. */
  format: "cloudevents" | "json";
}

/** Printed on stdout (demo, debugging). */
export interface ConsoleChannelSpec extends ChannelBase {
  type: "console";
}

/** The channel types a rule may use. */
export const CHANNEL_TYPES = ["slack", "email", "webhook", "console"] as const;
/** One of CHANNEL_TYPES. */
export type ChannelType = (typeof CHANNEL_TYPES)[number];
