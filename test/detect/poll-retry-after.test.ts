/**
 * A poll that fails on a 429 (or a 503) whose `Retry-After` outlasts the client's own
 * retries must not be followed by another poll before that `Retry-After`: the
 * failure backoff counts from the poll's start, which may be long past by the time
 * the last attempt was refused (found by test/chaos/upstream-storms.test.ts, where a
 * 10 s burst of 429s made the next poll ask again 60 ms after "wait 2 s").
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FaultSettings } from "../../src/simulator/http/faults.js";
import { type DetectHarness, detectHarness } from "./detect-harness.js";

const SECOND = 1000;

let h: DetectHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a poll refused with Retry-After", () => {
  const cases: [string, Partial<FaultSettings>][] = [
    ["429", { rateLimitRate: 1, retryAfterSeconds: 30 }],
    ["503", { serverErrorRate: 1, serverErrorStatuses: [503] }],
  ];
  it.each(cases)(
    "after a %s the next poll waits for what the upstream asked",
    async (name, faults) => {
      h = await detectHarness({
        label: `retry-after-${name}`,
        settings: { intervalMs: SECOND, reconcileEveryMs: 0 },
        // One attempt: the refusal ends the poll at once, Retry-After unspent.
        client: { maxAttempts: 1 },
      });
      expect((await h.detector.poll()).mode).toBe("baseline");
      h.sim.faults.update(faults);
      h.clock.advance(SECOND);
      const failed = await h.detector.poll();
      expect(failed.outcome).toBe("failed");
      const status = await h.store.readStatus();
      // The simulator sends Retry-After with 429s only: a 503 falls back to the backoff.
      const wait = name === "429" ? 30 * SECOND : SECOND;
      expect(status.nextAttemptAt).toBe(h.clock.now() + wait);

      const requests = h.sim.faults.counters.requests;
      h.clock.advance(wait - 1);
      expect((await h.detector.poll()).outcome).toBe("skipped");
      expect(h.sim.faults.counters.requests).toBe(requests);
      h.sim.faults.replace({});
      h.clock.advance(1);
      expect((await h.detector.poll()).outcome).toBe("committed");
    },
  );
});
