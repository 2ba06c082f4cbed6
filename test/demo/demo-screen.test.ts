import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { type DemoScreenOptions, renderDemoScreen } from "../../src/demo/demo-screen.js";
import { DemoState } from "../../src/demo/demo-state.js";
import { visibleWidth } from "../../src/demo/terminal-line.js";
import { changeEvent } from "../rules/event-builder.js";
import { alertChange, alertOf } from "../support/alert-builder.js";
import { boardingAndGate, DEMO_START, deliveryOf, pollReport, ZONE } from "./demo-fixtures.js";

/** Ten minutes of a ×60 demo: a baseline, changes every poll, three deliveries. */
function busyState(): DemoState {
  const state = new DemoState({ startedAt: DEMO_START, speed: 60 });
  state.poll(
    pollReport(DEMO_START, [], { mode: "baseline", requests: 48, records: 1210 }),
    DEMO_START,
  );
  for (let i = 1; i <= 5; i++) {
    const at = DEMO_START + i * 120_000;
    state.poll(pollReport(at, boardingAndGate()), at);
  }
  const delay = changeEvent({
    kind: "time",
    field: "publicEstimatedOffBlockTime",
    old: "2026-11-21T11:00:00.000+01:00",
    new: "2026-11-21T11:25:00.000+01:00",
    shiftMinutes: 25,
    delayMinutes: 25,
    flight: { mainFlight: "HV5131", key: "D:2026-11-21:HV5131", flightNames: ["HV5131"] },
  });
  state.poll(pollReport(DEMO_START + 600_000, [delay]), DEMO_START + 600_000);

  const gate = alertOf();
  state.alert(gate, DEMO_START + 600_000);
  state.delivery(deliveryOf(gate, "console", "console"), DEMO_START + 600_000);
  state.delivery(
    deliveryOf(gate, "ops", "webhook", {
      result: "retrying",
      reason: "server_error",
      detail: "503 Service Unavailable",
      attempt: 2,
      nextAt: 1_700_000_030_000,
    }),
    DEMO_START + 600_000,
  );
  state.delivery(
    deliveryOf(gate, "team", "slack", {
      result: "dead",
      reason: "slack_refused",
      detail: "channel_not_found",
    }),
    DEMO_START + 600_000,
  );
  return state;
}

const NOW = DEMO_START + 600_500;

function render(state: DemoState, parts: Partial<DemoScreenOptions> = {}): string[] {
  return renderDemoScreen(state, {
    width: 100,
    height: 30,
    zone: ZONE,
    now: NOW,
    speed: 60,
    color: false,
    ...parts,
  });
}

const SIZES = [
  [200, 50],
  [120, 40],
  [100, 30],
  [80, 24],
  [60, 20],
  [60, 12],
  [60, 8],
  [60, 5],
  [40, 3],
  [30, 1],
] as const;

describe("renderDemoScreen", () => {
  it.each(SIZES)("fills a %i×%i screen exactly, no line wider than the screen", (width, height) => {
    for (const color of [false, true]) {
      const lines = render(busyState(), { width, height, color });
      expect(lines).toHaveLength(height);
      for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
    }
  });

  it("shows the clock, speed, uptime, polls and requests in the header", () => {
    const [header, polls] = render(busyState());
    expect(header).toContain("Sat 21 Nov 10:10"); // airport local time, not UTC
    expect(header).toContain("×60");
    expect(header).toContain("up 10s"); // ten airport minutes at ×60
    expect(header).toContain("10m 00s of airport time");
    expect(polls).toContain("polls 7");
    expect(polls).toContain("requests 60");
    expect(polls).toContain("alerts 1");
    expect(polls).toContain("incremental 2 req, 17 records, 42 ms, 1 change");
  });

  it("lists the detected changes newest first with flight, label, old → new and local time", () => {
    const screen = render(busyState()).join("\n");
    expect(screen).toContain("Detected changes · 11");
    expect(screen).toMatch(
      /10:10 {2}HV5131 {2}estimated departure {2}11:00 → 11:25 \(25 min late\)/,
    );
    expect(screen).toMatch(/10:08 {2}KL601 {3}gate {17}D5 → D7/);
    expect(screen).toMatch(/KL601 {3}status {15}now boarding/);
    expect(screen).toContain("by kind: gate 5 · state 5 · time 1");
    expect(screen.indexOf("HV5131")).toBeLessThan(screen.indexOf("KL601"));
  });

  it("lists deliveries with result, rule, channel, destination, what was sent and why it failed", () => {
    const screen = render(busyState(), { width: 160 }).join("\n");
    expect(screen).toContain("Deliveries · slack ✗1 · webhook ↻1 · console ✓1");
    expect(screen).toContain("✓ r1 console → stdout · KL1001 (DL9341) to WAW, departs");
    expect(screen).toContain(
      "↻ r1 webhook:ops → https://hooks.example.com/… (attempt 2, server_error: 503 Service Unavailable, retry in 30s)",
    );
    expect(screen).toContain("✗ r1 slack:team");
    expect(screen).toContain("(slack_refused: channel_not_found)");
  });

  it("tells the whole alert on a very wide screen", () => {
    const screen = render(busyState(), { width: 160 }).join("\n");
    expect(screen).toContain("KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9");
  });

  it("keeps the key facts on a 60-column screen", () => {
    const lines = render(busyState(), { width: 60, height: 20 });
    const screen = lines.join("\n");
    const keys = [
      "×60",
      "HV5131",
      "11:00 → 11:25",
      "D5 → D7",
      "webhook:ops",
      "console · KL1001 gate D7 → D9",
    ];
    for (const key of keys) {
      expect(screen).toContain(key);
    }
    expect(lines.at(-1)).toContain("Ctrl-C to stop");
  });

  it("gives up the least useful lines first on a short screen, keeping header, panes and footer", () => {
    const eight = render(busyState(), { width: 80, height: 8 });
    expect(eight[0]).toContain("flightwatch demo");
    expect(eight.some((l) => l.includes("Detected changes"))).toBe(true);
    expect(eight.some((l) => l.includes("Deliveries"))).toBe(true);
    expect(eight.at(-1)).toContain("Ctrl-C to stop");
    expect(eight.some((l) => l.startsWith("by kind"))).toBe(false);

    const three = render(busyState(), { width: 80, height: 3 });
    expect(three[0]).toContain("flightwatch demo");
    expect(three[1]).toContain("Detected changes");
    expect(three[2]).toContain("HV5131");

    expect(render(busyState(), { height: 1 })).toHaveLength(1);
    expect(render(busyState(), { height: 0 })).toEqual([]);
  });

  it("gives the changes the rows the deliveries do not need yet", () => {
    const lines = render(busyState(), { width: 100, height: 30 });
    const title = lines.findIndex((l) => l.startsWith("── Deliveries"));
    // Three deliveries: three rows right above the footer, the changes pane has the rest.
    expect(lines.slice(title + 1, -1).map((l) => l.slice(6, 7))).toEqual(["✗", "↻", "✓"]);
    expect(title).toBe(30 - 1 - 3 - 1);
  });

  it("says what to expect before anything happened", () => {
    const screen = render(new DemoState(), { now: DEMO_START }).join("\n");
    expect(screen).toContain("waiting for the first poll");
    expect(screen).toContain("no changes yet");
    expect(screen).toContain("no deliveries yet");
  });

  it("draws a sparkline of changes per second, scaled to the peak", () => {
    const state = new DemoState({ startedAt: DEMO_START, speed: 1, rateSeconds: 4 });
    state.poll(pollReport(DEMO_START, boardingAndGate()), DEMO_START);
    const burst = [...boardingAndGate(), ...boardingAndGate()];
    state.poll(pollReport(DEMO_START + 2_000, burst), DEMO_START + 2_000);
    const spark = render(state, { now: DEMO_START + 3_000, speed: 1 }).find((l) =>
      l.startsWith("changes/s"),
    );
    expect(spark).toBe("changes/s ▅▁█▁ peak 4 · 6 in 4 s");
  });

  it("writes no escape character with colour off, and styles with colour on", () => {
    const plain = render(busyState(), { color: false }).join("\n");
    expect(plain).not.toContain("\x1b");
    const colored = render(busyState(), { color: true });
    expect(colored.join("\n")).toContain("\x1b[");
    expect(colored.map((l) => stripVTControlCharacters(l))).toEqual(render(busyState()));
  });

  it("cleans control characters from outside text, so a receiver's answer cannot drive the terminal", () => {
    const state = new DemoState({ startedAt: DEMO_START });
    const alert = alertOf({
      changes: [alertChange({ kind: "gate", field: "gate", old: "D7", new: "\x1b[2JD9" })],
    });
    state.alert(alert, DEMO_START);
    state.delivery(
      deliveryOf(alert, "ops", "webhook", {
        result: "dead",
        reason: "http_status",
        detail: "404 \x1b]0;pwned\x07Not Found\nsecond line",
        destination: "https://evil.example/\x1b[31m",
      }),
      DEMO_START,
    );
    const lines = render(state, { width: 200 });
    const controls = [...lines.join("")].filter((ch) => (ch.codePointAt(0) ?? 0) < 0x20);
    expect(controls).toEqual([]);
    expect(lines.join("\n")).toContain("404  ]0;pwned Not Found second line");
  });

  it("counts wide characters as two columns when fitting a line", () => {
    const state = new DemoState({ startedAt: DEMO_START });
    const alert = alertOf({ ruleId: "成田の到着便を見る規則".repeat(6) });
    state.alert(alert, DEMO_START);
    state.delivery(deliveryOf(alert, "console", "console"), DEMO_START);
    // Measured here, not with the code under test: CJK ideographs and kana take two columns.
    const columns = (line: string): number =>
      [...line].reduce((sum, ch) => sum + (/[\u3040-\u9fff]/.test(ch) ? 2 : 1), 0);
    for (const width of [60, 61, 80]) {
      const lines = render(state, { width });
      expect(lines.some((l) => l.includes("成田"))).toBe(true);
      for (const line of lines) expect(columns(line)).toBeLessThanOrEqual(width);
    }
  });
});
