/**
 * A Redis Cluster of a test's own: three masters with one replica each, `redis-server`
 * processes on free loopback ports in a temporary directory (no persistence, a node
 * timeout of one second so a killed master's replica takes over within seconds),
 * joined by `redis-cli --cluster create`. `url` is how flightwatch is pointed at it
 * (`redis://127.0.0.1:<port>?cluster`); `killMasterOf` SIGKILLs the master serving a
 * key's slot and waits for its replica to be promoted.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { findRedisServer, freePort } from "../../src/daemon/private-redis.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const run = promisify(execFile);

/** A running local cluster. */
export interface RedisCluster {
  /** `redis://127.0.0.1:<first port>?cluster`. */
  readonly url: string;
  readonly ports: readonly number[];
  /** The port of the master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** The ports of the masters serving slots now. */
  masterPorts(): Promise<number[]>;
  /** SIGKILLs the master serving `key`'s slot; resolves once another master serves it. */
  killMasterOf(key: string): Promise<{ killed: number; promoted: number }>;
  /**
   * Moves `key`'s slot, with its keys, to another master as `redis-cli --cluster
   * reshard` does (IMPORTING/MIGRATING, MIGRATE in batches of `batch`, then the slot's
   * new owner announced to every master), pausing `pauseMs` between batches so clients
   * meet the slot half-moved (ASK, TRYAGAIN). Resolves to the ports it moved between.
   */
  migrateSlotOf(
    key: string,
    options?: { batch?: number; pauseMs?: number },
  ): Promise<{ from: number; to: number; keys: number }>;
  /** Stops every node and removes the directory. */
  close(): Promise<void>;
}

/** Whether this machine can start a cluster (redis-server and redis-cli on PATH). */
export function canStartCluster(): boolean {
  return findRedisServer() !== undefined;
}

/** Starts six nodes and joins them into a cluster of three masters with a replica each. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const server = findRedisServer();
  if (server === undefined) throw new Error("redis-server is not on PATH");
  const dir = mkdtempSync(join(tmpdir(), "fw-cluster-"));
  const ports: number[] = [];
  const children = new Map<number, ChildProcess>();
  for (let i = 0; i < 6; i++) {
    const port = await freePort();
    // The bus on a free port of its own: port + 10,000 (Redis's default) may be taken, or
    // past 65,535 for a port from the top of the ephemeral range.
    const busPort = await freePort();
    ports.push(port);
    const child = spawn(
      server,
      [
        ...["--port", String(port), "--bind", "127.0.0.1", "--dir", dir],
        ...["--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`],
        ...["--cluster-port", String(busPort)],
        ...["--cluster-node-timeout", "1000", "--save", "", "--appendonly", "no"],
        ...["--maxmemory-policy", "noeviction"],
        // Replicas in sync at once, and always allowed to take over (a test's cluster).
        ...["--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"],
        ...["--cluster-replica-validity-factor", "0"],
      ],
      { stdio: "ignore" },
    );
    children.set(port, child);
  }
  const admin = (port: number) =>
    new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 1 });
  const ask = async <T>(port: number, work: (r: Redis) => Promise<T>): Promise<T> => {
    const r = admin(port);
    r.on("error", () => undefined);
    try {
      await r.connect();
      return await work(r);
    } finally {
      r.disconnect();
    }
  };
  const close = async () => {
    for (const child of children.values()) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports)
      await until(() => ask(port, (r) => r.ping()).then(() => true), 10_000);
    await run(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...ports.map((p) => `127.0.0.1:${p}`),
        ...["--cluster-replicas", "1", "--cluster-yes"],
      ],
      { timeout: 30_000 },
    );
    // On a busy machine (the whole suite beside it) the nodes' 1 s timeouts can make them
    // take one another for failing for a while: wait as long as that takes.
    for (const port of ports) {
      await until(
        () => ask(port, (r) => r.cluster("INFO")).then((i) => /cluster_state:ok/.test(String(i))),
        90_000,
      );
    }
    // Every replica attached and synced: a failover then promotes one with the data.
    await until(async () => {
      let synced = 0;
      for (const port of ports) {
        const info = await ask(port, (r) => r.info("replication"));
        if (/role:slave/.test(info) && /master_link_status:up/.test(info)) {
          if (!/master_sync_in_progress:1/.test(info)) synced++;
        }
      }
      return synced === 3;
    }, 90_000);
  } catch (err) {
    await close();
    throw err;
  }
  const killed = new Set<number>();
  const alive = () => ports.filter((p) => !killed.has(p));
  const masterOf = async (key: string): Promise<number> => {
    const [first] = alive();
    if (first === undefined) throw new Error("no node left");
    return ask(first, async (r) => {
      const slot = Number(await r.cluster("KEYSLOT", key));
      const ranges = await r.cluster("SLOTS");
      const master = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
      if (master === undefined) throw new Error(`slot ${slot} is not served`);
      return master[1];
    });
  };
  return {
    url: `redis://127.0.0.1:${ports[0]}?cluster=${ports
      .slice(1)
      .map((p) => `127.0.0.1:${p}`)
      .join(",")}`,
    ports,
    masterOf,
    async masterPorts() {
      const [first] = alive();
      if (first === undefined) throw new Error("no node left");
      const ranges = await ask(first, (r) => r.cluster("SLOTS"));
      return [...new Set(ranges.map((range) => range[2]?.[1] as number))];
    },
    async killMasterOf(key) {
      const master = await masterOf(key);
      killed.add(master);
      children.get(master)?.kill("SIGKILL");
      const nodes = async () => {
        const [first] = alive();
        return first === undefined ? "" : String(await ask(first, (r) => r.cluster("NODES")));
      };
      await until(async () => {
        const [first] = alive();
        if (first === undefined) return false;
        const state = await ask(first, (r) => r.cluster("INFO"));
        if (!/cluster_state:ok/.test(String(state))) return false;
        return (await masterOf(key)) !== master;
      }, 30_000).catch(async (err: Error) => {
        throw new Error(
          `${err.message}; the cluster as node ${alive()[0]} sees it:\n${await nodes()}`,
        );
      });
      return { killed: master, promoted: await masterOf(key) };
    },
    async migrateSlotOf(key, { batch = 10, pauseMs = 50 } = {}) {
      const from = await masterOf(key);
      const masters = new Set<number>();
      for (const port of alive()) {
        const role = await ask(port, (r) => r.role());
        if (role[0] === "master") masters.add(port);
      }
      const to = [...masters].find((p) => p !== from);
      if (to === undefined) throw new Error("no other master to migrate to");
      const idOf = (port: number) => ask(port, (r) => r.cluster("MYID")).then(String);
      const [fromId, toId] = [await idOf(from), await idOf(to)];
      const slot = await ask(from, (r) => r.cluster("KEYSLOT", key)).then(Number);
      await ask(to, (r) => r.cluster("SETSLOT", slot, "IMPORTING", fromId));
      await ask(from, (r) => r.cluster("SETSLOT", slot, "MIGRATING", toId));
      let moved = 0;
      for (;;) {
        const keys = (await ask(from, (r) => r.cluster("GETKEYSINSLOT", slot, batch))) as string[];
        if (keys.length === 0) break;
        await ask(from, (r) =>
          r.call("MIGRATE", "127.0.0.1", String(to), "", "0", "10000", "REPLACE", "KEYS", ...keys),
        );
        moved += keys.length;
        await sleep(pauseMs);
      }
      for (const port of masters) await ask(port, (r) => r.cluster("SETSLOT", slot, "NODE", toId));
      return { from, to, keys: moved };
    },
    close,
  };
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(200);
  }
}
