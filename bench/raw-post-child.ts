/**
 * The wire's own rate, the peer of the whole-daemon webhook figures: a plain undici
 * client in a process of its own POSTs signed bodies (node:crypto HMAC, as the
 * daemon signs) to the same receiver, over a keep-alive pool of as many connections
 * as the daemon's webhook workers use, that many requests in flight. Nothing else:
 * no queue, no Redis, no rules.
 *
 * Protocol over IPC: it sends `{ ready: true }`; asked a RawPostRequest it answers a
 * RawPostReport; `{ close: true }` ends it.
 */
import { createHmac, randomUUID } from "node:crypto";
import { Agent, request } from "undici";

/** A run of POSTs. */
export interface RawPostRequest {
  url: string;
  /** Standard Webhooks secret (`whsec_…`). */
  secret: string;
  /** A body as the daemon sends (its size matters). */
  body: string;
  count: number;
  /** Requests in flight, and connections in the pool. */
  concurrency: number;
}

/** What one run did. */
export interface RawPostReport {
  perSecond: number;
  seconds: number;
  /** Answers other than 2xx (the receiver refuses a bad signature). */
  failed: number;
  /** CPU of this process per request, µs. */
  cpuUsPerRequest: number;
}

if (!process.send) throw new Error("run by the throughput benchmark (IPC)");
const send = process.send.bind(process);

async function run(r: RawPostRequest): Promise<RawPostReport> {
  const key = Buffer.from(r.secret.replace(/^whsec_/, ""), "base64");
  const agent = new Agent({ connections: r.concurrency, keepAliveTimeout: 60_000 });
  let next = 0;
  let failed = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const lane = async () => {
    while (next < r.count) {
      next++;
      const id = randomUUID();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac("sha256", key)
        .update(`${id}.${timestamp}.${r.body}`)
        .digest("base64");
      const res = await request(r.url, {
        method: "POST",
        body: r.body,
        dispatcher: agent,
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": timestamp,
          "webhook-signature": `v1,${signature}`,
        },
      });
      await res.body.text();
      if (res.statusCode < 200 || res.statusCode > 299) failed++;
    }
  };
  await Promise.all(Array.from({ length: r.concurrency }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await agent.close();
  return {
    perSecond: r.count / seconds,
    seconds,
    failed,
    cpuUsPerRequest: (cpu.user + cpu.system) / r.count,
  };
}

process.on("message", (message: RawPostRequest | { close: true }) => {
  if ("close" in message) process.exit(0);
  void run(message).then(send);
});
send({ ready: true });
