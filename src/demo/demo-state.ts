/**
 * What the live view of `flightwatch demo` shows, as a pure model: the daemon feeds it
 * poll reports, alerts and delivery records with the airport clock, and the screen
 * renders it. Memory stays bounded however long the demo runs: running totals, and
 * ring buffers of the most recent items.
 */
import type { DeliveryRecord } from "../deliver/delivery-log.js";
import { type ChannelType, notificationId } from "../deliver/notification.js";
import type { PollMode, PollReport } from "../detect/detector.js";
import type { ChangeEvent, ChangeKind } from "../diff/change.js";
import type { Alert } from "../dispatch/alert.js";
import { describeError } from "../errors.js";
import { ChangeRate } from "./change-rate.js";
import { RingBuffer } from "./ring-buffer.js";

/** Options of a `DemoState`; every one has a default. */
export interface DemoStateOptions {
  /** Airport clock when the demo started, epoch ms (default: the first `now` fed). */
  startedAt?: number;
  /**
   * Airport milliseconds per real millisecond (default 1): the sparkline's bars are
   * seconds of real time, so at ×60 one bar is a minute of the airport clock.
   */
  speed?: number;
  /** Recent changes kept (default 200). */
  changes?: number;
  /** Recent deliveries kept (default 200). */
  deliveries?: number;
  /** Recent alerts kept to tell what a delivery carried (default 500). */
  alerts?: number;
  /** Bars of the changes-per-second sparkline, one real second each (default 60). */
  rateSeconds?: number;
}

/** The newest poll, as the header shows it. */
export interface LastPoll {
  /** Airport clock when the report arrived, epoch ms. */
  at: number;
  outcome: PollReport["outcome"];
  mode?: PollMode;
  requests: number;
  records: number;
  flights: number;
  durationMs: number;
  /** Change events it committed. */
  events: number;
  /** Why it failed, in one line. */
  error?: string;
  /** After a failure: how far detection is behind, ms. */
  behindMs?: number;
}

/** Attempts of one channel type by result. */
export interface DeliveryCounts {
  delivered: number;
  retrying: number;
  dead: number;
  /** Never sent: a newer notification took their place. */
  superseded: number;
  /** Never sent: the passenger unsubscribed first. */
  cancelled: number;
}

/** Running totals since the demo started. */
export interface DemoTotals {
  /** Polls that ran (committed, conflicting or failed; not the skipped ones). */
  polls: number;
  failedPolls: number;
  /** Page requests to the upstream. */
  requests: number;
  /** Records read. */
  records: number;
  /** Change events committed. */
  changes: number;
  changesByKind: Partial<Record<ChangeKind, number>>;
  alerts: number;
  /** Delivery attempts per channel type. */
  deliveries: Partial<Record<ChannelType, DeliveryCounts>>;
}

/** A change event and when the demo saw it. */
export interface RecentChange {
  /** Airport clock when its poll reported it, epoch ms. */
  at: number;
  event: ChangeEvent;
}

/** A delivery attempt, when the demo saw it, and the alert it carried when still known. */
export interface RecentDelivery {
  /** Airport clock when the record arrived, epoch ms (the record's own `at` is real time). */
  at: number;
  record: DeliveryRecord;
  alert?: Alert;
}

/** The live view's model: fed by the daemon, read by `renderDemoScreen`. */
export class DemoState {
  /** Airport ms per real ms. */
  readonly speed: number;
  #startedAt: number | undefined;
  #lastPoll: LastPoll | undefined;
  readonly #totals: DemoTotals = {
    polls: 0,
    failedPolls: 0,
    requests: 0,
    records: 0,
    changes: 0,
    changesByKind: {},
    alerts: 0,
    deliveries: {},
  };
  readonly #changes: RingBuffer<RecentChange>;
  readonly #deliveries: RingBuffer<RecentDelivery>;
  readonly #alerts: RingBuffer<Alert>;
  readonly #rate: ChangeRate;

  constructor(options: DemoStateOptions = {}) {
    this.speed = options.speed ?? 1;
    if (!(this.speed > 0) || !Number.isFinite(this.speed)) {
      throw new RangeError(`speed must be a positive number (got ${this.speed})`);
    }
    this.#startedAt = options.startedAt;
    this.#changes = new RingBuffer(options.changes ?? 200);
    this.#deliveries = new RingBuffer(options.deliveries ?? 200);
    this.#alerts = new RingBuffer(options.alerts ?? 500);
    this.#rate = new ChangeRate({
      buckets: options.rateSeconds ?? 60,
      bucketMs: 1000 * this.speed,
    });
  }

  /** Airport clock when the demo started, epoch ms (undefined until told or fed). */
  get startedAt(): number | undefined {
    return this.#startedAt;
  }

  /** The newest poll report, skipped ones included. */
  get lastPoll(): LastPoll | undefined {
    return this.#lastPoll;
  }

  /** Running totals (read-only view; the state owns it). */
  get totals(): Readonly<DemoTotals> {
    return this.#totals;
  }

  /** A poll report arrived at airport time `now`. */
  poll(report: PollReport, now: number): void {
    this.#start(now);
    const t = this.#totals;
    const committed = report.outcome === "committed" ? report.events : [];
    const last: LastPoll = {
      at: now,
      outcome: report.outcome,
      requests: report.requests,
      records: report.records,
      flights: report.flights,
      durationMs: report.durationMs,
      events: committed.length,
    };
    if (report.mode) last.mode = report.mode;
    if (report.error) last.error = describeError(report.error);
    if (report.behindMs !== undefined) last.behindMs = report.behindMs;
    this.#lastPoll = last;
    if (report.outcome !== "skipped") t.polls++;
    if (report.outcome === "failed") t.failedPolls++;
    t.requests += report.requests;
    t.records += report.records;
    for (const event of committed) {
      t.changes++;
      t.changesByKind[event.kind] = (t.changesByKind[event.kind] ?? 0) + 1;
      this.#changes.push({ at: now, event });
    }
    this.#rate.add(now, committed.length);
  }

  /** An alert was decided (airport time `now`). */
  alert(alert: Alert, now: number): void {
    this.#start(now);
    this.#totals.alerts++;
    this.#alerts.push(alert);
  }

  /** A delivery attempt ended and was recorded (airport time `now`). */
  delivery(record: DeliveryRecord, now: number): void {
    this.#start(now);
    const byType = this.#totals.deliveries;
    const counts = byType[record.type] ?? {
      delivered: 0,
      retrying: 0,
      dead: 0,
      superseded: 0,
      cancelled: 0,
    };
    counts[record.result]++;
    byType[record.type] = counts;
    const entry: RecentDelivery = { at: now, record };
    const alert = this.#alertOf(record);
    if (alert) entry.alert = alert;
    this.#deliveries.push(entry);
  }

  /** Up to `limit` recent changes, newest first. */
  recentChanges(limit?: number): RecentChange[] {
    return this.#changes.newest(limit);
  }

  /** Up to `limit` recent delivery attempts, newest first. */
  recentDeliveries(limit?: number): RecentDelivery[] {
    return this.#deliveries.newest(limit);
  }

  /** Changes per real second over the window ending at airport time `now`, oldest first. */
  changeRate(now: number): number[] {
    return this.#rate.series(now);
  }

  #start(now: number): void {
    if (this.#startedAt === undefined) this.#startedAt = now;
  }

  /** The alert a notification carried: its id is derived from the alert id and channel. */
  #alertOf(record: DeliveryRecord): Alert | undefined {
    return this.#alerts.find(
      (alert) =>
        alert.ruleId === record.ruleId &&
        alert.flight.key === record.flight &&
        notificationId(alert.id, record.channel) === record.id,
    );
  }
}
