/**
 * The moving parts of the `flightwatch run` child-process tests: an external simulator
 * whose gates change only when a test moves them, a rules directory with one signed
 * webhook rule on gate changes, `run` children pointed at both (fast polls, short
 * timeouts), and readers of what they expose: JSON log lines, the ops URL, /readyz,
 * /metrics. Every child is tracked so a failed test can kill what it left running.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { get, HOOK_SECRET, runEnv, scrape } from "../../bench/support/run-child.js";
import { notificationId } from "../../src/deliver/notification.js";
import type { RunningSimulator } from "../../src/simulator/http/start-simulator.js";
import { AlertStore } from "../../src/store/alert-store.js";
import { DetectionStore } from "../../src/store/detection-store.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type CliProcess, completeLines, spawnCli } from "../support/cli-process.js";
import { startCrashSimulator, waitFor } from "../support/crash-run.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import {
  type ReceiverResponse,
  startWebhookReceiver,
  type WebhookDelivery,
  type WebhookReceiver,
} from "../support/webhook-receiver.js";

// Shared with the benchmarks (bench/support/run-child.ts), which import nothing from test/.
export { get, HOOK_SECRET, runEnv, scrape };

/** The rule id and channel name of the gate rule. */
export const GATE_RULE = "gates";
export const GATE_CHANNEL = "webhook";

/** One JSON log line of a `run` child. */
export interface LogLine {
  level: string;
  time: string;
  msg: string;
  [field: string]: unknown;
}

/** A simulator, a test Redis prefix, a gate rule and its receiver, for one test file. */
export interface RunRig {
  sim: RunningSimulator;
  /** The simulator's bearer token (FLIGHT_API_TOKEN); it must never appear in any output. */
  token: string;
  t: TestRedis;
  keys: RedisKeys;
  rulesDir: string;
  receiver: WebhookReceiver;
  /** How the receiver answers verified requests; a test may replace it (default 204 at once). */
  respond: (delivery: WebhookDelivery, n: number) => ReceiverResponse;
  /** `flightwatch run <args>` against the simulator and the test Redis; tracked for cleanup. */
  spawnRun(args?: readonly string[], env?: Record<string, string>): CliProcess;
  /** Kills (SIGKILL) every child still running; for afterEach. */
  killAll(): Promise<void>;
  /** Everything else: receiver, simulator, Redis keys, rules directory. */
  close(): Promise<void>;
}

/** Starts a rig; `label` names the Redis prefix, `seed` the simulator's data. */
export async function startRunRig(label: string, seed: number): Promise<RunRig> {
  const token = `fw-run-token-${label}-${seed}-c0ffee`;
  const sim = await startCrashSimulator(seed, token);
  const t = await testRedis(label);
  const rulesDir = await mkdtemp(join(tmpdir(), `fw-${label}-`));
  const procs = new Set<CliProcess>();
  // Answers are looked up on the rig at each request, so a test can change them.
  const receiver = await startWebhookReceiver({
    secret: HOOK_SECRET,
    respond: (delivery, n) => rig.respond(delivery, n),
  });
  const rig: RunRig = {
    sim,
    token,
    t,
    keys: redisKeys(t.prefix),
    rulesDir,
    receiver,
    respond: () => ({ status: 204 }),
    spawnRun(args = [], env = {}) {
      const proc = spawnCli(["run", ...args], { ...runEnv(rig), ...env });
      procs.add(proc);
      void proc.exited.then(() => procs.delete(proc));
      return proc;
    },
    async killAll() {
      const running = [...procs];
      for (const proc of running) proc.child.kill("SIGKILL");
      await Promise.all(running.map((p) => p.exited));
    },
    async close() {
      await rig.killAll();
      await receiver.close();
      await sim.close();
      await t.cleanup();
      await rm(rulesDir, { recursive: true, force: true });
    },
  };
  // The secret comes from a variable, as in the example rules, so the daemon knows it
  // is one and masks it by value too.
  await writeFile(
    join(rulesDir, "gates.yaml"),
    `rules:
  - id: ${GATE_RULE}
    changes: [gate]
    channels: [{ type: webhook, url: "${receiver.url}", secret: "\${RULE_HOOK_SECRET}" }]
`,
  );
  return rig;
}

/** The complete JSON log lines a child wrote to stdout; a line that is not JSON throws. */
export function logLines(proc: CliProcess): LogLine[] {
  return completeLines(proc.stdout()).map((line) => {
    try {
      return JSON.parse(line) as LogLine;
    } catch {
      throw new Error(`stdout line is not JSON: ${line}`);
    }
  });
}

/** Resolves with the first log line that `match` accepts; rejects after `timeoutMs`. */
export async function waitForLog(
  proc: CliProcess,
  match: (line: LogLine) => boolean,
  timeoutMs = 30_000,
): Promise<LogLine> {
  let found: LogLine | undefined;
  await waitFor(async () => {
    found = logLines(proc).find(match);
    if (found === undefined && proc.child.exitCode !== null) {
      throw new Error(`the process exited (${proc.child.exitCode}): ${proc.stderr()}`);
    }
    return found !== undefined;
  }, timeoutMs);
  return found as LogLine;
}

/** The ops server's URL a child logged at start (run it with HTTP_PORT=0). */
export async function opsUrlOf(proc: CliProcess): Promise<string> {
  const line = await waitForLog(proc, (l) => typeof l.http === "string");
  return line.http as string;
}

/** /readyz: the status and the checks' details. */
export async function readyz(
  base: string,
): Promise<{ status: number; checks: Record<string, { ok: boolean; detail: string }> }> {
  const { status, text } = await get(`${base}/readyz`);
  if (status === 0) return { status, checks: {} };
  const body = JSON.parse(text) as { checks: Record<string, { ok: boolean; detail: string }> };
  return { status, checks: body.checks };
}

/** Resolves once a poller of the rig's prefix has taken its baseline (the watermark is set). */
export function baselineTaken(rig: RunRig, timeoutMs = 30_000): Promise<void> {
  return waitFor(
    async () => (await rig.t.redis.hget(rig.keys.detection, "watermark")) !== null,
    timeoutMs,
  );
}

/** The notification ids of every alert decided so far for the gate rule's webhook. */
export async function expectedIds(rig: RunRig): Promise<Set<string>> {
  const alerts = await new AlertStore(rig.t.redis, rig.keys).readAlerts();
  return new Set(
    alerts.filter((a) => a.ruleId === GATE_RULE).map((a) => notificationId(a.id, GATE_CHANNEL)),
  );
}

/** Resolves once no alert is waiting to be decided and the receiver accepted every expected id. */
export async function allDelivered(rig: RunRig, timeoutMs = 30_000): Promise<Set<string>> {
  const store = new AlertStore(rig.t.redis, rig.keys);
  const detection = new DetectionStore(rig.t.redis, rig.keys);
  // Changes made up to now upstream are all seen once a poll answered after now has
  // committed (its coverage, on the simulator's clock, is past now).
  const upstreamNow = rig.sim.simulator.clock.now();
  let want = new Set<string>();
  await waitFor(async () => {
    if (((await detection.readState()).coveredUntil ?? 0) <= upstreamNow) return false;
    want = await expectedIds(rig);
    const accepted = rig.receiver.uniqueIds();
    return (
      (await store.nextDueAt()) === undefined &&
      want.size > 0 &&
      [...want].every((id) => accepted.has(id))
    );
  }, timeoutMs);
  return want;
}

/** Milliseconds from `since` until the process exits, with its exit code. */
export async function exitWithin(
  proc: CliProcess,
  since: number,
): Promise<{ code: number | string; ms: number }> {
  const code = await proc.exited;
  return { code, ms: Date.now() - since };
}
