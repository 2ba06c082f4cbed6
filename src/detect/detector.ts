/**
 * One poll of change detection: read what changed upstream, diff it against the
 * snapshots in Redis, and commit snapshots, change events (to the outbox) and the new
 * watermark in one transaction.
 *
 * Each poll is one of:
 * - `baseline`: no watermark yet. The whole horizon is read and stored; nothing is
 *   reported (a flight first seen is not news).
 * - `reconcile`: every `reconcileEveryMs`, the whole horizon again, diffed like any
 *   poll. It finds what incremental reads cannot: a change stamped further in the
 *   past than the overlap, and flights that disappeared (reported `removed`).
 * - `incremental`: records with `lastUpdatedAt` from the watermark minus the overlap.
 * When the horizon moves on to a new date, that date's flights are read and stored
 * silently too, as in a baseline: they were published before we looked.
 *
 * A failed poll commits nothing (the watermark stays), counts the failure and backs
 * off: the next attempt waits interval × 2^(failures − 1), at most `maxBackoffMs`,
 * and never less than a `Retry-After` the client gave up on.
 */
import type { FlightApiClient } from "../api/flight-api-client.js";
import { crashPoint } from "../crash-point.js";
import { type ChangeEvent, toChangeEvent } from "../diff/change.js";
import { foldCodeshares } from "../diff/codeshare-fold.js";
import { diffFlight, removedChange } from "../diff/flight-diff.js";
import { type FlightSnapshot, identityOf } from "../diff/flight-snapshot.js";
import { describeError, type FlightwatchError, UpstreamError } from "../errors.js";
import type { DetectionState, DetectionStore } from "../store/detection-store.js";
import {
  emptyReadResult,
  type ReadResult,
  readChangedSince,
  readHorizon,
} from "./flight-reader.js";
import {
  addDays,
  DEFAULT_HORIZON_DAYS,
  type HorizonDays,
  type ScheduleHorizon,
  scheduleHorizon,
} from "./horizon.js";

/** Settings of detection; every one has a default. */
export interface DetectorSettings {
  /** Poll interval, ms (default 30 s): the unit of backoff. */
  intervalMs: number;
  /** Incremental windows start this far before the watermark (default 60 s). */
  overlapMs: number;
  /** Full reconciliation of the horizon this often (default 15 min; 0 = never). */
  reconcileEveryMs: number;
  horizon: HorizonDays;
  /** Snapshots expire this long after the flight's scheduled time (default 3 days). */
  snapshotTtlMs: number;
  /** Outbox entries are trimmed after this (default 7 days). */
  outboxRetentionMs: number;
  /** Longest backoff after failures (default 5 min). */
  maxBackoffMs: number;
}

export const DEFAULT_DETECTOR_SETTINGS: DetectorSettings = {
  intervalMs: 30_000,
  overlapMs: 60_000,
  reconcileEveryMs: 15 * 60_000,
  horizon: DEFAULT_HORIZON_DAYS,
  snapshotTtlMs: 3 * 86_400_000,
  outboxRetentionMs: 7 * 86_400_000,
  maxBackoffMs: 5 * 60_000,
};

export type PollMode = "baseline" | "reconcile" | "incremental";

/** What one poll did. */
export interface PollReport {
  /** `skipped` while backing off; `conflict` when another poll committed first. */
  outcome: "committed" | "skipped" | "conflict" | "failed";
  mode?: PollMode;
  /** Airport clock at the start, epoch ms. */
  startedAt: number;
  /** Real time the poll took, ms. */
  durationMs: number;
  /** Page requests to the upstream. */
  requests: number;
  /** Records read. */
  records: number;
  /** Physical flights observed. */
  flights: number;
  /** Change events committed to the outbox. */
  events: ChangeEvent[];
  /** Newest `lastUpdatedAt` fully read afterwards, epoch ms. */
  watermark?: number;
  horizon?: ScheduleHorizon;
  error?: FlightwatchError | Error;
  /** After a failure: how far behind detection is (since the last successful poll), ms. */
  behindMs?: number;
}

export interface DetectorOptions {
  client: FlightApiClient;
  store: DetectionStore;
  settings?: Partial<DetectorSettings>;
  /** Clock of the airport, epoch ms (default Date.now; the simulator's clock in demos). */
  now?: () => number;
  signal?: AbortSignal;
}

/** Runs polls; one instance per process, one poll at a time. */
export class Detector {
  readonly settings: DetectorSettings;
  readonly #client: FlightApiClient;
  readonly #store: DetectionStore;
  readonly #now: () => number;
  readonly #zone: string;
  readonly #signal: AbortSignal | undefined;

  constructor(options: DetectorOptions) {
    this.settings = { ...DEFAULT_DETECTOR_SETTINGS, ...options.settings };
    this.#client = options.client;
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#zone = options.client.airportTimezone;
    this.#signal = options.signal;
  }

  /** One poll; never throws for upstream trouble (the report carries the error). */
  async poll(): Promise<PollReport> {
    const startedAt = this.#now();
    const t0 = performance.now();
    const report: PollReport = {
      outcome: "committed",
      startedAt,
      durationMs: 0,
      requests: 0,
      records: 0,
      flights: 0,
      events: [],
    };
    const status = await this.#store.readStatus();
    if (status.nextAttemptAt !== undefined && startedAt < status.nextAttemptAt) {
      report.outcome = "skipped";
      return report;
    }
    try {
      await this.#store.watch();
      const committed = await this.#pollOnce(startedAt, report);
      if (!committed) report.outcome = "conflict";
    } catch (err) {
      await this.#store.unwatch().catch(() => undefined);
      report.outcome = "failed";
      report.error = err instanceof Error ? err : new Error(String(err));
    }
    report.durationMs = Math.round(performance.now() - t0);
    if (report.outcome === "failed")
      report.behindMs = startedAt - (status.lastSuccessAt ?? startedAt);
    await this.#recordOutcome(report, status.failures);
    return report;
  }

  async #pollOnce(startedAt: number, report: PollReport): Promise<boolean> {
    const state = await this.#store.readState();
    const horizon = scheduleHorizon(startedAt, this.#zone, this.settings.horizon);
    report.horizon = horizon;
    const mode = this.#modeOf(state, startedAt);
    report.mode = mode;
    const read = emptyReadResult();
    const readOptions = { signal: this.#signal, now: this.#now };
    if (mode === "incremental") {
      const since = (state.watermark ?? 0) - this.settings.overlapMs;
      await readChangedSince(this.#client, horizon, since, readOptions, read);
    } else {
      await readHorizon(this.#client, horizon, readOptions, read);
    }
    // Dates the horizon moved onto since the last commit are taken in silently, in
    // every mode: flights first seen there were published before we looked. A full
    // read already covers them; an incremental one reads them in addition.
    let silentFrom: string | undefined;
    if (state.horizonTo !== undefined && state.horizonTo < horizon.to) {
      silentFrom = addDays(state.horizonTo, 1);
      if (mode === "incremental") {
        await readHorizon(this.#client, { from: silentFrom, to: horizon.to }, readOptions, read);
      }
    }
    report.requests = read.requests;
    report.records = read.records.size;

    const { snapshots, events, removed, flights } = await this.#diff(
      read,
      mode,
      horizon,
      silentFrom,
    );
    report.flights = flights;
    const watermark = Math.max(state.watermark ?? 0, read.newest) || startedAt;
    crashPoint("detect.before-commit");
    const committed = await this.#store.commit({
      snapshots,
      removed,
      events,
      state: {
        watermark,
        horizonTo: horizon.to,
        ...(mode === "incremental" ? {} : { reconciledAt: startedAt }),
      },
      snapshotTtlMs: this.settings.snapshotTtlMs,
      outboxRetentionMs: this.settings.outboxRetentionMs,
      now: startedAt,
    });
    crashPoint("detect.after-commit");
    if (committed) {
      report.events = events;
      report.watermark = watermark;
    }
    return committed;
  }

  #modeOf(state: DetectionState, now: number): PollMode {
    if (state.watermark === undefined) return "baseline";
    const every = this.settings.reconcileEveryMs;
    if (every > 0 && (state.reconciledAt === undefined || now - state.reconciledAt >= every)) {
      return "reconcile";
    }
    return "incremental";
  }

  async #diff(
    read: ReadResult,
    mode: PollMode,
    horizon: ScheduleHorizon,
    silentFrom: string | undefined,
  ): Promise<{
    snapshots: FlightSnapshot[];
    events: ChangeEvent[];
    removed: string[];
    flights: number;
  }> {
    const observed = foldCodeshares(read.records.values(), this.#zone);
    const previous = await this.#store.loadSnapshots(observed.map((o) => o.identity.key));
    const snapshots: FlightSnapshot[] = [];
    const events: ChangeEvent[] = [];
    for (const flight of observed) {
      const before = previous.get(flight.identity.key);
      const date = flight.identity.scheduleDate;
      const silent =
        mode === "baseline" ||
        (!before && silentFrom !== undefined && date !== undefined && date >= silentFrom);
      const result = diffFlight(before, flight, this.#zone);
      if (result.stale) continue;
      if (!silent && result.changes.length > 0) {
        const identity = identityOf(result.snapshot);
        for (const change of result.changes) {
          events.push(
            toChangeEvent(change, identity, result.snapshot.version, result.snapshot.fields),
          );
        }
      }
      if (!before || result.changes.length > 0 || result.snapshot.version > before.version) {
        snapshots.push(result.snapshot);
      }
    }
    const removed: string[] = [];
    // Removals only from a complete read: a skipped malformed record is not a removal.
    if (mode === "reconcile" && read.malformed === 0) {
      const seen = new Set(observed.map((o) => o.identity.key));
      const candidates = (await this.#store.indexedKeys(horizon.from, horizon.to)).filter(
        (key) => !seen.has(key),
      );
      const gone = await this.#store.loadSnapshots(candidates);
      for (const [key, snapshot] of gone) {
        removed.push(key);
        events.push(
          toChangeEvent(removedChange(), identityOf(snapshot), snapshot.version, snapshot.fields),
        );
      }
    }
    return { snapshots, events, removed, flights: observed.length };
  }

  async #recordOutcome(report: PollReport, failuresBefore: number): Promise<void> {
    if (report.outcome === "skipped") return;
    if (report.outcome === "failed") {
      const failures = failuresBefore + 1;
      const backoff = Math.min(
        this.settings.intervalMs * 2 ** (failures - 1),
        this.settings.maxBackoffMs,
      );
      // A refusal's Retry-After counts from its answer, not from the poll's start
      // (which retries may have left far behind).
      const retryAfterMs =
        report.error instanceof UpstreamError ? report.error.details.retryAfterMs : undefined;
      const notBefore = retryAfterMs === undefined ? 0 : this.#now() + retryAfterMs;
      await this.#store.writeStatus({
        lastAttemptAt: report.startedAt,
        failures,
        lastError: report.error ? describeError(report.error) : "unknown error",
        nextAttemptAt: Math.max(report.startedAt + backoff, notBefore),
        behindMs: report.behindMs,
      });
      return;
    }
    await this.#store.writeStatus({
      lastAttemptAt: report.startedAt,
      ...(report.outcome === "committed" ? { lastSuccessAt: report.startedAt } : {}),
      lastMode: report.mode,
      lastDurationMs: report.durationMs,
      lastRequests: report.requests,
      lastEvents: report.events.length,
      failures: 0,
      lastError: undefined,
      nextAttemptAt: undefined,
      behindMs: 0,
    });
  }
}
