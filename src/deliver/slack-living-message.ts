/**
 * The living message of a flight in a Slack channel (a `slack` channel with `token` and
 * `channel`): one message per rule and flight that shows the flight as it is now — its
 * numbers and route, departs or arrives when, the best estimate of its time against
 * the schedule, the gate (or belt) and the status — updated in place as alerts come,
 * while what changed goes into its thread (slack-message.ts). Pure. Words in the rule's
 * language, times in the airport's zone, with the helpers every channel's text uses;
 * every value from flight data is made inert for mrkdwn, and Slack's limits are kept.
 */
import type { SnapshotFields } from "../diff/flight-snapshot.js";
import type { Alert } from "../dispatch/alert.js";
import { languageOf } from "../render/alert-template.js";
import { clipText, describeFlight, localTime } from "../render/alert-text.js";
import { type Phrases, phrasesOf } from "../render/language.js";
import type { Rule } from "../rules/rule.js";
import { toLocalDate } from "../time/local-time.js";
import {
  contextTexts,
  headerText,
  inertMrkdwn,
  mrkdwnSection,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  truncateMrkdwn,
  truncatePlain,
} from "./slack-message.js";

/** Each value from flight data is cut to this many characters (the upstream bounds none). */
const MAX_VALUE_CHARS = 200;

/** One line of the living message: a label (ours) and a value (from flight data). */
interface Line {
  label: string;
  value: string;
}

/** The flight's line and its labelled lines, as the living message shows them. */
function livingParts(alert: Alert, rule: Rule, zone: string) {
  const { language } = languageOf(rule);
  const p = phrasesOf(language);
  const current = alert.current ?? {};
  const flightLine = describeFlight(alert.flight, current.route, zone, {
    current,
    maxValueChars: MAX_VALUE_CHARS,
    ...(language ? { language } : {}),
  });
  return { p, flightLine, lines: flightLines(alert, current, zone, p, language) };
}

/**
 * The living message in plain text, two lines: the flight, then what is known of it
 * (`Estimated departure 10:50 (25 min late) · Gate D7 · Status boarding`) — what the
 * console shows of it in a dry run.
 */
export function slackLivingText(alert: Alert, rule: Rule, zone: string): string[] {
  const { flightLine, lines } = livingParts(alert, rule, zone);
  const known = lines.map(({ label, value }) => `${label} ${value}`).join(" · ");
  return known === "" ? [flightLine] : [flightLine, known];
}

/** The living message of an alert's flight, as of the alert (`alert.current`). */
export function slackLivingMessage(alert: Alert, rule: Rule, zone: string): SlackMessage {
  const { p, flightLine, lines } = livingParts(alert, rule, zone);
  const header: SlackBlock = {
    type: "header",
    text: { type: "plain_text", text: truncatePlain(headerText(alert), SLACK_LIMITS.headerChars) },
  };
  const blocks: SlackBlock[] = [header, mrkdwnSection(inertMrkdwn(flightLine))];
  if (lines.length > 0) {
    blocks.push({
      type: "section",
      fields: lines.map(({ label, value }) => ({
        type: "mrkdwn",
        // The bold label is ours; the value comes from flight data.
        text: truncateMrkdwn(
          `*${inertMrkdwn(label)}:* ${inertMrkdwn(value)}`,
          SLACK_LIMITS.fieldChars,
        ),
      })),
    });
  }
  blocks.push({ type: "context", elements: contextTexts(alert, rule, zone) });
  const state = [flightLine, ...lines.map(({ label, value }) => `${label} ${value}`)].join(" · ");
  // As every channel's one-line text does: a test sample says so first.
  const summary = alert.test ? `${p.test} ${state}` : state;
  return { text: truncateMrkdwn(inertMrkdwn(summary), SLACK_LIMITS.textChars), blocks };
}

/** The flight's time against its schedule, gate or belt, and status: what is known of them. */
function flightLines(
  alert: Alert,
  current: SnapshotFields,
  zone: string,
  p: Phrases,
  language: Rule["language"],
): Line[] {
  const { flight } = alert;
  const arrival = flight.direction === "A";
  const times = current.times ?? {};
  const lines: Line[] = [];
  // The best estimate: what happened, else what is expected.
  const [field, ms] = arrival
    ? times.actualLandingTime !== undefined
      ? (["actualLandingTime", times.actualLandingTime] as const)
      : (["estimatedLandingTime", times.estimatedLandingTime] as const)
    : times.actualOffBlockTime !== undefined
      ? (["actualOffBlockTime", times.actualOffBlockTime] as const)
      : (["publicEstimatedOffBlockTime", times.publicEstimatedOffBlockTime] as const);
  if (ms !== undefined) {
    lines.push({
      label: capitalised(p.times[field] ?? field),
      value: `${timeOf(ms, flight.scheduled, zone, language)}${delayNote(ms, flight.scheduled, p)}`,
    });
  }
  const extra = arrival ? "expectedTimeOnBelt" : "expectedTimeBoarding";
  const extraMs = times[extra];
  if (extraMs !== undefined) {
    lines.push({
      label: capitalised(p.times[extra] ?? extra),
      value: timeOf(extraMs, flight.scheduled, zone, language),
    });
  }
  if (!arrival && current.gate !== undefined) {
    lines.push({ label: capitalised(p.fields.gate ?? "gate"), value: clip(current.gate) });
  }
  if (arrival && current.belts !== undefined && current.belts.length > 0) {
    lines.push({
      label: capitalised(p.fields.baggageClaim ?? "belt"),
      value: clip(current.belts.join(", ")),
    });
  }
  if (current.states !== undefined && current.states.length > 0) {
    const words = current.states.map((code) =>
      Object.hasOwn(p.states, code) ? (p.states[code] as string) : code,
    );
    lines.push({ label: capitalised(p.status), value: clip(words.join(", ")) });
  }
  return lines;
}

/** `10:50`, with the date when it is not the schedule's local date. */
function timeOf(
  ms: number,
  scheduled: number | undefined,
  zone: string,
  language: Rule["language"],
): string {
  const sameDay = scheduled !== undefined && toLocalDate(ms, zone) === toLocalDate(scheduled, zone);
  return localTime(ms, zone, !sameDay, language);
}

/** ` (25 min late)`, ` (5 min early)`, ` (on time)` against the schedule; nothing without one. */
function delayNote(ms: number, scheduled: number | undefined, p: Phrases): string {
  if (scheduled === undefined) return "";
  const minutes = Math.round((ms - scheduled) / 60_000);
  if (minutes === 0) return ` (${p.onTime})`;
  return minutes > 0 ? ` (${p.late(minutes)})` : ` (${p.early(-minutes)})`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function clip(text: string): string {
  return clipText(text, MAX_VALUE_CHARS);
}
