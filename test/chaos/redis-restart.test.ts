/**
 * Chaos: Redis restarts under a running daemon. The real `flightwatch run` polls the
 * simulator and sends a signed webhook for every gate change, with a Redis of its own
 * (AOF, `appendfsync always`) that is restarted five times mid-run — gracefully
 * (SHUTDOWN) and with SIGKILL, down for 1–4 s each — while gates move just before
 * each restart (their webhooks are in flight when Redis goes) and while it is down.
 *
 * The oracle is the test's own list of moves, not flightwatch's alert store: every
 * moved flight must reach the receiver exactly once with its old and new gate (by
 * content and by `webhook-id`), nothing else may arrive, and afterwards the daemon is
 * still running, ready, has logged no error (an outage is warned about once and its
 * end announced), and stops cleanly.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { get, logLines, opsUrlOf, type RunRig, readyz, startRunRig } from "../cli/run-harness.js";
import type { CliProcess } from "../support/cli-process.js";
import { gatedFlights, type SimFlight, sleep, waitFor } from "../support/crash-run.js";
import {
  type RedisServer,
  type RestartOptions,
  startRedisServer,
} from "../support/redis-server.js";
import type { WebhookDelivery } from "../support/webhook-receiver.js";

/** The restarts, in order: both kinds, outages of 1 to 4 s. */
const RESTARTS: readonly Required<Omit<RestartOptions, "wipe">>[] = [
  { hard: false, downMs: 2_000 },
  { hard: true, downMs: 3_000 },
  { hard: false, downMs: 1_000 },
  { hard: true, downMs: 4_000 },
  { hard: true, downMs: 1_500 },
];
/** Flights moved just before each restart, and while Redis is down. */
const BEFORE = 2;
const DURING = 2;
/** The receiver takes this long to answer: a send is in flight when Redis goes. */
const ANSWER_DELAY_MS = 1_000;

/** One expected or received change: `<flight id> gate <old> → <new>`. */
type GateMove = string;

/** The gate moves a delivery carries (one per change; a gate alert has one). */
function movesOf(delivery: WebhookDelivery): GateMove[] {
  const body = delivery.body as {
    data?: { flight?: { id?: string }; changes?: { kind: string; old?: string; new?: string }[] };
  };
  return (body.data?.changes ?? []).map(
    (c) => `${body.data?.flight?.id} ${c.kind} ${c.old ?? "-"} → ${c.new ?? "-"}`,
  );
}

/**
 * Where undelivered work waits, for a failure message: entries read but never
 * acknowledged by each consumer group (a read whose reply a restart lost), and the
 * webhook jobs waiting, active (a job whose fetch reply was lost stays active, locked
 * by nobody, until its lock expires) and delayed (a retry).
 */
async function stuck(redis: Redis, keys: RedisKeys): Promise<string> {
  const lines: string[] = [];
  for (const [stream, group] of [
    [keys.outbox, "dispatch"],
    [keys.alerts, "notify"],
  ] as const) {
    const pending = await redis.call("XPENDING", stream, group, "-", "+", 20).catch(String);
    lines.push(`${group} pending: ${JSON.stringify(pending)}`);
  }
  const queue = `${keys.queuePrefix}:deliver-webhook`;
  for (const state of ["wait", "active"] as const) {
    lines.push(
      `webhook ${state}: ${JSON.stringify(await redis.lrange(`${queue}:${state}`, 0, 20))}`,
    );
  }
  lines.push(`webhook delayed: ${JSON.stringify(await redis.zrange(`${queue}:delayed`, 0, 20))}`);
  return lines.join("\n");
}

describe("chaos: Redis restarts mid-run", () => {
  let server: RedisServer;
  let rig: RunRig;
  let redis: Redis | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
    rig = await startRunRig("chaos-redis", 61);
  });
  afterAll(async () => {
    redis?.disconnect();
    await rig?.close();
    await server?.close();
  });

  it("delivers every gate change exactly once across graceful and SIGKILL restarts", async () => {
    rig.respond = () => ({ status: 204, delayMs: ANSWER_DELAY_MS });
    const daemon: CliProcess = rig.spawnRun(["--consumer", "chaos"], {
      REDIS_URL: server.url,
      HTTP_PORT: "0",
      // A 15 s lock: longer than any outage here, so a send in flight keeps its lock (an
      // outage longer than it makes in-flight sends look abandoned: they are sent again
      // under the same webhook-id, as after a crash); a job orphaned by a lost reply (see
      // stuck()) is still handed on within the test's wait.
      DELIVERY_STALL_TIMEOUT: "30s",
    });
    const ops = await opsUrlOf(daemon);
    redis = new Redis(server.url, { maxRetriesPerRequest: null });
    redis.on("error", () => undefined);
    const keys = redisKeys(rig.t.prefix);
    const watermark = () => (redis as Redis).hget(keys.detection, "watermark");
    await waitFor(async () => (await watermark()) !== null, 30_000);

    const flights = gatedFlights(rig.sim, RESTARTS.length * (BEFORE + DURING) + BEFORE);
    const expected: GateMove[] = [];
    const outageProbes: Array<[number, boolean | undefined, number]> = [];
    let moved = 0;
    const moveNext = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const flight = flights[moved++] as SimFlight;
        const gate = `R${moved}`;
        expected.push(`${flight.id} gate ${flight.gate} → ${gate}`);
        rig.sim.simulator.apply({ kind: "update", target: { id: flight.id }, patch: { gate } });
        await sleep(250);
      }
    };

    for (const restart of RESTARTS) {
      const arrived = rig.receiver.deliveries.length;
      await moveNext(BEFORE);
      // Redis goes while a webhook of these moves waits for its answer.
      await waitFor(async () => rig.receiver.deliveries.length > arrived, 15_000);
      const back = server.restart(restart);
      await sleep(300);
      // While Redis is away the ops server still answers, at once: not ready, metrics.
      const probes = Promise.all([readyz(ops), get(`${ops}/metrics`)]);
      await moveNext(DURING);
      const [ready, metrics] = await probes;
      // (Answered within 2.3 s; only outages longer than that are sure to be under way.)
      if (restart.downMs >= 3_000)
        outageProbes.push([ready.status, ready.checks.redis?.ok, metrics.status]);
      await back;
      await sleep(1_500);
    }
    await moveNext(BEFORE);
    expect(server.starts).toBe(RESTARTS.length + 1);
    const longOutages = RESTARTS.filter((r) => r.downMs >= 3_000).length;
    expect(outageProbes).toEqual(Array.from({ length: longOutages }, () => [503, false, 200]));

    const received = () => rig.receiver.deliveries.flatMap(movesOf);
    const want = [...expected].sort();
    await waitFor(async () => want.every((m) => received().includes(m)), 60_000).catch(async () =>
      expect(received().sort(), await stuck(redis as Redis, keys)).toEqual(want),
    );
    // Late duplicates would come from a retry (the first after 5 s) or a stalled job.
    await sleep(6_000);
    const { deliveries } = rig.receiver;
    expect(received().sort()).toEqual(want);
    expect(deliveries.map((d) => movesOf(d).length)).toEqual(deliveries.map(() => 1));
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(expected.length);
    expect(deliveries.every((d) => d.verified && d.status === 204)).toBe(true);

    // Still running and ready (a poll succeeded within the last 3 intervals).
    expect(daemon.child.exitCode).toBeNull();
    await waitFor(async () => (await readyz(ops)).status === 200, 15_000).catch(async () =>
      expect(await readyz(ops)).toMatchObject({ status: 200 }),
    );
    // Retried quietly: no error line; each outage warned about once and its end
    // announced; a few warnings per outage (the poll in flight failed, its job lost its
    // lock), however long it lasts — not one per reconnect attempt per connection.
    const lines = logLines(daemon);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    const starts = lines.filter((l) => l.msg.startsWith("Redis out of reach"));
    const ends = lines.filter((l) => l.msg.startsWith("Redis answers again"));
    expect([starts.length, ends.length]).toEqual([RESTARTS.length, RESTARTS.length]);
    const warnings = lines.filter((l) => l.level === "warn");
    expect(warnings.length).toBeLessThanOrEqual(8 * RESTARTS.length);

    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  }, 180_000);
});
