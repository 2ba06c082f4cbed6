/**
 * How the daemon hears its pipeline: every report becomes a metric, a log line an
 * operator can act on, and the stage health that /healthz reads.
 *
 * Each decided alert, delivered and superseded notification is an info line — up to
 * ROUTINE_LINES_PER_SECOND of each kind a second; beyond that (a burst: thousands a second) the rest are logged
 * at debug, and the next info line says how many were. Problems (retries, dead
 * letters) are always logged; the metrics count everything.
 */
import { describeRecord, settled } from "../deliver/delivery-log.js";
import { describePoll, lagGrew } from "../detect/describe-poll.js";
import type { PollReport } from "../detect/detector.js";
import type { PollProgress } from "../detect/poll-progress.js";
import { ErrorCode, FlightwatchError } from "../errors.js";
import { LogThrottle } from "../log/log-throttle.js";
import type { Logger } from "../log/logger.js";
import type { FlightwatchMetrics } from "../ops/flightwatch-metrics.js";
import type { PipelineObserver } from "../pipeline/observer.js";
import type { MalformedRecordLog } from "./malformed-record-log.js";
import type { RedisTroubleLog } from "./redis-trouble.js";
import type { StageHealth } from "./stage-health.js";

/** Info lines a second about decided alerts, and about deliveries; the rest go to debug. */
export const ROUTINE_LINES_PER_SECOND = 20;

/** What the daemon's observer writes to. */
export interface DaemonObserverParts {
  log: Logger;
  metrics: FlightwatchMetrics;
  stages: StageHealth;
  progress: PollProgress;
  trouble: RedisTroubleLog;
  malformed: MalformedRecordLog;
  /** Log decided alerts and deliveries at debug (the console shows them already). */
  quietAlerts?: boolean;
  /** A consumer group was created again: look at what else Redis lost. */
  checkState: () => void;
  /** Monotonic clock, ms (default performance.now): the routine lines' budget. */
  monotonic?: () => number;
}

/**
 * Logs a routine line (an alert decided, a notification delivered) at `level` while
 * the second's budget lasts, else at debug; the next line within budget says how many
 * went to debug.
 */
function routineLog(log: Logger, level: "info" | "debug", monotonic?: () => number) {
  if (level === "debug") {
    return (fields: Record<string, unknown>, msg: string) => log.debug(fields, msg);
  }
  const throttle = new LogThrottle({
    limit: ROUTINE_LINES_PER_SECOND,
    windowMs: 1_000,
    ...(monotonic ? { now: monotonic } : {}),
  });
  return (fields: Record<string, unknown>, msg: string) => {
    const admitted = throttle.admit();
    if (!admitted.write) {
      log.debug(fields, msg);
      return;
    }
    if (admitted.suppressed === 0) {
      log.info(fields, msg);
      return;
    }
    log.info(
      { ...fields, loggedAtDebug: admitted.suppressed },
      `${msg} (${admitted.suppressed} more like it since the last line went to the debug level)`,
    );
  };
}

/** The observer of `run`: metrics, logs and stage health. */
export function daemonObserver(parts: DaemonObserverParts): PipelineObserver {
  const { log, metrics, stages, trouble } = parts;
  const quiet = parts.quietAlerts ? "debug" : "info";
  const alertLine = routineLog(log, quiet, parts.monotonic);
  const deliveredLine = routineLog(log, quiet, parts.monotonic);
  const supersededLine = routineLog(log, quiet, parts.monotonic);
  let polled = 0;
  return {
    polled(report) {
      if (report.outcome === "committed") parts.progress.noteCommit();
      polled++;
      // An upstream in trouble is not the stage's failure: it backs off and tries again.
      if (report.outcome === "failed" && report.error && !isUpstreamError(report.error)) {
        // Redis trouble (or a fault of ours): logged as such, rate-limited by kind.
        stages.failed("poll", report.error);
        trouble.error(report.error, "poll failed");
      } else {
        stages.ok("poll");
        logPoll(log, polled, report);
      }
      metrics.poll(report);
    },
    decided(alerts) {
      for (const alert of alerts) {
        metrics.alert(alert);
        alertLine(
          {
            alertId: alert.id,
            ruleId: alert.ruleId,
            flightId: alert.flight.id,
            flight: alert.flight.key,
            changes: alert.changes.map((c) => c.kind),
          },
          "alert decided",
        );
      }
    },
    delivered(record) {
      metrics.delivery(record);
      const fields = {
        notificationId: record.id,
        ruleId: record.ruleId,
        channel: record.channel,
        type: record.type,
        flight: record.flight,
        destination: record.destination,
        attempt: record.attempt,
        ...(record.reason ? { reason: record.reason } : {}),
      };
      if (record.result === "delivered" && record.detail !== undefined) {
        // Delivered, with something the operator should hear of (a living Slack
        // message someone deleted, posted anew): never held back with the routine lines.
        log.warn(fields, describeRecord(record));
      } else if (settled(record.result)) {
        const line = record.result === "delivered" ? deliveredLine : supersededLine;
        line(fields, describeRecord(record));
      } else if (record.result === "retrying") log.warn(fields, describeRecord(record));
      else log.error(fields, describeRecord(record));
    },
    dropped(alert) {
      log.warn({ alertId: alert.id, ruleId: alert.ruleId }, "alert not sent: its rule is gone");
    },
    abandoned(job, attempt) {
      log.warn(
        {
          notificationId: job.notification.id,
          ruleId: job.notification.ruleId,
          channel: job.notification.channel,
          type: job.notification.type,
          flight: job.notification.alert.flight.key,
          destination: job.destination,
          attempt,
        },
        "lock lost before sending; another worker has it",
      );
    },
    stepped(stage, error) {
      if (error) stages.failed(stage, error);
      else stages.ok(stage);
    },
    groupRecreated(stream, group) {
      log.warn(
        { stream, group },
        `consumer group ${group} of ${stream} was missing; created again`,
      );
      parts.checkState();
    },
    exchanged(event) {
      metrics.exchange(event);
      if (event.outcome !== "ok") {
        log.warn(
          {
            operation: event.operation,
            status: event.status,
            attempt: event.attempt,
            reason: event.outcome,
            willRetry: event.willRetry,
          },
          "upstream request failed",
        );
      }
    },
    malformed(report) {
      metrics.malformedRecord(report);
      parts.malformed.record(report);
    },
    failed(error, where) {
      trouble.error(error, where);
    },
  };
}

/**
 * Polls are logged by what they mean to an operator: credentials the upstream refuses
 * are an error (nothing works until someone fixes them), another failure is a warning,
 * a poll that found changes is news, a quiet one is debug detail (every 30 s otherwise).
 */
function logPoll(log: Logger, count: number, report: PollReport): void {
  const fields = {
    poll: count,
    mode: report.mode,
    outcome: report.outcome,
    durationMs: report.durationMs,
    requests: report.requests,
    events: report.events.length,
  };
  const text = describePoll(count, report);
  if (report.outcome === "failed") {
    const err = report.error;
    if (err instanceof FlightwatchError && err.code === ErrorCode.UPSTREAM_AUTH) {
      log.error(
        { ...fields, err },
        `the upstream refuses flightwatch's credentials: ${err.message}; polls retry with backoff until they are accepted`,
      );
    } else {
      log.warn({ ...fields, err }, text);
    }
  } else if (lagGrew(report) && report.overlapAtMax) {
    log.warn(fields, text);
  } else if (report.events.length > 0 || report.mode === "baseline" || lagGrew(report)) {
    // The baseline too: it is how an operator sees the first poll happen (0 events).
    log.info(fields, text);
  } else log.debug(fields, text);
}

/**
 * Whether a poll failed because of the upstream (an answer it gave or did not give in
 * time; polls back off), not because of flightwatch or Redis.
 */
function isUpstreamError(err: Error): boolean {
  return (
    err instanceof FlightwatchError &&
    (err.code.startsWith("FW_ERR_UPSTREAM") || err.code === ErrorCode.POLL_TIMEOUT)
  );
}
