import { describe, expect, it } from "vitest";
import { DONE_IDS_MEMORY_MS } from "../../src/dispatch/alert-state.js";
import { parseRuleFile } from "../../src/rules/read/rule-loader.js";
import type { ChangeSelector, Rule } from "../../src/rules/rule.js";
import {
  at,
  Driver,
  flight,
  gate,
  MINUTE,
  rule,
  SCHEDULED,
  shiftSelector,
  summary,
  time,
  ZONE,
} from "./dispatch-builder.js";

const T0 = Date.parse("2026-11-21T08:00:00Z");
const hysteresisRule = rule({ changes: [shiftSelector(10)] });

describe("hysteresis (shift_at_least)", () => {
  it("a time drifting a minute per poll alerts once per 10 minutes from the last alert", () => {
    const d = new Driver(hysteresisRule);
    const sent: { minute: number; alert: string[] }[] = [];
    for (let m = 1; m <= 25; m++) {
      for (const alert of d.admit(T0 + m * MINUTE, [time(m - 1, m, m)], shiftSelector(10))) {
        sent.push({ minute: m, alert: summary(alert) });
      }
    }
    expect(sent).toEqual([
      { minute: 10, alert: ["publicEstimatedOffBlockTime 11:00→11:10"] },
      { minute: 20, alert: ["publicEstimatedOffBlockTime 11:10→11:20"] },
    ]);
    // The alert tells the move from what was last said, not the last one-minute step.
    expect(d.sent[1]?.changes[0]).toMatchObject({
      action: "changed",
      old: at(10),
      new: at(20),
      shiftMinutes: 10,
      delayMinutes: 20,
    });
  });

  it("drift back counts too (absolute distance)", () => {
    const d = new Driver(hysteresisRule);
    for (let m = 1; m <= 10; m++) d.admit(T0 + m * MINUTE, [time(1 - m, -m, m)], shiftSelector(10));
    expect(d.sent.map(summary)).toEqual([["publicEstimatedOffBlockTime 11:00→10:50"]]);
  });

  it("the baseline is kept while nothing is sent", () => {
    const d = new Driver(hysteresisRule);
    d.admit(T0, [time(0, 4, 1)], shiftSelector(10));
    expect(d.state?.fields?.publicEstimatedOffBlockTime).toEqual({
      base: SCHEDULED,
      baseValue: at(0),
      version: 1,
    });
    d.admit(T0 + MINUTE, [time(4, 8, 2)], shiftSelector(10));
    d.admit(T0 + 2 * MINUTE, [time(8, 3, 3)], shiftSelector(10));
    expect(d.sent).toEqual([]);
    expect(d.state?.fields?.publicEstimatedOffBlockTime?.base).toBe(SCHEDULED);
    expect(d.admit(T0 + 3 * MINUTE, [time(3, 10, 4)], shiftSelector(10)).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:00→11:10"],
    ]);
    // From then on the announced value is the baseline.
    expect(d.state?.fields?.publicEstimatedOffBlockTime).toMatchObject({
      sent: { new: at(10), old: at(0) },
    });
    expect(d.state?.fields?.publicEstimatedOffBlockTime?.base).toBeUndefined();
  });

  it("a first estimate is measured from the schedule", () => {
    const d = new Driver(hysteresisRule);
    expect(d.admit(T0, [time(undefined, 5, 1)], shiftSelector(10))).toEqual([]);
    expect(d.admit(T0 + MINUTE, [time(5, 9, 2)], shiftSelector(10))).toEqual([]);
    // 12 minutes from the schedule: sent, as the change the field itself made.
    expect(d.admit(T0 + 2 * MINUTE, [time(9, 12, 3)], shiftSelector(10)).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:09→11:12"],
    ]);
    const far = new Driver(hysteresisRule);
    const [alert] = far.admit(T0, [time(undefined, 15, 1)], shiftSelector(10));
    expect(alert?.changes[0]).toMatchObject({ action: "assigned", new: at(15), delayMinutes: 15 });
    expect(alert?.changes[0]?.old).toBeUndefined();
  });

  it("a first estimate of a flight without a schedule always passes", () => {
    const d = new Driver(hysteresisRule);
    const unscheduled = flight({ scheduled: undefined });
    const events = [time(undefined, 1, 1, "publicEstimatedOffBlockTime", unscheduled)];
    expect(d.admit(T0, events, shiftSelector(10))).toHaveLength(1);
    const next = [time(1, 2, 2, "publicEstimatedOffBlockTime", unscheduled)];
    expect(d.admit(T0 + MINUTE, next, shiftSelector(10))).toEqual([]);
  });

  it("within a group: the net value is measured, with the threshold of the newest match", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE, changes: [shiftSelector(30)] }));
    d.admit(T0, [time(0, 3, 1)], shiftSelector(30));
    d.admit(T0 + 1000, [time(3, 6, 2)], shiftSelector(5));
    expect(d.flush(T0 + MINUTE).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:00→11:06"],
    ]);

    const strict = new Driver(rule({ groupWaitMs: MINUTE, changes: [shiftSelector(5)] }));
    strict.admit(T0, [time(0, 3, 1)], shiftSelector(5));
    strict.admit(T0 + 1000, [time(3, 6, 2)], shiftSelector(30));
    expect(strict.flush(T0 + MINUTE)).toEqual([]);
  });

  it("each time field has its own baseline; other fields of the alert are not held back", () => {
    const d = new Driver(hysteresisRule);
    const boarding = time(0, 20, 1, "expectedTimeBoarding");
    const offBlock = time(0, 2, 1);
    expect(d.admit(T0, [offBlock, boarding], shiftSelector(10)).map(summary)).toEqual([
      ["expectedTimeBoarding 11:00→11:20"],
    ]);
  });

  it("a rule without shift_at_least keeps no baseline", () => {
    const d = new Driver(rule({ coolDownMs: 0 }));
    d.admit(T0, [time(0, 1, 1)]);
    expect(d.state?.fields?.publicEstimatedOffBlockTime?.base).toBeUndefined();
    expect(d.state?.fields?.publicEstimatedOffBlockTime?.baseValue).toBeUndefined();
  });
});

/** A rule with change selectors written as in docs/rules.md, read by the real loader. */
function ruleWith(...selectors: string[]): Rule {
  const changes = selectors.map((selector) => `      - ${selector}\n`).join("");
  const text = `rules:\n  - id: r1\n    changes:\n${changes}    channels: [{ type: console }]\n`;
  const load = parseRuleFile(text, "rules/test.yaml", { vars: { values: {} }, zone: ZONE });
  expect(load.problems).toEqual([]);
  return load.rules[0] as Rule;
}

/** Delays (minutes after the schedule) observed one a minute; the delays alerted. */
function delaysAlerted(d: Driver, delays: number[]): (number | undefined)[] {
  const told: (number | undefined)[] = [];
  for (let i = 1; i < delays.length; i++) {
    const step = time(delays[i - 1], delays[i] as number, i);
    for (const alert of d.observe(T0 + i * MINUTE, [step])) {
      told.push(...alert.changes.map((c) => c.delayMinutes));
    }
  }
  return told;
}

describe("delay_at_least with shift_at_least (matched by the real rule set)", () => {
  it("Emirates style 30m/30m: the first alert when the delay reaches 30, then each further 30", () => {
    const d = new Driver(
      ruleWith("{ kind: departure_time, delay_at_least: 30m, shift_at_least: 30m }"),
    );
    expect(delaysAlerted(d, [0, 25, 35, 50, 56, 66])).toEqual([35, 66]);
    // Each tells the move from what the rule saw first, then from the last alert.
    expect(d.sent.map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:25→11:35"],
      ["publicEstimatedOffBlockTime 11:35→12:06"],
    ]);
    expect(d.sent[0]?.changes[0]).toMatchObject({ shiftMinutes: 10, delayMinutes: 35 });
  });

  it("passenger style 15m/15m: 16, 31, 47; back under 15 is not matched; back up is a move", () => {
    const d = new Driver(
      ruleWith("{ kind: departure_time, delay_at_least: 15m, shift_at_least: 15m }"),
    );
    expect(delaysAlerted(d, [0, 5, 12, 16, 20, 28, 31, 40, 47, 10, 20, 25])).toEqual([
      16, 31, 47, 20,
    ]);
  });

  it("in a group too, the first alert is measured from the schedule", () => {
    const r = ruleWith("{ kind: departure_time, delay_at_least: 30m, shift_at_least: 30m }");
    const d = new Driver({ ...r, groupWaitMs: 2 * MINUTE });
    d.observe(T0, [time(25, 31, 1)]);
    d.observe(T0 + MINUTE, [time(31, 33, 2)]);
    expect(d.flush(T0 + 2 * MINUTE).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:25→11:33"],
    ]);
  });

  it("without delay_at_least the baseline stays the value before the first change seen", () => {
    const d = new Driver(ruleWith("{ kind: departure_time, shift_at_least: 30m }"));
    expect(delaysAlerted(d, [25, 35, 50, 56])).toEqual([56]);
  });
});

describe("hysteresis beside other selectors", () => {
  it("a gate in a rule with shift_at_least leaves nothing behind once its memory has passed", () => {
    const gates: ChangeSelector = { name: "gate", kinds: ["gate"] };
    const d = new Driver(rule({ groupWaitMs: MINUTE, changes: [shiftSelector(10), gates] }));
    d.admit(T0, [gate("D1", "D2", 1)], gates);
    d.admit(T0 + 1000, [gate("D2", "D1", 2)], gates);
    expect(d.flush(T0 + MINUTE)).toEqual([]);
    d.admit(T0 + MINUTE + DONE_IDS_MEMORY_MS + 1, []);
    expect(d.state).toBeUndefined();
  });

  it("a time matched without shift_at_least is told from its own first old value", () => {
    const boarding: ChangeSelector = {
      name: "boarding_time",
      kinds: ["time"],
      fields: ["expectedTimeBoarding"],
    };
    const d = new Driver(rule({ groupWaitMs: MINUTE, changes: [shiftSelector(10), boarding] }));
    d.admit(T0, [time(0, 5, 1, "expectedTimeBoarding")], boarding);
    d.admit(T0 + 1000, [time(5, 0, 2, "expectedTimeBoarding")], boarding);
    expect(d.flush(T0 + MINUTE)).toEqual([]);
    // 11:00 → 11:03 is not seen by this rule (say, an outage).
    d.admit(T0 + 2 * MINUTE, [time(3, 8, 4, "expectedTimeBoarding")], boarding);
    expect(d.flush(T0 + 3 * MINUTE).map(summary)).toEqual([["expectedTimeBoarding 11:03→11:08"]]);
  });
});

describe("delay_at_least and shift_at_least in two selectors (matched by the real rule set)", () => {
  it("the newest match decides: delay_at_least measures the first alert from the schedule", () => {
    const r = ruleWith(
      "{ kind: departure_time, delay_at_least: 30m, shift_at_least: 30m }",
      "{ kind: departure_time, shift_at_least: 10m }",
    );
    const d = new Driver({ ...r, groupWaitMs: 2 * MINUTE });
    // 20 minutes late: only the second selector matches, measured from 11:15.
    d.observe(T0, [time(15, 20, 1)]);
    // 33 minutes late: the first matches, and 33 minutes from the schedule is enough.
    d.observe(T0 + MINUTE, [time(20, 33, 2)]);
    expect(d.flush(T0 + 2 * MINUTE).map(summary)).toEqual([
      ["publicEstimatedOffBlockTime 11:15→11:33"],
    ]);

    // Back under 30 minutes late, the newest match measures from 11:15: 7 minutes are too few.
    const back = new Driver({ ...r, groupWaitMs: 2 * MINUTE });
    back.observe(T0, [time(15, 33, 1)]);
    back.observe(T0 + MINUTE, [time(33, 22, 2)]);
    expect(back.flush(T0 + 2 * MINUTE)).toEqual([]);
  });
});
