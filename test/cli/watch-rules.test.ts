/**
 * `flightwatch watch --rules` end to end: the real CLI against the built-in simulator
 * and a real Redis prints alerts, reloads edited rule files, and keeps the last good
 * set live through a broken edit.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Alert } from "../../src/dispatch/alert.js";
import {
  completeLines,
  FAST_SIMULATED_WATCH,
  spawnCli,
  testRedisEnv,
} from "../support/cli-process.js";
import { type TestRedis, testRedis } from "../support/redis.js";

type Printed = Alert & { channels: string[] };

describe("flightwatch watch --rules", () => {
  let t: TestRedis;
  let dir: string;
  beforeAll(async () => {
    t = await testRedis("watch-rules");
    dir = await mkdtemp(join(tmpdir(), "fw-watch-rules-"));
  });
  afterAll(async () => {
    await t.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("prints alerts of the live rules and reloads them on change", async () => {
    const file = join(dir, "live.yaml");
    await writeFile(
      file,
      "rules:\n  - id: everything\n    labels: { who: test }\n    channels: [{ type: console }, { type: webhook, url: 'http://127.0.0.1:9/hook' }]\n",
    );
    const proc = spawnCli(
      [...FAST_SIMULATED_WATCH, "--rules", dir, "--no-deliver"],
      testRedisEnv(t.prefix),
    );
    try {
      const alerts = () => completeLines(proc.stdout()).map((line) => JSON.parse(line) as Printed);
      await waitFor(() => alerts().length >= 3, 30_000, proc.stderr);
      const first = alerts()[0] as Printed;
      expect(first.ruleId).toBe("everything");
      expect(first.labels).toEqual({ who: "test" });
      expect(first.channels).toEqual(["console", "webhook"]);
      expect(first.changes.length).toBeGreaterThan(0);
      expect(proc.stderr()).toContain("1 rule live from 1 file");

      // A broken edit is reported; the last good set stays live.
      await writeFile(file, "rules:\n  - id: everything\n    chanels: []\n");
      await waitFor(
        () => proc.stderr().includes("the last good set stays live"),
        10_000,
        proc.stderr,
      );
      expect(proc.stderr()).toMatch(/live\.yaml:3:5 rule `everything`: unknown key `chanels`/);
      const before = alerts().length;
      await waitFor(() => alerts().length > before, 30_000, proc.stderr);
      expect(alerts().at(-1)?.ruleId).toBe("everything");

      // A good edit takes over.
      await writeFile(file, "rules:\n  - id: renamed\n    channels: [{ type: console }]\n");
      await waitFor(() => alerts().some((a) => a.ruleId === "renamed"), 30_000, proc.stderr);
    } finally {
      proc.child.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
  }, 90_000);

  it("does not start on broken rules: exit 2 with the problems", async () => {
    const bad = await mkdtemp(join(tmpdir(), "fw-watch-bad-"));
    try {
      await writeFile(
        join(bad, "x.yaml"),
        "rules:\n  - id: x\n    changes: [gat]\n    channels: [{ type: console }]\n",
      );
      const proc = spawnCli(["watch", "--simulator", "--rules", bad], testRedisEnv(t.prefix));
      expect(await proc.exited).toBe(2);
      expect(proc.stderr()).toContain("did you mean `gate`?");
      expect(proc.stderr()).toContain("FW_ERR_RULE_INVALID");
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  }, 30_000);
});

async function waitFor(check: () => boolean, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; stderr:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
