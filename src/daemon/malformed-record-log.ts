/**
 * The daemon's log line for an upstream record skipped as malformed: which flight,
 * which field, what is wrong, and that its last good snapshot is kept. Rate-limited
 * (a broken upstream can break every record of every poll): at most `limit` lines a
 * window, the next one saying how many were held back; the metric counts them all.
 */
import type { MalformedReport } from "../api/client-options.js";
import { LogThrottle, type LogThrottleOptions } from "../log/log-throttle.js";
import type { Logger } from "../log/logger.js";

/** Lines per window by default: a sample of the trouble, not a flood. */
export const MALFORMED_LINES_PER_WINDOW = 10;
/** The window, ms. */
export const MALFORMED_LINES_WINDOW_MS = 60_000;

/** Logs skipped malformed records, rate-limited. */
export class MalformedRecordLog {
  readonly #log: Logger;
  readonly #throttle: LogThrottle;

  constructor(log: Logger, options: Partial<LogThrottleOptions> = {}) {
    this.#log = log;
    this.#throttle = new LogThrottle({
      limit: MALFORMED_LINES_PER_WINDOW,
      windowMs: MALFORMED_LINES_WINDOW_MS,
      ...options,
    });
  }

  /** One skipped record (the client's `onMalformed`). */
  record(report: MalformedReport): void {
    const admitted = this.#throttle.admit();
    if (!admitted.write) return;
    const flight = report.identity?.flightName ?? report.identity?.mainFlight;
    const which = [report.id ? `id ${report.id}` : undefined, flight].filter(Boolean).join(" ");
    const held =
      admitted.suppressed > 0 ? ` (${admitted.suppressed} more held back since the last line)` : "";
    this.#log.warn(
      {
        flightId: report.id,
        ...(flight ? { flightName: flight } : {}),
        field: report.field,
        problems: report.problems,
        url: report.url,
        ...(admitted.suppressed > 0 ? { suppressed: admitted.suppressed } : {}),
      },
      `skipped a malformed upstream record (${which || `#${report.index}, no readable id`}, field ${report.field}); its flight keeps its last good snapshot${held}`,
    );
  }
}
