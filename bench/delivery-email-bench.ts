/**
 * Email delivery throughput: notifications of simulator alerts sent through the
 * EmailSender (the full message: text and HTML parts, threading and unsubscribe
 * headers; nodemailer's SMTP pool) to a local SMTP server (smtp-server, in a child
 * process), 8 sends in flight as the delivery workers' default email concurrency
 * keeps them. Tried for several pool sizes (`maxConnections`) and messages per
 * connection (`maxMessages`, after which the pool pauses ~100 ms to replace the
 * connection). Loopback SMTP without TLS is a floor for the cost and a ceiling for the
 * speed: a real relay adds round trips (and TLS) to every command, which more
 * connections hide and nothing else does.
 */
import { cpus, loadavg } from "node:os";
import { readEmailSettings } from "../src/config/email-settings.js";
import { EmailSender, type EmailSenderOptions } from "../src/deliver/email-sender.js";
import { type Notification, notificationOf } from "../src/deliver/notification.js";
import type { EmailChannelSpec, Rule } from "../src/rules/rule.js";
import { forkBenchChild } from "./bench-child.js";
import type { Benchmark } from "./benchmark.js";
import { BENCH_ZONE, benchAlerts } from "./delivery-alerts.js";
import type { SmtpChildReport, SmtpChildRequest } from "./smtp-receiver-child.js";

/** Messages per configuration. */
const MESSAGES = 2_000;
/** Sends in flight: DeliveryWorkers' default email concurrency. */
const IN_FLIGHT = 8;

/** The pool settings the benchmark varies. */
type PoolConfig = Required<Pick<EmailSenderOptions, "maxConnections" | "maxMessages">>;

/** The pool settings tried; the first is the sender's default. */
const CONFIGS: PoolConfig[] = [
  { maxConnections: 3, maxMessages: 100 },
  { maxConnections: 1, maxMessages: 100 },
  { maxConnections: 5, maxMessages: 100 },
  { maxConnections: 8, maxMessages: 100 },
  { maxConnections: 3, maxMessages: 1_000 },
  { maxConnections: 5, maxMessages: 1_000 },
  { maxConnections: 8, maxMessages: 1_000 },
];

const source = { file: "bench.yaml", line: 1, column: 1 };
const channel: EmailChannelSpec = {
  type: "email",
  name: "email",
  to: ["ops@example.com"],
  unsubscribeUrl: "https://flightwatch.example/unsubscribe?rule=bench",
  source,
};

function ruleOf(id: string): Rule {
  return {
    id,
    labels: { team: "ops" },
    description: "every change (email benchmark)",
    source,
    flights: {},
    channels: [channel],
    groupWaitMs: 0,
    coolDownMs: 0,
  };
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en");

export const deliveryEmailBenchmark: Benchmark = {
  name: "delivery-email",
  title: "Email delivery throughput",
  async run() {
    const built = benchAlerts(MESSAGES);
    const rules = new Map(built.ruleIds.map((id) => [id, ruleOf(id)]));
    const notifications = built.alerts.map((alert) => notificationOf(alert, channel));
    const receiver = forkBenchChild("./smtp-receiver-child.ts");
    const { port } = (await receiver.hello) as { port: number };
    const settings = readEmailSettings({
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      EMAIL_FROM: "Flightwatch <alerts@flightwatch.example>",
    });
    const count = (n: number) =>
      receiver.ask<SmtpChildReport>({ count: n, timeoutMs: 120_000 } satisfies SmtpChildRequest);
    console.log(
      `${cpus().length} CPUs, node ${process.version}, load average ${loadavg()[0]?.toFixed(2)} before; ` +
        `${fmt(MESSAGES)} messages per setting (simulator alerts, 1 recipient, text + HTML), ` +
        `${IN_FLIGHT} in flight, SMTP server (smtp-server, loopback, no TLS) in its own process`,
    );
    let received = 0;
    try {
      for (const [i, config] of [CONFIGS[0] as PoolConfig, ...CONFIGS].entries()) {
        const sender = new EmailSender(settings, config);
        const receiverBefore = (await count(0)).cpuMs;
        const cpuBefore = process.cpuUsage();
        const latencies: number[] = [];
        let failed = 0;
        let next = 0;
        const start = performance.now();
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < notifications.length) {
              const notification = notifications[next++] as Notification;
              const rule = rules.get(notification.ruleId) as Rule;
              const t0 = performance.now();
              const outcome = await sender.send(notification, channel, {
                rule,
                zone: BENCH_ZONE,
                now: Date.now,
                attempt: 1,
              });
              latencies.push(performance.now() - t0);
              if (outcome.status !== "delivered") failed++;
            }
          }),
        );
        const seconds = (performance.now() - start) / 1000;
        const used = process.cpuUsage(cpuBefore);
        await sender.close();
        received += notifications.length - failed;
        const report = await count(received);
        // The first round only warms up the code paths (compiled, pooled); it is not shown.
        if (i === 0) continue;
        latencies.sort((a, b) => a - b);
        const q = (p: number) =>
          (latencies[Math.floor(p * (latencies.length - 1))] ?? 0).toFixed(1);
        const per = (ms: number) => fmt((ms * 1000) / notifications.length);
        console.log(
          `maxConnections ${String(config.maxConnections).padStart(2)}, maxMessages ${String(config.maxMessages).padStart(5)}: ` +
            `${fmt(notifications.length / seconds).padStart(5)} messages/s; send p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, p99 ${q(0.99)} ms; ` +
            `${failed} failed, ${report.messages - received} extra at the server; ` +
            `CPU per message ${per((used.user + used.system) / 1000)} µs sender, ${per(report.cpuMs - receiverBefore)} µs server`,
        );
      }
    } finally {
      await receiver.ask({ close: true } satisfies SmtpChildRequest).catch(() => undefined);
      await receiver.exited;
    }
  },
};
