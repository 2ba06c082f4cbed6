/**
 * The screen of `flightwatch demo`, as a pure function of the demo state, the screen
 * size and the airport clock: a header, a sparkline of changes per second, the recent
 * changes, the recent deliveries and a footer. Every line fits the width (escape
 * sequences aside); on a short terminal the least useful lines go first.
 */

import { cleanText } from "../log/clean-text.js";
import {
  changeParts,
  describeAlert,
  describeChange,
  describeReminder,
  localTime,
} from "../render/alert-text.js";
import { CHANNEL_TYPES } from "../rules/rule.js";
import type { DemoState, LastPoll, RecentChange, RecentDelivery } from "./demo-state.js";
import { fitTo, type Span, terminalLine, visibleWidth } from "./terminal-line.js";

/** What the screen is drawn for. */
export interface DemoScreenOptions {
  /** Columns and rows of the terminal. */
  width: number;
  height: number;
  /** The airport's IANA zone: times are shown in its local time. */
  zone: string;
  /** Airport clock, epoch ms. */
  now: number;
  /** Airport ms per real ms (shown as `×60`). */
  speed: number;
  /** SGR colours and emphasis; off means no escape character at all. */
  color: boolean;
  /** The footer's text (default: how to stop, and where to read on). */
  footer?: string;
}

/** Default footer: how to stop, and where to go from the demo. */
export const DEMO_FOOTER = "Ctrl-C to stop · write your own rules: docs/rules.md";

/** Columns from which changes get an aligned label column, and deliveries the whole alert. */
const WIDE = 80;
const VERY_WIDE = 120;
const SPARK = "▁▂▃▄▅▆▇█";
const numbers = new Intl.NumberFormat("en-GB");
const n = (value: number): string => numbers.format(value);

/** The lines of the screen: exactly `height` of them, none wider than `width` columns. */
export function renderDemoScreen(state: DemoState, options: DemoScreenOptions): string[] {
  const width = Math.max(0, Math.floor(options.width));
  const height = Math.max(0, Math.floor(options.height));
  if (width === 0 || height === 0) return Array.from({ length: height }, () => "");
  const line = (spans: readonly Span[]): string => terminalLine(spans, width, options.color);
  const layout = layoutFor(height, state.recentDeliveries().length);

  const out: string[] = [line(headerSpans(state, options, width))];
  if (layout.polls) out.push(line(pollSpans(state)));
  if (layout.spark) out.push(line(sparkSpans(state, options, width)));
  if (layout.kinds) out.push(line(kindSpans(state)));
  if (layout.changesTitle)
    out.push(line(titleSpans(`Detected changes · ${n(state.totals.changes)}`, width)));
  const changes = changeRows(state.recentChanges(layout.changeRows), options, width);
  const noChanges = "no changes yet: the first poll reads the airport silently (a baseline)";
  out.push(...paneRows(changes, layout.changeRows, noChanges).map(line));
  if (layout.deliveries) {
    out.push(line(titleSpans(`Deliveries · ${deliveryCounts(state)}`, width)));
    const rows = state
      .recentDeliveries(layout.deliveryRows)
      .map((d) => deliverySpans(d, options, width));
    out.push(...paneRows(rows, layout.deliveryRows, "no deliveries yet").map(line));
  }
  if (layout.footer) out.push(line([{ text: options.footer ?? DEMO_FOOTER, style: "dim" }]));
  return out;
}

/** Which lines a screen of `height` rows has, and how many rows each pane gets. */
interface Layout {
  polls: boolean;
  spark: boolean;
  kinds: boolean;
  changesTitle: boolean;
  deliveries: boolean;
  footer: boolean;
  changeRows: number;
  deliveryRows: number;
}

/**
 * All lines when there is room for a row in each pane; otherwise lines go in this
 * order: change totals, poll line, sparkline, footer, the deliveries pane, the changes
 * title. The header stays. The deliveries pane, above the footer, grows with the
 * deliveries there are (`deliveries`) up to 45% of the rows; the changes take the rest.
 */
function layoutFor(height: number, deliveries: number): Layout {
  const on = {
    kinds: true,
    polls: true,
    spark: true,
    footer: true,
    deliveries: true,
    changesTitle: true,
  };
  const dropOrder = ["kinds", "polls", "spark", "footer", "deliveries", "changesTitle"] as const;
  const fixed = (): number =>
    1 +
    Number(on.polls) +
    Number(on.spark) +
    Number(on.kinds) +
    Number(on.changesTitle) +
    Number(on.footer) +
    (on.deliveries ? 1 : 0);
  const minRows = (): number => 1 + (on.deliveries ? 1 : 0);
  for (const key of dropOrder) {
    if (fixed() + minRows() <= height) break;
    on[key] = false;
  }
  const rows = Math.max(0, height - fixed());
  const deliveryRows = on.deliveries
    ? Math.max(1, Math.min(deliveries, Math.floor(rows * 0.45)))
    : 0;
  return { ...on, changeRows: rows - deliveryRows, deliveryRows };
}

/** `rows` padded to `count` lines; the first says `empty` when there are none. */
function paneRows(rows: Span[][], count: number, empty: string): Span[][] {
  const out = rows.slice(0, count);
  if (out.length === 0 && count > 0) out.push([{ text: empty, style: "dim" }]);
  while (out.length < count) out.push([]);
  return out;
}

function headerSpans(state: DemoState, options: DemoScreenOptions, width: number): Span[] {
  const started = state.startedAt ?? options.now;
  const airportMs = Math.max(0, options.now - started);
  const parts: { spans: Span[]; keep: number }[] = [
    { spans: [{ text: " flightwatch demo ", style: ["bold", "inverse"] }], keep: 0 },
    { spans: [{ text: localTime(options.now, options.zone, true), style: "bold" }], keep: 0 },
    { spans: [{ text: cleanText(options.zone), style: "dim" }], keep: 3 },
    { spans: [{ text: `×${speedText(options.speed)}`, style: "yellow" }], keep: 1 },
    { spans: [{ text: `up ${elapsedText(airportMs / options.speed)}` }], keep: 2 },
  ];
  if (options.speed !== 1) {
    parts.push({
      spans: [{ text: `(${elapsedText(airportMs)} of airport time)`, style: "dim" }],
      keep: 4,
    });
  }
  return joinFitting(parts, width, "  ");
}

function pollSpans(state: DemoState): Span[] {
  const t = state.totals;
  const head: Span[] = [
    { text: "polls ", style: "dim" },
    { text: n(t.polls) },
    { text: " · requests ", style: "dim" },
    { text: n(t.requests) },
    { text: " · alerts ", style: "dim" },
    { text: n(t.alerts) },
    { text: " · last: ", style: "dim" },
  ];
  return [...head, ...lastPollSpans(state.lastPoll)];
}

function lastPollSpans(last: LastPoll | undefined): Span[] {
  if (!last) return [{ text: "waiting for the first poll…", style: "dim" }];
  switch (last.outcome) {
    case "skipped":
      return [{ text: "backing off after failures", style: "yellow" }];
    case "conflict":
      return [{ text: "another process polled first", style: "dim" }];
    case "failed": {
      const behind = last.behindMs ? `, ${n(Math.round(last.behindMs / 1000))} s behind` : "";
      return [
        {
          text: `${last.mode ?? "poll"} failed after ${n(last.durationMs)} ms${behind}: ${cleanText(last.error ?? "unknown error")}`,
          style: "red",
        },
      ];
    }
    default:
      return [
        { text: `${last.mode ?? "poll"} `, style: "bold" },
        {
          text: `${n(last.requests)} req, ${n(last.records)} records, ${n(last.durationMs)} ms, ${n(last.events)} change${last.events === 1 ? "" : "s"}`,
        },
      ];
  }
}

function sparkSpans(state: DemoState, options: DemoScreenOptions, width: number): Span[] {
  const label = "changes/s ";
  const series = state.changeRate(options.now);
  // Stats are about the bars shown; their width is known once the bar count is.
  const statsFor = (bars: number[]): string => {
    const peak = bars.reduce((a, b) => Math.max(a, b), 0);
    const sum = bars.reduce((a, b) => a + b, 0);
    return ` peak ${n(peak)} · ${n(sum)} in ${bars.length} s`;
  };
  const room = width - label.length - visibleWidth(statsFor(series));
  const bars = series.slice(Math.max(0, series.length - Math.max(1, room)));
  const peak = bars.reduce((a, b) => Math.max(a, b), 0);
  const spark = bars
    .map((v) => (v === 0 ? SPARK[0] : SPARK[Math.max(1, Math.ceil((v / peak) * 7))]))
    .join("");
  return [
    { text: label, style: "dim" },
    { text: spark, style: "cyan" },
    { text: statsFor(bars), style: "dim" },
  ];
}

function kindSpans(state: DemoState): Span[] {
  const byKind = Object.entries(state.totals.changesByKind).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );
  const spans: Span[] = [{ text: "by kind: ", style: "dim" }];
  if (byKind.length === 0) spans.push({ text: "none yet", style: "dim" });
  for (const [i, [kind, count]] of byKind.entries()) {
    if (i > 0) spans.push({ text: " · ", style: "dim" });
    spans.push({ text: `${kind} ` }, { text: n(count), style: "bold" });
  }
  return spans;
}

function titleSpans(title: string, width: number): Span[] {
  const text = `── ${title} `;
  return [{ text: text + "─".repeat(Math.max(0, width - visibleWidth(text))), style: "bold" }];
}

/**
 * `10:25  KL1001  gate  D7 → D9`, newest first. When wide, flight numbers and labels
 * are aligned over the rows shown; when narrow, the label runs into the value.
 */
function changeRows(
  changes: readonly RecentChange[],
  options: DemoScreenOptions,
  width: number,
): Span[][] {
  const rows = changes.map((recent) => {
    const change = { ...recent.event, eventIds: [] };
    return {
      recent,
      flight: cleanText(recent.event.flight.mainFlight),
      // A new or removed flight reads as a sentence of its own (`new flight`).
      parts: recent.event.kind === "flight" ? undefined : changeParts(change, options.zone),
      whole: recent.event.kind === "flight" ? describeChange(change, options.zone) : "",
    };
  });
  const flightWidth = Math.min(8, Math.max(0, ...rows.map((r) => visibleWidth(r.flight))));
  const labelWidth = Math.min(
    20,
    Math.max(0, ...rows.map((r) => (r.parts ? visibleWidth(r.parts.label) : 0))),
  );
  return rows.map(({ recent, flight, parts, whole }) => {
    const head: Span[] = [
      { text: `${localTime(recent.at, options.zone, false)}  `, style: "dim" },
      { text: `${fitTo(flight, flightWidth)}  `, style: "cyan" },
    ];
    if (!parts) return [...head, { text: cleanText(whole), style: "bold" }];
    const label = width < WIDE ? `${parts.label} ` : `${fitTo(parts.label, labelWidth)}  `;
    return [...head, { text: label, style: "dim" }, { text: cleanText(parts.value) }];
  });
}

const RESULT_MARKS = {
  delivered: { text: "✓", style: "green" },
  retrying: { text: "↻", style: "yellow" },
  dead: { text: "✗", style: "red" },
  superseded: { text: "⤳", style: "dim" },
  cancelled: { text: "⊘", style: "dim" },
} as const;

/**
 * `10:25 ✓ r1 slack → hooks.slack.com/… · KL1001 gate D7 → D9`, with why when it
 * failed; the whole alert (`describeAlert`) when very wide.
 */
function deliverySpans(recent: RecentDelivery, options: DemoScreenOptions, width: number): Span[] {
  const { record, alert } = recent;
  const mark = RESULT_MARKS[record.result];
  const channel = record.channel === record.type ? record.type : `${record.type}:${record.channel}`;
  const spans: Span[] = [
    { text: `${localTime(recent.at, options.zone, false)} `, style: "dim" },
    { text: mark.text, style: mark.style },
    { text: ` ${cleanText(record.ruleId)} `, style: "bold" },
    { text: cleanText(channel), style: "cyan" },
  ];
  // Narrow: the destination gives way to what was sent and why it failed.
  if (width >= WIDE) spans.push({ text: ` → ${cleanText(record.destination)}`, style: "dim" });
  if (record.result !== "delivered") {
    const attempt = record.attempt > 1 ? `attempt ${record.attempt}, ` : "";
    const retry =
      record.result === "retrying" && record.nextAt !== undefined
        ? `, retry in ${elapsedText(Math.max(0, record.nextAt - record.at))}`
        : "";
    const why = [record.reason, record.detail].filter(Boolean).join(": ");
    spans.push({ text: ` (${attempt}${cleanText(why)}${retry})`, style: mark.style });
  }
  const about = alert
    ? width >= VERY_WIDE
      ? describeAlert(alert, options.zone)
      : alert.reminder !== undefined
        ? `⏰ ${describeReminder(alert, options.zone)}`
        : `${alert.flight.mainFlight} ${alert.changes.map((c) => describeChange(c, options.zone)).join("; ")}`
    : record.flight;
  spans.push({ text: " · ", style: "dim" }, { text: cleanText(about) });
  return spans;
}

/** `console ✓12 · slack ✓3 ↻1 · webhook ✗1`, in the order of the channel types. */
function deliveryCounts(state: DemoState): string {
  const byType = state.totals.deliveries;
  const parts = CHANNEL_TYPES.flatMap((type) => {
    const c = byType[type];
    if (!c) return [];
    const counts = [
      c.delivered ? `✓${n(c.delivered)}` : "",
      c.retrying ? `↻${n(c.retrying)}` : "",
      c.dead ? `✗${n(c.dead)}` : "",
    ].filter(Boolean);
    return [`${type} ${counts.join(" ")}`];
  });
  return parts.length > 0 ? parts.join(" · ") : "none yet";
}

/**
 * Parts joined by `separator`, dropping the parts with the highest `keep` (least
 * needed) until the rest fits; what still does not fit is cut by `terminalLine`.
 */
function joinFitting(
  parts: { spans: Span[]; keep: number }[],
  width: number,
  separator: string,
): Span[] {
  let kept = parts;
  const widthOf = (list: typeof parts): number =>
    list.reduce((sum, p) => sum + p.spans.reduce((s, span) => s + visibleWidth(span.text), 0), 0) +
    separator.length * Math.max(0, list.length - 1);
  while (widthOf(kept) > width) {
    const least = Math.max(...kept.map((p) => p.keep));
    if (least === 0) break;
    const drop = kept.findLastIndex((p) => p.keep === least);
    kept = kept.filter((_, i) => i !== drop);
  }
  return kept.flatMap((p, i) => (i === 0 ? p.spans : [{ text: separator }, ...p.spans]));
}

function speedText(speed: number): string {
  return Number.isInteger(speed) ? String(speed) : String(Number(speed.toFixed(2)));
}

/** `14s`, `2m 14s`, `1h 05m`, `2d 3h`: an elapsed time at a glance. */
function elapsedText(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}
