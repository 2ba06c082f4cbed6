/**
 * One line about a poll, as `watch` prints it on stderr and the daemon logs it.
 */
import { describeError } from "../errors.js";
import type { PollReport } from "./detector.js";

/** One line about a poll, for people (stderr, logs). */
export function describePoll(n: number, report: PollReport): string {
  const head = `poll ${n}`;
  switch (report.outcome) {
    case "skipped":
      return `${head}: backing off after failures`;
    case "conflict":
      return `${head}: another poll committed first; nothing written`;
    case "failed": {
      const behind = report.behindMs ? ` (${Math.round(report.behindMs / 1000)} s behind)` : "";
      const why = report.error ? describeError(report.error) : "unknown error";
      return `${head} ${report.mode ?? ""} failed after ${report.durationMs} ms${behind}: ${why}`;
    }
    default:
      return `${head} ${report.mode}: ${report.requests} requests, ${report.records} records, ${report.flights} flights, ${report.events.length} events, ${report.durationMs} ms`;
  }
}
