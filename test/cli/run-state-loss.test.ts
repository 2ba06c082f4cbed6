/**
 * `flightwatch run` when Redis loses flightwatch's data under it (here: every key of the
 * prefix deleted, as a FLUSHALL, a restart without persistence or a failover to an
 * empty replica would): it says so once, names the notifications that went with it,
 * takes a silent baseline and reports the changes made after — where it used to loop
 * on NOGROUP forever, never polling again. And the backstop: a stage that keeps failing
 * while Redis answers turns /healthz to 503.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deleteByPattern } from "../../src/store/redis-connection.js";
import { gatedFlights, waitFor } from "../support/crash-run.js";
import { sampleValue } from "../support/prometheus-text.js";
import {
  baselineTaken,
  get,
  logLines,
  opsUrlOf,
  type RunRig,
  readyz,
  scrape,
  startRunRig,
  waitForLog,
} from "./run-harness.js";

describe("flightwatch run: Redis loses its data", () => {
  let rig: RunRig;
  beforeAll(async () => {
    rig = await startRunRig("state-loss", 37);
  });
  afterEach(async () => {
    rig.respond = () => ({ status: 204 });
    await rig?.killAll();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it("says so once, names the notifications lost, re-baselines silently and reports later changes", async () => {
    const proc = rig.spawnRun([], { HTTP_PORT: "0" });
    const base = await opsUrlOf(proc);
    await baselineTaken(rig);
    const [a, b, c] = gatedFlights(rig.sim, 3);
    if (!a || !b || !c) throw new Error("no flights");

    // Two notifications wait to retry (the receiver is down) when the data goes.
    rig.respond = () => ({ status: 503 });
    rig.sim.simulator.apply({ kind: "update", target: { id: a.id }, patch: { gate: "L1" } });
    rig.sim.simulator.apply({ kind: "update", target: { id: b.id }, patch: { gate: "L2" } });
    const delayed = `${rig.keys.queuePrefix}:deliver-webhook:delayed`;
    await waitFor(async () => (await rig.t.redis.zcard(delayed)) === 2, 20_000);
    const retrying = await rig.t.redis.zrange(delayed, 0, -1);
    // Seen by the state guard's look at what is outstanding (every poll interval here,
    // 300 ms), which its gauge tells — however loaded the machine.
    await waitFor(
      async () => sampleValue(await scrape(base), "flightwatch_notifications_outstanding") === 2,
      20_000,
    );

    await deleteByPattern(rig.t.redis, rig.keys.pattern);
    const lost = await waitForLog(proc, (l) => l.msg.startsWith("Redis lost flightwatch's state"));
    expect(lost.level).toBe("error");
    expect(lost.lostNotifications).toBe(2);
    expect([...(lost.lostNotificationIds as string[])].sort()).toEqual([...retrying].sort());
    for (const id of retrying) expect(lost.msg).toContain(id);

    // The receiver is back. The re-baseline reports nothing; a change after it is reported.
    rig.respond = () => ({ status: 204 });
    await baselineTaken(rig);
    const before = rig.receiver.deliveries.length;
    rig.sim.simulator.apply({ kind: "update", target: { id: c.id }, patch: { gate: "L3" } });
    await waitFor(async () => rig.receiver.deliveries.length > before, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = rig.receiver.deliveries.slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]?.rawBody).toContain("L3");

    await waitFor(async () => (await readyz(base)).status === 200, 10_000);
    expect((await get(`${base}/healthz`)).status).toBe(200);
    const samples = await scrape(base);
    expect(sampleValue(samples, "flightwatch_redis_state_losses_total")).toBe(1);
    expect(sampleValue(samples, "flightwatch_notifications_lost_total")).toBe(2);
    // One error line: the loss. No NOGROUP loop.
    const errors = logLines(proc).filter((l) => l.level === "error");
    expect(errors.map((l) => l.msg.slice(0, 40))).toEqual([lost.msg.slice(0, 40)]);
    expect(proc.stdout()).not.toContain("NOGROUP");
  });

  it("turns /healthz to 503 when a stage keeps failing while Redis answers", async () => {
    const proc = rig.spawnRun([], { HTTP_PORT: "0", LIVENESS_TIMEOUT: "2s" });
    const base = await opsUrlOf(proc);
    await baselineTaken(rig);
    expect((await get(`${base}/healthz`)).status).toBe(200);
    // Something flightwatch does not foresee: its outbox replaced by a key of another type.
    await rig.t.redis.del(rig.keys.outbox);
    await rig.t.redis.set(rig.keys.outbox, "not a stream");
    await waitFor(async () => (await get(`${base}/healthz`)).status === 503, 20_000);
    const body = JSON.parse((await get(`${base}/healthz`)).text) as { detail: string };
    expect(body.detail).toMatch(/^dispatch has failed for \d+ s while Redis answers/);
    expect(body.detail).toContain("WRONGTYPE");
    // Mended, it is healthy again.
    await rig.t.redis.del(rig.keys.outbox);
    await waitFor(async () => (await get(`${base}/healthz`)).status === 200, 20_000);
  });
});
