/**
 * The figures of one delivery run, from when each notification was enqueued and what
 * the receiver saw arrive: throughput end to end, the enqueue rate, latency
 * percentiles (first arrival of each id), and the ids that came twice or never.
 */

/** What a receiver reports: arrivals in order, as parallel arrays. */
export interface Arrivals {
  /** Notification (webhook) ids. */
  ids: string[];
  /** Epoch ms each had arrived. */
  receivedAt: number[];
  /** Arrivals the receiver refused (a bad signature). */
  unverified: number;
}

/** Figures of one run; the percentiles are of enqueue → received, ms. */
export interface RunFigures extends Percentiles {
  /** Distinct notifications received per second, from the first enqueue to the last arrival. */
  perSecond: number;
  enqueuePerSecond: number;
  seconds: number;
  /** Arrivals of an id already received. */
  duplicates: number;
  /** Enqueued ids that never arrived. */
  missing: number;
  unverified: number;
}

/** The figures of a run from enqueue times (id → epoch ms) and the arrivals. */
export function runFigures(
  enqueuedAt: ReadonlyMap<string, number>,
  enqueueMs: number,
  arrivals: Arrivals,
): RunFigures {
  const latencies: number[] = [];
  const seen = new Set<string>();
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const t of enqueuedAt.values()) first = Math.min(first, t);
  arrivals.ids.forEach((id, i) => {
    const at = arrivals.receivedAt[i] as number;
    last = Math.max(last, at);
    if (seen.has(id)) return;
    seen.add(id);
    const sent = enqueuedAt.get(id);
    if (sent !== undefined) latencies.push(at - sent);
  });
  const seconds = (last - first) / 1000;
  return {
    perSecond: seen.size / seconds,
    enqueuePerSecond: enqueuedAt.size / (enqueueMs / 1000),
    seconds,
    ...percentiles(latencies),
    duplicates: arrivals.ids.length - seen.size,
    missing: [...enqueuedAt.keys()].filter((id) => !seen.has(id)).length,
    unverified: arrivals.unverified,
  };
}

/** Percentiles of a list of values (sorted here, in place); 0 for an empty list. */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** p50, p95, p99 and the maximum of `values` (sorts them in place). */
export function percentiles(values: number[]): Percentiles {
  values.sort((a, b) => a - b);
  const q = (p: number) => values[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0;
  return { p50: q(0.5), p95: q(0.95), p99: q(0.99), max: values.at(-1) ?? 0 };
}
