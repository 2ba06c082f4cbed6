/**
 * Exactly once, even when crashing: the real `flightwatch watch` runs as a child
 * process against a simulator and a real Redis, and is SIGKILLed at random moments
 * (during start-up, mid-poll, between commit and print, between print and
 * acknowledgement) while flights keep changing. Afterwards the outbox must hold, for
 * every watched field, one unbroken chain of changes from the first value to the
 * last — a lost event breaks the chain, a duplicated one repeats a link — and every
 * event must have been printed.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/diff/change.js";
import type { RunningSimulator } from "../../src/simulator/http/start-simulator.js";
import { readOutboxEvents } from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type CliProcess, completeLines } from "../support/cli-process.js";
import {
  gatedFlights,
  killWhileGatesMove,
  pendingEntries,
  sleep,
  spawnWatch,
  startCrashSimulator,
  waitFor,
} from "../support/crash-run.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const KILLS = 20;
const CRASH_POINTS = ["detect.before-commit", "detect.after-commit", "watch.after-print"];
const TOKEN = "crash-token";

describe("flightwatch watch under SIGKILL", () => {
  let sim: RunningSimulator;
  let t: TestRedis;
  let keys: RedisKeys;
  beforeAll(async () => {
    sim = await startCrashSimulator(11, TOKEN);
    t = await testRedis("crash");
    keys = redisKeys(t.prefix);
  });
  afterAll(async () => {
    await sim?.close();
    await t?.cleanup();
  });

  const watch = (crashAt?: string): CliProcess =>
    spawnWatch({ sim, token: TOKEN, prefix: t.prefix, env: { RECONCILE_INTERVAL: "3s" } }, crashAt);

  const outbox = (): Promise<ChangeEvent[]> => readOutboxEvents(t.redis, keys);

  it(`loses no change and records none twice across ${KILLS} kills`, async () => {
    const targets = gatedFlights(sim, 6);
    const initialGate = new Map(targets.map((f) => [f.id, f.gate as string]));

    // The first process takes the baseline; changes start once it is committed.
    const { proc, printed, gateChanges } = await killWhileGatesMove({
      sim,
      flights: targets,
      gateEveryMs: 70,
      redis: t.redis,
      keys,
      kills: KILLS,
      crashPoints: CRASH_POINTS,
      start: watch,
    });

    // The last process catches up: every flight's final gate reaches the outbox
    // and the watch group has nothing pending.
    const finalGate = new Map(
      targets.map((f) => [f.id, sim.simulator.store.get(f.id)?.gate as string]),
    );
    await waitFor(async () => {
      const events = await outbox();
      const pending = await pendingEntries(t.redis, keys.outbox);
      const lastNew = new Map<string, string>();
      for (const e of events) if (e.kind === "gate") lastNew.set(e.flight.id, String(e.new));
      return pending === 0 && targets.every((f) => lastNew.get(f.id) === finalGate.get(f.id));
    }, 30_000);
    await sleep(500);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    printed.push(...completeLines(proc.stdout()));

    const events = await outbox();
    // No event twice in the outbox.
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Per flight, the gate events chain from the first gate to the last.
    for (const flight of targets) {
      const chain = events.filter((e) => e.kind === "gate" && e.flight.id === flight.id);
      expect(chain.length).toBeGreaterThan(0);
      let gate = initialGate.get(flight.id);
      for (const e of chain) {
        expect(e.old, `${flight.flightName}: lost or repeated change before ${e.new}`).toBe(gate);
        gate = String(e.new);
      }
      expect(gate).toBe(finalGate.get(flight.id));
    }
    expect(events.every((e) => e.kind === "gate")).toBe(true);
    // Every event was printed; a line printed twice can only come from a kill
    // between printing and acknowledging (at most one per kill).
    const printedIds = printed.map((line) => (JSON.parse(line) as ChangeEvent).id);
    expect(new Set(printedIds)).toEqual(new Set(events.map((e) => e.id)));
    expect(printedIds.length - events.length).toBeLessThanOrEqual(KILLS);
    expect(gateChanges).toBeGreaterThan(50);
  }, 240_000);
});
