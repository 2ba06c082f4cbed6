/**
 * `flightwatch channels test`: a sample marked as a test reaches a rule's real
 * receivers — a signed webhook, Slack, an SMTP server — once each, through the real CLI;
 * what each answered is printed and sets the exit code; a passenger subscription is
 * tested the same way; a wrong id or channel is named and nothing is sent.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/store/redis-keys.js";
import type { Subscription } from "../../src/subscriptions/subscription.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { spawnCli, testRedisEnv } from "../support/cli-process.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { type SlackReceiver, startSlackReceiver } from "../support/slack-receiver.js";
import { type SmtpReceiver, startSmtpReceiver } from "../support/smtp-receiver.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";
import { webhookSchemaErrors } from "../support/webhook-schema.js";

const SECRET = "whsec_Y2hhbm5lbHMtdGVzdC1zZWNyZXQtMTIzNDU2";

describe("flightwatch channels test", () => {
  let t: TestRedis;
  let hook: WebhookReceiver;
  let failing: WebhookReceiver;
  let slack: SlackReceiver;
  let smtp: SmtpReceiver;
  let dir: string;

  beforeAll(async () => {
    t = await testRedis("channels-test");
    hook = await startWebhookReceiver({ secret: SECRET });
    failing = await startWebhookReceiver({ respond: () => ({ status: 503 }) });
    slack = await startSlackReceiver();
    smtp = await startSmtpReceiver();
    dir = await mkdtemp(join(tmpdir(), "fw-channels-test-"));
    await writeFile(
      join(dir, "rules.yaml"),
      `rules:
  - id: ops-gates
    labels: { team: ops }
    flights: { flight: KL1395, direction: departure }
    changes: [gate]
    channels:
      - { type: webhook, name: app, url: "${hook.url}", secret: "${SECRET}", format: json }
      - { type: slack, name: ops, url: "${slack.url("/services/T0/B0/ops")}" }
      - { type: email, name: desk, to: [desk@example.com] }
  - id: partner
    channels:
      - { type: webhook, url: "${failing.url}", format: cloudevents }
`,
    );
  });

  afterAll(async () => {
    await Promise.all([hook?.close(), failing?.close(), slack?.close(), smtp?.close()]);
    await rm(dir, { recursive: true, force: true });
    await t?.cleanup();
  });

  const env = () => ({
    ...testRedisEnv(t.prefix),
    OUTBOUND_ALLOW: "127.0.0.1",
    SMTP_URL: smtp.url(),
    EMAIL_FROM: "flightwatch@example.com",
    AIRPORT_TIMEZONE: "Europe/Amsterdam",
  });
  async function run(...args: string[]) {
    const proc = spawnCli(["channels", "test", ...args], env());
    const code = await proc.exited;
    return { code, stdout: proc.stdout(), stderr: proc.stderr() };
  }

  it("sends one marked sample through each channel of a rule and says what each answered", async () => {
    const out = await run("ops-gates", dir);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const lines = out.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^✓ ops-gates\/app \(webhook\) → http:\/\/127\.0\.0\.1:\d+\/hook — accepted \(204\)$/,
    );
    expect(lines[1]).toMatch(/^✓ ops-gates\/ops \(slack\) → .* — accepted \(200\)$/);
    expect(lines[2]).toMatch(/^✓ ops-gates\/desk \(email\) → desk@example\.com — accepted/);

    // The webhook: signed, of the test type, its data saying so, about the rule's flight.
    expect(hook.deliveries).toHaveLength(1);
    const [delivery] = hook.deliveries;
    expect(delivery?.verified).toBe(true);
    const body = delivery?.body as Record<string, unknown>;
    expect(webhookSchemaErrors(body)).toEqual([]);
    expect(body.type).toBe("flightwatch.test");
    expect(body.test).toBe(true);
    // The lowest sequence: a receiver keeping the highest per flight keeps no test's.
    expect(body.sequence).toBe(1);
    expect(body.summary).toMatch(
      /^TEST — no flight changed; a sample sent by `flightwatch channels test`: KL1395 to LHR, departs .*gate D5 → D7/,
    );
    expect(body.rule).toMatchObject({ id: "ops-gates", labels: { team: "ops" } });
    // Slack: the header and the text say TEST.
    const [message] = slack.messages("/services/T0/B0/ops");
    expect(JSON.stringify(message?.payload)).toContain("TEST — KL1395");
    // Email: the subject starts with TEST, and a header says it.
    const [mail] = await smtp.waitForMessages(1, 10_000);
    expect(mail?.to).toEqual(["desk@example.com"]);
    expect(mail?.headers.subject).toMatch(/^TEST — /);
    expect(mail?.headers["x-flightwatch-test"]).toBe("true");

    // Each test is a notification of its own: the next has another id.
    expect((await run("ops-gates", dir, "--channel", "app", "--json")).code).toBe(0);
    expect(hook.uniqueIds().size).toBe(2);
  });

  it("exits 1 when a receiver refuses, naming the reason; the others of the run are not affected", async () => {
    const out = await run("partner", dir, "--json");
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({
      channel: "webhook",
      outcome: "failed",
      code: 503,
      reason: "server_error",
    });
    expect(failing.deliveries).toHaveLength(1);
    const body = failing.deliveries[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ type: "flightwatch.test", data: { test: true } });
    expect(webhookSchemaErrors(body)).toEqual([]);
  });

  it("tests a passenger subscription's channel, read from Redis", async () => {
    const keys = redisKeys(t.prefix);
    const store = new SubscriptionStore(t.redis, keys, { zone: "Europe/Amsterdam" });
    const date = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    /** A subscription of the app backend's webhook to KL1395 tomorrow. */
    const appHook = (id: string, status: Subscription["status"], labels = {}): Subscription => ({
      id,
      flight: "KL1395",
      date,
      preset: "essentials",
      channel: { type: "webhook", url: hook.url, secret: SECRET },
      labels,
      status,
      createdAt: Date.now(),
    });
    await store.add([appHook("app-kl1395", "active", { booking: "X7Q2LM" })]);
    const before = hook.deliveries.length;
    const out = await run("sub:app-kl1395");
    expect(out.stdout).toMatch(/^✓ sub:app-kl1395\/webhook → .* — accepted \(204\)\n$/);
    expect(out.code).toBe(0);
    expect(hook.deliveries).toHaveLength(before + 1);
    expect(hook.deliveries.at(-1)?.body).toMatchObject({
      type: "flightwatch.test",
      rule: { id: "sub:app-kl1395", labels: { booking: "X7Q2LM" } },
    });
    // Double opt-in: an address that has not confirmed gets nothing, not even a test.
    await store.add([appHook("pending-1", "pending")]);
    const pending = await run("sub:pending-1");
    expect(pending.code).toBe(2);
    expect(pending.stderr).toContain("subscription pending-1 is pending");
    expect(hook.deliveries).toHaveLength(before + 1);
    const missing = await run("sub:nobody");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no subscription nobody under the prefix ${t.prefix}`);
  });

  it("names a rule or channel that is not there, and sends nothing", async () => {
    const before = hook.deliveries.length + failing.deliveries.length;
    const rule = await run("ops-gate", dir);
    expect(rule.code).toBe(2);
    expect(rule.stderr).toContain("no rule ops-gate in");
    expect(rule.stderr).toContain("did you mean `ops-gates`?");
    const channel = await run("ops-gates", dir, "--channel", "apps");
    expect(channel.code).toBe(2);
    expect(channel.stderr).toContain("--channel");
    expect(channel.stderr).toContain("did you mean `app`?");
    expect(hook.deliveries.length + failing.deliveries.length).toBe(before);
  });
});
