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
    default: {
      const skipped = report.malformed ? ` (${report.malformed} malformed, skipped)` : "";
      const line = `${head} ${report.mode}: ${report.requests} requests, ${report.records} records${skipped}, ${report.flights} flights, ${report.events.length} events, ${report.durationMs} ms`;
      if (!lagGrew(report)) return line;
      const lag = `${line}; a change turned up stamped ${seconds(report.lagSeenMs ?? 0)} before what earlier polls had covered`;
      return report.overlapAtMax
        ? `${lag}: incremental reads now reach back ${seconds(report.nextOverlapMs ?? 0)}, their maximum (POLL_OVERLAP); a change stamped later than that is found only by reconciliation (check the upstream's clock against its Date header, or raise POLL_OVERLAP)`
        : `${lag}: incremental reads reach back ${seconds(report.nextOverlapMs ?? 0)} from now on`;
    }
  }
}

/** Whether this poll saw a larger stamp lag than was known (the overlap widens). */
export function lagGrew(report: PollReport): boolean {
  return (
    report.outcome === "committed" &&
    report.lagSeenMs !== undefined &&
    report.lagSeenMs > 0 &&
    report.stampLagMs === Math.round(report.lagSeenMs)
  );
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
