/**
 * Every alert delivered, under one id, even when crashing: the real `flightwatch
 * watch --rules` runs as a child process against a simulator, a real Redis and a
 * signature-checking webhook receiver that answers slowly (so kills land mid-send),
 * and is SIGKILLed at random moments and at the delivery crash points — between
 * enqueueing and acknowledging an alert, just before a send, and between a send and
 * its acknowledgement. Afterwards the receiver must have accepted exactly the
 * notification ids of the alerts decided, each alert under one id only; a repeat is
 * allowed only as the same id again (which the receiver recognises).
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notificationId } from "../../src/deliver/notification.js";
import type { RunningSimulator } from "../../src/simulator/http/start-simulator.js";
import { AlertStore } from "../../src/store/alert-store.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import type { CliProcess } from "../support/cli-process.js";
import {
  gatedFlights,
  killWhileGatesMove,
  spawnWatch,
  startCrashSimulator,
  waitFor,
} from "../support/crash-run.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";

const KILLS = 12;
const CRASH_POINTS = [
  "deliver.after-send",
  "notify.before-ack",
  "deliver.before-send",
  "deliver.after-send",
];
const TOKEN = "delivery-crash-token";
const SECRET = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;

describe("delivery under SIGKILL", () => {
  let sim: RunningSimulator;
  let t: TestRedis;
  let keys: RedisKeys;
  let dir: string;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    sim = await startCrashSimulator(21, TOKEN);
    t = await testRedis("delivery-crash");
    keys = redisKeys(t.prefix);
    // Slow answers: a kill often finds sends in flight.
    receiver = await startWebhookReceiver({
      secret: SECRET,
      respond: () => ({ status: 204, delayMs: Math.floor(Math.random() * 60) }),
    });
    dir = await mkdtemp(join(tmpdir(), "fw-delivery-crash-"));
    await writeFile(
      join(dir, "gates.yaml"),
      `rules:
  - id: gates
    changes: [gate]
    channels: [{ type: webhook, url: "${receiver.url}", secret: "${SECRET}" }]
  - id: gates-grouped
    changes: [gate]
    group_wait: 500ms
    channels: [{ type: webhook, name: grouped, url: "${receiver.url}", secret: "${SECRET}", format: json }]
`,
    );
  });
  afterAll(async () => {
    await receiver?.close();
    await sim?.close();
    await t?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const watch = (crashAt?: string): CliProcess =>
    spawnWatch(
      {
        sim,
        token: TOKEN,
        prefix: t.prefix,
        args: ["--rules", dir, "--quiet"],
        // A killed worker's jobs are handed on after 1 s instead of 30 s.
        env: { DELIVERY_STALL_TIMEOUT: "2s" },
      },
      crashAt,
    );

  it(`delivers every alert under one id across ${KILLS} kills`, async () => {
    const { proc } = await killWhileGatesMove({
      sim,
      flights: gatedFlights(sim, 4),
      gateEveryMs: 80,
      redis: t.redis,
      keys,
      kills: KILLS,
      crashPoints: CRASH_POINTS,
      start: watch,
      maxRandomMs: 1200,
      maxPass: 6,
    });

    // The last process catches up: every decided alert's notifications accepted.
    const store = new AlertStore(t.redis, keys);
    const expected = async () => {
      const alerts = await store.readAlerts();
      return new Set(
        alerts.map((a) => notificationId(a.id, a.ruleId === "gates" ? "webhook" : "grouped")),
      );
    };
    await waitFor(async () => {
      const want = await expected();
      return (
        (await store.nextDueAt()) === undefined &&
        want.size > 0 &&
        [...want].every((id) => receiver.uniqueIds().has(id))
      );
    }, 60_000);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);

    const want = await expected();
    expect(receiver.uniqueIds()).toEqual(want);
    expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
    // One id per alert and channel: a repeat is always the same id, never a new one.
    const idsOfAlert = new Map<string, Set<string>>();
    for (const d of receiver.deliveries) {
      const body = d.body as { data?: { alertId: string }; alertId?: string };
      const alertId = body.data?.alertId ?? body.alertId ?? "";
      const ids = idsOfAlert.get(alertId) ?? new Set();
      ids.add(d.id);
      idsOfAlert.set(alertId, ids);
    }
    for (const [alertId, ids] of idsOfAlert) expect(ids.size, alertId).toBe(1);
    const accepted = receiver.deliveries.filter((d) => d.status !== undefined && d.status < 300);
    // Repeats come only from kills between a send and its acknowledgement.
    console.info(
      `delivery-crash: ${want.size} notifications, ${accepted.length - want.size} repeated (same id) across ${KILLS} kills`,
    );
  }, 300_000);
});
