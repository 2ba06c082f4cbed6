/**
 * Upstream requests per hour: flightwatch's incremental polling (with its periodic
 * reconciliation) against the two ways other watchers work — re-reading the whole
 * horizon every poll, or re-reading every watched flight by id every poll — for one
 * simulated busy hour at 1,400 records a day and the simulator's realistic change
 * rate, at POLL_INTERVAL=30s (the default) and 1s. Requests are counted by the
 * simulator over loopback HTTP (bench/upstream-requests.ts).
 */
import type { Benchmark, Headline } from "./benchmark.js";
import { measureUpstreamRequests, type UpstreamRequests } from "./upstream-requests.js";

/** 2026-11-21 06:00 local: the busiest hour of the simulated morning (seed 5). */
const START = Date.parse("2026-11-21T05:00:00Z");
const INTERVALS_MS = [30_000, 1_000];
const WATCHED = 100;
/** Issue 18's aims: fewer requests than re-reading the horizon every poll, by interval. */
const AIMS = new Map([
  [30_000, 50],
  [1_000, 300],
]);

const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const times = (n: number): string => `${n >= 100 ? fmt(n) : n.toFixed(1)}×`;

/** Requests per hour of each way of watching, from one run. */
interface PerHour {
  intervalMs: number;
  polls: number;
  incremental: number;
  reconcile: number;
  flightwatch: number;
  fullReread: number;
  byIdAll: number;
  byIdWatched: number;
  flights: number;
}

function perHour(run: UpstreamRequests, hours: number): PerHour {
  const polls = run.polls.length / hours;
  const requestsOf = (mode: string) =>
    run.polls.filter((p) => p.mode === mode).reduce((n, p) => n + p.requests, 0) / hours;
  const [a, b] = run.fullReads;
  const fullRead = (a.requests + b.requests) / 2;
  return {
    intervalMs: run.settings.intervalMs,
    polls,
    incremental: requestsOf("incremental"),
    reconcile: requestsOf("reconcile"),
    flightwatch: run.counted / hours,
    fullReread: fullRead * polls,
    byIdAll: run.baseline.flights * run.perIdRead * polls,
    byIdWatched: WATCHED * run.perIdRead * polls,
    flights: run.baseline.flights,
  };
}

export const requestsBenchmark: Benchmark = {
  name: "requests",
  title: "Upstream requests per hour: incremental polling vs re-reading",
  async run() {
    const hours = 1;
    const rows: PerHour[] = [];
    for (const intervalMs of INTERVALS_MS) {
      const run = await measureUpstreamRequests({
        start: START,
        hours,
        intervalMs,
        seed: 5,
        flightsPerDay: 1400,
        changeRate: 1,
      });
      if (rows.length === 0) {
        const s = run.settings;
        const [a, b] = run.fullReads;
        console.log(
          `method: the simulator (seed 5, 1,400 records/day, change rate 1, page size ${run.pageSize}) over ` +
            "loopback HTTP counting the requests it answers; the real FlightApiClient and Detector on a real " +
            `Redis; a ManualClock advanced and the simulator ticked by one interval before each poll, for ` +
            `${hours} simulated hour from 06:00 local (the busiest of the morning: ${fmt(run.changes)} record ` +
            `changes upstream). flightwatch: incremental polls (overlap from the observed stamp lag, ` +
            `${s.overlapMinMs / 1000}–${s.overlapMs / 1000} s) and a ` +
            `reconciliation every ${s.reconcileEveryMs / 60_000} min, as counted by the simulator. Full re-read: ` +
            `one read of the horizon (${fmt(a.records)} records: ${fmt(a.requests)} requests at the start, ` +
            `${fmt(b.requests)} at the end; their mean) × polls. By id: ${run.perIdRead} request per flight ` +
            `(measured over 100 reads) × watched flights × polls; all ${fmt(run.baseline.flights)} physical ` +
            `flights of the horizon (codeshares folded), or ${WATCHED}.`,
        );
      }
      const row = perHour(run, hours);
      const reportedTotal = row.incremental + row.reconcile;
      if (Math.round(reportedTotal) !== Math.round(row.flightwatch)) {
        console.log(
          `  note: the polls reported ${fmt(reportedTotal)} requests/hour, the simulator counted ${fmt(row.flightwatch)}`,
        );
      }
      rows.push(row);
    }
    console.log(
      [
        "",
        "| POLL_INTERVAL | polls/h | flightwatch (incremental + reconcile) | full re-read each poll | ratio | each flight by id (all) | ratio | 100 watched by id | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
        ...rows.map(
          (r) =>
            `| ${r.intervalMs / 1000} s | ${fmt(r.polls)} | ${fmt(r.flightwatch)} (${fmt(r.incremental)} + ${fmt(r.reconcile)}) | ` +
            `${fmt(r.fullReread)} | ${times(r.fullReread / r.flightwatch)} fewer | ` +
            `${fmt(r.byIdAll)} (${fmt(r.flights)} flights) | ${times(r.byIdAll / r.flightwatch)} fewer | ` +
            `${fmt(r.byIdWatched)} | ${times(r.byIdWatched / r.flightwatch)} fewer |`,
        ),
        "",
      ].join("\n"),
    );
    console.log(
      "flightwatch pays about one page per poll (the changes of the last interval plus the overlap) and a " +
        "full read per reconciliation — the larger share at 30 s; the others pay their whole read every poll. " +
        "No poller can do better than one request per poll: against a full read of " +
        `${fmt(rows[0]?.fullReread ?? 0)}/${fmt(rows[0]?.polls ?? 0)} requests a poll, that bounds the ratio at ` +
        `${times((rows[0]?.fullReread ?? 0) / (rows[0]?.polls ?? 1))} with no reconciliation at all.`,
    );
    return rows.map((r): Headline => {
      const aim = AIMS.get(r.intervalMs) ?? 20;
      return {
        figure: `requests/hour vs full-horizon re-read, POLL_INTERVAL=${r.intervalMs / 1000}s`,
        value: `${times(r.fullReread / r.flightwatch)} fewer (${fmt(r.flightwatch)} vs ${fmt(r.fullReread)})`,
        aim: `≥ ${aim}× fewer (one request a poll bounds it at ${times(r.fullReread / r.polls)})`,
        met: r.fullReread / r.flightwatch >= aim,
      };
    });
  },
};
