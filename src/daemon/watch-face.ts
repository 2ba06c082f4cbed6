/**
 * How `flightwatch watch` speaks: what the pipeline hands on goes to stdout — each
 * change event (the detect-only role) or each alert (the decide role) as one JSON line,
 * or the console channel's notifications — and stdout's pace holds the stage back (an
 * item is acknowledged once written). Poll summaries, deliveries and rule reloads are
 * short lines on stderr; warnings and errors are the daemon's log, as text on stderr.
 */
import { describeRecord, settled } from "../deliver/delivery-log.js";
import { describePoll } from "../detect/describe-poll.js";
import type { Alert } from "../dispatch/alert.js";
import type { LogLevel } from "../log/logger.js";
import { describeAlert } from "../render/alert-text.js";
import type { RuleSet } from "../rules/match/rule-matcher.js";
import { toLocalDateTime } from "../time/local-time.js";
import type { Face } from "./run-daemon.js";

/** What `watch` was asked to show. */
export interface WatchFaceOptions {
  /** No poll summaries. */
  quiet?: boolean;
  /** Notifications are printed on stdout (a dry run): no line per delivery on stderr. */
  consoleOnly?: boolean;
  /** The log's least level (default warn: the rest is what stdout and stderr show). */
  logLevel?: LogLevel;
}

/** The face of `watch`. */
export function watchFace(options: WatchFaceOptions = {}): Face {
  const err = (line: string) => void process.stderr.write(`${line}\n`);
  const gone = new Promise<string>((resolve) => {
    // The reader went away (`| head -1`): stop as on a signal; what was not printed
    // stays unacknowledged for the next run.
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") resolve("EPIPE");
    });
  });
  let polls = 0;
  return {
    log: { destination: process.stderr, level: options.logLevel ?? "warn", format: "text" },
    console: { write: (text) => writeLine(text), json: !process.stdout.isTTY },
    rules: { info: (line) => err(`flightwatch: ${line}`), problem: err },
    gone,
    show({ upstream }) {
      if (upstream) {
        const what = upstream.simulated ? "the built-in simulator at " : "";
        err(`flightwatch: watching ${what}${upstream.baseUrl}`);
      }
      return () => undefined;
    },
    observer: ({ config, rules }) => ({
      changed: (event) => writeLine(`${JSON.stringify(event)}\n`),
      alerted: (alert) => writeLine(alertLine(alert, rules(), config.zone)),
      polled(report) {
        polls++;
        // A failed poll is a warning of the log.
        if (!options.quiet && report.outcome !== "failed") err(describePoll(polls, report));
      },
      delivered(record) {
        // Retries and dead letters are the log's warnings and errors; in a dry run the
        // notification itself is on stdout already.
        const done = settled(record.result);
        if (done && !options.quiet && !options.consoleOnly) err(describeRecord(record));
      },
    }),
  };
}

/**
 * An alert for stdout: readable in a terminal (rule, channels, what changed), one
 * JSON object per line (the alert plus its channels) when piped.
 */
export function alertLine(alert: Alert, ruleSet: RuleSet, zone: string): string {
  const channels = (ruleSet.get(alert.ruleId)?.channels ?? []).map((c) =>
    c.name === c.type ? c.type : `${c.type}:${c.name}`,
  );
  if (!process.stdout.isTTY) return `${JSON.stringify({ ...alert, channels })}\n`;
  const at = toLocalDateTime(alert.decidedAt, zone).slice(11, 19);
  return `${at} ${alert.ruleId} → ${channels.join(", ") || "(rule gone)"}: ${describeAlert(alert, zone)}\n`;
}

/** Writes to stdout, waiting when the pipe is full (an item is acknowledged after). */
function writeLine(line: string): Promise<void> | undefined {
  const out = process.stdout;
  // Closed (the reader went away): fail, so the item is not acknowledged as printed.
  if (out.destroyed || !out.writable) return Promise.reject(new Error("stdout is closed"));
  if (out.write(line)) return undefined;
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      out.off("drain", onDrain);
      out.off("error", settle);
      out.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new Error("stdout is closed"));
    out.once("drain", onDrain);
    out.once("error", settle);
    out.once("close", onClose);
  });
}
