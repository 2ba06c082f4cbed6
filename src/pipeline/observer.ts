/**
 * What the pipeline tells whoever watches it: one interface instead of a callback per
 * stage threaded through constructors. `run` hears it as metrics and log lines, `watch`
 * as NDJSON on stdout, `demo` as its live view; `observeAll` joins several.
 *
 * Two methods are outputs as well as news: `changed` (the detect-only role) and
 * `alerted` (the decide role) are how those roles hand their items on. The item is
 * acknowledged once the promise they return resolves, so a printer that waits for a
 * full pipe holds the stage back instead of losing what it has not printed.
 */

import type { MalformedReport } from "../api/client-options.js";
import type { ExchangeEvent } from "../api/exchange-event.js";
import type { DeliveryRecord } from "../deliver/delivery-log.js";
import type { DeliveryJob } from "../deliver/delivery-queues.js";
import type { PollReport } from "../detect/detector.js";
import type { ChangeEvent } from "../diff/change.js";
import type { Alert } from "../dispatch/alert.js";

/** The stages a role may run, in data-flow order. */
export type StageName = "poll" | "changes" | "dispatch" | "alerts" | "notify" | "deliver";

/** Everything the pipeline reports; every method is optional. */
export interface PipelineObserver {
  /** A poll ended (committed, found nothing new, or failed). */
  polled?(report: PollReport): void;
  /** A change event, for the detect-only role; acknowledged once this resolves. */
  changed?(event: ChangeEvent): void | Promise<void>;
  /** The alerts one dispatcher step committed. */
  decided?(alerts: readonly Alert[]): void;
  /** A decided alert, for the decide role (printed, not delivered); acknowledged once this resolves. */
  alerted?(alert: Alert): void | Promise<void>;
  /** A delivery attempt ended: delivered, retrying, dead letter or superseded. */
  delivered?(record: DeliveryRecord): void;
  /** An alert not sent because its rule is gone (removed by a reload). */
  dropped?(alert: Alert): void;
  /** A worker lost a job's lock before sending; another worker has it. */
  abandoned?(job: DeliveryJob, attempt: number): void;
  /** A stage's step went through (no `error`) or failed. */
  stepped?(stage: StageName, error?: Error): void;
  /** A consumer group was missing and was created again (Redis lost its data?). */
  groupRecreated?(stream: string, group: string): void;
  /** One request to the upstream ended. */
  exchanged?(event: ExchangeEvent): void;
  /** The upstream sent a record that does not parse; it was skipped. */
  malformed?(report: MalformedReport): void;
  /** Something failed that no other method reports; `where` names the part. */
  failed?(error: Error, where: string): void;
}

/** The methods whose promise holds the stage back: told one observer after the other. */
type Awaited = "changed" | "alerted";

/** One observer that tells each of `observers` everything, in order. */
export function observeAll(...observers: readonly PipelineObserver[]): Required<PipelineObserver> {
  const tell =
    <K extends Exclude<keyof PipelineObserver, Awaited>>(key: K) =>
    (...args: Parameters<NonNullable<PipelineObserver[K]>>): void => {
      for (const o of observers)
        (o[key] as ((...a: unknown[]) => void) | undefined)?.apply(o, args);
    };
  const wait =
    <K extends Awaited>(key: K) =>
    async (...args: Parameters<NonNullable<PipelineObserver[K]>>): Promise<void> => {
      for (const o of observers) {
        await (o[key] as ((...a: unknown[]) => void | Promise<void>) | undefined)?.apply(o, args);
      }
    };
  return {
    polled: tell("polled"),
    changed: wait("changed"),
    decided: tell("decided"),
    alerted: wait("alerted"),
    delivered: tell("delivered"),
    dropped: tell("dropped"),
    abandoned: tell("abandoned"),
    stepped: tell("stepped"),
    groupRecreated: tell("groupRecreated"),
    exchanged: tell("exchanged"),
    malformed: tell("malformed"),
    failed: tell("failed"),
  };
}
