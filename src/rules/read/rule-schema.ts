/**
 * The keys of rule files (docs/rules.md): which keys each mapping takes, channel keys
 * by type. The validator and its "did you mean" hints read these tables; the change
 * kinds and their vocabulary are in ../change-kinds.ts.
 */
import { CRITERIA_ENTRIES } from "../flight-criteria.js";
import type { ChannelType } from "../rule.js";

/** Keys of a rule. */
export const RULE_KEYS = [
  "id",
  "description",
  "labels",
  "enabled",
  "flights",
  "changes",
  "channels",
  "group_wait",
  "cool_down",
  "flapping",
  "language",
  "quiet_hours",
  "remind",
] as const;

/** Keys of a reminder written as a mapping. */
export const REMINDER_KEYS = ["before", "by"] as const;

/** Keys of `quiet_hours`. */
export const QUIET_HOURS_KEYS = ["from", "to", "zone", "critical"] as const;

/** Keys of a flight filter: the criteria's (flight-criteria.ts), then `not`. */
export const FLIGHT_FILTER_KEYS: readonly string[] = [
  ...CRITERIA_ENTRIES.map(([, criterion]) => criterion.key),
  "not",
];

/** Keys of a `schedule` window. */
export const SCHEDULE_KEYS = ["from", "to"] as const;

/** Keys of `flapping`. */
export const FLAPPING_KEYS = ["window", "action"] as const;

/** Keys each channel type takes besides `type` and `name`. */
export const CHANNEL_KEYS: Readonly<Record<ChannelType, readonly string[]>> = {
  // `url` (an incoming webhook) or `token` and `channel` (the Web API: living messages).
  slack: ["url", "token", "channel", "template", "retry"],
  email: ["to", "subject", "template", "unsubscribe_url", "retry"],
  webhook: ["url", "secret", "format", "retry"],
  console: ["retry"],
};

/** Keys of a channel's `retry`. */
export const RETRY_KEYS = ["delays", "for"] as const;
