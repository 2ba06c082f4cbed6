/**
 * Reading `remind`: reminders as mappings or in words, at most ten, none twice, every
 * mistake named where it is written; `changes: []` makes a rule of reminders only.
 */
import { describe, expect, it } from "vitest";
import { oneRule, problemOf, problemsOf } from "./rule-text.js";

const MINUTE = 60_000;
const ruleWith = (remind: string, more = "") => `rules:
  - id: trip
    remind: ${remind}
${more}    channels: [{ type: console }]
`;

describe("remind", () => {
  it("reads mappings and words alike", () => {
    const rule = oneRule(
      ruleWith(
        `[{ before: boarding, by: 30m }, 3h before departure, { before: gate closing, by: 1h30m }, 45m before ARRIVAL]`,
      ),
    );
    expect(rule.reminders).toEqual([
      { before: "boarding", byMs: 30 * MINUTE },
      { before: "departure", byMs: 180 * MINUTE },
      { before: "gate_closing", byMs: 90 * MINUTE },
      { before: "arrival", byMs: 45 * MINUTE },
    ]);
    expect(rule.changes).toBeUndefined();
    expect(oneRule(ruleWith("30m before boarding")).reminders).toEqual([
      { before: "boarding", byMs: 30 * MINUTE },
    ]);
  });

  it("makes `changes: []` a rule of reminders only, and refuses it without them", () => {
    expect(oneRule(ruleWith("[30m before boarding]", "    changes: []\n")).changes).toEqual([]);
    expect(
      problemOf(`rules:
  - id: none
    changes: []
    channels: [{ type: console }]
`),
    ).toMatchObject({
      path: "rules[0].changes",
      message: "`changes` is an empty list: the rule would match no change",
      hint: expect.stringContaining("remind"),
    });
  });

  it("names each mistake where it is written", () => {
    expect(problemOf(ruleWith("[{ before: takeoff, by: 30m }]"))).toMatchObject({
      line: 3,
      path: "rules[0].remind[0].before",
      message: "`takeoff` is not a moment a reminder can come before",
      hint: expect.stringContaining("gate_closing"),
    });
    expect(problemOf(ruleWith("[{ before: boarding }]"))).toMatchObject({
      path: "rules[0].remind[0]",
      message: "a reminder needs `by`",
    });
    expect(problemOf(ruleWith("[{ by: 30m }]")).message).toBe("a reminder needs `before`");
    expect(problemOf(ruleWith("[{ before: boarding, by: 30 }]"))).toMatchObject({
      path: "rules[0].remind[0].by",
      message: "`30` has no unit",
    });
    expect(problemOf(ruleWith("[{ before: boarding, by: 3d }]")).message).toMatch(/at most 48h/);
    expect(problemOf(ruleWith("[{ before: boarding, by: 0s }]")).message).toMatch(/more than 0/);
    expect(problemOf(ruleWith("[soon before boarding]"))).toMatchObject({
      path: "rules[0].remind[0]",
    });
    expect(problemOf(ruleWith("[at boarding]"))).toMatchObject({
      path: "rules[0].remind[0]",
      message: "`at boarding` is not a reminder",
    });
    expect(problemOf(ruleWith("[{ before: boarding, by: 30m, at: 10 }]"))).toMatchObject({
      path: "rules[0].remind[0].at",
      message: "unknown key `at`",
    });
    expect(
      problemOf(ruleWith("[30m before boarding, { before: boarding, by: 30m }]")),
    ).toMatchObject({
      path: "rules[0].remind[1]",
      message: "the same reminder is listed twice",
    });
    const eleven = Array.from({ length: 11 }, (_, i) => `${i + 1}m before departure`).join(", ");
    expect(problemOf(ruleWith(`[${eleven}]`)).message).toBe(
      "`remind` lists 11 reminders: at most 10 are allowed",
    );
    expect(problemOf(ruleWith("[]")).message).toMatch(/empty list/);
    expect(problemsOf(ruleWith("[{ before: takeoff, by: 1 }]"))).toHaveLength(1);
  });
});

describe("remind, at its edges", () => {
  it("takes ten reminders and 48 hours, spaces in quotes and around words", () => {
    const ten = Array.from({ length: 10 }, (_, i) => `${i + 1}m before departure`).join(", ");
    expect(oneRule(ruleWith(`[${ten}]`)).reminders).toHaveLength(10);
    expect(oneRule(ruleWith("[{ before: boarding, by: 48h }]")).reminders).toEqual([
      { before: "boarding", byMs: 48 * 60 * MINUTE },
    ]);
    expect(
      oneRule(ruleWith(`[" 30m  before  gate  closing ", { before: " Boarding ", by: " 1h " }]`))
        .reminders,
    ).toEqual([
      { before: "gate_closing", byMs: 30 * MINUTE },
      { before: "boarding", byMs: 60 * MINUTE },
    ]);
  });

  it("says what is wrong in each part, with the example", () => {
    expect(problemOf(ruleWith("[]"))).toMatchObject({
      message: "`remind` is an empty list: it would remind of nothing",
    });
    expect(problemOf(ruleWith("[{ before: [boarding], by: 30m }]"))).toMatchObject({
      path: "rules[0].remind[0].before",
      message: expect.stringMatching(/^`before` must be a single value/),
    });
    expect(problemOf(ruleWith("[{ before: boarding, by: [30m] }]"))).toMatchObject({
      path: "rules[0].remind[0].by",
      message: expect.stringMatching(/^`by` must be a single value/),
    });
    expect(problemsOf(ruleWith("[{ before: [boarding], by: [30m] }]"))).toHaveLength(2);
    expect(problemOf(ruleWith("[[30m before boarding]]"))).toMatchObject({
      path: "rules[0].remind[0]",
      message: expect.stringMatching(/^a reminder must be a single value/),
    });
    expect(problemOf(ruleWith("[at boarding]")).hint).toBe(
      "e.g. remind: [{ before: boarding, by: 30m }, 3h before departure]",
    );
    expect(problemOf(ruleWith("[{ by: 30m }]")).hint).toBe(
      "e.g. remind: [{ before: boarding, by: 30m }, 3h before departure]",
    );
    expect(problemOf(ruleWith("[30m before takeoff]"))).toMatchObject({
      path: "rules[0].remind[0]",
      message: "`takeoff` is not a moment a reminder can come before",
      hint: "write one of departure, boarding, gate_closing, arrival",
    });
    expect(problemOf(ruleWith("[soon 30m before boarding]")).message).toBe(
      "`soon 30m before boarding` is not a reminder",
    );
    expect(problemOf(ruleWith(`["30m before boarding\\nand more"]`)).message).toMatch(
      /is not a reminder/,
    );
    expect(problemOf(ruleWith("[{ before: boarding, by: 48h1s }]")).message).toMatch(/at most 48h/);
    expect(problemOf(ruleWith("[{ before: boarding, by: 49h }]")).path).toBe(
      "rules[0].remind[0].by",
    );
    expect(problemOf(ruleWith("[3d before boarding]")).path).toBe("rules[0].remind[0]");
  });
});
