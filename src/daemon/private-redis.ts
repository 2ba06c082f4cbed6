/**
 * A throw-away Redis for the zero-configuration demo: when nothing answers at the
 * default address and a `redis-server` binary is on PATH, `npm start` runs its own on a
 * free loopback port, keeping nothing on disk, and stops it on exit.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { connectRedis } from "../store/redis-connection.js";

/** A Redis this process started. */
export interface PrivateRedis {
  url: string;
  stop(): void;
}

/** The `redis-server` binary on PATH, if any. */
export function findRedisServer(path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Starts `binary` on a free loopback port and waits until it answers (up to 5 s). */
export async function startPrivateRedis(binary: string): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "flightwatch-redis-"));
  const child: ChildProcess = spawn(
    binary,
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
    ],
    // Its own process group: a Ctrl-C in the terminal goes to flightwatch alone, which
    // stops gracefully and then stops this Redis (it must outlive the drain).
    { stdio: "ignore", detached: true },
  );
  child.unref();
  const stop = () => {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", stop);
  const url = `redis://127.0.0.1:${port}`;
  if (await answersSoon(url, child)) return { url, stop };
  stop();
  throw new Error(`${binary} did not start on port ${port}`);
}

/**
 * Whether the Redis `child` started answers at `url` within `timeoutMs` (default
 * 5 s); false at once when the child exits first (its port taken, say).
 */
export async function answersSoon(
  url: string,
  child: ChildProcess,
  timeoutMs = 5_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const redis = await connectRedis(url, { timeoutMs: 500 });
      redis.disconnect();
      return true;
    } catch {
      if (child.exitCode !== null || child.signalCode !== null) return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return false;
}

/** A loopback port that was free a moment ago (nothing listens on it now). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
