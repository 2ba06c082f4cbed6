/**
 * The delivery benchmark's webhook receiver, run as a child process so that checking
 * signatures and parsing bodies does not share the senders' event loop (a real
 * receiver runs elsewhere). It is the tests' receiver (bench/support/webhook-receiver.ts:
 * every request verified with the `standardwebhooks` package, answered 204).
 *
 * Protocol over IPC: it sends `{ url }` once listening; asked `{ collect: n, from }`,
 * it waits until `n` distinct ids have been accepted in all (or `timeoutMs` passed)
 * and answers with the arrivals from index `from` on; `{ close: true }` ends it. With
 * BENCH_GATE_TOKENS set, each arrival also names the change it carries (the newest
 * gate token of bench/gate-updates.ts in its body), so that the whole-daemon benchmarks
 * can time changes without the bodies crossing over IPC.
 */

import { newestToken } from "./gate-updates.js";
import type { Arrivals } from "./latency-figures.js";
import { startWebhookReceiver } from "./support/webhook-receiver.js";

/** A request to the child. */
export type ReceiverRequest =
  | { collect: number; from: number; timeoutMs: number }
  | { close: true };

/** What the child answers to `collect`: arrivals in order (unverified: answered 401). */
export interface ReceiverReport extends Arrivals {
  /** Distinct ids accepted since the receiver started. */
  accepted: number;
  /** CPU time the receiver process has used since it started, ms. */
  cpuMs: number;
  /** With BENCH_GATE_TOKENS: the change each arrival carries (-1: none). */
  tokens?: number[];
  /** With BENCH_GATE_TOKENS: the body of the first of these arrivals (for a peer of the same size). */
  sampleBody?: string;
}

const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

const secret = process.env.BENCH_WEBHOOK_SECRET;
if (!process.send || secret === undefined) {
  throw new Error("run by the delivery benchmark (IPC and BENCH_WEBHOOK_SECRET)");
}
const send = process.send.bind(process);
const receiver = await startWebhookReceiver({ secret });

process.on("message", (request: ReceiverRequest) => {
  if ("close" in request) {
    void receiver.close().then(() => process.exit(0));
    return;
  }
  receiver
    .waitForIds(request.collect, request.timeoutMs)
    .catch(() => undefined)
    .then(() => {
      const arrivals = receiver.deliveries.slice(request.from);
      const report: ReceiverReport = {
        ids: arrivals.map((d) => d.id),
        receivedAt: arrivals.map((d) => d.receivedAt),
        unverified: arrivals.filter((d) => !d.verified).length,
        accepted: receiver.uniqueIds().size,
        cpuMs: cpuMs(process.cpuUsage()),
        ...(process.env.BENCH_GATE_TOKENS
          ? {
              tokens: arrivals.map((d) => newestToken(d.rawBody) ?? -1),
              ...(arrivals[0] ? { sampleBody: arrivals[0].rawBody } : {}),
            }
          : {}),
      };
      send(report);
    });
});
send({ url: receiver.url });
