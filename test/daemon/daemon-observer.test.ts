/**
 * The daemon's routine lines — an alert decided, a notification delivered — are info
 * lines up to twenty of each kind a second (on an injected clock); in a burst the rest
 * go to debug and the next info line says how many did. Problems are never held back.
 */
import { describe, expect, it } from "vitest";
import { daemonObserver, ROUTINE_LINES_PER_SECOND } from "../../src/daemon/daemon-observer.js";
import type { DeliveryRecord } from "../../src/deliver/delivery-log.js";
import type { Alert } from "../../src/dispatch/alert.js";
import { FlightwatchMetrics } from "../../src/ops/flightwatch-metrics.js";
import { captureLog } from "../log/log-capture.js";

const record = (n: number, result: DeliveryRecord["result"] = "delivered"): DeliveryRecord => ({
  at: 1_700_000_000_000,
  id: `n${n}`,
  ruleId: "r1",
  channel: "hook",
  type: "webhook",
  flight: "D:2026-11-21:KL1001",
  destination: "https://hooks.example.com/…",
  attempt: 1,
  result,
  ...(result === "delivered" ? {} : { reason: "server_error" as const, detail: "503" }),
});

const alert = (n: number): Alert => ({
  id: `a${n}`,
  ruleId: "r1",
  labels: {},
  flight: { key: "D:2026-11-21:KL1001", id: "1", mainFlight: "KL1001", flightNames: ["KL1001"] },
  changes: [{ kind: "gate", field: "gate", action: "changed", old: "D7", new: "D9", eventIds: [] }],
  openedAt: 1,
  decidedAt: 2,
});

function observer(quietAlerts = false) {
  const capture = captureLog();
  let now = 0;
  const observed = daemonObserver({
    log: capture.logger,
    metrics: new FlightwatchMetrics(),
    stages: { ok: () => undefined, failed: () => undefined } as never,
    progress: {} as never,
    trouble: {} as never,
    malformed: {} as never,
    checkState: () => undefined,
    quietAlerts,
    monotonic: () => now,
  });
  return {
    observed,
    capture,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("daemonObserver's routine lines", () => {
  it("logs deliveries at info up to the second's budget, the rest at debug, then says how many", () => {
    const { observed, capture, advance } = observer();
    const burst = ROUTINE_LINES_PER_SECOND + 30;
    for (let n = 0; n < burst; n++) observed.delivered?.(record(n));
    const levels = capture.entries().map((e) => e.level);
    expect(levels.filter((l) => l === "info")).toHaveLength(ROUTINE_LINES_PER_SECOND);
    expect(levels.filter((l) => l === "debug")).toHaveLength(30);
    // Every one is logged (at debug beyond the budget), in order.
    expect(capture.entries().map((e) => e.notificationId)).toEqual(
      Array.from({ length: burst }, (_, n) => `n${n}`),
    );

    // A retry in the middle of a burst is a warning whatever the budget.
    observed.delivered?.(record(999, "retrying"));
    expect(capture.entries().at(-1)).toMatchObject({ level: "warn", notificationId: "n999" });

    advance(1_000);
    observed.delivered?.(record(1000));
    expect(capture.entries().at(-1)).toMatchObject({
      level: "info",
      notificationId: "n1000",
      loggedAtDebug: 30,
    });
    expect(capture.entries().at(-1)?.msg).toMatch(
      /^delivered r1\/hook .* \(30 more like it since the last line went to the debug level\)$/,
    );
    observed.delivered?.(record(1001));
    expect(capture.entries().at(-1)?.loggedAtDebug).toBeUndefined();
  });

  it("budgets decided alerts apart from deliveries", () => {
    const { observed, capture } = observer();
    observed.decided?.(Array.from({ length: ROUTINE_LINES_PER_SECOND + 5 }, (_, n) => alert(n)));
    for (let n = 0; n < 3; n++) observed.delivered?.(record(n));
    const info = capture.entries().filter((e) => e.level === "info");
    expect(info.filter((e) => e.msg === "alert decided")).toHaveLength(ROUTINE_LINES_PER_SECOND);
    expect(info.filter((e) => String(e.msg).startsWith("delivered "))).toHaveLength(3);
  });

  it("warns of a delivery with something to say (a living Slack message posted anew), budget or not", () => {
    const { observed, capture } = observer(true);
    observed.delivered?.({ ...record(7), detail: "the living message 1.000001 was gone" });
    expect(capture.entries().at(-1)).toMatchObject({ level: "warn", notificationId: "n7" });
    expect(capture.entries().at(-1)?.msg).toMatch(/^delivered r1\/hook .*: the living message/);
  });

  it("logs them all at debug when the console shows them already (quiet)", () => {
    const { observed, capture } = observer(true);
    observed.decided?.([alert(1)]);
    observed.delivered?.(record(1));
    expect(capture.entries().map((e) => e.level)).toEqual(["debug", "debug"]);
  });
});
