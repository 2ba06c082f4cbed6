/**
 * Channel templates: a rule may override a channel's text (and an email's subject)
 * with a template of `{placeholders}`. The loader checks the placeholders (`{flihgt}`
 * is an error with a hint), and rendering is pure: the same alert and rule give the
 * same text. `{{` and `}}` write literal braces.
 */
import type { Rule } from "../rules/rule.js";
import { toLocalDateTime } from "../time/local-time.js";
import type { Alert } from "./alert.js";
import { describeAlert, describeChange } from "./alert-text.js";

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
}

/** Renders a template for an alert; an unknown label renders empty. */
export function renderTemplate(
  template: string,
  alert: Alert,
  rule: Rule,
  zone: string,
  options: RenderOptions = {},
): string {
  const values = templateValues(alert, rule, zone);
  const esc = options.escape ?? ((value: string) => value);
  return template.replace(PLACEHOLDER_RE, (all, name: string | undefined) => {
    if (all === "{{") return "{";
    if (all === "}}") return "}";
    const key = (name ?? "").trim();
    if (key.startsWith("label.")) return esc(alert.labels[key.slice(6)] ?? "");
    return esc(values[key as (typeof TEMPLATE_FIELDS)[number]] ?? "");
  });
}

function templateValues(
  alert: Alert,
  rule: Rule,
  zone: string,
): Record<(typeof TEMPLATE_FIELDS)[number], string> {
  const { flight } = alert;
  const local = flight.scheduled === undefined ? "" : toLocalDateTime(flight.scheduled, zone);
  return {
    flight: flight.mainFlight,
    flights: flight.flightNames.join(", "),
    route: (alert.current?.route ?? []).join(", "),
    direction: flight.direction === "A" ? "arrival" : flight.direction === "D" ? "departure" : "",
    date: flight.scheduleDate ?? local.slice(0, 10),
    time: local.slice(11, 16),
    changes: alert.changes.map((c) => describeChange(c, zone)).join("; "),
    summary: describeAlert(alert, zone),
    rule: rule.id,
    description: rule.description ?? "",
  };
}
