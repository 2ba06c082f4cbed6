/**
 * The human log format, one line per entry, for terminals:
 * `12:00:01.250 INFO  poll done role=poller flightId=… changes=3`. It is written from
 * the JSON line pino produced, so it shows exactly what the JSON format would have —
 * redaction included — and cannot drift from it.
 */
import type { DestinationStream } from "pino";
import { CONTEXT_FIELDS } from "./log-fields.js";

/** Fields every entry has that the text format shows in its own way, or not at all. */
const HIDDEN_FIELDS = new Set(["time", "level", "msg", "pid", "hostname", "service", "err"]);

/** One text line (without its newline) for one parsed JSON entry. */
export function formatTextLine(entry: Readonly<Record<string, unknown>>): string {
  const parts = [
    clock(entry.time),
    String(entry.level ?? "?")
      .toUpperCase()
      .padEnd(5),
  ];
  if (entry.msg !== undefined && entry.msg !== "") parts.push(escapeControls(String(entry.msg)));
  const context: string[] = CONTEXT_FIELDS.filter((k) => entry[k] !== undefined);
  const rest = Object.keys(entry).filter(
    (k) => !HIDDEN_FIELDS.has(k) && !context.includes(k) && entry[k] !== undefined,
  );
  for (const key of [...context, ...rest]) parts.push(`${key}=${formatValue(entry[key])}`);
  if (entry.err !== undefined) parts.push(`err=${formatValue(describeErr(entry.err))}`);
  return parts.join(" ");
}

/** A destination that turns pino's JSON lines into text lines on another destination. */
export class TextFormatStream implements DestinationStream {
  readonly #destination: NodeJS.WritableStream | DestinationStream;

  constructor(destination: NodeJS.WritableStream | DestinationStream) {
    this.#destination = destination;
  }

  /** Takes one or more JSON lines; anything that is not a JSON object passes through. */
  write(chunk: string): void {
    let out = "";
    for (const line of chunk.split("\n")) {
      if (line === "") continue;
      out += `${toText(line)}\n`;
    }
    if (out !== "") this.#destination.write(out);
  }

  /** Flushes the destination when it buffers (pino's `logger.flush()` calls this). */
  flush(cb: (err?: Error) => void): void {
    const flush = (this.#destination as { flush?: (cb: (err?: Error) => void) => void }).flush;
    if (typeof flush === "function") flush.call(this.#destination, cb);
    else cb();
  }
}

function toText(line: string): string {
  try {
    const entry: unknown = JSON.parse(line);
    if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
      return formatTextLine(entry as Record<string, unknown>);
    }
  } catch {
    // not JSON: shown as it came
  }
  return line;
}

/** Local wall-clock time with milliseconds: the terminal's reader is in the process's zone. */
function clock(time: unknown): string {
  const date = new Date(typeof time === "string" || typeof time === "number" ? time : Number.NaN);
  if (Number.isNaN(date.getTime())) return "--:--:--.---";
  const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** Bare when unambiguous (`flightId=123`), JSON-quoted otherwise (`reason="no route"`). */
function formatValue(value: unknown): string {
  if (typeof value === "string") {
    const bare = value !== "" && /^[^\s"=\\]+$/.test(value) && ![...value].some(isControl);
    return bare ? value : JSON.stringify(value);
  }
  if (value === null || typeof value !== "object") return String(value);
  return JSON.stringify(value);
}

/** `Type: message [code] ← Type: message [code]` down the cause chain. */
function describeErr(err: unknown): string {
  const links: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
    if (typeof current !== "object") {
      links.push(String(current));
      break;
    }
    const { type, message, code, cause } = current as Record<string, unknown>;
    const head = typeof type === "string" && type !== "" ? `${type}: ` : "";
    const tail = code !== undefined ? ` [${String(code)}]` : "";
    links.push(`${head}${String(message ?? "")}${tail}`);
    current = cause;
  }
  return links.join(" ← ");
}

/**
 * One entry, one line: line breaks in a message (a rule file's problems) show as `\n`,
 * and other control characters (an ANSI escape in upstream data) cannot drive the terminal.
 */
function escapeControls(text: string): string {
  let out = "";
  for (const c of text) out += isControl(c) ? JSON.stringify(c).slice(1, -1) : c;
  return out;
}

function isControl(c: string): boolean {
  const code = c.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}
