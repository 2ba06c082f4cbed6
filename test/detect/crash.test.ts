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
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import { createSimulator } from "../../src/simulator/simulator.js";
import { readOutboxEvents } from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type CliProcess, completeLines, spawnCli } from "../support/cli-process.js";
import { changeGates, gatedFlights, killRepeatedly, sleep, waitFor } from "../support/crash-run.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

const KILLS = 20;
const CRASH_POINTS = ["detect.before-commit", "detect.after-commit", "watch.after-print"];
const TOKEN = "crash-token";

describe("flightwatch watch under SIGKILL", () => {
  let sim: RunningSimulator;
  let t: TestRedis;
  let keys: RedisKeys;
  beforeAll(async () => {
    const simulator = createSimulator({ seed: 11, flightsPerDay: 150, evolve: false });
    sim = await startSimulator({ simulator, live: false, tokens: [TOKEN] });
    t = await testRedis("crash");
    keys = redisKeys(t.prefix);
  });
  afterAll(async () => {
    await sim?.close();
    await t?.cleanup();
  });

  const env = () => ({
    FLIGHT_API_BASE_URL: sim.baseUrl,
    FLIGHT_API_TOKEN: TOKEN,
    REDIS_URL: TEST_REDIS_URL,
    FLIGHTWATCH_PREFIX: t.prefix,
    POLL_INTERVAL: "200ms",
    RECONCILE_INTERVAL: "3s",
    AIRPORT_TIMEZONE: "Europe/Amsterdam",
  });
  const watch = (crashAt?: string): CliProcess =>
    spawnCli(["watch", "--consumer", "crash-test"], {
      ...env(),
      ...(crashAt ? { FLIGHTWATCH_CRASH_AT: crashAt } : {}),
    });

  const outbox = (): Promise<ChangeEvent[]> => readOutboxEvents(t.redis, keys);

  it(`loses no change and records none twice across ${KILLS} kills`, async () => {
    const targets = gatedFlights(sim, 6);
    const initialGate = new Map(targets.map((f) => [f.id, f.gate as string]));

    // The first process takes the baseline; changes start once it is committed.
    const first = watch();
    await waitFor(async () => (await t.redis.hget(keys.detection, "watermark")) !== null, 30_000);
    const gates = changeGates(sim, targets, 70);
    let run: Awaited<ReturnType<typeof killRepeatedly>>;
    try {
      run = await killRepeatedly({ kills: KILLS, crashPoints: CRASH_POINTS, start: watch, first });
    } finally {
      gates.stop();
    }
    const { proc, printed } = run;

    // The last process catches up: every flight's final gate reaches the outbox
    // and the watch group has nothing pending.
    const finalGate = new Map(
      targets.map((f) => [f.id, sim.simulator.store.get(f.id)?.gate as string]),
    );
    await waitFor(async () => {
      const events = await outbox();
      const groups = (await t.redis.call("XINFO", "GROUPS", keys.outbox)) as unknown[][];
      const pending = Number(groups[0]?.[groups[0].indexOf("pending") + 1] ?? -1);
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
    expect(gates.count).toBeGreaterThan(50);
  }, 240_000);
});
