/**
 * `flightwatch run` against a Redis that answers but refuses: out of memory under
 * `noeviction`, turned into a read-only replica (a failover gone wrong), or asking for a
 * password it does not have. Each is one clear error line per kind (rate-limited, not an
 * error line per attempt per connection), counted in `flightwatch_redis_errors_total`;
 * polls that fail because of it count as failed polls; and once Redis takes writes
 * again, the changes made meanwhile are delivered, each once.
 */
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatedFlights, waitFor } from "../support/crash-run.js";
import { sampleValue } from "../support/prometheus-text.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import {
  type LogLine,
  logLines,
  opsUrlOf,
  type RunRig,
  scrape,
  startRunRig,
  waitForLog,
} from "./run-harness.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("flightwatch run: a Redis that refuses", () => {
  let rig: RunRig;
  let server: RedisServer | undefined;
  let other: RedisServer | undefined;
  let admin: Redis | undefined;
  beforeAll(async () => {
    rig = await startRunRig("redis-refusals", 41);
  });
  afterEach(async () => {
    await rig?.killAll();
    admin?.disconnect();
    await server?.close();
    await other?.close();
    server = other = admin = undefined;
  });
  afterAll(async () => {
    await rig?.close();
  });

  /** A daemon on a private Redis, its baseline taken. */
  async function daemonOnPrivateRedis() {
    server = await startRedisServer();
    admin = new Redis(server.url, { maxRetriesPerRequest: null });
    const proc = rig.spawnRun([], { HTTP_PORT: "0", REDIS_URL: server.url });
    const base = await opsUrlOf(proc);
    const redis = admin;
    await waitFor(async () => (await redis.hget(rig.keys.detection, "watermark")) !== null, 30_000);
    return { proc, base };
  }

  const refusalLines = (lines: LogLine[], reason: string) =>
    lines.filter((l) => l.level === "error" && l.reason === reason);

  it("out of memory: one line, failed polls counted, and the changes delivered once it has room", {
    timeout: 60_000,
  }, async () => {
    const { proc, base } = await daemonOnPrivateRedis();
    const flights = gatedFlights(rig.sim, 2);
    await admin?.config("SET", "maxmemory", "1");
    for (const [i, f] of flights.entries()) {
      rig.sim.simulator.apply({ kind: "update", target: { id: f.id }, patch: { gate: `M${i}` } });
    }
    await waitForLog(proc, (l) => l.reason === "oom");
    await sleep(3_000);
    const lines = logLines(proc);
    expect(refusalLines(lines, "oom")).toHaveLength(1);
    expect(refusalLines(lines, "oom")[0]?.msg).toMatch(/out of memory/);
    // Nothing else was logged at error level meanwhile (no line per attempt).
    expect(lines.filter((l) => l.level === "error" && l.reason !== "oom")).toEqual([]);
    const samples = await scrape(base);
    expect(
      sampleValue(samples, "flightwatch_redis_errors_total", { reason: "oom" }),
    ).toBeGreaterThan(1);
    expect(sampleValue(samples, "flightwatch_polls_total", { outcome: "failed" })).toBeGreaterThan(
      0,
    );
    expect(sampleValue(samples, "flightwatch_poll_failures")).toBeGreaterThan(0);

    const before = rig.receiver.deliveries.length;
    await admin?.config("SET", "maxmemory", "0");
    await waitFor(async () => rig.receiver.deliveries.length >= before + 2, 30_000);
    await sleep(1_500);
    const after = rig.receiver.deliveries.slice(before);
    expect(after).toHaveLength(2);
    expect(new Set(after.map((d) => d.id)).size).toBe(2);
  });

  it("a read-only replica, then promoted empty: one line for each, then a silent re-baseline", {
    timeout: 60_000,
  }, async () => {
    const { proc } = await daemonOnPrivateRedis();
    other = await startRedisServer();
    const port = new URL(other.url).port;
    await admin?.call("REPLICAOF", "127.0.0.1", port);
    await waitForLog(proc, (l) => l.reason === "readonly");
    await sleep(2_000);
    expect(refusalLines(logLines(proc), "readonly")).toHaveLength(1);
    expect(refusalLines(logLines(proc), "readonly")[0]?.msg).toMatch(/read-only replica/);
    // Promoted, with the (empty) data of the primary it followed: flightwatch's state is gone.
    const replica = admin as Redis;
    await waitFor(
      async () => (await replica.info("replication")).includes("master_link_status:up"),
      30_000,
    );
    await admin?.call("REPLICAOF", "NO", "ONE");
    await waitForLog(proc, (l) => l.msg.startsWith("Redis lost flightwatch's state"));
    const redis = admin as Redis;
    await waitFor(async () => (await redis.hget(rig.keys.detection, "watermark")) !== null, 30_000);
    const before = rig.receiver.deliveries.length;
    const [flight] = gatedFlights(rig.sim, 1);
    if (!flight) throw new Error("no flight");
    rig.sim.simulator.apply({ kind: "update", target: { id: flight.id }, patch: { gate: "R7" } });
    await waitFor(async () => rig.receiver.deliveries.length > before, 30_000);
    expect(rig.receiver.deliveries.at(-1)?.rawBody).toContain("R7");
  });

  it("a password it does not have: one line naming REDIS_URL's credentials", {
    timeout: 60_000,
  }, async () => {
    const { proc } = await daemonOnPrivateRedis();
    await admin?.config("SET", "requirepass", "s3cret-pass");
    await admin?.auth("s3cret-pass");
    await admin?.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    await waitForLog(proc, (l) => l.reason === "auth");
    await sleep(2_000);
    const lines = refusalLines(logLines(proc), "auth");
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toMatch(/REDIS_URL/);
    await admin?.config("SET", "requirepass", "");
    await admin?.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    // It carries on: a change is delivered.
    const before = rig.receiver.deliveries.length;
    const [flight] = gatedFlights(rig.sim, 1);
    if (!flight) throw new Error("no flight");
    rig.sim.simulator.apply({ kind: "update", target: { id: flight.id }, patch: { gate: "P9" } });
    await waitFor(async () => rig.receiver.deliveries.length > before, 30_000);
  });
});
