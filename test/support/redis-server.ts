/**
 * A Redis of a test's own, to restart under a running daemon: `redis-server` on a free
 * loopback port and a temporary directory, with the append-only file fsynced on every
 * write (`appendfsync always`: a write Redis acknowledged survives even a SIGKILL), no
 * RDB snapshots, and `noeviction` as flightwatch requires. `restart` stops it — with
 * SHUTDOWN, or with SIGKILL when `hard` — keeps it down for a while, and starts it
 * again on the same port and directory, so it reloads its data from the AOF.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { answersSoon, findRedisServer, freePort } from "../../src/daemon/private-redis.js";
import {
  type ConnectOptions,
  connectRedis,
  type RedisConnection,
} from "../../src/store/redis-connection.js";
import { sleep } from "./crash-run.js";

/** How to restart: SHUTDOWN (default) or SIGKILL, and how long to stay down (default 2 s). */
export interface RestartOptions {
  hard?: boolean;
  downMs?: number;
  /** Start without the data (as a Redis without persistence, or an empty replica promoted). */
  wipe?: boolean;
}

/** A running private Redis. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The data directory (the AOF lives in its `appendonlydir/`). */
  readonly dir: string;
  /** How many times it has been started (1 after `startRedisServer`). */
  readonly starts: number;
  /** Stops it, waits `downMs`, starts it again on the same port and directory. */
  restart(options?: RestartOptions): Promise<void>;
  /** Kills it and removes its directory. */
  close(): Promise<void>;
}

/** Longest wait for a start (loading the AOF included) or a graceful stop. */
const START_TIMEOUT_MS = 15_000;

/** What the private Redis asks of its clients. */
export interface RedisServerOptions {
  /** `requirepass`: the `url` then carries it (`redis://:password@127.0.0.1:<port>`). */
  password?: string;
}

/** Starts a private `redis-server`; throws, saying how to get one, when none is on PATH. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = findRedisServer();
  if (binary === undefined) {
    throw new Error(
      "redis-server is not on PATH: the Redis-restart tests start a Redis of their own " +
        "(with AOF) to restart. Install it (Debian/Ubuntu: `apt-get install redis-server`, " +
        "as .ci/run does) or put its directory on PATH.",
    );
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "fw-redis-aof-"));
  const auth = options.password === undefined ? "" : `:${encodeURIComponent(options.password)}@`;
  const url = `redis://${auth}127.0.0.1:${port}`;
  const args = [
    ...(options.password === undefined ? [] : ["--requirepass", options.password]),
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    "always",
    "--save",
    "",
    "--maxmemory-policy",
    "noeviction",
  ];
  let child: ChildProcess | undefined;
  let output = "";
  let starts = 0;
  const killNow = () => child?.kill("SIGKILL");
  process.once("exit", killNow);

  const start = async () => {
    output = "";
    const proc = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => {
      output = (output + String(chunk)).slice(-4_000);
    };
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    child = proc;
    starts++;
    if (!(await answersSoon(url, proc, START_TIMEOUT_MS))) {
      proc.kill("SIGKILL");
      throw new Error(`redis-server did not answer on port ${port} (start ${starts}):\n${output}`);
    }
  };

  const stop = async (hard: boolean) => {
    const proc = child;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    if (hard) {
      proc.kill("SIGKILL");
    } else {
      // SHUTDOWN closes the connection instead of answering; a Redis a test has just
      // shut down itself (and whose exit is not seen yet) is not there to ask.
      const redis = await connectRedis(url).catch(() => undefined);
      await redis?.call("SHUTDOWN").catch(() => undefined);
      redis?.disconnect();
    }
    const timer = setTimeout(() => proc.kill("SIGKILL"), START_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    dir,
    get starts() {
      return starts;
    },
    async restart(options = {}) {
      await stop(options.hard ?? false);
      if (options.wipe) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
      }
      await sleep(options.downMs ?? 2_000);
      await start();
    },
    async close() {
      process.off("exit", killNow);
      await stop(true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Connections a test opens as it goes (`connect`) and closes together at its end (`closeAll`). */
export function connectionsTo(url: string): {
  connect(options?: ConnectOptions): Promise<RedisConnection>;
  closeAll(): void;
} {
  const open: RedisConnection[] = [];
  return {
    async connect(options = {}) {
      const redis = await connectRedis(url, options);
      open.push(redis);
      return redis;
    },
    closeAll() {
      for (const redis of open) redis.disconnect();
    },
  };
}

/** A private server for the tests of one describe block: started before them, closed after. */
export function redisServerForSuite(): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error("the private redis-server has not started");
    return server;
  };
}
