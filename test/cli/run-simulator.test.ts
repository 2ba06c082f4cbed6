/**
 * `run --simulator`, as `npm start` runs it: a private key prefix removed at the end (two
 * demos on one Redis never mix), a dry run whose notifications reach stdout, and a
 * SIGTERM during start-up that stops cleanly instead of being lost.
 */
import { afterEach, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/store/redis-keys.js";
import { toLocalDate } from "../../src/time/local-time.js";
import { type CliProcess, spawnCli } from "../support/cli-process.js";
import { TEST_REDIS_URL, testRedis } from "../support/redis.js";
import { exitWithin, logLines, waitForLog } from "./run-harness.js";

const children: CliProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.child.kill("SIGKILL");
});

function demo(...more: string[]): CliProcess {
  const proc = spawnCli(
    ["run", "--simulator", "--speed", "120", "--console", "--vars-file", "rules/demo.env", ...more],
    {
      REDIS_URL: TEST_REDIS_URL,
      FLIGHTWATCH_PREFIX: "",
      LOG_FORMAT: "json",
      LOG_LEVEL: "info",
      POLL_INTERVAL: "300ms",
    },
  );
  children.push(proc);
  return proc;
}

async function keysUnder(prefix: string): Promise<number> {
  const t = await testRedis("run-simulator-probe");
  try {
    return (await t.redis.keys(redisKeys(prefix).pattern)).length;
  } finally {
    await t.cleanup();
  }
}

describe("flightwatch run --simulator", () => {
  it("keeps two demos apart under prefixes of their own, and removes each at its end", async () => {
    const [a, b] = [demo(), demo()];
    const prefixes = await Promise.all(
      [a, b].map(async (proc) => {
        const line = await waitForLog(proc, (l) => typeof l.prefix === "string");
        // A notification printed by the console channel: the dry run works.
        await waitForLog(proc, (l) => typeof l.id === "string" && l.id.startsWith("msg_"));
        return line.prefix as string;
      }),
    );
    expect(prefixes[0]).toMatch(/^flightwatch-demo-[0-9a-f]{8}$/);
    expect(prefixes[1]).not.toBe(prefixes[0]);
    // Each took a baseline of its own airport (no other process's snapshots).
    for (const proc of [a, b]) {
      const polls = logLines(proc).filter((l) => typeof l.poll === "number");
      expect(polls.every((l) => l.mode !== "baseline" || l.poll === 1)).toBe(true);
      // Said at info, although it reports no events: the operator sees the first poll.
      expect(polls[0]).toMatchObject({ poll: 1, mode: "baseline", level: "info" });
    }
    expect(await keysUnder(prefixes[0] as string)).toBeGreaterThan(0);
    const since = Date.now();
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    for (const proc of [a, b]) {
      const { code, ms } = await exitWithin(proc, since);
      expect(code, proc.stderr()).toBe(0);
      expect(ms).toBeLessThan(15_000);
    }
    for (const prefix of prefixes) expect(await keysUnder(prefix)).toBe(0);
  }, 60_000);

  it("shows, as npm start does, a passenger's reminder and the gate desk's living Slack message", async () => {
    // Today's mid-morning, whatever the hour the test runs at: at night the demo's
    // passengers follow the morning's first departures, hours of simulated time ahead
    // (test/subscriptions/demo-passengers.test.ts).
    const proc = demo("--start", `${toLocalDate(Date.now(), "Europe/Amsterdam")}T10:00:00`);
    // The demo passengers' reminders fall due within the first simulated hour (30 s at ×120).
    const reminder = await waitForLog(proc, (l) => typeof l.reminder === "object", 120_000);
    expect(reminder).toMatchObject({
      rule: expect.stringMatching(/^sub:demo-passenger-\d$/),
      changes: [],
      summary: expect.stringMatching(/ (departs|starts) in \d+ min/),
    });
    const living = await waitForLog(
      proc,
      (l) => (l.living as { step?: string } | undefined)?.step === "updated",
      120_000,
    );
    expect(living).toMatchObject({ rule: "gate-desk-board", type: "slack" });
    expect((living.living as { message: string[] }).message[0]).toMatch(/ departs /);
    proc.child.kill("SIGTERM");
    const { code } = await exitWithin(proc, Date.now());
    expect(code, proc.stderr()).toBe(0);
  }, 180_000);

  it("stops cleanly on a SIGTERM that arrives during start-up", async () => {
    const proc = demo();
    // The rules load before the pipeline starts: signal right then.
    await waitForLog(proc, (l) => /rules? live/.test(l.msg));
    const since = Date.now();
    proc.child.kill("SIGTERM");
    const { code, ms } = await exitWithin(proc, since);
    expect(code, proc.stderr()).toBe(0);
    expect(ms).toBeLessThan(10_000);
    const said = logLines(proc).map((l) => l.msg);
    expect(said.some((m) => /^stopped during start-up|^stopped$/.test(m))).toBe(true);
  }, 30_000);
});
