/**
 * The chaos set's fast subset for `npm test` (the full files are
 * test/chaos/upstream-storms.test.ts and receiver-outages.test.ts, `npm run
 * test:chaos`, built from the same pieces): a short upstream storm — 30 % 5xx, then
 * a 429 burst longer than the client's own retries — while the webhook receiver is
 * out for 8 s (refused, then 503). Every change is delivered once, the outage's
 * within one retry delay of its recovery, nothing else arrives, and no request
 * follows a 429 sooner than its `Retry-After`.
 */
import { describe, expect, it } from "vitest";
import {
  departuresAtD4,
  flightNumbers,
  gateFor,
  moveOwedAfterRecovery,
  retryAfterBroken,
  type StormPhase,
  upstreamStorm,
  webhookOutage,
} from "../chaos/storm-support.js";
import { slack, webhook } from "./deliveries.js";
import { timeline, type World } from "./timeline.js";

const RETRY_AFTER_S = 1;
const PHASES: StormPhase[] = [
  { name: "30% 5xx", durationMs: 4_000, faults: { serverErrorRate: 0.3 }, moves: 2, within: "6s" },
  {
    // Four attempts 1 s apart cover 3 s: the poll fails inside the burst.
    name: "429 burst",
    durationMs: 5_000,
    faults: { rateLimitRate: 1, retryAfterSeconds: RETRY_AFTER_S },
    moves: 2,
    within: "6s",
  },
];
const STORM = flightNumbers("KL", 3301, 4);
const OUTAGE = flightNumbers("KL", 3311, 4);
/** The webhook's last retry delay (2 s) with its +20 % jitter. */
const RETRY_BOUND_MS = 2_400;

describe("acceptance: a short upstream storm and webhook outage (the chaos set's fast subset)", () => {
  it("delivers every change once through 5xx, a 429 burst and 8 s of webhook outage", async () => {
    let world: World | undefined;
    const tl = timeline({
      name: "storm-subset",
      cast: departuresAtD4([...STORM, ...OUTAGE]),
      rules: `
rules:
  - id: storm
    flights: { flight: [${STORM.join(", ")}] }
    changes: [gate]
    channels: [{ type: slack, url: "\${RULE_SLACK_URL}/storm" }]
  - id: partner
    flights: { flight: [${OUTAGE.join(", ")}] }
    changes: [gate]
    channels:
      - { type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}", retry: { delays: [1s, 2s], for: 10m } }
`,
      env: { RECONCILE_INTERVAL: "0", FLIGHT_API_TIMEOUT: "10s", FLIGHT_API_MAX_ATTEMPTS: "4" },
    });
    tl.at("0s").do("note the world", (w) => {
      world = w;
    });
    const { used } = upstreamStorm(tl, {
      owed: (flight, gate) => slack("storm").about(flight).saying(gate),
      flights: STORM,
      phases: PHASES,
      startMs: 1_000,
    });
    expect(used).toBe(STORM.length);
    const recovered = webhookOutage(tl, { startMs: 2_000, refusedMs: 4_000, unavailableMs: 4_000 });
    OUTAGE.forEach((flight, i) => {
      const gate = gateFor(OUTAGE, flight);
      const matcher = webhook("partner").about(flight).change({ field: "gate", new: gate });
      moveOwedAfterRecovery(
        tl,
        { atMs: 3_000 + 2_000 * i, flight, gate, matcher },
        recovered,
        RETRY_BOUND_MS,
      );
    });

    const result = await tl.run();

    const w = world as World;
    const counters = w.sim.faults.counters;
    expect(Object.values(counters.serverErrors).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(counters.rateLimited).toBeGreaterThan(0);
    const exchanges = w.upstream.map((e) => ({
      startMs: e.at - e.durationMs,
      endMs: e.at,
      status: e.status,
    }));
    expect(retryAfterBroken(exchanges, RETRY_AFTER_S * 1000, result.t0)).toEqual([]);
    // Every id the receiver answered 503 arrived later, under the same id.
    const refused = w.webhook.deliveries.filter((d) => d.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const d of refused) expect(w.webhook.uniqueIds().has(d.id)).toBe(true);
  }, 60_000);
});
