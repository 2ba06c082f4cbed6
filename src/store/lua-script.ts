/**
 * A Lua script called by its SHA1 (EVALSHA), sent whole (EVAL) only when the server
 * does not know it yet: a new server, a restart, a `SCRIPT FLUSH`, another cluster
 * node. Sent with EVAL at every call, a script's text crosses the wire each time and
 * Redis hashes it again to find its cache entry: the delivery scripts, called per job,
 * were 2 KB of script text a notification.
 *
 * ioredis's `defineCommand` does the same, but a connection with scripts defined copies
 * every one of them into each pipeline it builds — one per turn of the event loop with
 * auto-pipelining — which is why the workers' connection defines none.
 */
import { createHash } from "node:crypto";
import type { RedisConnection } from "./redis-connection.js";

/** An argument of a script call: a key or a value. */
type ScriptArg = string | Buffer | number;

export class LuaScript {
  /** The script's text. */
  readonly source: string;
  /** Its SHA1, the name Redis caches it under. */
  readonly sha: string;

  constructor(source: string) {
    this.source = source;
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  /** Runs the script like `redis.eval(source, numKeys, ...keysAndArgs)`. */
  async run(
    redis: RedisConnection,
    numKeys: number,
    ...keysAndArgs: ScriptArg[]
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, numKeys, ...keysAndArgs);
    } catch (err) {
      // Not cached: the script did not run, so running it whole now runs it once.
      if (!isNoScript(err)) throw err;
      return await redis.eval(this.source, numKeys, ...keysAndArgs);
    }
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith("NOSCRIPT");
}
