/**
 * Graceful stop of `flightwatch run` on SIGTERM, with a webhook receiver that answers
 * slowly so that the signal lands while sends are in flight. Within SHUTDOWN_TIMEOUT
 * the sends finish (answered, never cut off), /readyz says "shutting down" meanwhile,
 * the process exits 0 and the next run sends none of them again. When a send takes
 * longer than SHUTDOWN_TIMEOUT the process still exits 0 within the bound, handing the
 * notification back: the next run delivers it under the same id.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CliProcess } from "../support/cli-process.js";
import { gatedFlights, type SimFlight, waitFor } from "../support/crash-run.js";
import {
  allDelivered,
  baselineTaken,
  exitWithin,
  logLines,
  opsUrlOf,
  type RunRig,
  readyz,
  startRunRig,
  waitForLog,
} from "./run-harness.js";

/** Time allowed beyond SHUTDOWN_TIMEOUT for closing connections and the process exit. */
const EXIT_MARGIN_MS = 2_500;

describe("flightwatch run: graceful stop", () => {
  let rig: RunRig;
  beforeAll(async () => {
    rig = await startRunRig("run-stop", 41);
  });
  afterEach(async () => {
    await rig?.killAll();
  });
  afterAll(async () => {
    await rig?.close();
  });

  /** Moves each flight to a new gate (one alert per flight). */
  const moveGates = (flights: readonly SimFlight[], tag: string) => {
    for (const [i, flight] of flights.entries()) {
      rig.sim.simulator.apply({
        kind: "update",
        target: { id: flight.id },
        patch: { gate: `${tag}${i + 1}` },
      });
    }
  };
  /** Sends SIGTERM and resolves with the exit code and how long the exit took. */
  const terminate = (proc: CliProcess) => {
    const at = Date.now();
    proc.child.kill("SIGTERM");
    return exitWithin(proc, at);
  };

  it("finishes sends in flight, hands back what outlasts SHUTDOWN_TIMEOUT, and nothing is sent twice", async () => {
    const flights = gatedFlights(rig.sim, 3);
    // 1. Sends take 1 s; SIGTERM while they are in flight, with 5 s to finish.
    rig.respond = () => ({ status: 204, delayMs: 1_000 });
    const first = rig.spawnRun([], { SHUTDOWN_TIMEOUT: "5s", HTTP_PORT: "0" });
    const base = await opsUrlOf(first);
    await baselineTaken(rig);
    moveGates(flights, "P");
    await rig.receiver.waitFor(1, 20_000);
    const stopped = terminate(first);
    // Load balancers are told to go away while the drain lasts.
    let draining: Awaited<ReturnType<typeof readyz>> | undefined;
    await waitFor(async () => {
      const r = await readyz(base);
      if (r.checks.shutdown) draining = r;
      return draining !== undefined || r.status === 0;
    }, 5_000);
    expect(draining).toEqual({
      status: 503,
      checks: { shutdown: { ok: false, detail: "shutting down" } },
    });
    const { code, ms } = await stopped;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000 + EXIT_MARGIN_MS);
    // Every request it made was answered: none was cut off by the exit.
    const inFlight = [...rig.receiver.deliveries];
    expect(inFlight.length).toBeGreaterThan(0);
    for (const d of inFlight) expect(d.status, d.id).toBe(204);
    expect(logLines(first).find((l) => l.msg === "stopped")).toMatchObject({ clean: true });
    const drained = new Set(inFlight.map((d) => d.id));

    // 2. Sends now take 4 s, longer than SHUTDOWN_TIMEOUT (1 s): SIGTERM mid-send.
    rig.respond = () => ({ status: 204, delayMs: 4_000 });
    const second = rig.spawnRun([], { SHUTDOWN_TIMEOUT: "1s" });
    await waitForLog(second, (l) => /running/.test(l.msg));
    const before = rig.receiver.deliveries.length;
    moveGates(flights, "Q");
    await waitFor(
      async () => rig.receiver.deliveries.slice(before).some((d) => !drained.has(d.id)),
      20_000,
    );
    const cut = await terminate(second);
    expect(cut.code).toBe(0);
    expect(cut.ms).toBeLessThan(1_000 + EXIT_MARGIN_MS);
    expect(logLines(second).find((l) => l.msg.startsWith("stopped"))).toMatchObject({
      clean: false,
      msg: "stopped; unfinished work was handed back",
    });
    const handedBack = rig.receiver.deliveries
      .slice(before)
      .filter((d) => d.status === undefined)
      .map((d) => d.id);
    expect(handedBack.length).toBeGreaterThan(0);

    // 3. The next run, answered at once, delivers what was handed back under the same ids.
    rig.respond = () => ({ status: 204 });
    const third = rig.spawnRun([]);
    try {
      const want = await allDelivered(rig);
      for (const id of handedBack) expect(want.has(id), id).toBe(true);
      for (const id of drained) expect(want.has(id), id).toBe(true);
      expect(rig.receiver.uniqueIds()).toEqual(want);
    } finally {
      await terminate(third);
    }
    // What the first run finished was never sent again; what the second cut, once more.
    const requests = new Map<string, number>();
    for (const d of rig.receiver.deliveries) requests.set(d.id, (requests.get(d.id) ?? 0) + 1);
    for (const id of drained) expect(requests.get(id), id).toBe(1);
    for (const id of handedBack) expect(requests.get(id), id).toBe(2);
  }, 90_000);
});
