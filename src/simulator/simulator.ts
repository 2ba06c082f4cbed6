/**
 * The Simulator facade: generated data in a FlightStore, live evolution on the
 * simulated clock, and the in-process scripting API that tests and the admin HTTP
 * interface share. `createSimulator` builds it; `start()` adds a real-time timer
 * that calls `tick()`, which tests with a ManualClock call themselves instead.
 */
import { ConfigError } from "../errors.js";
import { airportZone, DEFAULT_AIRPORT_TIMEZONE, toLocalDate } from "../time/local-time.js";
import { FlightEvolution } from "./flight-evolution.js";
import { FlightGenerator } from "./flight-generator.js";
import { FlightStore } from "./flight-store.js";
import { MAX_RECORDS_PER_DAY } from "./flight-timetable.js";
import { Random } from "./random.js";
import { referenceData } from "./reference-data.js";
import type { ScheduledAction, ScriptAction } from "./script-action.js";
import { ScriptRunner, validateScheduled } from "./script-runner.js";
import { ScaledClock, type SimClock } from "./sim-clock.js";

/** Options of createSimulator; all optional. */
export interface SimulatorOptions {
  /** Seed of all generated data and evolution (default 1). */
  seed?: number;
  /** Airport IANA zone (default Europe/Amsterdam). */
  zone?: string;
  /** Simulated time at start, epoch ms (default: real now). Ignored with `clock`. */
  startMs?: number;
  /** Simulated ms per real ms (default 1). Ignored with `clock`. */
  speed?: number;
  /** The clock to use (e.g. a ManualClock in tests); default a ScaledClock. */
  clock?: SimClock;
  /** Records per local day, codeshares included (default 1400). */
  flightsPerDay?: number;
  /** Multiplier on random delays' drift, gate/belt changes and disruptions (default 1; 0 = punctual). */
  changeRate?: number;
  /** Progress flights and roll days over as time passes (default true). */
  evolve?: boolean;
  /**
   * Mark codeshare records `isOperationalFlight: true`, as captured responses of the
   * real service do (default false). Clients must then tell codeshares apart by
   * `mainFlight !== flightName`.
   */
  codesharesMarkedOperational?: boolean;
  /** Stamp `lastUpdatedAt` this many ms in the past (fault injection; default 0). */
  stampLagMs?: number;
  /** Real ms between the timer's ticks after `start()` (default 250). */
  tickIntervalMs?: number;
  /** Hears scheduled actions that failed when their time came (default: a process warning). */
  onScriptError?: (failure: ScriptFailure) => void;
}

/** A scheduled action waiting for its time. */
export interface PendingAction {
  id: number;
  /** Simulated epoch ms it fires at. */
  at: number;
  action: ScriptAction;
}

/** A scheduled action that failed when applied. */
export interface ScriptFailure {
  pending: PendingAction;
  error: Error;
}

/** What one tick did. */
export interface TickResult {
  /** Simulated time processed up to. */
  now: number;
  /** Agenda entries processed (flight events, day roll-overs, scheduled actions). */
  processed: number;
  /** Records added, changed or removed. */
  changes: number;
  failures: ScriptFailure[];
}

/** A running simulated airport. */
export interface Simulator {
  readonly store: FlightStore;
  readonly clock: SimClock;
  /** Simulated time when the simulator was created; `afterMs` counts from here. */
  readonly startedAt: number;
  readonly seed: number;
  /** Whether the real-time timer runs. */
  readonly running: boolean;
  /** Starts the real-time timer (unref'd: it does not keep the process alive). */
  start(): void;
  /** Stops the timer. */
  stop(): void;
  /** Processes everything due up to the clock's now. */
  tick(): TickResult;
  /** Processes everything due up to `simMs`, which must not be ahead of the clock. */
  advanceTo(simMs: number): TickResult;
  /** Simulated time of the next thing due, if any. */
  nextDueAt(): number | undefined;
  /** Applies an action now; returns the ids of the records it added, changed or removed. */
  apply(action: ScriptAction): string[];
  /** Schedules an action at `at` (epoch ms) or `afterMs` after `startedAt`. */
  schedule(scheduled: ScheduledAction): PendingAction;
  /** Scheduled actions not yet applied, in the order they will fire. */
  pending(): PendingAction[];
  /** Drops a scheduled action; returns whether it was pending. */
  unschedule(id: number): boolean;
}

/** Builds a simulator: generates three local days of data around the clock's now. */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  return new DefaultSimulator(options);
}

class DefaultSimulator implements Simulator {
  readonly store: FlightStore;
  readonly clock: SimClock;
  readonly startedAt: number;
  readonly seed: number;
  private readonly evolution: FlightEvolution;
  private readonly scripts: ScriptRunner;
  private readonly waiting = new Map<number, PendingAction>();
  private readonly tickIntervalMs: number;
  private readonly onScriptError: (failure: ScriptFailure) => void;
  private failures: ScriptFailure[] = [];
  private nextPendingId = 1;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: SimulatorOptions) {
    const zone = options.zone ?? DEFAULT_AIRPORT_TIMEZONE;
    airportZone(zone);
    this.seed = options.seed ?? 1;
    const flightsPerDay = options.flightsPerDay ?? 1400;
    const changeRate = options.changeRate ?? 1;
    this.tickIntervalMs = options.tickIntervalMs ?? 250;
    check("seed", Number.isInteger(this.seed), "expected an integer");
    check(
      "flightsPerDay",
      Number.isInteger(flightsPerDay) && flightsPerDay >= 0 && flightsPerDay <= MAX_RECORDS_PER_DAY,
      `expected an integer in 0..${MAX_RECORDS_PER_DAY}`,
    );
    check("changeRate", Number.isFinite(changeRate) && changeRate >= 0, "expected a number ≥ 0");
    check("tickIntervalMs", this.tickIntervalMs > 0, "expected a number > 0");
    if (options.speed !== undefined) {
      check("speed", Number.isFinite(options.speed) && options.speed > 0, "expected a number > 0");
    }
    this.onScriptError = options.onScriptError ?? warn;

    this.clock =
      options.clock ?? new ScaledClock({ startMs: options.startMs, speed: options.speed });
    this.store = new FlightStore({ clock: this.clock, zone, stampLagMs: options.stampLagMs });
    this.store.reference = referenceData();
    this.startedAt = this.clock.now();
    const generator = new FlightGenerator({
      seed: this.seed,
      zone,
      flightsPerDay,
      changeRate,
      codesharesMarkedOperational: options.codesharesMarkedOperational,
    });
    this.evolution = new FlightEvolution(this.store, generator, { evolve: options.evolve ?? true });
    this.evolution.loadAround(toLocalDate(this.startedAt, zone), this.startedAt);
    this.scripts = new ScriptRunner(this.store, Random.derive(this.seed, "script-ids"));
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.tickIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  tick(): TickResult {
    return this.advanceTo(this.clock.now());
  }

  advanceTo(simMs: number): TickResult {
    const now = this.clock.now();
    if (simMs > now) {
      throw new RangeError(
        `advanceTo(${simMs}) is ahead of the clock (${now}); move the clock first`,
      );
    }
    this.failures = [];
    const { processed, changes } = this.evolution.advanceTo(simMs, now);
    return { now: simMs, processed, changes, failures: this.failures };
  }

  nextDueAt(): number | undefined {
    return this.evolution.nextDueAt();
  }

  apply(action: ScriptAction): string[] {
    return this.scripts.apply(action, this.clock.now());
  }

  schedule(scheduled: ScheduledAction): PendingAction {
    validateScheduled(scheduled);
    const at = scheduled.at ?? this.startedAt + (scheduled.afterMs ?? 0);
    const pending: PendingAction = { id: this.nextPendingId++, at, action: scheduled.action };
    this.waiting.set(pending.id, pending);
    this.evolution.at(at, (stampAt) => this.fire(pending, stampAt));
    return { ...pending };
  }

  pending(): PendingAction[] {
    return [...this.waiting.values()]
      .sort((a, b) => a.at - b.at || a.id - b.id)
      .map((p) => ({ ...p }));
  }

  unschedule(id: number): boolean {
    return this.waiting.delete(id);
  }

  private fire(pending: PendingAction, stampAt: number): number {
    if (!this.waiting.delete(pending.id)) return 0;
    try {
      return this.scripts.apply(pending.action, stampAt).length;
    } catch (err) {
      const failure = {
        pending: { ...pending },
        error: err instanceof Error ? err : new Error(String(err)),
      };
      this.failures.push(failure);
      this.onScriptError(failure);
      return 0;
    }
  }
}

function check(setting: string, ok: boolean, message: string): void {
  if (!ok) throw new ConfigError(setting, message);
}

function warn(failure: ScriptFailure): void {
  process.emitWarning(
    `scheduled action ${failure.pending.id} failed: ${failure.error.message}`,
    "SimulatorScriptWarning",
  );
}
