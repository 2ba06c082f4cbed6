/**
 * Reading `quiet_hours`: times of day, the zone (the airport's by default), `critical`
 * as `changes` is written (a cancellation, a diversion and a gate change within an hour
 * by default), and every mistake named where it is written.
 */
import { describe, expect, it } from "vitest";
import { oneRule, problemOf, problemsOf } from "./rule-text.js";

const ruleWith = (quiet: string) => `rules:
  - id: night
    quiet_hours: ${quiet}
    channels: [{ type: console }]
`;

describe("quiet_hours", () => {
  it("reads the window in the airport's zone, with the default critical changes", () => {
    const rule = oneRule(ruleWith(`{ from: "23:00", to: "07:00" }`));
    expect(rule.quietHours).toEqual({
      fromMinute: 23 * 60,
      toMinute: 7 * 60,
      zone: "Europe/Amsterdam",
      critical: [
        expect.objectContaining({ name: "cancelled", kinds: ["state"], states: ["CNX"] }),
        expect.objectContaining({ name: "diverted", kinds: ["state"], states: ["DIV"] }),
        expect.objectContaining({ name: "gate", kinds: ["gate"], withinMs: 3_600_000 }),
      ],
    });
  });

  it("takes a zone of its own, and critical changes written as `changes` is, or none", () => {
    const rule = oneRule(
      ruleWith(
        `{ from: "22:30", to: "06:15", zone: Europe/London, critical: [cancelled, { kind: departure_time, delay_at_least: 2h }] }`,
      ),
    );
    expect(rule.quietHours).toMatchObject({
      fromMinute: 22 * 60 + 30,
      toMinute: 6 * 60 + 15,
      zone: "Europe/London",
      critical: [{ name: "cancelled" }, { name: "departure_time", delayAtLeastMinutes: 120 }],
    });
    expect(
      oneRule(ruleWith(`{ from: "23:00", to: "07:00", critical: [] }`)).quietHours?.critical,
    ).toEqual([]);
    expect(oneRule(ruleWith(`{ from: "01:00", to: "05:00" }`)).quietHours).toMatchObject({
      fromMinute: 60,
      toMinute: 300,
    });
  });

  it("names each mistake where it is written", () => {
    expect(problemOf(ruleWith(`{ to: "07:00" }`))).toMatchObject({
      line: 3,
      path: "rules[0].quiet_hours",
      message: "`quiet_hours` needs `from`",
    });
    expect(problemOf(ruleWith(`{ from: "7:00", to: "07:00" }`))).toMatchObject({
      line: 3,
      column: 26,
      path: "rules[0].quiet_hours.from",
      message: "`from` must be a time of day, HH:MM (24 hours), not `7:00`",
    });
    expect(problemOf(ruleWith(`{ from: "23:00", to: "24:00" }`)).path).toBe(
      "rules[0].quiet_hours.to",
    );
    expect(problemOf(ruleWith(`{ from: "07:00", to: "07:00" }`)).message).toMatch(/the same time/);
    expect(problemOf(ruleWith(`{ from: "23:00", to: "07:00", zone: Mars/Base }`))).toMatchObject({
      path: "rules[0].quiet_hours.zone",
      message: "`Mars/Base` is not a time zone",
    });
    expect(
      problemOf(ruleWith(`{ from: "23:00", to: "07:00", critcal: [cancelled] }`)),
    ).toMatchObject({
      path: "rules[0].quiet_hours.critcal",
      message: "unknown key `critcal`",
      hint: expect.stringContaining("critical"),
    });
    expect(problemOf(ruleWith(`{ from: "23:00", to: "07:00", critical: [gat] }`))).toMatchObject({
      path: "rules[0].quiet_hours.critical[0]",
    });
    expect(problemOf(ruleWith("night"))).toMatchObject({
      path: "rules[0].quiet_hours",
      message: expect.stringMatching(/^`quiet_hours` must be a mapping/),
    });
    expect(problemOf(ruleWith(`{ from: [23], to: "07:00" }`))).toMatchObject({
      path: "rules[0].quiet_hours.from",
      message: expect.stringMatching(/^`from` must be a single value/),
    });
    expect(problemOf(ruleWith(`{ from: "23:00", to: "07:00", zone: [UTC] }`))).toMatchObject({
      path: "rules[0].quiet_hours.zone",
      message: expect.stringMatching(/^`zone` must be a single value/),
    });
    expect(problemOf(ruleWith(`{ from: "7:00", to: "07:00" }`)).hint).toContain('"07:00"');
    expect(problemOf(ruleWith(`{ from: "23:00", to: "07:00", zone: Mars/Base }`)).hint).toContain(
      "IANA",
    );
    // Spaces around a time are no mistake.
    expect(oneRule(ruleWith(`{ from: " 23:00 ", to: "07:00" }`)).quietHours?.fromMinute).toBe(
      23 * 60,
    );
    expect(problemsOf(ruleWith(`{ from: 23, to: "07:00" }`))).toHaveLength(1);
  });
});
