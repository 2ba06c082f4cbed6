import { afterEach, describe, expect, it } from "vitest";
import { renderDemoScreen } from "../../src/demo/demo-screen.js";
import { DemoState } from "../../src/demo/demo-state.js";
import { UpstreamError } from "../../src/errors.js";
import { type DetectHarness, detectHarness } from "../detect/detect-harness.js";
import { changeEvent } from "../rules/event-builder.js";
import { alertChange, alertOf } from "../support/alert-builder.js";
import { boardingAndGate, DEMO_START, deliveryOf, pollReport, ZONE } from "./demo-fixtures.js";

describe("DemoState", () => {
  it("keeps the last poll and running totals of polls, requests and changes by kind", () => {
    const state = new DemoState();
    expect(state.lastPoll).toBeUndefined();
    state.poll(
      pollReport(DEMO_START, [], { mode: "baseline", requests: 40, records: 900 }),
      DEMO_START,
    );
    state.poll(pollReport(DEMO_START + 2_000, boardingAndGate()), DEMO_START + 2_000);
    state.poll(
      pollReport(DEMO_START + 4_000, [
        changeEvent({ kind: "gate", field: "gate", old: "D7", new: "D9" }),
      ]),
      DEMO_START + 4_000,
    );

    expect(state.startedAt).toBe(DEMO_START);
    expect(state.totals).toMatchObject({
      polls: 3,
      failedPolls: 0,
      requests: 44,
      records: 934,
      changes: 3,
      changesByKind: { gate: 2, state: 1 },
    });
    expect(state.lastPoll).toEqual({
      at: DEMO_START + 4_000,
      outcome: "committed",
      mode: "incremental",
      requests: 2,
      records: 17,
      flights: 15,
      durationMs: 42,
      events: 1,
    });
  });

  it("counts failed polls with their reason, does not count skipped ones, and takes changes only from committed polls", () => {
    const state = new DemoState({ startedAt: DEMO_START });
    const error = new UpstreamError("FW_ERR_UPSTREAM_HTTP", "upstream answered 503", {
      operation: "getFlights",
      url: "http://127.0.0.1/flights",
      status: 503,
    });
    state.poll(
      pollReport(DEMO_START, [], { outcome: "failed", requests: 1, behindMs: 90_000, error }),
      DEMO_START,
    );
    expect(state.lastPoll).toMatchObject({
      outcome: "failed",
      error: "upstream answered 503 [FW_ERR_UPSTREAM_HTTP]",
      behindMs: 90_000,
    });
    state.poll(pollReport(DEMO_START + 1, [], { outcome: "skipped", requests: 0 }), DEMO_START + 1);
    // A conflicting poll committed nothing: whatever it diffed is not a change.
    state.poll(
      pollReport(DEMO_START + 2, boardingAndGate(), { outcome: "conflict" }),
      DEMO_START + 2,
    );
    expect(state.totals).toMatchObject({ polls: 2, failedPolls: 1, requests: 3, changes: 0 });
    expect(state.recentChanges()).toEqual([]);
    expect(state.lastPoll).toMatchObject({ outcome: "conflict", events: 0 });
  });

  it("keeps recent changes newest first, with when they were seen, bounded", () => {
    const state = new DemoState({ changes: 5 });
    for (let i = 0; i < 8; i++) {
      const events = [changeEvent({ kind: "gate", field: "gate", old: `D${i}`, new: `D${i + 1}` })];
      state.poll(pollReport(DEMO_START + i * 1000, events), DEMO_START + i * 1000);
    }
    const recent = state.recentChanges();
    expect(recent).toHaveLength(5);
    expect(recent.map((c) => c.event.new)).toEqual(["D8", "D7", "D6", "D5", "D4"]);
    expect(recent[0]?.at).toBe(DEMO_START + 7000);
    expect(state.recentChanges(2)).toHaveLength(2);
    expect(state.totals.changes).toBe(8);
  });

  it("counts alerts and delivery attempts per channel type, and names what each delivery carried", () => {
    const state = new DemoState();
    const gate = alertOf();
    const boarding = alertOf({
      id: "a2",
      changes: [
        alertChange({ kind: "state", field: "publicFlightState", action: "added", state: "BRD" }),
      ],
    });
    state.alert(gate, DEMO_START);
    state.alert(boarding, DEMO_START);
    state.delivery(deliveryOf(gate, "console", "console"), DEMO_START + 1);
    state.delivery(
      deliveryOf(boarding, "ops", "webhook", {
        result: "retrying",
        reason: "server_error",
        detail: "503",
      }),
      DEMO_START + 2,
    );
    state.delivery(deliveryOf(boarding, "ops", "webhook", { attempt: 2 }), DEMO_START + 3);
    state.delivery(
      deliveryOf(gate, "team", "slack", {
        result: "dead",
        reason: "slack_refused",
        detail: "channel_not_found",
      }),
      DEMO_START + 4,
    );

    expect(state.totals.alerts).toBe(2);
    expect(state.totals.deliveries).toEqual({
      console: { delivered: 1, retrying: 0, dead: 0, superseded: 0, cancelled: 0 },
      webhook: { delivered: 1, retrying: 1, dead: 0, superseded: 0, cancelled: 0 },
      slack: { delivered: 0, retrying: 0, dead: 1, superseded: 0, cancelled: 0 },
    });
    const recent = state.recentDeliveries();
    expect(recent.map((d) => [d.record.channel, d.record.result, d.alert?.id])).toEqual([
      ["team", "dead", "a1"],
      ["ops", "delivered", "a2"],
      ["ops", "retrying", "a2"],
      ["console", "delivered", "a1"],
    ]);
    expect(recent[0]?.at).toBe(DEMO_START + 4);
  });

  it("leaves a delivery's alert unknown when it is not among the recent alerts", () => {
    const state = new DemoState({ alerts: 2 });
    const first = alertOf({ id: "old" });
    state.alert(first, DEMO_START);
    state.alert(alertOf({ id: "b" }), DEMO_START);
    state.alert(alertOf({ id: "c" }), DEMO_START);
    state.delivery(deliveryOf(first, "console", "console"), DEMO_START);
    state.delivery(deliveryOf(alertOf({ id: "c" }), "console", "console"), DEMO_START);
    expect(state.recentDeliveries().map((d) => d.alert?.id)).toEqual(["c", undefined]);
  });

  it("bounds recent deliveries", () => {
    const state = new DemoState({ deliveries: 3 });
    for (let i = 0; i < 10; i++) {
      state.delivery(deliveryOf(alertOf({ id: `a${i}` }), "console", "console"), DEMO_START + i);
    }
    expect(state.recentDeliveries().map((d) => d.at)).toEqual([
      DEMO_START + 9,
      DEMO_START + 8,
      DEMO_START + 7,
    ]);
    expect(state.totals.deliveries.console?.delivered).toBe(10);
  });

  it("counts changes per second of real time: at ×60 one bar is a minute of airport time", () => {
    const state = new DemoState({ speed: 60, rateSeconds: 5 });
    state.poll(pollReport(DEMO_START, boardingAndGate()), DEMO_START);
    state.poll(pollReport(DEMO_START + 30_000, boardingAndGate()), DEMO_START + 30_000);
    state.poll(pollReport(DEMO_START + 120_000, boardingAndGate()), DEMO_START + 120_000);
    expect(state.changeRate(DEMO_START + 120_000)).toEqual([0, 0, 4, 0, 2]);
    // Three real seconds later the first minute has left the window.
    expect(state.changeRate(DEMO_START + 120_000 + 3 * 60_000)).toEqual([0, 2, 0, 0, 0]);
  });
});

describe("DemoState fed by a real detector", () => {
  let h: DetectHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("shows a gate change the detector found on the simulator, after a silent baseline", async () => {
    h = await detectHarness();
    const state = new DemoState({ startedAt: h.clock.now() });
    state.poll(await h.detector.poll(), h.clock.now());
    expect(state.lastPoll).toMatchObject({ mode: "baseline", events: 0 });
    expect(state.lastPoll?.requests).toBeGreaterThan(0);

    const flight = h.moveGate("Z99");
    state.poll(await h.detector.poll(), h.clock.now());

    expect(state.totals.changesByKind).toEqual({ gate: 1 });
    const [seen] = state.recentChanges();
    expect(seen?.event).toMatchObject({ kind: "gate", new: "Z99" });
    const screen = renderDemoScreen(state, {
      width: 80,
      height: 20,
      zone: ZONE,
      now: h.clock.now(),
      speed: 1,
      color: false,
    }).join("\n");
    expect(screen).toContain(seen?.event.flight.mainFlight);
    expect(screen).toContain(`${String(flight.gate)} → Z99`);
  });
});
