/**
 * Ctrl-C stops the demo (`npm run demo`) and `npm start` gracefully, as SIGTERM stops
 * `run`: a "stopped" line, exit 0, and the simulator's key prefix removed from Redis
 * (it used to be killed by its own signal, exit 130, leaving thousands of keys with
 * 65 h TTLs). Real child processes against the real Redis: piped (log lines), twice
 * signalled as a terminal and npm do, and on a pseudo-terminal (`script` from
 * util-linux) where the live view has the screen and must give it back first.
 */
import { spawn, spawnSync } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ENTER_SCREEN, LEAVE_SCREEN } from "../../src/demo/live-view.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { logLines, waitForLog } from "../cli/run-harness.js";
import { type CliProcess, spawnCli } from "../support/cli-process.js";
import { TEST_REDIS_URL, testRedis } from "../support/redis.js";

const ENV = {
  REDIS_URL: TEST_REDIS_URL,
  // Unset: the simulator's data goes under a prefix of the process's own.
  FLIGHTWATCH_PREFIX: "",
  FLIGHTWATCH_CONFIG: "",
  POLL_INTERVAL: "",
  LOG_FORMAT: "",
  LOG_LEVEL: "info",
};

const children: Array<{ kill(signal: NodeJS.Signals): unknown }> = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

function start(args: string[]): CliProcess {
  const proc = spawnCli(args, { ...ENV, LOG_FORMAT: "json" });
  children.push(proc.child);
  return proc;
}

async function keysUnder(prefix: string): Promise<number> {
  const t = await testRedis("demo-stop-probe");
  try {
    return (await t.redis.keys(redisKeys(prefix).pattern)).length;
  } finally {
    await t.cleanup();
  }
}

/** The prefix from the "running" line, once the first poll has written under it. */
async function runningWithData(proc: CliProcess): Promise<string> {
  const running = await waitForLog(proc, (l) => typeof l.prefix === "string", 60_000);
  await waitForLog(proc, (l) => typeof l.poll === "number", 60_000);
  const prefix = running.prefix as string;
  expect(prefix).toMatch(/^flightwatch-demo-[0-9a-f]{8}$/);
  expect(await keysUnder(prefix)).toBeGreaterThan(0);
  return prefix;
}

function expectStoppedAndRemoved(proc: CliProcess, prefix: string): void {
  const said = logLines(proc);
  expect(said.some((l) => l.msg === "stopped")).toBe(true);
  const removed = said.find((l) => l.prefix === prefix && typeof l.keys === "number");
  expect(removed?.keys as number).toBeGreaterThan(0);
  expect(said.some((l) => /second signal/.test(l.msg))).toBe(false);
}

describe("Ctrl-C stops the demo gracefully and removes its data", () => {
  it("flightwatch demo, piped: SIGINT → 'stopped', exit 0, no key left under its prefix", async () => {
    const proc = start(["demo", "--speed", "120"]);
    const prefix = await runningWithData(proc);
    proc.child.kill("SIGINT");
    expect(await proc.exited, proc.stderr()).toBe(0);
    expectStoppedAndRemoved(proc, prefix);
    expect(await keysUnder(prefix)).toBe(0);
  }, 90_000);

  it("npm start's Ctrl-C, which arrives twice (the terminal's and npm's copy): still one graceful stop", async () => {
    const proc = start([
      "run",
      "--simulator",
      "--speed",
      "120",
      "--console",
      "--vars-file",
      "rules/demo.env",
    ]);
    const prefix = await runningWithData(proc);
    proc.child.kill("SIGINT");
    // npm passes its copy on as soon as it hears the key press, milliseconds after the
    // terminal's, while the first is handled. (Not after a log line: a loaded machine can
    // show "stopping" to the test only once the process is tearing down, when no handler
    // is left and any signal kills it — a moment no Ctrl-C copy arrives at.)
    await new Promise((resolve) => setTimeout(resolve, 30));
    proc.child.kill("SIGINT");
    await waitForLog(proc, (l) => /^stopping/.test(l.msg));
    expect(await proc.exited, proc.stderr()).toBe(0);
    expectStoppedAndRemoved(proc, prefix);
    expect(await keysUnder(prefix)).toBe(0);
  }, 90_000);

  const hasScript = spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;

  it.skipIf(!hasScript)(
    "flightwatch demo on a terminal: Ctrl-C gives the screen back, then 'stopped', exit 0, data removed",
    async () => {
      const entry =
        'import { main } from "./src/cli/main.ts"; process.exitCode = await main(process.argv.slice(1));';
      // `exec`: script's exit code (-e) is flightwatch's own, not a shell's.
      const command = `exec ${process.execPath} --import tsx --input-type=module -e '${entry}' demo --speed 120`;
      const child = spawn("script", ["-qfec", command, "/dev/null"], {
        cwd: new URL("../..", import.meta.url),
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, ...ENV, TERM: "xterm-256color" },
      });
      children.push(child);
      let screen = "";
      child.stdout.on("data", (chunk) => {
        screen += String(chunk);
      });
      const exited = new Promise<number | string>((resolve) =>
        child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
      );
      // The view is up, and a few polls have written the airport to Redis.
      const deadline = Date.now() + 60_000;
      const polled = () => /polls ([2-9]|\d\d)/.test(stripVTControlCharacters(screen));
      while (!polled() && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(screen).toContain(ENTER_SCREEN);
      expect(polled()).toBe(true);
      child.stdin.write("\x03"); // Ctrl-C, through the terminal's line discipline
      expect(await exited).toBe(0);
      const back = screen.lastIndexOf(LEAVE_SCREEN);
      expect(back).toBeGreaterThan(0);
      const after = stripVTControlCharacters(screen.slice(back));
      expect(after).toMatch(/INFO +stopping \(SIGINT\)/);
      expect(after).toMatch(/INFO +stopped\b/);
      const removed =
        /removed the simulator's data \((\d+) keys under (flightwatch-demo-[0-9a-f]{8})\)/.exec(
          after,
        );
      expect(Number(removed?.[1])).toBeGreaterThan(0);
      expect(await keysUnder(removed?.[2] as string)).toBe(0);
    },
    90_000,
  );
});
