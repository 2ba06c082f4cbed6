/**
 * Applies scripted changes (ScriptAction) to the store: resolves the selector to a
 * record, keeps codeshare records in step with their operating flight, and rejects
 * malformed actions with errors that name the field or selector at fault.
 */
import type { Flight } from "../api/types.js";
import { InvalidActionError, UnknownFlightError } from "../errors.js";
import { parseApiDateTime, toLocalDate } from "../time/local-time.js";
import { IDENTITY_FIELDS } from "./flight-generator.js";
import type { FlightStore } from "./flight-store.js";
import type { Random } from "./random.js";
import type { FlightSelector, ScheduledAction, ScriptAction } from "./script-action.js";

const DIGITS = /^[0-9]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Applies ScriptActions to one store. */
export class ScriptRunner {
  constructor(
    private readonly store: FlightStore,
    /** Source of ids for added flights that come without one. */
    private readonly rng: Random,
  ) {}

  /**
   * Applies an action now, stamping changes as of `stampAt`; returns the ids of the
   * records added, changed or removed (the operating record first).
   */
  apply(action: ScriptAction, stampAt: number): string[] {
    validateAction(action, "action");
    switch (action.kind) {
      case "add":
        return [this.add(action.flight, stampAt)];
      case "update":
        return this.update(action.target, action.patch, stampAt);
      case "remove":
        return this.remove(action.target);
    }
  }

  private add(flight: Flight, stampAt: number): string {
    const id = flight.id ?? this.newId();
    if (this.store.get(id)) {
      throw new InvalidActionError("flight.id", `flight ${id} already exists; use an update`);
    }
    this.store.upsert({ ...flight, id }, { stampAt });
    return id;
  }

  private update(target: FlightSelector, patch: Partial<Flight>, stampAt: number): string[] {
    const { record, codeshares } = this.resolve(target);
    const own = normalizePatch(patch);
    const shared: Partial<Flight> = {};
    for (const [key, value] of Object.entries(own)) {
      if (!IDENTITY_FIELDS.has(key)) shared[key] = value;
    }
    const id = record.id ?? "";
    this.store.update(id, own, { stampAt });
    const ids = [id];
    if (Object.keys(shared).length > 0) {
      for (const cs of codeshares) {
        if (cs.id && this.store.update(cs.id, shared, { stampAt })) ids.push(cs.id);
      }
    }
    return ids;
  }

  private remove(target: FlightSelector): string[] {
    const { record, codeshares } = this.resolve(target);
    const ids: string[] = [];
    for (const r of [record, ...codeshares]) if (r.id && this.store.remove(r.id)) ids.push(r.id);
    return ids;
  }

  /**
   * The record a selector names and, when it is an operating flight, its codeshare
   * records. A flightName selects the operating record of that flight (a codeshare
   * name leads to the flight it markets); across several days, `scheduleDate`
   * decides, else today's flight, else the one scheduled nearest to now.
   */
  resolve(selector: FlightSelector): { record: Flight; codeshares: Flight[] } {
    const record = selector.id !== undefined ? this.byId(selector) : this.byName(selector);
    return { record, codeshares: isOperating(record) ? this.codesharesOf(record) : [] };
  }

  private byId(selector: FlightSelector): Flight {
    const record = this.store.get(selector.id ?? "");
    const matches =
      record !== undefined &&
      (selector.flightName === undefined || record.flightName === selector.flightName) &&
      (selector.scheduleDate === undefined || record.scheduleDate === selector.scheduleDate);
    if (!matches) throw new UnknownFlightError(selector);
    return record;
  }

  private byName(selector: FlightSelector): Flight {
    const named = this.store
      .findByName(selector.flightName ?? "")
      .filter(
        (f) => selector.scheduleDate === undefined || f.scheduleDate === selector.scheduleDate,
      );
    const candidates = new Map<string, Flight>();
    for (const f of named) {
      const op = this.operatingOf(f);
      candidates.set(op.id ?? "", op);
    }
    const list = [...candidates.values()];
    const [only] = list;
    if (!only) throw new UnknownFlightError(selector);
    if (list.length === 1) return only;
    const now = this.store.clock.now();
    const today = toLocalDate(now, this.store.zone);
    const todays = list.filter((f) => f.scheduleDate === today);
    const [first] = todays;
    if (first && todays.length === 1) return first;
    const pool = todays.length > 0 ? todays : list;
    const distance = (f: Flight): number => Math.abs(this.scheduledMs(f) - now);
    return pool.reduce((best, f) => (distance(f) < distance(best) ? f : best));
  }

  private operatingOf(record: Flight): Flight {
    const main = record.mainFlight;
    if (isOperating(record) || !main) return record;
    const op = this.store
      .findByName(main)
      .find((f) => f.scheduleDate === record.scheduleDate && isOperating(f));
    return op ?? record;
  }

  private codesharesOf(record: Flight): Flight[] {
    const main = record.mainFlight ?? record.flightName;
    if (!main) return [];
    const out: Flight[] = [];
    for (const f of this.store.all()) {
      if (
        f.id !== record.id &&
        !isOperating(f) &&
        f.mainFlight === main &&
        f.scheduleDate === record.scheduleDate
      ) {
        out.push(f);
      }
    }
    return out;
  }

  private scheduledMs(flight: Flight): number {
    const text = flight.scheduleDateTime;
    return text ? (parseApiDateTime(text, this.store.zone) ?? 0) : 0;
  }

  private newId(): string {
    for (;;) {
      const id = `9${this.rng.digits(17)}`;
      if (!this.store.get(id)) return id;
    }
  }
}

/**
 * Whether a record is the operating flight rather than a codeshare. `mainFlight`
 * decides when present: captured real data marks codeshare records
 * `isOperationalFlight: true` too, so the flag alone cannot be trusted.
 */
export function isOperating(flight: Flight): boolean {
  if (flight.mainFlight && flight.flightName) return flight.mainFlight === flight.flightName;
  return flight.isOperationalFlight !== false;
}

/** Throws an InvalidActionError naming the first thing wrong with a ScriptAction. */
export function validateAction(action: ScriptAction, path: string): void {
  if (action === null || typeof action !== "object") {
    throw new InvalidActionError(path, "expected an object with a `kind`");
  }
  switch (action.kind) {
    case "add": {
      const flight: unknown = action.flight;
      if (flight === null || typeof flight !== "object" || Array.isArray(flight)) {
        throw new InvalidActionError(`${path}.flight`, "expected a flight record (object)");
      }
      const id = action.flight.id;
      if (id !== undefined && (typeof id !== "string" || !DIGITS.test(id))) {
        throw new InvalidActionError(`${path}.flight.id`, "a flight id is a string of digits");
      }
      return;
    }
    case "update": {
      validateSelector(action.target, `${path}.target`);
      const patch: unknown = action.patch;
      if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
        throw new InvalidActionError(`${path}.patch`, "expected an object of fields to change");
      }
      if ("id" in patch) {
        throw new InvalidActionError(
          `${path}.patch.id`,
          "an id cannot change; remove and add instead",
        );
      }
      if ("lastUpdatedAt" in patch) {
        throw new InvalidActionError(
          `${path}.patch.lastUpdatedAt`,
          "the simulator stamps lastUpdatedAt itself; use the stampLagMs option to skew it",
        );
      }
      return;
    }
    case "remove":
      validateSelector(action.target, `${path}.target`);
      return;
    default:
      throw new InvalidActionError(`${path}.kind`, "expected add, update or remove");
  }
}

/** Throws an InvalidActionError unless exactly one of `at` / `afterMs` is a finite number. */
export function validateScheduled(scheduled: ScheduledAction): void {
  const { at, afterMs } = scheduled;
  if ((at === undefined) === (afterMs === undefined)) {
    throw new InvalidActionError("at", "give exactly one of `at` (epoch ms) and `afterMs`");
  }
  if (at !== undefined && !Number.isFinite(at)) {
    throw new InvalidActionError("at", "expected epoch milliseconds");
  }
  if (afterMs !== undefined && !(Number.isFinite(afterMs) && afterMs >= 0)) {
    throw new InvalidActionError("afterMs", "expected milliseconds ≥ 0");
  }
  validateAction(scheduled.action, "action");
}

function validateSelector(selector: FlightSelector | undefined, path: string): void {
  if (selector === null || typeof selector !== "object") {
    throw new InvalidActionError(path, "expected { id } or { flightName, scheduleDate? }");
  }
  if (selector.id === undefined && selector.flightName === undefined) {
    throw new InvalidActionError(path, "give an id or a flightName");
  }
  if (selector.id !== undefined && !DIGITS.test(selector.id)) {
    throw new InvalidActionError(`${path}.id`, "a flight id is a string of digits");
  }
  if (selector.scheduleDate !== undefined && !DATE.test(selector.scheduleDate)) {
    throw new InvalidActionError(`${path}.scheduleDate`, "expected yyyy-MM-dd");
  }
}

/** JSON has no `undefined`: a `null` in a patch removes the field, like undefined does. */
function normalizePatch(patch: Partial<Flight>): Partial<Flight> {
  const out: Partial<Flight> = {};
  for (const [key, value] of Object.entries(patch)) out[key] = value === null ? undefined : value;
  return out;
}
