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
 * - `incremental`: records with `lastUpdatedAt` from where the last poll's read began
 *   (on the upstream's clock: everything visible then was read) minus the overlap. The
 *   overlap is sized from the stamp lag observed (see window.ts), so an idle poll
 *   reads one short page whatever the stamps of the last changes.
 * When the horizon moves on to a new date, that date's flights are read and stored
 * silently too, as in a baseline: they were published before we looked.
 *
 * A failed poll commits nothing (the watermark stays), counts the failure and backs
 * off: the next attempt waits interval × 2^(failures − 1), at most `maxBackoffMs`,
 * and never less than a `Retry-After` the client gave up on. A poll that runs past
 * `pollTimeoutMs` is such a failure (FW_ERR_POLL_TIMEOUT): its requests are aborted
 * and `poll()` returns, whatever the upstream does (see poll-deadline.ts).
 */
import type { FlightApiClient } from "../api/flight-api-client.js";
import type { Flight } from "../api/types.js";
import { crashPoint } from "../crash-point.js";
import { type ChangeEvent, toChangeEvent } from "../diff/change.js";
import { foldCodeshares, physicalFlightKey } from "../diff/codeshare-fold.js";
import { diffFlight, removedChange } from "../diff/flight-diff.js";
import { type FlightSnapshot, identityOf } from "../diff/flight-snapshot.js";
import { describeError, FlightwatchError, UpstreamError } from "../errors.js";
import type { DetectionState, DetectionStore, PollStatus } from "../store/detection-store.js";
import {
  emptyReadResult,
  type ReadResult,
  readChangedSince,
  readHorizon,
  type WalkedSpan,
} from "./flight-reader.js";
import {
  addDays,
  DEFAULT_HORIZON_DAYS,
  type HorizonDays,
  type ScheduleHorizon,
  scheduleHorizon,
} from "./horizon.js";
import { PollDeadline } from "./poll-deadline.js";
import { sparedFlights } from "./spared-flights.js";
import { lagMeasured, nextLagEvidence, nextStampLag, overlapFor, stampLag } from "./window.js";

/** Settings of detection; every one has a default. */
export interface DetectorSettings {
  /** Poll interval, ms (default 30 s): the unit of backoff. */
  intervalMs: number;
  /**
   * The most incremental windows reach back before the last poll's read (default
   * 60 s): the overlap sized from the observed stamp lag never exceeds it.
   */
  overlapMs: number;
  /**
   * The least they reach back (default 1 s: the query bounds' second); while the lag
   * is not measured yet, at least 2 s (see window.ts).
   */
  overlapMinMs: number;
  /**
   * Full reconciliation of the horizon this often (default 1 h; 0 = never): what an
   * incremental read cannot see — a removal, a change without a new stamp, a lag
   * beyond the overlap — is found within it. Each costs a whole read of the horizon.
   */
  reconcileEveryMs: number;
  horizon: HorizonDays;
  /** Snapshots expire this long after the flight's scheduled time (default 3 days). */
  snapshotTtlMs: number;
  /** Outbox entries are trimmed after this (default 7 days). */
  outboxRetentionMs: number;
  /** Longest backoff after failures (default 5 min). */
  maxBackoffMs: number;
  /**
   * A poll still running after this long fails (default 5 min): its requests are
   * aborted and nothing is committed. Must cover a full read of the horizon.
   */
  pollTimeoutMs: number;
}

export const DEFAULT_DETECTOR_SETTINGS: DetectorSettings = {
  intervalMs: 30_000,
  overlapMs: 60_000,
  overlapMinMs: 1_000,
  reconcileEveryMs: 60 * 60_000,
  horizon: DEFAULT_HORIZON_DAYS,
  snapshotTtlMs: 3 * 86_400_000,
  outboxRetentionMs: 7 * 86_400_000,
  maxBackoffMs: 5 * 60_000,
  pollTimeoutMs: 5 * 60_000,
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
  /** Records skipped as malformed (their flights keep their last good snapshots). */
  malformed?: number;
  /** Physical flights observed. */
  flights: number;
  /** Change events committed to the outbox. */
  events: ChangeEvent[];
  /** Newest `lastUpdatedAt` fully read afterwards, epoch ms. */
  watermark?: number;
  /** How far back an incremental read reached before the last poll's read, ms. */
  overlapMs?: number;
  /** The upstream's stamp lag as observed so far (decaying), ms; after a commit. */
  stampLagMs?: number;
  /** The largest lag a record of this poll showed, ms (absent when none showed any). */
  lagSeenMs?: number;
  /** How far the next incremental poll reaches back, ms (after a commit). */
  nextOverlapMs?: number;
  /** The lag known now asks for more than POLL_OVERLAP: the overlap is at its maximum. */
  overlapAtMax?: boolean;
  /**
   * Records read again exactly as this process's last committed incremental poll read
   * them: not validated, folded or diffed again (that poll committed them).
   */
  reused?: number;
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
  /** Aborts the poll in progress (and every one after), as its deadline would. */
  signal?: AbortSignal;
  /** Who polls, recorded in the poll status (`lastPoller`), e.g. `host:pid`. */
  name?: string;
}

/** What a committed incremental poll read, for the next poll of the same process. */
interface LastPoll {
  /** The detection state's commit count after it. */
  seq: number;
  records: ReadonlyMap<string, Flight>;
  walked: readonly WalkedSpan[];
}

/** Runs polls; one instance per process, one poll at a time. */
export class Detector {
  readonly settings: DetectorSettings;
  readonly #client: FlightApiClient;
  readonly #store: DetectionStore;
  readonly #now: () => number;
  readonly #zone: string;
  readonly #signal: AbortSignal | undefined;
  readonly #name: string | undefined;
  /**
   * What this process's last committed incremental poll read: its records by id (the
   * next one's overlap reads many of them again, and takes them as they were when
   * their stamp is the same: no validation, no diff) and the spans it walked along
   * links (read again when one of their records turns up newer). Kept only while no
   * other poll has committed since (`seq`, the commit count, says so).
   */
  #last: LastPoll | undefined;

  constructor(options: DetectorOptions) {
    this.settings = { ...DEFAULT_DETECTOR_SETTINGS, ...options.settings };
    this.#client = options.client;
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#zone = options.client.airportTimezone;
    this.#signal = options.signal;
    this.#name = options.name;
  }

  /**
   * One poll; never throws for upstream trouble (the report carries the error), and
   * returns within `pollTimeoutMs` whatever the upstream does.
   */
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
    if (backingOff(status, startedAt)) {
      report.outcome = "skipped";
      return report;
    }
    const deadline = new PollDeadline(this.settings.pollTimeoutMs, this.#signal);
    const last = this.#last;
    this.#last = undefined;
    try {
      await this.#store.watch();
      const committed = await deadline.race(this.#pollOnce(startedAt, report, deadline, last));
      if (!committed) report.outcome = "conflict";
    } catch (err) {
      await this.#store.unwatch().catch(() => undefined);
      report.outcome = "failed";
      // Past the deadline, whatever the reads threw on being aborted is only its echo.
      report.error = deadline.timedOut ?? (err instanceof Error ? err : new Error(String(err)));
    } finally {
      deadline.dispose();
    }
    report.durationMs = Math.round(performance.now() - t0);
    if (report.outcome === "failed")
      report.behindMs = Math.max(0, startedAt - (status.lastSuccessAt ?? startedAt));
    await this.#recordOutcome(report, status.failures);
    return report;
  }

  async #pollOnce(
    startedAt: number,
    report: PollReport,
    deadline: PollDeadline,
    lastPoll: LastPoll | undefined,
  ): Promise<boolean> {
    const state = await this.#store.readState();
    const horizon = scheduleHorizon(startedAt, this.#zone, this.settings.horizon);
    report.horizon = horizon;
    const mode = this.#modeOf(state, startedAt);
    report.mode = mode;
    // What our last poll read serves an incremental one, unless another process has
    // committed since (it may have changed what we read).
    const last =
      mode === "incremental" && lastPoll !== undefined && lastPoll.seq === state.seq
        ? lastPoll
        : undefined;
    const reuse = last?.records;
    const read = emptyReadResult();
    const readOptions = { signal: deadline.signal, now: this.#now };
    const readFrom = this.#now();
    if (mode === "incremental") {
      // A state written before coverage was kept (an upgrade) starts from the newest
      // stamp read, as it did then, with the widest overlap.
      const overlapMs =
        state.coveredUntil === undefined
          ? this.settings.overlapMs
          : overlapFor(stampLag(state, startedAt), this.settings, lagMeasured(state));
      report.overlapMs = overlapMs;
      const since = (state.coveredUntil ?? state.watermark ?? 0) - overlapMs;
      await readChangedSince(
        this.#client,
        horizon,
        since,
        { ...readOptions, reuse, walked: last?.walked ?? [] },
        read,
      );
      if (read.reused) report.reused = read.reused;
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
    if (read.malformed.length > 0) report.malformed = read.malformed.length;

    const { snapshots, events, removed, silent, flights, lagSeenMs, versions } = await this.#diff(
      read,
      mode,
      horizon,
      silentFrom,
      state.coveredUntil,
      reuse,
    );
    report.flights = flights;
    const watermark = Math.max(state.watermark ?? 0, read.newest) || startedAt;
    const coveredUntil = covered(read.answeredAt, readFrom, watermark);
    const lag = {
      ...nextStampLag(state, startedAt, lagSeenMs),
      ...nextLagEvidence(state, versions),
    };
    if (lagSeenMs > 0) report.lagSeenMs = lagSeenMs;
    report.stampLagMs = Math.round(stampLag({ ...state, ...lag }, startedAt));
    report.nextOverlapMs = overlapFor(
      report.stampLagMs,
      this.settings,
      lagMeasured({ ...state, ...lag }),
    );
    if (report.stampLagMs >= report.nextOverlapMs) report.overlapAtMax = true;
    crashPoint("detect.before-commit");
    deadline.beginCommit();
    const committed = await this.#store.commit({
      silent,
      snapshots,
      removed,
      events,
      state: {
        watermark,
        coveredUntil,
        ...lag,
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
      if (mode === "incremental") {
        this.#last = {
          seq: (state.seq ?? 0) + 1,
          records: read.records,
          walked: read.walked ?? [],
        };
      }
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
    coveredBefore: number | undefined,
    reuse: ReadonlyMap<string, Flight> | undefined,
  ): Promise<{
    snapshots: FlightSnapshot[];
    events: ChangeEvent[];
    removed: string[];
    /** Flights first seen silently (baseline, new horizon dates): no event tells of them. */
    silent: string[];
    flights: number;
    lagSeenMs: number;
    /** New versions whose lag this poll could judge (evidence for the lag). */
    versions: number;
  }> {
    // A flight whose records all come from the last poll's (same id, same stamp: the
    // very objects) is what that poll committed: nothing to fold, load or diff.
    const records =
      reuse === undefined
        ? read.records.values()
        : notAllReused(read.records.values(), reuse, this.#zone);
    const observed = foldCodeshares(records, this.#zone);
    const previous = await this.#store.loadSnapshots(observed.map((o) => o.identity.key));
    const snapshots: FlightSnapshot[] = [];
    const events: ChangeEvent[] = [];
    const firstSilent: string[] = [];
    let lagSeenMs = 0;
    let versions = 0;
    for (const flight of observed) {
      const before = previous.get(flight.identity.key);
      const date = flight.identity.scheduleDate;
      const silent =
        mode === "baseline" ||
        (!before && silentFrom !== undefined && date !== undefined && date >= silentFrom);
      // A new version stamped before what the last poll had covered was not visible
      // then: the upstream's stamps lag its clock by at least the difference.
      if (
        !silent &&
        coveredBefore !== undefined &&
        flight.version > 0 &&
        (before === undefined || flight.version > before.version)
      ) {
        lagSeenMs = Math.max(lagSeenMs, coveredBefore - flight.version);
        versions++;
      }
      const result = diffFlight(before, flight, this.#zone);
      if (result.stale) continue;
      if (silent && !before) firstSilent.push(flight.identity.key);
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
    // A skipped malformed record is not a removal: its flight is spared (or, when one
    // cannot be tied to its flight, every flight is, and nothing is removed this time).
    const spared = mode === "reconcile" ? sparedFlights(read.malformed, this.#zone) : undefined;
    if (spared !== undefined) {
      const seen = new Set(observed.map((o) => o.identity.key));
      const candidates = (await this.#store.indexedKeys(horizon.from, horizon.to)).filter(
        (key) => !seen.has(key) && !spared.keys.has(key),
      );
      const gone = await this.#store.loadSnapshots(candidates);
      for (const [key, snapshot] of gone) {
        if (spared.ids.has(snapshot.id)) continue;
        removed.push(key);
        events.push(
          toChangeEvent(removedChange(), identityOf(snapshot), snapshot.version, snapshot.fields),
        );
      }
    }
    return {
      snapshots,
      events,
      removed,
      silent: firstSilent,
      flights: observed.length,
      lagSeenMs,
      versions,
    };
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
      const now = this.#now();
      const notBefore = retryAfterMs === undefined ? 0 : now + retryAfterMs;
      const nextAttemptAt = Math.max(report.startedAt + backoff, notBefore);
      await this.#store.writeStatus(
        {
          lastAttemptAt: report.startedAt,
          lastPoller: this.#name,
          failures,
          lastError: report.error ? describeError(report.error) : "unknown error",
          lastErrorCode: report.error instanceof FlightwatchError ? report.error.code : undefined,
          nextAttemptAt,
          backoffMs: Math.max(0, nextAttemptAt - now),
          behindMs: report.behindMs,
        },
        true,
      );
      return;
    }
    await this.#store.writeStatus(
      {
        lastAttemptAt: report.startedAt,
        lastPoller: this.#name,
        ...(report.outcome === "committed" ? { lastSuccessAt: report.startedAt } : {}),
        lastMode: report.mode,
        lastDurationMs: report.durationMs,
        lastRequests: report.requests,
        lastEvents: report.events.length,
        failures: 0,
        lastError: undefined,
        lastErrorCode: undefined,
        nextAttemptAt: undefined,
        backoffMs: undefined,
        behindMs: 0,
      },
      true,
    );
  }
}

/** A day: a `Date` header further than this from our clock is not taken for a clock. */
const DAY_MS = 86_400_000;

/**
 * What a read covered (every record visible then was read), epoch ms: the upstream's
 * clock when it first answered (its `Date`), or ours when that is earlier — whichever
 * runs ahead of the upstream's stamps could skip a change, one that runs behind only
 * reads some again. Without a believable `Date`, ours, but never past the newest stamp
 * read: our clock alone cannot be checked against the stamps.
 */
function covered(answeredAt: number | undefined, ours: number, newestStamp: number): number {
  if (answeredAt !== undefined && Math.abs(answeredAt - ours) <= DAY_MS) {
    return Math.min(answeredAt, ours);
  }
  return newestStamp > 0 ? Math.min(ours, newestStamp) : ours;
}

/**
 * The records to fold: all but those of a physical flight whose every record is one
 * the last poll read (grouped by the fold's own key).
 */
function notAllReused(
  records: Iterable<Flight>,
  reuse: ReadonlyMap<string, Flight>,
  zone: string,
): Flight[] {
  const all = [...records];
  const reused = (r: Flight): boolean => r.id !== undefined && reuse.get(r.id) === r;
  const fresh = new Set<string | undefined>();
  for (const r of all) if (!reused(r)) fresh.add(physicalFlightKey(r, zone));
  return all.filter((r) => !reused(r) || fresh.has(physicalFlightKey(r, zone)));
}

/**
 * Whether polls are backing off at `now`: before `nextAttemptAt`, and no further from
 * it than the wait set then — a clock stepped back since (NTP, a VM resume) would
 * otherwise stretch the backoff by the size of the step; it ends it instead.
 */
export function backingOff(status: PollStatus, now: number): boolean {
  const { nextAttemptAt, backoffMs } = status;
  if (nextAttemptAt === undefined || now >= nextAttemptAt) return false;
  return backoffMs === undefined || nextAttemptAt - now <= backoffMs;
}
