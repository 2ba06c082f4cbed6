/**
 * Runs the real `flightwatch` CLI as a child process (from source, through tsx), for
 * tests that need a process of its own: signals, SIGKILL at random moments, several
 * processes sharing one Redis. Children may send to the tests' loopback receivers
 * (OUTBOUND_ALLOW=127.0.0.1) unless a test sets OUTBOUND_ALLOW itself ("" for none).
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { LOOPBACK_ENV } from "./outbound.js";
import { TEST_REDIS_URL } from "./redis.js";

export interface CliProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
}

const ENTRY =
  "import { main } from './src/cli/main.ts'; process.exitCode = await main(process.argv.slice(1));";

/** Starts `flightwatch <args>` with `env` added to the test's environment (and LOOPBACK_ENV). */
export function spawnCli(args: readonly string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", ENTRY, ...args],
    {
      cwd: new URL("../..", import.meta.url),
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...LOOPBACK_ENV, ...env },
    },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => {
    out += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    err += String(chunk);
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** `watch` against the built-in simulator at 120× speed, polling every 300 ms: changes within seconds. */
export const FAST_SIMULATED_WATCH = [
  "watch",
  "--simulator",
  // Today's busy morning, whatever the hour the tests run at: at night no flight
  // boards. (Today's: snapshots expire in real time, days after their flights.)
  "--start",
  `${new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Amsterdam" }).format(new Date())}T07:00`,
  "--speed",
  "120",
  "--interval",
  "300ms",
] as const;

/** The settings that point a CLI process at the test Redis, under `prefix`. */
export function testRedisEnv(prefix: string): Record<string, string> {
  return { REDIS_URL: TEST_REDIS_URL, FLIGHTWATCH_PREFIX: prefix };
}

/** Complete lines of a process's output (a line cut off by a kill is dropped). */
export function completeLines(text: string): string[] {
  const lines = text.split("\n");
  lines.pop();
  return lines.filter((line) => line.trim() !== "");
}
