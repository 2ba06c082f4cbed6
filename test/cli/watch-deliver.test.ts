/**
 * `flightwatch watch --rules` delivering, end to end: the real CLI against the
 * built-in simulator, a real Redis and real loopback receivers. Alerts reach a
 * signed CloudEvents webhook and the console once each; an endpoint that answers
 * 410 Gone is disabled, its notifications become dead letters, and after
 * `deliveries enable` and `deliveries retry --all` they are sent again under the
 * same ids. What a graceful stop leaves queued is delivered by the next run.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryQueues } from "../../src/deliver/delivery-queues.js";
import { notificationId } from "../../src/deliver/notification.js";
import { AlertStore } from "../../src/store/alert-store.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import {
  type CliProcess,
  completeLines,
  FAST_SIMULATED_WATCH,
  spawnCli,
  testRedisEnv,
} from "../support/cli-process.js";
import { waitFor } from "../support/crash-run.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";

const SECRET = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;

interface ConsoleLine {
  id: string;
  rule: string;
  channel: string;
  type: string;
}

describe("flightwatch watch --rules (delivery)", () => {
  let t: TestRedis;
  let dir: string;
  let hook: WebhookReceiver;
  let gone: WebhookReceiver;
  let goneAnswers = 410;
  beforeAll(async () => {
    t = await testRedis("watch-deliver");
    dir = await mkdtemp(join(tmpdir(), "fw-watch-deliver-"));
    hook = await startWebhookReceiver({ secret: SECRET });
    gone = await startWebhookReceiver({ respond: () => ({ status: goneAnswers }) });
    await writeFile(
      join(dir, "deliver.yaml"),
      `rules:
  - id: gates
    changes: [gate]
    channels:
      - { type: webhook, url: "${hook.url}", secret: "${SECRET}" }
      - { type: console }
  - id: boarding
    changes: [{ kind: state, states: [BRD] }]
    channels:
      - { type: webhook, name: partner, url: "${gone.url}", format: json }
`,
    );
  });
  afterAll(async () => {
    await hook?.close();
    await gone?.close();
    await t?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]): CliProcess => spawnCli(args, testRedisEnv(t.prefix));
  /** Starts a run and waits until it delivers (its rules are live). */
  const started = async (args: string[]): Promise<CliProcess> => {
    const proc = cli(args);
    await waitFor(async () => /rules? live/.test(proc.stderr()), 30_000);
    return proc;
  };
  const run = async (args: string[]) => {
    const proc = cli(args);
    const code = await proc.exited;
    return { code, stdout: proc.stdout(), stderr: proc.stderr() };
  };

  it("delivers each alert once per channel, disables a gone endpoint, and re-sends its dead letters", async () => {
    const first = cli([...FAST_SIMULATED_WATCH, "--rules", dir]);
    try {
      await hook.waitForIds(3, 90_000);
      await waitFor(async () => gone.deliveries.length >= 1, 90_000);
    } finally {
      first.child.kill("SIGTERM");
    }
    expect(await first.exited).toBe(0);
    expect(first.stderr()).toMatch(/delivered gates\/webhook → http:\/\/127\.0\.0\.1:\d+\/hook/);
    expect(first.stderr()).toMatch(/dead letter boarding\/partner → .*: gone: HTTP 410/);

    // Drain what the first run left queued, without polling anything new.
    const second = await started(["watch", "--simulator", "--no-poll", "--rules", dir]);
    const keys = redisKeys(t.prefix);
    // Read afresh each time: the second run dispatches what the first left in the outbox,
    // so alerts may still be decided after it has started.
    const queues = new DeliveryQueues(t.redis, keys, { readOnly: true });
    const expected = async (ruleId: string, channel: string) => {
      const alerts = await new AlertStore(t.redis, keys).readAlerts();
      return new Set(
        alerts.filter((a) => a.ruleId === ruleId).map((a) => notificationId(a.id, channel)),
      );
    };
    try {
      await waitFor(
        async () => hook.uniqueIds().size === (await expected("gates", "webhook")).size,
        30_000,
      );
      await waitFor(
        async () =>
          completeLines(first.stdout() + second.stdout()).length ===
          (await expected("gates", "console")).size,
        30_000,
      );
      // And every partner notification has become a dead letter (the endpoint is gone).
      await waitFor(async () => {
        const dead = await queues.deadLetters(1000);
        return dead.length === (await expected("boarding", "partner")).size;
      }, 30_000);
    } finally {
      second.child.kill("SIGTERM");
      await queues.close();
    }
    expect(await second.exited).toBe(0);

    // Webhook: every alert once, signed, a CloudEvent named after the change.
    expect(hook.uniqueIds()).toEqual(await expected("gates", "webhook"));
    expect(hook.deliveries.length).toBe(hook.uniqueIds().size);
    for (const d of hook.deliveries) {
      expect(d.verified).toBe(true);
      expect(d.headers["content-type"]).toBe("application/cloudevents+json");
      expect(d.body).toMatchObject({
        specversion: "1.0",
        id: d.id,
        source: "/flightwatch/rules/gates",
      });
    }
    // Console: every alert once, as JSON (stdout is a pipe).
    const printed = completeLines(first.stdout() + second.stdout()).map(
      (l) => JSON.parse(l) as ConsoleLine,
    );
    expect(new Set(printed.map((p) => p.id))).toEqual(await expected("gates", "console"));
    expect(printed.length).toBe((await expected("gates", "console")).size);

    // The 410 endpoint: each notification asked at most once (a 410 is not retried);
    // sends already in flight when the first 410 came may have reached it too, the
    // rest were dead letters without a request.
    const asked = new Set(gone.deliveries.map((d) => d.id));
    expect(asked.size).toBe(gone.deliveries.length);
    const listed = await run(["deliveries", "--json", "--limit", "1000"]);
    expect(listed.code).toBe(0);
    const report = JSON.parse(listed.stdout) as {
      deadLetters: Array<{ id: string; reason: string }>;
      disabled: Array<{ id: string; ruleId: string; channel: string }>;
      recent: Array<{ id: string; result: string }>;
    };
    const partner = await expected("boarding", "partner");
    expect(new Set(report.deadLetters.map((d) => d.id))).toEqual(partner);
    for (const d of report.deadLetters) {
      expect(d.reason, d.id).toBe(asked.has(d.id) ? "gone" : "endpoint_disabled");
    }
    expect(report.disabled).toMatchObject([{ ruleId: "boarding", channel: "partner" }]);
    const text = await run(["deliveries"]);
    expect(text.stdout).toContain("Dead letters");
    expect(text.stdout).toContain(report.disabled[0]?.id);

    // Fixed receiver: enable, retry --all, and the next run sends them under the same ids.
    goneAnswers = 200;
    const enabled = await run(["deliveries", "enable", report.disabled[0]?.id as string]);
    expect(enabled.code).toBe(0);
    const retried = await run(["deliveries", "retry", "--all"]);
    expect(retried.code).toBe(0);
    expect(retried.stdout.trim().split("\n")).toHaveLength(partner.size);
    const third = await started(["watch", "--simulator", "--no-poll", "--rules", dir]);
    try {
      await waitFor(async () => gone.uniqueIds().size === partner.size, 30_000);
    } finally {
      third.child.kill("SIGTERM");
    }
    expect(await third.exited).toBe(0);
    expect(gone.uniqueIds()).toEqual(partner);
    const after = JSON.parse((await run(["deliveries", "--json"])).stdout) as typeof report;
    expect(after.deadLetters).toEqual([]);
    expect(after.disabled).toEqual([]);

    // The webhook receiver lost its data: replay rule gates of the last hour.
    const webhookIds = await expected("gates", "webhook");
    const consoleIds = await expected("gates", "console");
    const dry = await run([
      "deliveries",
      "replay",
      "--since",
      "1h",
      "--rule",
      "gates",
      "--dry-run",
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    const would = dry.stdout.split("\n").filter((l) => l.startsWith("would replay "));
    expect(would).toHaveLength(webhookIds.size + consoleIds.size);
    expect(dry.stdout).toContain("nothing sent (--dry-run)");
    const before = hook.deliveries.length;
    const replayed = await run(["deliveries", "replay", "--since", "1h", "--rule", "gates"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    const fourth = await started(["watch", "--simulator", "--no-poll", "--rules", dir]);
    try {
      await waitFor(async () => hook.deliveries.length === before + webhookIds.size, 30_000);
    } finally {
      fourth.child.kill("SIGTERM");
    }
    expect(await fourth.exited).toBe(0);
    const replays = hook.deliveries.slice(before);
    // New ids, each the replay of one original, each original once; signed as ever.
    expect(replays.every((d) => d.verified && !webhookIds.has(d.id))).toBe(true);
    const of = replays.map((d) => (d.body as { data: { replayOf: string } }).data.replayOf);
    expect(new Set(of)).toEqual(webhookIds);
    expect(of).toHaveLength(webhookIds.size);
    const nothing = await run([
      "deliveries",
      "replay",
      "--since",
      "2026-01-01T00:00Z",
      "--until",
      "2026-01-02T00:00Z",
    ]);
    expect(nothing.stdout).toMatch(/^nothing delivered or dead-lettered from /);
    const bad = await run(["deliveries", "replay", "--since", "yesterday"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since");
  }, 300_000);

  it("does not start with a bad SMTP_URL: exit 2 naming the variable, no password echoed", async () => {
    const proc = spawnCli(["watch", "--simulator", "--rules", dir], {
      ...testRedisEnv(t.prefix),
      SMTP_URL: "http://user:hunter2@mail.example.com",
      EMAIL_FROM: "alerts@example.com",
    });
    expect(await proc.exited).toBe(2);
    expect(proc.stderr()).toContain("SMTP_URL");
    expect(proc.stderr()).not.toContain("hunter2");
  }, 30_000);

  it("deliveries retry needs ids or --all", async () => {
    const none = await run(["deliveries", "retry"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--all");
    const missing = await run(["deliveries", "retry", "msg_nothing"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("msg_nothing");
  }, 60_000);
});
