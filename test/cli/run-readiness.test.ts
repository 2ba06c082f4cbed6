/**
 * `/readyz` counts from the commit of the last successful poll, not from its start: at
 * a short interval with a slow upstream every poll takes longer than three intervals
 * and still commits — the daemon is working, and must say so. (Counted from the start,
 * it answered 503 for 40–90 s at POLL_INTERVAL=1s with a slow, flaky upstream.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/crash-run.js";
import {
  baselineTaken,
  type LogLine,
  logLines,
  opsUrlOf,
  type RunRig,
  readyz,
  startRunRig,
} from "./run-harness.js";

describe("flightwatch run: readiness with polls slower than the limit", () => {
  let rig: RunRig;
  beforeAll(async () => {
    rig = await startRunRig("run-readiness", 47);
  });
  afterEach(async () => {
    rig.sim.faults.replace({});
    await rig?.killAll();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it("is ready right after a poll that took longer than three intervals committed", {
    timeout: 60_000,
  }, async () => {
    const proc = rig.spawnRun([], { HTTP_PORT: "0", POLL_INTERVAL: "1s", LOG_LEVEL: "debug" });
    const base = await opsUrlOf(proc);
    await baselineTaken(rig);
    // Every request now takes 4 s: each poll (one request) outlasts three intervals.
    rig.sim.faults.update({ latencyMs: 4_000 });
    const slow = (l: LogLine) =>
      l.outcome === "committed" && typeof l.durationMs === "number" && l.durationMs >= 3_500;
    const seen = logLines(proc).filter(slow).length;
    await waitFor(async () => logLines(proc).filter(slow).length > seen, 30_000);
    const ready = await readyz(base);
    expect(ready.checks.poll?.detail).toMatch(/^last successful poll committed [\d.]+ s ago$/);
    expect(ready.status).toBe(200);
  });
});
