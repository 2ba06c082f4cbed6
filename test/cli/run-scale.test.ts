/**
 * Scaling `flightwatch run` out over one Redis (BullMQ is the only coordinator): two
 * daemons of role `all` on one prefix, polling one external simulator while gates
 * move, deliver every alert's notification exactly once; a split deployment of one
 * `--role poller` and two `--role worker` processes does the same, and the poller
 * alone only enqueues — nothing reaches the receiver until a worker starts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DeliveryQueues, isBundle } from "../../src/deliver/delivery-queues.js";
import { AlertStore } from "../../src/store/alert-store.js";
import type { CliProcess } from "../support/cli-process.js";
import { changeGates, gatedFlights, type SimFlight, sleep, waitFor } from "../support/crash-run.js";
import {
  allDelivered,
  baselineTaken,
  GATE_RULE,
  logLines,
  type RunRig,
  startRunRig,
  waitForLog,
} from "./run-harness.js";

/** Gates move this often, for this long, per phase. */
const GATE_EVERY_MS = 120;
const MOVING_MS = 2_500;

/** Moves gates for MOVING_MS; resolves with the number of moves. */
async function moveGatesFor(rig: RunRig, flights: readonly SimFlight[]): Promise<number> {
  const gates = changeGates(rig.sim, flights, GATE_EVERY_MS);
  await sleep(MOVING_MS);
  gates.stop();
  return gates.count;
}

/**
 * Every alert delivered once: each moved flight's newest alert carries its gate as the
 * simulator has it now (no change left unalerted), and the receiver accepted exactly
 * the notification ids of the decided alerts, one signed request each.
 */
async function expectEachAlertOnce(rig: RunRig, flights: readonly SimFlight[]): Promise<void> {
  const store = new AlertStore(rig.t.redis, rig.keys);
  const newestGates = async () => {
    const alerts = await store.readAlerts();
    return flights.map(
      (flight) =>
        alerts
          .filter((a) => a.ruleId === GATE_RULE && a.flight.id === flight.id)
          .sort((a, b) => a.decidedAt - b.decidedAt)
          .at(-1)?.current?.gate,
    );
  };
  const simGates = flights.map((f) => rig.sim.simulator.store.get(f.id)?.gate);
  await waitFor(async () => (await newestGates()).every((g, i) => g === simGates[i]), 30_000).catch(
    async () => expect(await newestGates()).toEqual(simGates),
  );
  const want = await allDelivered(rig, 45_000);
  const { receiver } = rig;
  expect(receiver.uniqueIds()).toEqual(want);
  expect(receiver.deliveries.length).toBe(want.size);
  expect(receiver.deliveries.every((d) => d.verified && d.status === 204)).toBe(true);
}

/** SIGTERM to each; every one must still be running until then, and exit 0. */
async function stopAll(procs: readonly CliProcess[]): Promise<void> {
  expect(procs.map((p) => p.child.exitCode)).toEqual(procs.map(() => null));
  for (const proc of procs) proc.child.kill("SIGTERM");
  const codes = await Promise.all(procs.map((p) => p.exited));
  expect(codes).toEqual(procs.map(() => 0));
}

describe("flightwatch run: several processes on one Redis", () => {
  const rigs: RunRig[] = [];
  beforeAll(async () => {
    rigs.push(await startRunRig("run-scale-all", 51), await startRunRig("run-scale-split", 52));
  });
  afterEach(async () => {
    for (const rig of rigs) await rig.killAll();
  });
  afterAll(async () => {
    for (const rig of rigs) await rig.close();
  });

  it("two daemons (role all) deliver each alert exactly once while gates move", async () => {
    const rig = rigs[0] as RunRig;
    const flights = gatedFlights(rig.sim, 4);
    // Debug: quiet polls are logged too, to see that both processes poll.
    const daemons = ["daemon-a", "daemon-b"].map((name) =>
      rig.spawnRun(["--consumer", name], { LOG_LEVEL: "debug" }),
    );
    await Promise.all(daemons.map((d) => waitForLog(d, (l) => /running/.test(l.msg))));
    await baselineTaken(rig);
    const moves = await moveGatesFor(rig, flights);
    expect(moves).toBeGreaterThan(10);
    await expectEachAlertOnce(rig, flights);
    await stopAll(daemons);
    // Both took part: polled (one poll per tick, whichever process gets it) or delivered.
    for (const daemon of daemons) {
      const lines = logLines(daemon);
      const polled = lines.some((l) => typeof l.poll === "number");
      const sent = lines.some((l) => l.msg.startsWith("delivered "));
      expect(polled || sent).toBe(true);
    }
  }, 90_000);

  it("a poller only enqueues; two workers then deliver each alert exactly once", async () => {
    const rig = rigs[1] as RunRig;
    const flights = gatedFlights(rig.sim, 4);
    const poller = rig.spawnRun(["--role", "poller", "--consumer", "poller"]);
    await baselineTaken(rig);
    await moveGatesFor(rig, flights);
    // Decided and queued, but nobody delivers.
    const queues = new DeliveryQueues(rig.t.redis, rig.keys);
    const store = new AlertStore(rig.t.redis, rig.keys);
    try {
      // Every decided alert is waiting in the queue (the last poll settles first).
      // The notifications waiting: in bundles (the notifier's), or in jobs of their own.
      const waiting = async () =>
        (await queues.queue("webhook").getWaiting()).reduce(
          (n, job) => n + (isBundle(job.data) ? job.data.bundle.length : 1),
          0,
        );
      await waitFor(async () => {
        const alerts = await store.readAlerts();
        return alerts.length > 0 && (await waiting()) === alerts.length;
      }, 20_000).catch(() => undefined);
      await sleep(500);
      expect(rig.receiver.deliveries).toEqual([]);
      expect(await waiting()).toBe((await store.readAlerts()).length);
      expect((await queues.counts()).webhook).toMatchObject({ active: 0, completed: 0 });
    } finally {
      await queues.close();
    }

    // Two workers join while gates keep moving. They start on a backlog: more than the
    // info budget of "delivered" lines a second, so the rest are at debug — logged too.
    const workers = [
      rig.spawnRun(["--role", "worker", "--consumer", "worker-1"], { LOG_LEVEL: "debug" }),
      rig.spawnRun(["--role", "worker", "--consumer", "worker-2"], { LOG_LEVEL: "debug" }),
    ];
    await Promise.all(workers.map((w) => waitForLog(w, (l) => /running/.test(l.msg))));
    await moveGatesFor(rig, flights);
    await expectEachAlertOnce(rig, flights);
    await stopAll([poller, ...workers]);
    // Roles kept to their part: the poller sent nothing, the workers polled nothing.
    expect(logLines(poller).some((l) => typeof l.notificationId === "string")).toBe(false);
    for (const worker of workers) {
      expect(logLines(worker).some((l) => typeof l.poll === "number")).toBe(false);
    }
    const sentBy = workers.map(
      (w) => logLines(w).filter((l) => l.msg.startsWith("delivered ")).length,
    );
    expect(sentBy.reduce((a, b) => a + b, 0)).toBe(rig.receiver.deliveries.length);
  }, 90_000);
});
