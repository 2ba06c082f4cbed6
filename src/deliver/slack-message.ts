/**
 * The Slack message of a notification: a Block Kit incoming-webhook payload (header
 * with flight and route, one `label: old → new` field per change, context with local
 * times and the rule) plus the plain `text` fallback Slack uses for notifications. A
 * Web API channel posts the same message as the reply in a flight's living thread
 * (slack-living-message.ts renders the living message itself).
 * Pure. Every value that comes from flight data is made inert for mrkdwn, so a gate
 * named `<!channel>` cannot ping anyone and a remark of `*URGENT*` is not bold, and
 * every text respects Slack's limits.
 */
import type { Alert } from "../dispatch/alert.js";
import { languageOf, renderTemplate } from "../render/alert-template.js";
import {
  changeParts,
  describeAlert,
  describeReminder,
  localTime,
  ruleFlightName,
} from "../render/alert-text.js";
import type { Rule, SlackChannelSpec } from "../rules/rule.js";
import type { Notification } from "./notification.js";

/** Slack's limits on what an incoming webhook accepts (Block Kit reference). */
export const SLACK_LIMITS = {
  /** A header block's plain text. */
  headerChars: 150,
  /** A section's text. */
  sectionChars: 3000,
  /** One field of a section. */
  fieldChars: 2000,
  /** Fields per section. */
  fields: 10,
  /** Blocks per message. */
  blocks: 50,
  /** Elements per context block. */
  contextElements: 10,
  /** The top-level `text`; Slack advises 4,000 and truncates far beyond. */
  textChars: 4000,
} as const;

/** A Block Kit text object. */
export interface SlackText {
  type: "plain_text" | "mrkdwn";
  text: string;
}

/** The blocks flightwatch sends. */
export type SlackBlock =
  | { type: "header"; text: SlackText & { type: "plain_text" } }
  | { type: "section"; text?: SlackText; fields?: SlackText[] }
  | { type: "context"; elements: SlackText[] };

/** An incoming-webhook payload; the `text` and `blocks` of a Web API message too. */
export interface SlackMessage {
  /** Plain fallback (notifications, clients without blocks); parsed as mrkdwn too. */
  text: string;
  blocks: SlackBlock[];
}

/** Codeshares are listed in the header while their names fit in this many characters. */
const CODESHARE_CHARS = 30;
/** Blocks besides the change sections: the header and the context. */
const FIXED_BLOCKS = 2;

/** The Slack message of a notification through a Slack channel of a rule. */
export function slackMessage(
  notification: Notification,
  channel: SlackChannelSpec,
  rule: Rule,
  zone: string,
): SlackMessage {
  const { alert } = notification;
  const replay = notification.replayOf !== undefined ? "Replay — " : "";
  const header: SlackBlock = {
    type: "header",
    text: {
      type: "plain_text",
      text: truncatePlain(`${replay}${headerText(alert)}`, SLACK_LIMITS.headerChars),
    },
  };
  const context: SlackBlock = { type: "context", elements: contextTexts(alert, rule, zone) };
  const rendered =
    channel.template === undefined
      ? ""
      : renderTemplate(channel.template, alert, rule, zone, { escape: inertMrkdwn });
  if (rendered.trim() !== "") {
    return {
      text: truncateMrkdwn(rendered, SLACK_LIMITS.textChars),
      blocks: [header, mrkdwnSection(rendered), context],
    };
  }
  return {
    text: truncateMrkdwn(
      inertMrkdwn(describeAlert(alert, zone, languageOf(rule))),
      SLACK_LIMITS.textChars,
    ),
    blocks: [header, ...changeSections(alert, zone, rule), context],
  };
}

/**
 * Escapes the three characters Slack's mrkdwn gives meaning to (`<!channel>`, `<url|text>`).
 * Enough for text whose formatting is meant (ours, the rule's description); flight data
 * takes `inertMrkdwn`.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Look-alikes of the characters mrkdwn formats with. Slack documents an escape for
 * `&`, `<` and `>` only, and there is no backslash escape. A zero-width space beside a
 * marker does not help either: Slack takes it as a word boundary, which *enables* the
 * formatting (jsx-slack's "exact mode" inserts U+200B for exactly that). So flight data
 * gets characters that look the same and mean nothing — the replacements jsx-slack's
 * `<Escape>` uses where it cannot hide a marker in a date token's fallback text (a
 * trick resting on undocumented behaviour): what a reader sees is the value; what
 * they copy differs in these characters only. The full-width forms are replaced too,
 * as jsx-slack does.
 */
const MRKDWN_LOOKALIKES: Readonly<Record<string, string>> = {
  "*": "\u2217", // ∗ asterisk operator
  "\uff0a": "\ufe61", // ＊ → ﹡ small asterisk
  _: "\u02cd", // ˍ modifier letter low macron
  "\uff3f": "\u2e0f", // ＿ → ⸏ paragraphos
  "~": "\u223c", // ∼ tilde operator
  "`": "\u02cb", // ˋ modifier letter grave accent
  "\uff40": "\u02cb", // ｀ → ˋ
  // Inside a template's link (`<https://ops/{flight}|{flight}>`) a value's `|` would end
  // the URL and take over the link's text.
  "|": "\u2223", // ∣ divides
};
const MRKDWN_MARKERS = /[*\uff0a_\uff3f~`\uff40|]/g;
/** Soft hyphen: invisible, yet a `>` after it no longer starts a line (a block quote). */
const QUOTE_BREAK = "\u00ad";

/**
 * A value from flight data (or rendered from it) as mrkdwn that shows the value and
 * does nothing else: `&`, `<`, `>` escaped (no ping, no link), formatting markers
 * (`*bold*`, `_italic_`, `~strike~`, `` `code` ``) and a link's `|` replaced by
 * look-alikes, and a `>` that would start a line (after any line break, `\r` and the
 * Unicode separators too) — the value may be placed at one — kept from quoting.
 */
export function inertMrkdwn(value: string): string {
  return escapeMrkdwn(value)
    .replace(MRKDWN_MARKERS, (c) => MRKDWN_LOOKALIKES[c] ?? c)
    .replace(/(^|[\n\r\u2028\u2029])(&gt;|\uff1e)/g, `$1${QUOTE_BREAK}$2`);
}

/**
 * Cuts mrkdwn to at most `max` characters, ending with `…`; never inside an entity
 * (`&amp;`), an angle-bracket link of a template, or a surrogate pair, so the cut text
 * is still what the untruncated text says, only shorter.
 */
export function truncateMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = cutPlain(text, max - 1);
  const amp = head.lastIndexOf("&");
  if (amp >= 0 && amp >= head.length - 4 && !head.slice(amp).includes(";")) {
    head = head.slice(0, amp);
  }
  const open = head.lastIndexOf("<");
  if (open > head.lastIndexOf(">")) head = head.slice(0, open);
  return `${head}…`;
}

/** Cuts plain text to at most `max` characters, ending with `…`, never inside a surrogate pair. */
export function truncatePlain(text: string, max: number): string {
  return text.length <= max ? text : `${cutPlain(text, max - 1)}…`;
}

function cutPlain(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  const splitsPair = code >= 0xd800 && code <= 0xdbff;
  return text.slice(0, splitsPair ? length - 1 : length);
}

/** `KL1001 (DL9341, AF5512) to WAW` — plain text, so nothing in it is markup. */
export function headerText(alert: Alert): string {
  const { flight } = alert;
  const codeshares = flight.flightNames.slice(1);
  const shown: string[] = [];
  for (const name of codeshares) {
    if ([...shown, name].join(", ").length > CODESHARE_CHARS) break;
    shown.push(name);
  }
  const more = codeshares.length - shown.length;
  const names =
    codeshares.length === 0 ? "" : ` (${[...shown, ...(more > 0 ? [`+${more}`] : [])].join(", ")})`;
  const route = alert.current?.route ?? [];
  const places =
    route.length === 0 ? "" : `${flight.direction === "A" ? " from" : " to"} ${route.join(", ")}`;
  // A header is one line, and Slack refuses an empty one.
  const text =
    `${flight.mainFlight}${names}${places}`.replace(/\s+/g, " ").trim() || "Flight update";
  return alert.test ? `TEST — ${text}` : text;
}

/** Sections of at most ten `*label:* old → new` fields, as many as the block limit allows. */
function changeSections(alert: Alert, zone: string, rule: Rule): SlackBlock[] {
  // A reminder is one sentence (from flight data: inert).
  if (alert.reminder !== undefined) {
    const text = describeReminder(alert, zone, {
      flightName: ruleFlightName(alert.flight, rule),
      ...languageOf(rule),
    });
    return [mrkdwnSection(`:alarm_clock: ${inertMrkdwn(text)}`)];
  }
  const fields = alert.changes.map((change) => {
    const { label, value } = changeParts(change, zone, languageOf(rule));
    // The bold label is ours; what is in it and after it comes from flight data.
    return truncateMrkdwn(
      `*${inertMrkdwn(label)}:* ${inertMrkdwn(value)}`,
      SLACK_LIMITS.fieldChars,
    );
  });
  const room = (SLACK_LIMITS.blocks - FIXED_BLOCKS) * SLACK_LIMITS.fields;
  if (fields.length > room) {
    const left = fields.length - (room - 1);
    fields.splice(room - 1, fields.length, `_…and ${left} more changes_`);
  }
  const sections: SlackBlock[] = [];
  for (let i = 0; i < fields.length; i += SLACK_LIMITS.fields) {
    const chunk = fields.slice(i, i + SLACK_LIMITS.fields);
    sections.push({ type: "section", fields: chunk.map((text) => ({ type: "mrkdwn", text })) });
  }
  return sections;
}

/** A section of mrkdwn text, cut to Slack's limit. */
export function mrkdwnSection(text: string): SlackBlock {
  return {
    type: "section",
    text: { type: "mrkdwn", text: truncateMrkdwn(text, SLACK_LIMITS.sectionChars) },
  };
}

/**
 * When (scheduled, decided; airport-local) and why (the rule). Our text and the rule
 * file's: escaped, but formatting in a description is the operator's to use.
 */
export function contextTexts(alert: Alert, rule: Rule, zone: string): SlackText[] {
  const when: string[] = [];
  if (alert.flight.scheduled !== undefined) {
    when.push(`Scheduled ${localTime(alert.flight.scheduled, zone, true)}`);
  }
  when.push(`alert ${localTime(alert.decidedAt, zone, true)} (${zone})`);
  const why = `Rule \`${rule.id}\`${rule.description ? `: ${rule.description}` : ""}`;
  return [when.join(" · "), why].map((text) => ({
    type: "mrkdwn",
    text: truncateMrkdwn(escapeMrkdwn(text), SLACK_LIMITS.fieldChars),
  }));
}
