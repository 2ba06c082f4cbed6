/**
 * Channel templates: a rule may override a channel's text (and an email's subject)
 * with a template of `{placeholders}`. The loader checks the placeholders (`{flihgt}`
 * is an error with a hint), and rendering is pure: the same alert and rule give the
 * same text. `{{` and `}}` write literal braces.
 */

import type { Alert } from "../dispatch/alert.js";
import type { Rule } from "../rules/rule.js";
import { toLocalDateTime } from "../time/local-time.js";
import {
  clipText,
  describeAlert,
  describeChange,
  describeReminder,
  flightNamesFrom,
  ruleFlightName,
} from "./alert-text.js";
import { type Language, phrasesOf } from "./language.js";

/** A rule's language as text options (nothing for English, the default). */
export function languageOf(rule: Rule): { language?: Language } {
  return rule.language === undefined ? {} : { language: rule.language };
}

/** The placeholders a template may use (plus `label.<key>` for any label of the rule). */
export const TEMPLATE_FIELDS = [
  "flight",
  "flights",
  "route",
  "direction",
  "date",
  "time",
  "changes",
  "summary",
  "rule",
  "description",
] as const;

const PLACEHOLDER_RE = /\{\{|\}\}|\{([^{}]*)\}/g;
const LABEL_RE = /^label\.[A-Za-z0-9_.-]+$/;

/** The placeholders of a template that are not known (names as written), in order. */
export function unknownPlaceholders(template: string): string[] {
  const unknown: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER_RE)) {
    const name = m[1];
    if (name === undefined) continue;
    const trimmed = name.trim();
    if (!(TEMPLATE_FIELDS as readonly string[]).includes(trimmed) && !LABEL_RE.test(trimmed)) {
      unknown.push(name);
    }
  }
  return unknown;
}

/** Whether a template has an unmatched `{` or `}` (outside `{{`, `}}` and placeholders). */
export function hasStrayBrace(template: string): boolean {
  return /[{}]/.test(template.replace(PLACEHOLDER_RE, ""));
}

/** How to render a template for a target. */
export interface RenderOptions {
  /**
   * Applied to every placeholder's value, never to the template's own text: values
   * come from flight data and must not become markup (Slack mrkdwn, HTML).
   */
  escape?: (value: string) => string;
  /**
   * Values from the upstream (flight numbers, route, date, the changes' values) are cut
   * to this many characters each (see `TextOptions.maxValueChars`). Default: not cut.
   */
  maxValueChars?: number;
}

/** Renders a template for an alert; an unknown label renders empty. */
export function renderTemplate(
  template: string,
  alert: Alert,
  rule: Rule,
  zone: string,
  options: RenderOptions = {},
): string {
  const esc = options.escape ?? ((value: string) => value);
  // Only the placeholders a template uses are computed (a subject of `{flight} {date}`
  // must not pay for `{summary}`), each once however often it appears.
  const computed = new Map<string, string>();
  return template.replace(PLACEHOLDER_RE, (all, name: string | undefined) => {
    if (all === "{{") return "{";
    if (all === "}}") return "}";
    const key = (name ?? "").trim();
    if (key.startsWith("label.")) return esc(alert.labels[key.slice(6)] ?? "");
    let value = computed.get(key);
    if (value === undefined) {
      value = FIELD_VALUES.get(key)?.(alert, rule, zone, options.maxValueChars) ?? "";
      computed.set(key, value);
    }
    return esc(value);
  });
}

/** How one placeholder's value is made. */
type FieldValue = (alert: Alert, rule: Rule, zone: string, max: number | undefined) => string;

/** Local `yyyy-MM-ddTHH:mm:ss` of the flight's schedule ("" when it has none). */
const scheduledLocal = (alert: Alert, zone: string): string =>
  alert.flight.scheduled === undefined ? "" : toLocalDateTime(alert.flight.scheduled, zone);

/** Every field of TEMPLATE_FIELDS (a Map: `{constructor}` must not find Object's). */
const FIELD_VALUES = new Map<string, FieldValue>(
  Object.entries({
    // The number the rule knows the flight by (a passenger's codeshare), else the operating one.
    flight: (alert, rule, _zone, max) =>
      clipText(ruleFlightName(alert.flight, rule) ?? alert.flight.mainFlight, max),
    flights: (alert, rule, _zone, max) =>
      clipText(flightNamesFrom(alert.flight, ruleFlightName(alert.flight, rule)).join(", "), max),
    route: (alert, _rule, _zone, max) => clipText((alert.current?.route ?? []).join(", "), max),
    direction: (alert, rule) =>
      alert.flight.direction === "A"
        ? phrasesOf(rule.language).arrival
        : alert.flight.direction === "D"
          ? phrasesOf(rule.language).departure
          : "",
    date: (alert, _rule, zone, max) =>
      clipText(alert.flight.scheduleDate ?? scheduledLocal(alert, zone).slice(0, 10), max),
    time: (alert, _rule, zone) => scheduledLocal(alert, zone).slice(11, 16),
    // A reminder's "change" is the reminder itself.
    changes: (alert, rule, zone, max) =>
      alert.reminder !== undefined
        ? describeReminder(alert, zone, {
            flightName: ruleFlightName(alert.flight, rule),
            maxValueChars: max,
            ...languageOf(rule),
          })
        : alert.changes
            .map((c) =>
              describeChange(c, zone, {
                current: alert.current,
                maxValueChars: max,
                ...languageOf(rule),
              }),
            )
            .join("; "),
    summary: (alert, rule, zone, max) =>
      describeAlert(alert, zone, {
        flightName: ruleFlightName(alert.flight, rule),
        maxValueChars: max,
        ...languageOf(rule),
      }),
    rule: (_alert, rule) => rule.id,
    description: (_alert, rule) => rule.description ?? "",
  } satisfies Record<(typeof TEMPLATE_FIELDS)[number], FieldValue>),
);
