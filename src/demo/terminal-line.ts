/**
 * One line of a full-screen terminal view: styled spans fitted to the screen's width.
 * Styles are kept apart from the text until the end, so cutting a line to width never
 * cuts an escape sequence, and colour off means no escape character at all. Text from
 * outside (rule ids, destinations, error details) comes cleaned of control characters
 * (log/clean-text.ts): an escape sequence in an upstream error must not drive the terminal.
 */
import { stripVTControlCharacters } from "node:util";

/** Styles the view uses, as SGR attributes. */
export type Style = "bold" | "dim" | "red" | "green" | "yellow" | "cyan" | "inverse";

const SGR: Readonly<Record<Style, number>> = {
  bold: 1,
  dim: 2,
  inverse: 7,
  red: 31,
  green: 32,
  yellow: 33,
  cyan: 36,
};

/** A piece of a line in one style. */
export interface Span {
  text: string;
  style?: Style | readonly Style[];
}

/** Columns a text takes on a terminal, escape sequences not counted. */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const ch of stripVTControlCharacters(text)) width += charWidth(ch.codePointAt(0) ?? 0);
  return width;
}

/** `text` cut to at most `width` columns, ending in `…` when cut. */
function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (visibleWidth(text) <= width) return text;
  return `${headOf(text, width - 1)}…`;
}

/** `text` padded with spaces (or cut) to exactly `width` columns. */
export function fitTo(text: string, width: number): string {
  const cut = truncate(text, width);
  return cut + " ".repeat(Math.max(0, width - visibleWidth(cut)));
}

/**
 * The spans as one line of at most `width` columns: cut with `…` when too long,
 * styled with SGR sequences only when `color` is on.
 */
export function terminalLine(spans: readonly Span[], width: number, color: boolean): string {
  if (width <= 0) return "";
  const total = spans.reduce((sum, span) => sum + visibleWidth(span.text), 0);
  if (total <= width) return spans.map((span) => styled(span.text, span.style, color)).join("");
  // Too long: width − 1 columns of text, then the `…`.
  let out = "";
  let left = width - 1;
  for (const span of spans) {
    if (left <= 0) break;
    const w = visibleWidth(span.text);
    const text = w <= left ? span.text : headOf(span.text, left);
    out += styled(text, span.style, color);
    left -= w;
  }
  return `${out}…`;
}

/** The longest start of `text` that fits in `width` columns. */
function headOf(text: string, width: number): string {
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0) ?? 0);
    if (used + w > width) break;
    out += ch;
    used += w;
  }
  return out;
}

function styled(text: string, style: Span["style"], color: boolean): string {
  if (!color || style === undefined || text === "") return text;
  const styles: readonly Style[] = typeof style === "string" ? [style] : style;
  if (styles.length === 0) return text;
  return `\x1b[${styles.map((s) => SGR[s]).join(";")}m${text}\x1b[0m`;
}

/**
 * Columns of one code point: 0 for combining marks and zero-width characters, 2 for
 * East Asian wide and fullwidth characters and pictographs, 1 otherwise.
 */
function charWidth(cp: number): number {
  if (
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xfe20 && cp <= 0xfe2f)
  )
    return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}
