/**
 * Live evolution of the simulated airport: one time-ordered agenda holds each
 * flight's next plan event, the next local-midnight roll-over and any timed task
 * (scripted actions). `advanceTo` pops what is due, in time order, and applies it
 * through the store, so every change stamps `lastUpdatedAt`. A tick costs
 * O(k log n) for k due entries among n flights; an idle tick costs O(1).
 */
import { Agenda } from "./agenda.js";
import { addDays } from "./airport-day.js";
import type { FlightGenerator, GeneratedFlight } from "./flight-generator.js";
import type { FlightPlan } from "./flight-plan.js";
import type { FlightStore } from "./flight-store.js";
import { stepPlan } from "./plan-step.js";

/** Work due at a simulated time; returns how many records it changed. */
export type TimedTask = (stampAt: number) => number;

type AgendaItem =
  | { kind: "plan"; plan: FlightPlan }
  | { kind: "rollover"; date: string }
  | { kind: "task"; run: TimedTask };

/** What an `advanceTo` did. */
export interface AdvanceResult {
  /** Agenda entries processed (plan events, roll-overs, tasks). */
  processed: number;
  /** Records added, changed or removed. */
  changes: number;
}

/** Options of FlightEvolution. */
export interface FlightEvolutionOptions {
  /** Progress flights and roll days over (false: data stays as generated). */
  evolve: boolean;
}

/** Drives flights through their plans and keeps three local days in the store. */
export class FlightEvolution {
  private readonly agenda = new Agenda<AgendaItem>();
  /** Ids per local date, to prune whole days at roll-over. */
  private readonly dayIds = new Map<string, string[]>();

  constructor(
    private readonly store: FlightStore,
    private readonly generator: FlightGenerator,
    private readonly options: FlightEvolutionOptions,
  ) {}

  /**
   * Loads yesterday, today and tomorrow (local dates around `nowMs`) as they stand
   * at `nowMs`, keeping their generated stamps, and plans the first roll-over.
   */
  loadAround(today: string, nowMs: number): void {
    for (const date of [addDays(today, -1), today, addDays(today, 1)]) {
      this.load(date, this.generator.generateDay(date, nowMs), undefined);
    }
    if (this.options.evolve) {
      const tomorrow = addDays(today, 1);
      this.agenda.push(this.generator.day(tomorrow).startMs, { kind: "rollover", date: tomorrow });
    }
  }

  /** Runs `task` when simulated time reaches `atMs` (in order with everything else due). */
  at(atMs: number, task: TimedTask): void {
    this.agenda.push(atMs, { kind: "task", run: task });
  }

  /** Time of the next agenda entry, if any (it may be for a flight since removed). */
  nextDueAt(): number | undefined {
    return this.agenda.peek()?.at;
  }

  /** Number of agenda entries (flights with events ahead, roll-over, tasks). */
  get pendingEntries(): number {
    return this.agenda.size;
  }

  /** Processes everything due at or before `untilMs`; changes are stamped `stampAt`. */
  advanceTo(untilMs: number, stampAt: number): AdvanceResult {
    const result: AdvanceResult = { processed: 0, changes: 0 };
    for (;;) {
      const next = this.agenda.peek();
      if (!next || next.at > untilMs) break;
      this.agenda.pop();
      result.processed++;
      const item = next.item;
      if (item.kind === "plan") result.changes += this.step(item.plan, stampAt);
      else if (item.kind === "task") result.changes += item.run(stampAt);
      else result.changes += this.rollover(item.date, next.at, stampAt);
    }
    return result;
  }

  /** Applies a plan's next event to its flight and codeshares; schedules the one after. */
  private step(plan: FlightPlan, stampAt: number): number {
    const event = plan.events[plan.cursor];
    const current = this.store.get(plan.operatingId);
    // A flight removed by a script leaves its plan behind.
    if (!event || !current) return 0;
    plan.cursor++;
    let changes = 0;
    const patch = stepPlan(plan, event, current, this.generator.format);
    if (patch) {
      this.store.update(plan.operatingId, patch, { stampAt });
      changes++;
      for (const id of plan.codeshareIds) {
        if (this.store.update(id, patch, { stampAt })) changes++;
      }
    }
    const following = plan.events[plan.cursor];
    if (following) this.agenda.push(following.at, { kind: "plan", plan });
    return changes;
  }

  /**
   * Local midnight: the new day's tomorrow appears (stamped now, as new records do)
   * and the day before yesterday goes, keeping the store at three days.
   */
  private rollover(today: string, midnightMs: number, stampAt: number): number {
    const tomorrow = addDays(today, 1);
    let changes = this.load(tomorrow, this.generator.generateDay(tomorrow, midnightMs), stampAt);
    const stale = addDays(today, -2);
    for (const id of this.dayIds.get(stale) ?? []) if (this.store.remove(id)) changes++;
    this.dayIds.delete(stale);
    this.agenda.push(this.generator.day(tomorrow).startMs, { kind: "rollover", date: tomorrow });
    return changes;
  }

  /**
   * Puts a day's records in the store: adopted as generated at start-up, stamped
   * `stampAt` when they appear later (a roll-over). Plans go on the agenda.
   */
  private load(date: string, flights: GeneratedFlight[], stampAt: number | undefined): number {
    const ids = this.dayIds.get(date) ?? [];
    this.dayIds.set(date, ids);
    let count = 0;
    for (const { plan, records } of flights) {
      if (stampAt === undefined) this.store.adopt(records);
      else for (const record of records) this.store.upsert(record, { stampAt });
      for (const record of records) ids.push(record.id ?? "");
      count += records.length;
      const next = plan.events[plan.cursor];
      if (this.options.evolve && next) this.agenda.push(next.at, { kind: "plan", plan });
    }
    return count;
  }
}
