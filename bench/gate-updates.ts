/**
 * Upstream changes made by the whole-pipeline benchmarks, traceable to the receivers:
 * each is a gate change of an operating flight and its codeshare records, in one
 * stamp, as the simulator's scripted updates make it (found once here: the script
 * runner looks the codeshares up in every record of the store, milliseconds a change
 * at 15,000 records), to a gate never used before — a channel letter, the sequence
 * number, as `QW-1234` — so the notification that carries it tells which change it
 * delivers and how long after the change it arrived. A notification names the old gate
 * too; the newest sequence number in it is the new gate.
 */
import type { RunningSimulator } from "../src/simulator/http/start-simulator.js";
import { isOperating } from "../src/simulator/script-runner.js";

/**
 * `QW-17`, or `QS4X-17` (Slack webhook 4; `QW4X-17`, webhook endpoint 4): `Q` (no gate
 * of the simulator starts so), a letter naming the rule (and the endpoint), `-` (which no flight number has: `QR274`
 * is Qatar's), the sequence number.
 */
const TOKEN = /\bQ(?:[A-Z]|[A-Z]\d+X)-(\d+)\b/g;

/** The newest change a notification's text names (its sequence number), if any. */
export function newestToken(text: string): number | undefined {
  let newest: number | undefined;
  for (const match of text.matchAll(TOKEN)) {
    const seq = Number(match[1]);
    if (newest === undefined || seq > newest) newest = seq;
  }
  return newest;
}

/** How the changes of some sequence numbers fared. */
export interface Fate {
  delivered: number;
  /** Changed again before a poll read it: the newer gate was delivered instead. */
  superseded: number;
  missing: number;
  /** Change → first arrival of each delivered one, ms, sorted. */
  latencies: number[];
}

/** The changes made so far and their first arrivals. */
export class GateUpdates {
  #seq = 0;
  /** Upstream records changed (codeshare records included). */
  records = 0;
  readonly #appliedAt: number[] = [];
  readonly #flightOf: string[] = [];
  readonly #newest = new Map<string, number>();
  readonly #arrivedAt = new Map<number, number>();
  /** Arrivals of a sequence number already delivered (by this channel's receiver). */
  repeats = 0;
  /** Codeshare record ids by operating record id. */
  readonly #codeshares = new Map<string, string[]>();
  /** Changes no rule takes: not expected anywhere, left out of every fate. */
  readonly #unexpected = new Set<number>();

  constructor(readonly sim: RunningSimulator) {
    const records = [...sim.simulator.store.all()];
    const byMain = new Map<string, string[]>();
    for (const f of records) {
      if (isOperating(f) || f.id === undefined) continue;
      const key = `${f.mainFlight}|${f.scheduleDate}`;
      byMain.set(key, [...(byMain.get(key) ?? []), f.id]);
    }
    for (const f of records) {
      if (!isOperating(f) || f.id === undefined) continue;
      this.#codeshares.set(f.id, byMain.get(`${f.flightName}|${f.scheduleDate}`) ?? []);
    }
  }

  /** The next sequence number (the next change's). */
  get next(): number {
    return this.#seq + 1;
  }

  /**
   * Moves `flightId` to the gate `gate(seq)`; returns the sequence number. A change
   * not `expected` at any receiver (a gate no rule takes) counts in no fate.
   */
  apply(flightId: string, gate: (seq: number) => string, expected = true): number {
    const seq = ++this.#seq;
    if (!expected) this.#unexpected.add(seq);
    const store = this.sim.simulator.store;
    const stampAt = store.clock.now();
    const patch = { gate: gate(seq) };
    for (const id of [flightId, ...(this.#codeshares.get(flightId) ?? [])]) {
      if (store.update(id, patch, { stampAt })) this.records++;
    }
    this.#appliedAt[seq] = Date.now();
    this.#flightOf[seq] = flightId;
    this.#newest.set(flightId, seq);
    return seq;
  }

  /** Takes note of a notification's text arriving at `at`; returns the change it delivers. */
  arrived(text: string, at: number): number | undefined {
    return this.arrivedSeq(newestToken(text), at);
  }

  /** Takes note of the change `newest` arriving at `at` (see `newestToken`). */
  arrivedSeq(newest: number | undefined, at: number): number | undefined {
    if (newest === undefined || this.#appliedAt[newest] === undefined) return undefined;
    if (this.#arrivedAt.has(newest)) this.repeats++;
    else this.#arrivedAt.set(newest, at);
    return newest;
  }

  /** The operating record id the change `seq` moved. */
  flightOf(seq: number): string | undefined {
    return this.#flightOf[seq];
  }

  /** Epoch ms the change `seq` first arrived (undefined when it has not). */
  arrivedAt(seq: number): number | undefined {
    return this.#arrivedAt.get(seq);
  }

  /** Epoch ms the change `seq` was made. */
  appliedAt(seq: number): number {
    return this.#appliedAt[seq] ?? 0;
  }

  /** How many of the changes `from`..`to` (inclusive) have arrived. */
  arrivedCount(from: number, to: number): number {
    let n = 0;
    for (let seq = from; seq <= to; seq++) if (this.#arrivedAt.has(seq)) n++;
    return n;
  }

  /** Newest arrival among changes `from`..`to`, epoch ms (0 when none). */
  lastArrival(from: number, to: number): number {
    let last = 0;
    for (let seq = from; seq <= to; seq++) last = Math.max(last, this.#arrivedAt.get(seq) ?? 0);
    return last;
  }

  /** Earliest arrival among changes `from`..`to`, epoch ms (0 when none). */
  firstArrival(from: number, to: number): number {
    let first = Number.POSITIVE_INFINITY;
    for (let seq = from; seq <= to; seq++)
      first = Math.min(first, this.#arrivedAt.get(seq) ?? first);
    return Number.isFinite(first) ? first : 0;
  }

  /** The fate of changes `from`..`to`. */
  fate(from: number, to: number): Fate {
    const fate: Fate = { delivered: 0, superseded: 0, missing: 0, latencies: [] };
    for (let seq = from; seq <= to; seq++) {
      if (this.#unexpected.has(seq)) continue;
      const at = this.#arrivedAt.get(seq);
      if (at !== undefined) {
        fate.delivered++;
        fate.latencies.push(at - this.appliedAt(seq));
        continue;
      }
      const newer = this.#newest.get(this.#flightOf[seq] ?? "") ?? seq;
      if (newer > seq && this.#arrivedAt.has(newer)) fate.superseded++;
      else fate.missing++;
    }
    fate.latencies.sort((a, b) => a - b);
    return fate;
  }
}

/** Applies `count` changes at `perSecond` (evenly, in 20 ms steps); resolves when done. */
export async function applyAtRate(
  perSecond: number,
  count: number,
  change: (i: number) => void,
): Promise<void> {
  const start = performance.now();
  let done = 0;
  while (done < count) {
    const due = Math.min(count, Math.floor(((performance.now() - start) / 1000) * perSecond) + 1);
    while (done < due) change(done++);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The `q` quantile of sorted values (0 when empty). */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}
