/**
 * Exactly once through the rules, even when crashing: the real `flightwatch watch
 * --rules` runs as a child process against a simulator and a real Redis and is
 * SIGKILLed at random moments and at the dispatcher's crash points (before and after
 * deciding an outbox entry, before flushing a group, between printing an alert and
 * acknowledging it) while gates keep changing. Afterwards every gate change in the
 * outbox must sit in exactly one alert of each rule, the alerts of a flight must
 * chain from the first gate to the last, no alert id may repeat, and every alert
 * must have been printed.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Alert } from "../../src/dispatch/alert.js";
import type { RunningSimulator } from "../../src/simulator/http/start-simulator.js";
import { AlertStore } from "../../src/store/alert-store.js";
import { readOutboxEvents } from "../../src/store/outbox-entry.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type CliProcess, completeLines } from "../support/cli-process.js";
import {
  gatedFlights,
  killWhileGatesMove,
  pendingEntries,
  spawnWatch,
  startCrashSimulator,
  waitFor,
} from "../support/crash-run.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const KILLS = 12;
const CRASH_POINTS = [
  "dispatch.before-commit",
  "dispatch.after-commit",
  "dispatch.before-flush-commit",
  "watch.after-print",
];
const TOKEN = "dispatch-crash-token";
const RULES = `
rules:
  - id: each-gate
    changes: [gate]
    channels: [{ type: console }]
  - id: grouped-gate
    changes: [gate]
    channels: [{ type: console }]
    group_wait: 700ms
`;

describe("flightwatch watch --rules under SIGKILL", () => {
  let sim: RunningSimulator;
  let t: TestRedis;
  let keys: RedisKeys;
  let dir: string;
  beforeAll(async () => {
    sim = await startCrashSimulator(12, TOKEN);
    t = await testRedis("dispatch-crash");
    keys = redisKeys(t.prefix);
    dir = await mkdtemp(join(tmpdir(), "fw-rules-"));
    await writeFile(join(dir, "gates.yaml"), RULES);
  });
  afterAll(async () => {
    await sim?.close();
    await t?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const watch = (crashAt?: string): CliProcess =>
    spawnWatch(
      { sim, token: TOKEN, prefix: t.prefix, args: ["--rules", dir, "--no-deliver"] },
      crashAt,
    );

  it(`sends every matched change once across ${KILLS} kills`, async () => {
    const targets = gatedFlights(sim, 4);
    const initialGate = new Map(targets.map((f) => [f.id, f.gate as string]));

    const { proc, printed } = await killWhileGatesMove({
      sim,
      flights: targets,
      gateEveryMs: 90,
      redis: t.redis,
      keys,
      kills: KILLS,
      crashPoints: CRASH_POINTS,
      start: watch,
      maxRandomMs: 1200,
      maxPass: 3,
    });

    // The last process catches up: final gates detected, every group flushed,
    // nothing pending in either consumer group.
    const finalGate = new Map(
      targets.map((f) => [f.id, sim.simulator.store.get(f.id)?.gate as string]),
    );
    const store = new AlertStore(t.redis, keys);
    await waitFor(async () => {
      const events = await readOutboxEvents(t.redis, keys);
      const lastNew = new Map<string, string>();
      for (const e of events) if (e.kind === "gate") lastNew.set(e.flight.id, String(e.new));
      const caughtUp = targets.every((f) => lastNew.get(f.id) === finalGate.get(f.id));
      return (
        caughtUp &&
        (await store.nextDueAt()) === undefined &&
        (await pendingEntries(t.redis, keys.outbox)) === 0 &&
        (await pendingEntries(t.redis, keys.alerts)) === 0
      );
    }, 30_000);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    printed.push(...completeLines(proc.stdout()));

    const gateEvents = (await readOutboxEvents(t.redis, keys)).filter((e) => e.kind === "gate");
    const alerts = await store.readAlerts();
    expect(new Set(alerts.map((a) => a.id)).size).toBe(alerts.length);
    for (const ruleId of ["each-gate", "grouped-gate"]) {
      const mine = alerts.filter((a) => a.ruleId === ruleId);
      const carried = mine.flatMap((a) => a.changes.flatMap((c) => c.eventIds));
      // Every gate change in exactly one alert of the rule.
      expect(carried.length, `${ruleId}: an event in two alerts`).toBe(new Set(carried).size);
      expect(new Set(carried)).toEqual(new Set(gateEvents.map((e) => e.id)));
      for (const flight of targets) {
        let gate = initialGate.get(flight.id);
        for (const alert of mine.filter((a) => a.flight.id === flight.id)) {
          const change = alert.changes.find((c) => c.kind === "gate");
          expect(change?.old, `${ruleId} ${flight.flightName}: broken chain`).toBe(gate);
          gate = String(change?.new);
        }
        expect(gate).toBe(finalGate.get(flight.id));
      }
    }
    // Grouping can only merge: never more alerts than changes.
    expect(alerts.filter((a) => a.ruleId === "grouped-gate").length).toBeLessThanOrEqual(
      alerts.filter((a) => a.ruleId === "each-gate").length,
    );
    // Every alert printed; a repeat only from a kill between print and acknowledgement.
    const printedIds = printed.map((line) => (JSON.parse(line) as Alert).id);
    expect(new Set(printedIds)).toEqual(new Set(alerts.map((a) => a.id)));
    expect(printedIds.length - alerts.length).toBeLessThanOrEqual(KILLS);
  }, 240_000);
});
