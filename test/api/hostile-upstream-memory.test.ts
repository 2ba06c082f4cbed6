/**
 * Memory stays bounded under a hostile upstream: a child process reads pages with the
 * client's default settings (a 32 MB body cap) from a loopback server that streams
 * endless bodies, success and error, announces a 300 MB one, and sends a page of valid
 * records just under the cap (the most it can make us hold); its peak RSS (the
 * kernel's high-water mark) must stay within a bound set by the cap, with generous
 * slack. Without the cap the same child passes 2 GB and its watchdog ends it (before
 * the fix, a 300 MB body took the daemon from 103 MB to 1.37 GB).
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/api/client-options.js";
import { ErrorCode } from "../../src/errors.js";
import {
  type ContractServer,
  type Fault,
  sampleFlights,
  startContractServer,
} from "../support/contract-server.js";

const MB = 1024 * 1024;

interface ChildReport {
  baselineRss: number;
  peakRss: number;
  codes: string[];
  /** Set (alone, with `rss`) when the watchdog ended the child. */
  exceeded?: boolean;
}

let server: ContractServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Runs the child for `calls` client calls after its warm-up; `script` holds the fault
 * of each HTTP request in turn (retries are requests of their own).
 */
async function runChild(calls: number, script: (Fault | undefined)[]): Promise<ChildReport> {
  let n = 0;
  server = await startContractServer({
    flights: sampleFlights(5),
    // Request 0 is the child's warm-up: answered normally.
    faultFor: () => (n++ === 0 ? undefined : script[n - 2]),
  });
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      new URL("../support/hostile-upstream-child.ts", import.meta.url).pathname,
      server.baseUrl,
      String(calls),
    ],
    { cwd: new URL("../..", import.meta.url), stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => {
    out += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    err += String(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const line = out.trim().split("\n").pop() ?? "";
  if (line === "") throw new Error(`child exited ${code} without a report: ${err}`);
  return JSON.parse(line) as ChildReport;
}

describe("memory under a hostile upstream (a child process, default 32 MB cap)", () => {
  it("endless success bodies, endless error bodies on every retry, a 300 MB announcement: peak RSS within the cap's bound", async () => {
    const endless: Fault = { kind: "endless" };
    const endlessError: Fault = { kind: "endless", status: 503 };
    const report = await runChild(7, [
      // Five endless pages in a row: nothing accumulates from one to the next.
      endless,
      endless,
      endless,
      endless,
      endless,
      // One call of four attempts (the default), each an endless 503 body.
      endlessError,
      endlessError,
      endlessError,
      endlessError,
      { kind: "endless", announce: 300 * MB },
    ]);
    expect(report.exceeded, `RSS passed 2 GB: ${JSON.stringify(report)}`).toBeUndefined();
    expect(report.codes).toEqual([
      ...Array(5).fill(ErrorCode.UPSTREAM_TOO_LARGE),
      ErrorCode.UPSTREAM_HTTP,
      ErrorCode.UPSTREAM_TOO_LARGE,
    ]);
    const growth = report.peakRss - report.baselineRss;
    log("endless and huge bodies", report, growth);
    // One body at a time, buffered up to the cap and then dropped; with slack.
    expect(growth).toBeLessThan(4 * DEFAULT_MAX_BODY_BYTES + 64 * MB);
  }, 120_000);

  it("a page of valid records just under the cap, the most an upstream can make it hold: read, within a bound", async () => {
    const report = await runChild(1, [{ kind: "endless", bytes: DEFAULT_MAX_BODY_BYTES - MB }]);
    expect(report.exceeded, `RSS passed 2 GB: ${JSON.stringify(report)}`).toBeUndefined();
    expect(report.codes).toEqual(["ok"]);
    const growth = report.peakRss - report.baselineRss;
    log("a valid page of 31 MB", report, growth);
    // The body, its text and some 200,000 parsed and validated records (measured at
    // about 4–6× the body), with slack.
    expect(growth).toBeLessThan(10 * DEFAULT_MAX_BODY_BYTES);
  }, 120_000);
});

function log(what: string, report: ChildReport, growth: number): void {
  console.log(
    `${what}: baseline RSS ${mb(report.baselineRss)}, peak ${mb(report.peakRss)}, growth ${mb(growth)} (cap ${mb(DEFAULT_MAX_BODY_BYTES)})`,
  );
}

function mb(bytes: number): string {
  return `${Math.round(bytes / MB)} MB`;
}
