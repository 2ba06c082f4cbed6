/**
 * Operating `flightwatch run`: the real daemon as a child process against an external
 * simulator, a real Redis and a signed webhook receiver, on HTTP_PORT=0. /healthz
 * answers at once; /readyz is 503 while the upstream has never answered, 200 after a
 * successful poll and 503 again once the upstream has been down for more than three
 * intervals; /metrics parses and agrees with what the receiver got; every stdout line
 * is a JSON log line, delivery lines carry the notification, rule and flight, and
 * neither the API token nor the webhook secret appears anywhere.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { changeGates, gatedFlights, waitFor } from "../support/crash-run.js";
import { samplesOf, sampleValue } from "../support/prometheus-text.js";
import {
  allDelivered,
  baselineTaken,
  exitWithin,
  GATE_RULE,
  get,
  HOOK_SECRET,
  logLines,
  opsUrlOf,
  type RunRig,
  readyz,
  scrape,
  startRunRig,
  waitForLog,
} from "./run-harness.js";

/** The simulator answers every API request 500. */
const UPSTREAM_DOWN = { serverErrorRate: 1, serverErrorStatuses: [500] };
/** Readiness allows three intervals without a successful poll. */
const INTERVAL_MS = 500;

describe("flightwatch run: health, readiness, metrics, logs", () => {
  let rig: RunRig;
  beforeAll(async () => {
    rig = await startRunRig("run-operate", 31);
  });
  afterEach(async () => {
    rig.sim.faults.replace({});
    await rig?.killAll();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it("answers /healthz, moves /readyz with the upstream, exposes metrics and logs JSON without secrets", async () => {
    // The upstream fails from the start: the daemon is alive but not ready.
    rig.sim.faults.update(UPSTREAM_DOWN);
    const proc = rig.spawnRun([], {
      HTTP_PORT: "0",
      POLL_INTERVAL: `${INTERVAL_MS}ms`,
      LOG_LEVEL: "debug",
    });
    const base = await opsUrlOf(proc);
    expect((await get(`${base}/healthz`)).status).toBe(200);
    const notYet = await readyz(base);
    expect(notYet.status).toBe(503);
    expect(notYet.checks.redis?.ok).toBe(true);
    expect(notYet.checks.poll?.ok).toBe(false);
    expect(notYet.checks.poll?.detail).toMatch(/^no successful poll seen yet/);
    // Still not ready after more than three intervals of failed polls.
    const firstFailure = await waitForLog(proc, (l) => l.msg === "upstream request failed");
    await waitFor(
      async () =>
        Date.now() - Date.parse(firstFailure.time) > 3 * INTERVAL_MS + 100 &&
        (sampleValue(await scrape(base), "flightwatch_polls_total", { outcome: "failed" }) ?? 0) >=
          2,
      15_000,
    );
    const stillFailing = await readyz(base);
    expect(stillFailing.status).toBe(503);
    expect(stillFailing.checks.poll?.ok).toBe(false);

    // The upstream answers: ready after the first successful poll.
    rig.sim.faults.replace({});
    await waitFor(async () => (await readyz(base)).status === 200, 20_000);
    const ready = await readyz(base);
    expect(ready.checks.poll?.detail).toMatch(/^last successful poll committed [\d.]+ s ago$/);
    expect((await get(`${base}/healthz`)).status).toBe(200);

    // Gates move; the rule's webhook hears of each alert.
    await baselineTaken(rig);
    const gates = changeGates(rig.sim, gatedFlights(rig.sim, 3), 200);
    try {
      await rig.receiver.waitForIds(4, 30_000);
    } finally {
      gates.stop();
    }
    const want = await allDelivered(rig);
    expect(rig.receiver.uniqueIds()).toEqual(want);

    // Metrics: present, parsable, and in agreement with the receiver.
    const samples = await scrape(base);
    const value = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(samples, name, labels);
    expect(value("flightwatch_polls_total", { outcome: "committed" })).toBeGreaterThan(0);
    expect(value("flightwatch_polls_total", { outcome: "failed" })).toBeGreaterThanOrEqual(2);
    expect(value("flightwatch_poll_duration_seconds_count")).toBeGreaterThan(0);
    expect(samplesOf(samples, "flightwatch_poll_duration_seconds_bucket").length).toBeGreaterThan(
      0,
    );
    expect(value("flightwatch_upstream_requests_total", { status: "200" })).toBeGreaterThan(0);
    expect(value("flightwatch_upstream_requests_total", { status: "500" })).toBeGreaterThanOrEqual(
      2,
    );
    expect(value("flightwatch_changes_total", { kind: "gate" })).toBeGreaterThanOrEqual(want.size);
    expect(value("flightwatch_alerts_total")).toBeGreaterThanOrEqual(want.size);
    const delivered = value("flightwatch_notifications_total", {
      channel: "webhook",
      outcome: "delivered",
    });
    expect(delivered).toBeGreaterThanOrEqual(rig.receiver.uniqueIds().size);
    expect(delivered).toBeLessThanOrEqual(rig.receiver.deliveries.length);
    for (const state of ["waiting", "active", "delayed"]) {
      expect(value("flightwatch_queue_jobs", { channel: "webhook", state }), state).toBe(0);
    }
    expect(value("flightwatch_dead_letters", { channel: "webhook" })).toBe(0);
    const lag = value("flightwatch_poll_lag_seconds");
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(10);

    // The upstream goes down for good: not ready once three intervals have passed.
    rig.sim.faults.update(UPSTREAM_DOWN);
    const downAt = Date.now();
    await waitFor(async () => (await readyz(base)).status === 503, 20_000);
    // Not at once: the last successful poll committed at most an interval before the
    // outage, and the limit counts from that commit.
    expect(Date.now() - downAt).toBeGreaterThanOrEqual(INTERVAL_MS);
    const down = await readyz(base);
    expect(down.checks.poll?.detail).toMatch(/more than 3 intervals/);
    const age = Number(
      /last successful poll committed ([\d.]+) s ago/.exec(down.checks.poll?.detail ?? "")?.[1],
    );
    expect(age * 1000).toBeGreaterThanOrEqual(3 * INTERVAL_MS);
    expect((await get(`${base}/healthz`)).status).toBe(200);

    const stopAt = Date.now();
    proc.child.kill("SIGTERM");
    const { code } = await exitWithin(proc, stopAt);
    expect(code).toBe(0);

    // Logs: JSON on stdout (a pipe), each line with level, time and message.
    const lines = logLines(proc);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      expect(typeof line.level, JSON.stringify(line)).toBe("string");
      expect(Number.isNaN(Date.parse(line.time)), JSON.stringify(line)).toBe(false);
      expect(typeof line.msg, JSON.stringify(line)).toBe("string");
    }
    const deliveries = lines.filter((l) => l.msg.startsWith("delivered "));
    expect(new Set(deliveries.map((l) => l.notificationId))).toEqual(want);
    for (const line of deliveries) {
      expect(line).toMatchObject({ level: "info", ruleId: GATE_RULE, channel: "webhook" });
      expect(line.flight).toMatch(/\S/);
    }
    expect(lines.some((l) => l.msg === "upstream request failed" && l.status === 500)).toBe(true);
    expect(lines.some((l) => l.msg === "stopped")).toBe(true);
    // Secrets: neither the API token nor the webhook secret (nor its key) anywhere.
    const output = proc.stdout() + proc.stderr();
    expect(output).not.toContain(rig.token);
    expect(output).not.toContain(HOOK_SECRET);
    expect(output).not.toContain(HOOK_SECRET.slice("whsec_".length));
  }, 90_000);
});
