/**
 * What detection costs the upstream when the stamps are not spread out (issue 18):
 * the real FlightApiClient and Detector on a real Redis against the simulator over
 * loopback HTTP, on a ManualClock, each scenario beside a full re-read of the horizon
 * measured in the same run.
 *
 * 1. Idle: nothing changes; 1 s polls for an hour.
 * 2. Bulk stamp: every record stamped in one second (a schedule load), with a 2 s
 *    stamp lag, the baseline right after, then quiet; 1 s polls for an hour.
 * 3. A burst of N changed records in one second, at 1 s and 30 s polls: the requests
 *    of the poll that reads it, and how often each of its records is read over all
 *    polls.
 */
import type { RunningSimulator } from "../src/simulator/http/start-simulator.js";
import type { Benchmark, Headline } from "./benchmark.js";
import { measureUpstreamRequests, type UpstreamRequests } from "./upstream-requests.js";

const START = Date.parse("2026-11-21T05:00:00Z");
const HOUR = 3_600_000;
const SECOND = 1000;
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * Mean requests per poll after the baseline: of the incremental polls alone, and of
 * every poll (reconciliations, a full read every RECONCILE_INTERVAL, included); and a
 * full re-read of the horizon.
 */
function perPoll(run: Pick<UpstreamRequests, "polls" | "fullReads">): {
  incremental: number;
  all: number;
  reconciliations: number;
  full: number;
} {
  const sum = (polls: UpstreamRequests["polls"]) => polls.reduce((n, p) => n + p.requests, 0);
  const incremental = run.polls.filter((p) => p.mode === "incremental");
  const [a, b] = run.fullReads;
  return {
    incremental: sum(incremental) / incremental.length,
    all: sum(run.polls) / run.polls.length,
    reconciliations: run.polls.length - incremental.length,
    full: (a.requests + b.requests) / 2,
  };
}

const describe = (p: ReturnType<typeof perPoll>): string =>
  `${fmt(p.incremental, 2)} requests per incremental poll, ${fmt(p.all, 2)} with the ` +
  `${p.reconciliations} reconciliation(s) amortised; a full re-read: ${fmt(p.full)} requests/poll`;

/** Touches every operating and codeshare record of the simulator now: one second of stamps. */
function bulkStamp(run: RunningSimulator): number {
  let n = 0;
  for (const f of [...run.simulator.store.all()]) {
    run.simulator.store.update(f.id as string, {});
    n++;
  }
  return n;
}

/** The simulated airport of every scenario: 1,400 records a day, changed only by the scenario. */
const QUIET_AIRPORT = {
  start: START,
  seed: 5,
  flightsPerDay: 1400,
  changeRate: 1,
  evolve: false,
} as const;

const BURST = 1_000;
/** The poll (after the baseline) before which the burst lands. */
const BURST_AT = 5;

async function burst(intervalMs: number, pageSize: number) {
  let ids: string[] = [];
  const run = await measureUpstreamRequests({
    ...QUIET_AIRPORT,
    hours: (intervalMs * (BURST_AT + 12)) / HOUR,
    intervalMs,
    pageSize,
    // Half an interval before the poll: a burst lands at any moment, not just as a poll begins.
    hookBeforePollMs: intervalMs / 2,
    beforePoll: (i, sim) => {
      if (i !== BURST_AT) return;
      const store = sim.simulator.store;
      const solo = [...store.all()].filter((f) => !f.codeshares?.codeshares?.length);
      ids = solo.slice(0, BURST).map((f) => f.id as string);
      for (const [n, id] of ids.entries()) store.update(id, { gate: `Z${n % 90}` });
    },
  });
  const reads = ids.map((id) => run.reads.get(id) ?? 0);
  const readPoll = run.polls[BURST_AT];
  return {
    intervalMs,
    pageSize,
    requests: readPoll?.requests ?? 0,
    bound: Math.ceil(ids.length / pageSize) + 1,
    meanReads: reads.reduce((a, b) => a + b, 0) / reads.length,
    maxReads: Math.max(...reads),
    unread: reads.filter((n) => n === 0).length,
    events: readPoll?.events.length ?? 0,
  };
}

export const detectionCostBenchmark: Benchmark = {
  name: "detection-cost",
  title: "Detection cost with bulk stamps, idle periods and bursts",
  async run() {
    const headlines: Headline[] = [];
    console.log(
      "method: the simulator (seed 5, 1,400 records/day: 4,200 records over the 3-day horizon) over loopback HTTP, " +
        "counting the requests it answers; the real FlightApiClient and Detector (defaults but POLL_INTERVAL) on a " +
        "real Redis; a ManualClock advanced one interval before each poll. Full re-read: one read of the horizon, " +
        "measured in the same run.",
    );

    // 1. Idle.
    const idle = await measureUpstreamRequests({ ...QUIET_AIRPORT, hours: 1, intervalMs: SECOND });
    const i = perPoll(idle);
    console.log(
      `\nidle upstream, 1 s polls for 1 h (${fmt(idle.polls.length)} polls): ${describe(i)} (aim ≤ 1.0)`,
    );
    headlines.push({
      figure: "idle upstream, 1 s polls: requests per incremental poll (with reconciliations)",
      value: `${fmt(i.incremental, 2)} (${fmt(i.all, 2)}; full re-read: ${fmt(i.full)})`,
      aim: "≤ 1.0",
      met: i.incremental <= 1.0,
    });

    // 2. Bulk stamp with a 2 s stamp lag, at the page size of the live service and a larger one.
    for (const pageSize of [20, 100]) {
      let stamped = 0;
      const bulk = await measureUpstreamRequests({
        ...QUIET_AIRPORT,
        hours: 1,
        intervalMs: SECOND,
        pageSize,
        stampLagMs: 2 * SECOND,
        beforeBaseline: (sim) => {
          stamped = bulkStamp(sim);
        },
      });
      const b = perPoll(bulk);
      const firstMinute = perPoll({ ...bulk, polls: bulk.polls.slice(0, 60) });
      const firstPolls = bulk.polls.slice(0, 4).map((p) => p.requests);
      console.log(
        `\nbulk stamp: ${fmt(stamped)} records stamped in one second (2 s stamp lag), the baseline right after, ` +
          `then quiet; pages of ${pageSize}; 1 s polls for 1 h after the baseline: ${describe(b)} (aim ≤ 1.1). ` +
          `First minute ${fmt(firstMinute.incremental, 2)}; first polls ${firstPolls.join(", ")}: the crowd lies ` +
          "within the overlap (2 s while the lag is not measured) of what the baseline covered, so the first poll reads it again, once.",
      );
      headlines.push({
        figure: `all records stamped in one second, then quiet (pages of ${pageSize}, 1 s polls): requests per incremental poll after the baseline (with reconciliations)`,
        value: `${fmt(b.incremental, 2)} (${fmt(b.all, 2)}; full re-read: ${fmt(b.full)})`,
        aim: "≤ 1.1",
        met: b.incremental <= 1.1,
      });
    }

    // 3. A burst.
    console.log(
      `\na burst of ${fmt(BURST)} records changed in one second, then quiet (pages of 20):\n` +
        "| POLL_INTERVAL | requests of the poll that read it | ⌈N / page⌉ + 1 | events | reads per record over all polls: mean / max | never read |\n" +
        "|---|---|---|---|---|---|",
    );
    for (const intervalMs of [SECOND, 30 * SECOND]) {
      const r = await burst(intervalMs, 20);
      console.log(
        `| ${intervalMs / SECOND} s | ${r.requests} | ${r.bound} | ${fmt(r.events)} | ${fmt(r.meanReads, 2)} / ${r.maxReads} | ${r.unread} |`,
      );
      headlines.push({
        figure: `a burst of ${fmt(BURST)} records in one second, POLL_INTERVAL=${intervalMs / SECOND}s: requests of the poll that reads it`,
        value: `${r.requests}`,
        aim: `≤ ⌈N / page size⌉ + 1 = ${r.bound}`,
        met: r.requests <= r.bound,
      });
      headlines.push({
        figure: `a burst of ${fmt(BURST)} records in one second, POLL_INTERVAL=${intervalMs / SECOND}s: reads per record over all polls`,
        value: `${fmt(r.meanReads, 2)} on average (max ${r.maxReads})`,
        aim: "≤ 2",
        met: r.meanReads <= 2,
      });
    }
    console.log(
      "At 1 s polls a record is read again while its second lies within the overlap of what the polls " +
        "before covered: query bounds are whole seconds, and the overlap (2 s until a " +
        "lag is measured) is what catches a change stamped a little in the past.",
    );
    return headlines;
  },
};
