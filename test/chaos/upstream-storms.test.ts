/**
 * Chaos: the upstream misbehaves while flights change. One long timeline in phases —
 * 30 % 5xx, bursts of 429 with `Retry-After` (one longer than the client's own
 * retries), truncated bodies, 5 s latency spikes, `lastUpdatedAt` stamped up to 45 s
 * in the past, dropped connections, then everything at once — with gate moves on
 * distinct flights throughout. Every move is owed exactly one signed webhook
 * delivery within a bound, nothing else may arrive, the daemon must live through it
 * and stop cleanly, every fault kind must really have been injected, and no request
 * may follow a 429 sooner than its `Retry-After`.
 */
import { describe, expect, it } from "vitest";
import type { FaultCounters } from "../../src/simulator/http/faults.js";
import { webhook } from "../acceptance/deliveries.js";
import { timeline, type World } from "../acceptance/timeline.js";
import {
  departuresAtD4,
  flightNumbers,
  latencyByPhase,
  retryAfterBroken,
  type StormPhase,
  upstreamStorm,
  webhookRule,
} from "./storm-support.js";

const RETRY_AFTER_S = 2;
const rateLimited = { rateLimitRate: 1, retryAfterSeconds: RETRY_AFTER_S };

const PHASES: StormPhase[] = [
  { name: "30% 5xx", durationMs: 16_000, faults: { serverErrorRate: 0.3 }, moves: 6, within: "8s" },
  {
    name: "429 bursts",
    durationMs: 16_000,
    pulse: { onMs: 4_000, offMs: 4_000 },
    faults: rateLimited,
    moves: 4,
    within: "10s",
  },
  // 429 for 10 s: longer than the client's four attempts 2 s apart cover, so a poll
  // fails on a 429 — and the next one must still wait for its Retry-After.
  {
    name: "429 burst outlasting retries",
    durationMs: 10_000,
    faults: rateLimited,
    moves: 3,
    within: "12s",
  },
  {
    name: "truncated bodies",
    durationMs: 10_000,
    // Each attempt cut with p = 0.3: a request fails all four with p ≈ 0.8 %, and
    // then the whole poll is redone after its backoff.
    faults: { truncateRate: 0.3 },
    moves: 4,
    within: "12s",
  },
  {
    name: "5 s latency spikes",
    durationMs: 20_000,
    pulse: { onMs: 5_000, offMs: 5_000 },
    faults: { latencyMs: 5_000 },
    moves: 4,
    // A poll caught in a spike reads up to three pages, each answered 5 s late.
    within: "20s",
  },
  {
    // On/off: a move in an "off" pulse is stamped on time, the next move in an "on"
    // pulse is stamped behind what the polls before it covered. Only the overlap
    // (POLL_OVERLAP_MIN = POLL_OVERLAP = 60 s) finds it.
    name: "stamp lag",
    durationMs: 18_000,
    pulse: { onMs: 3_000, offMs: 3_000 },
    faults: (pulse) => ({ stampLagMs: [10_000, 45_000, 25_000][pulse % 3] ?? 10_000 }),
    moves: 6,
    within: "5s",
  },
  {
    name: "dropped connections",
    durationMs: 8_000,
    faults: { dropRate: 0.3 },
    moves: 3,
    within: "8s",
  },
  {
    name: "everything at once",
    durationMs: 14_000,
    faults: {
      serverErrorRate: 0.2,
      rateLimitRate: 0.1,
      retryAfterSeconds: RETRY_AFTER_S,
      truncateRate: 0.1,
      dropRate: 0.05,
      jitterMs: 1_500,
      stampLagMs: 15_000,
    },
    moves: 5,
    within: "15s",
  },
];

const FLIGHTS = flightNumbers(
  "KL",
  3101,
  PHASES.reduce((n, p) => n + p.moves, 0),
);

describe("chaos: upstream storms", () => {
  it("delivers every change once through 5xx, 429 bursts, truncation, latency spikes, stamp lag and drops", async () => {
    let world: World | undefined;
    let counters: FaultCounters | undefined;
    const tl = timeline({
      name: "upstream-storms",
      cast: departuresAtD4(FLIGHTS),
      rules: `rules:${webhookRule("storm")}`,
      env: {
        // The overlap alone must catch the lagged stamps: a reconciliation would
        // also find them and hide an overlap that does not work. Lags of 10–45 s
        // out of nowhere are beyond what the overlap can learn from the reads
        // (that takes a reconciliation): an operator who knows them sets the floor.
        POLL_OVERLAP: "60s",
        POLL_OVERLAP_MIN: "60s",
        RECONCILE_INTERVAL: "0",
        // Twice the 5 s spike: a slow answer is waited for, not abandoned and asked
        // again into the same spike (more load on an upstream already struggling).
        FLIGHT_API_TIMEOUT: "10s",
        // Loopback connects in well under a millisecond; spikes delay answers, not
        // connects. A short bound costs nothing and catches a hung connect early.
        FLIGHT_API_CONNECT_TIMEOUT: "2s",
        // The default, stated: at 30 % 5xx all four attempts of a request fail with
        // p ≈ 0.8 %; a poll that fails anyway commits nothing and is redone.
        FLIGHT_API_MAX_ATTEMPTS: "4",
        // Above the storm's 2 s, so Retry-After is honoured as sent; caps a wild one.
        FLIGHT_API_MAX_RETRY_AFTER: "10s",
      },
    });
    tl.at("0s").do("note the world", (w) => {
      world = w;
    });
    const { endMs, used, moves } = upstreamStorm(tl, {
      owed: (flight, gate) => webhook("storm").about(flight).change({ field: "gate", new: gate }),
      flights: FLIGHTS,
      phases: PHASES,
      startMs: 1_000,
    });
    expect(used).toBe(FLIGHTS.length);
    tl.at(`${endMs}ms`).do("read the fault counters", (w) => {
      counters = w.sim.faults.counters;
    });

    const result = await tl.run();
    console.log(latencyByPhase(moves, result.deliveries, result.t0).join("\n"));

    // Every kind of fault was really injected into the daemon's requests.
    expect(counters).toBeDefined();
    const c = counters as FaultCounters;
    const serverErrors = Object.values(c.serverErrors).reduce((a, b) => a + b, 0);
    console.log("faults injected:", JSON.stringify(c));
    expect(serverErrors).toBeGreaterThan(0);
    expect(c.rateLimited).toBeGreaterThan(0);
    expect(c.truncated).toBeGreaterThan(0);
    expect(c.delayed).toBeGreaterThan(0);
    expect(c.dropped).toBeGreaterThan(0);
    expect(result.deliveries).toHaveLength(FLIGHTS.length);

    // No request sooner after a 429 than its Retry-After — also across a failed poll.
    const w = world as World;
    const exchanges = w.upstream.map((e) => ({
      startMs: e.at - e.durationMs,
      endMs: e.at,
      status: e.status,
    }));
    expect(retryAfterBroken(exchanges, RETRY_AFTER_S * 1000, result.t0)).toEqual([]);
  });
});
