/**
 * What an operator sees of a stuck or hostile upstream, through the whole daemon
 * (started in-process, role poller, real Redis, loopback upstream):
 * - a body trickling in a byte a second: each poll ends at POLL_TIMEOUT with a warn
 *   line carrying FW_ERR_POLL_TIMEOUT, counted in the poll metrics, not ready;
 * - a malformed record (real captured records, one codeshare's terminal sent as
 *   text): a warn line naming the flight and field, rate-limited, and every reading
 *   counted in flightwatch_upstream_malformed_records_total{field}.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { readDaemonConfig } from "../../src/config/daemon-config.js";
import { type Daemon, startDaemon } from "../../src/daemon/daemon.js";
import { ErrorCode } from "../../src/errors.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import { captureLog, type LogCapture } from "../log/log-capture.js";
import { type ContractServer, startContractServer } from "../support/contract-server.js";
import { waitFor } from "../support/crash-run.js";
import { parsePrometheusText, sampleValue } from "../support/prometheus-text.js";
import { realFlights } from "../support/real-flights.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";

const CAPTURE = { records: realFlights() };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function daemonAgainst(
  server: ContractServer,
  env: Record<string, string>,
): Promise<{ daemon: Daemon; capture: LogCapture; redis: TestRedis }> {
  const redis = await testRedis("upstream-trouble");
  cleanups.push(() => redis.cleanup());
  const config = readDaemonConfig(
    {
      FLIGHT_API_BASE_URL: server.baseUrl,
      REDIS_URL: TEST_REDIS_URL,
      FLIGHTWATCH_PREFIX: redis.prefix,
      POLL_INTERVAL: "500ms",
      HTTP_PORT: "0",
      HTTP_HOST: "127.0.0.1",
      SHUTDOWN_TIMEOUT: "5s",
      ...env,
    },
    { role: "poller" },
  );
  const capture = captureLog({ level: "info" });
  const daemon = await startDaemon({
    config,
    client: config.client ?? { baseUrl: server.baseUrl },
    rules: () => new RuleSet([]),
    senders: {},
    log: capture.logger,
    consumer: `upstream-trouble-${redis.prefix}`,
  });
  cleanups.push(async () => {
    await daemon.stop();
  });
  return { daemon, capture, redis };
}

async function metric(daemon: Daemon, name: string, labels: Record<string, string> = {}) {
  return sampleValue(parsePrometheusText(await daemon.metrics.metrics()), name, labels);
}

describe("the daemon and a troubled upstream", () => {
  it("a body that trickles: each poll ends at POLL_TIMEOUT, logged, counted, not ready", async () => {
    const server = await startContractServer({
      flights: structuredClone(CAPTURE.records),
      faultFor: () => ({ kind: "trickle" }),
    });
    cleanups.push(() => server.close());
    const { daemon, capture } = await daemonAgainst(server, {
      POLL_TIMEOUT: "2s",
      FLIGHT_API_REQUEST_TIMEOUT: "10m",
    });
    const failedPoll = () =>
      capture
        .entries()
        .find(
          (e) =>
            e.level === "warn" && (e.err as { code?: string })?.code === ErrorCode.POLL_TIMEOUT,
        );
    await waitFor(async () => failedPoll() !== undefined, 15_000);
    const line = failedPoll();
    expect(line).toMatchObject({ outcome: "failed", mode: "baseline" });
    expect(String(line?.msg)).toMatch(/^poll 1 baseline failed after \d+ ms: .*POLL_TIMEOUT/);
    expect(line?.durationMs).toBeGreaterThanOrEqual(1_950);
    expect(
      await metric(daemon, "flightwatch_poll_errors_total", { code: ErrorCode.POLL_TIMEOUT }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await metric(daemon, "flightwatch_polls_total", { mode: "baseline", outcome: "failed" }),
    ).toBeGreaterThanOrEqual(1);
    expect(await metric(daemon, "flightwatch_poll_failures")).toBeGreaterThanOrEqual(1);
    const readiness = await daemon.readiness();
    expect(readiness.ready).toBe(false);
    // The poll let go of its requests: nothing keeps trickling into the process.
    await waitFor(async () => server.cutOff >= 1, 5_000);
  }, 30_000);

  it("a malformed record: a warn line naming flight and field, at most ten a minute; every reading counted", async () => {
    const records = structuredClone(CAPTURE.records);
    const codeshare = records.find((r) => r.flightName === "DL7488") as Flight;
    (codeshare as Record<string, unknown>).terminal = "1";
    const server = await startContractServer({ flights: records });
    cleanups.push(() => server.close());
    const { daemon, capture } = await daemonAgainst(server, {});
    const name = "flightwatch_upstream_malformed_records_total";
    // Each poll reads it several times (every date's walk, the by-id check): wait
    // until it was read more often than the log's budget.
    await waitFor(
      async () => ((await metric(daemon, name, { field: "terminal" })) ?? 0) > 15,
      20_000,
    );
    const lines = capture
      .entries()
      .filter((e) => String(e.msg).startsWith("skipped a malformed upstream record"));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(lines[0]).toMatchObject({
      level: "warn",
      flightId: codeshare.id,
      flightName: "DL7488",
      field: "terminal",
    });
    // The other flights are tracked as usual.
    expect(
      await metric(daemon, "flightwatch_polls_total", { outcome: "committed" }),
    ).toBeGreaterThanOrEqual(1);
  }, 40_000);
});
