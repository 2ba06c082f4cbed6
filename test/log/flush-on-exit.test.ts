/**
 * Nothing logged is lost when the process ends: a child process logs more than a pipe
 * holds to its real standard output (the default destination) and then exits at once
 * — by process.exit(0), or SIGKILL — and the parent finds every line, in order.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

const LINES = 3000;

const CHILD = `
import { createLogger } from "./src/log/logger.ts";
const logger = createLogger({ format: process.env.LOG_FORMAT });
const pad = "x".repeat(200);
for (let i = 0; i < ${LINES}; i++) logger.info({ i, pad }, "line");
if (process.env.END === "kill") process.kill(process.pid, "SIGKILL");
else process.exit(0);
`;

interface ChildResult {
  exit: number | string;
  stdout: string;
  stderr: string;
}

function runChild(env: Record<string, string>): Promise<ChildResult> {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD], {
    cwd: new URL("../..", import.meta.url),
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  // `close`, not `exit`: stdout may still hold data when the process has exited.
  return new Promise((resolve) =>
    child.on("close", (code, signal) => resolve({ exit: code ?? signal ?? "?", stdout, stderr })),
  );
}

/** The `i` of every line, parsed the way the format writes it. */
function indices(stdout: string, format: string): number[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) =>
      format === "json"
        ? Number((JSON.parse(line) as { i: number }).i)
        : Number(/ i=(\d+) /.exec(line)?.[1] ?? Number.NaN),
    );
}

describe("a process that ends right after logging", () => {
  it.each([
    ["json", "exit"],
    ["json", "kill"],
    ["text", "exit"],
    ["text", "kill"],
  ])("leaves every line on stdout (%s, %s)", async (format, end) => {
    const result = await runChild({ LOG_FORMAT: format, END: end });
    expect(result.stderr).toBe("");
    expect(result.exit).toBe(end === "kill" ? "SIGKILL" : 0);
    expect(indices(result.stdout, format)).toEqual(Array.from({ length: LINES }, (_, i) => i));
  });
});
