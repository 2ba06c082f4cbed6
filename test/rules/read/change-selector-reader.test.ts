/** The `changes` list: each kind name's meaning, options, and each way it can be wrong. */
import { describe, expect, it } from "vitest";
import { KIND_NAMES } from "../../../src/rules/change-kinds.js";
import type { ChangeSelector } from "../../../src/rules/rule.js";
import { oneRule, problemOf, problemsOf, ruleWith } from "./rule-text.js";

const selectorsOf = (changes: string): ChangeSelector[] | undefined =>
  oneRule(ruleWith(`changes: ${changes}`)).changes;
const selectorOf = (change: string): ChangeSelector | undefined => selectorsOf(`[${change}]`)?.[0];

describe("change kinds", () => {
  it.each([
    ["gate", { kinds: ["gate"] }],
    ["pier", { kinds: ["pier"] }],
    ["terminal", { kinds: ["terminal"] }],
    ["belt", { kinds: ["belt"] }],
    ["checkin", { kinds: ["checkin"] }],
    ["codeshares", { kinds: ["codeshares"] }],
    ["aircraft", { kinds: ["aircraftType"] }],
    ["registration", { kinds: ["registration"] }],
    ["route", { kinds: ["route"] }],
    ["service_type", { kinds: ["serviceType"] }],
    ["state", { kinds: ["state"] }],
    ["cancelled", { kinds: ["state"], states: ["CNX"], actions: ["added"] }],
    ["uncancelled", { kinds: ["state"], states: ["CNX"], actions: ["withdrawn"] }],
    ["diverted", { kinds: ["state"], states: ["DIV"], actions: ["added"] }],
    ["added", { kinds: ["flight"], actions: ["added"] }],
    ["removed", { kinds: ["flight"], actions: ["removed"] }],
    ["time", { kinds: ["time"] }],
    [
      "departure_time",
      { kinds: ["time"], fields: ["publicEstimatedOffBlockTime", "actualOffBlockTime"] },
    ],
    ["arrival_time", { kinds: ["time"], fields: ["estimatedLandingTime", "actualLandingTime"] }],
    ["estimated_off_block", { kinds: ["time"], fields: ["publicEstimatedOffBlockTime"] }],
    ["actual_off_block", { kinds: ["time"], fields: ["actualOffBlockTime"] }],
    ["estimated_landing", { kinds: ["time"], fields: ["estimatedLandingTime"] }],
    ["actual_landing", { kinds: ["time"], fields: ["actualLandingTime"] }],
    ["boarding_time", { kinds: ["time"], fields: ["expectedTimeBoarding"] }],
    ["gate_open_time", { kinds: ["time"], fields: ["expectedTimeGateOpen"] }],
    ["gate_closing_time", { kinds: ["time"], fields: ["expectedTimeGateClosing"] }],
    ["on_belt_time", { kinds: ["time"], fields: ["expectedTimeOnBelt"] }],
  ])("%s", (name, expected) => {
    expect(selectorOf(name)).toEqual({ name, ...expected });
    expect(selectorOf(`{ kind: ${name} }`)).toEqual({ name, ...expected });
  });

  it("covers every kind of docs/rules.md", () => {
    expect(KIND_NAMES).toHaveLength(27);
  });

  it("takes a single kind without a list, and keeps the order", () => {
    expect(selectorsOf("gate")).toEqual([{ name: "gate", kinds: ["gate"] }]);
    expect(selectorsOf("[cancelled, gate]")?.map((s) => s.name)).toEqual(["cancelled", "gate"]);
  });
});

describe("selector options", () => {
  it("reads states, upper-cased", () => {
    expect(selectorOf("{ kind: state, states: [brd, GCL, BRD] }")).toEqual({
      name: "state",
      kinds: ["state"],
      states: ["BRD", "GCL"],
      actions: ["added"],
    });
    expect(selectorOf("{ kind: state, states: DEL, actions: withdrawn }")).toEqual({
      name: "state",
      kinds: ["state"],
      states: ["DEL"],
      actions: ["withdrawn"],
    });
  });

  it("takes only the states' beginning from `states:` unless `actions:` says otherwise", () => {
    // "Boarding or gate closing": BRD withdrawn by a cancellation is neither.
    expect(selectorOf("{ kind: state, states: [BRD, GCL] }")?.actions).toEqual(["added"]);
    expect(
      selectorOf("{ kind: state, states: BRD, actions: [added, withdrawn] }")?.actions,
    ).toEqual(["added", "withdrawn"]);
    expect(selectorOf("{ kind: state, states: CNX, actions: withdrawn }")?.actions).toEqual([
      "withdrawn",
    ]);
    // A bare `state` still takes every state change, both ways.
    expect(selectorOf("state")?.actions).toBeUndefined();
    expect(selectorOf("{ kind: state }")?.actions).toBeUndefined();
    expect(selectorOf("{ kind: state, within: 1h }")?.actions).toBeUndefined();
  });

  it("reads fields of `time`", () => {
    expect(
      selectorOf("{ kind: time, fields: [expectedTimeBoarding, actualLandingTime] }")?.fields,
    ).toEqual(["expectedTimeBoarding", "actualLandingTime"]);
  });

  it("reads thresholds: minutes (fractional) and within in ms", () => {
    expect(
      selectorOf("{ kind: departure_time, delay_at_least: 15m, shift_at_least: 90s, within: 3h }"),
    ).toMatchObject({
      delayAtLeastMinutes: 15,
      shiftAtLeastMinutes: 1.5,
      withinMs: 10_800_000,
    });
    expect(selectorOf("{ kind: belt, within: 1h30m }")?.withinMs).toBe(5_400_000);
    expect(selectorOf("{ kind: time, delay_at_least: 0s }")?.delayAtLeastMinutes).toBe(0);
  });

  it("reads actions the kind can have", () => {
    expect(selectorOf("{ kind: gate, actions: [assigned] }")?.actions).toEqual(["assigned"]);
    expect(selectorOf("{ kind: cancelled, actions: added }")?.actions).toEqual(["added"]);
  });
});

describe("selector problems", () => {
  it("an unknown kind, with a did-you-mean", () => {
    expect(problemOf(ruleWith("changes: [gat]"))).toMatchObject({
      path: "rules[0].changes[0]",
      line: 4,
      column: 15,
      message: "unknown change kind `gat`",
      hint: "did you mean `gate`?",
    });
    expect(problemOf(ruleWith("changes: [{ kind: canceled }]"))).toMatchObject({
      path: "rules[0].changes[0].kind",
      column: 23,
      hint: "did you mean `cancelled`?",
    });
    expect(problemOf(ruleWith("changes: [flight]")).hint).toContain("expected one of `gate`");
    expect(problemOf(ruleWith("changes: [constructor]")).message).toBe(
      "unknown change kind `constructor`",
    );
  });

  it("an unknown state, field or action, with a did-you-mean", () => {
    expect(problemOf(ruleWith("changes: [{ kind: state, states: [BRD, CNL] }]"))).toMatchObject({
      path: "rules[0].changes[0].states[1]",
      message: "unknown state `CNL`",
      hint: "did you mean `CNX`?",
    });
    expect(
      problemOf(ruleWith("changes: [{ kind: time, fields: expectedTimeBording }]")),
    ).toMatchObject({
      path: "rules[0].changes[0].fields",
      message: "unknown time field `expectedTimeBording`",
      hint: "did you mean `expectedTimeBoarding`?",
    });
    expect(problemOf(ruleWith("changes: [{ kind: gate, actions: [chanegd] }]"))).toMatchObject({
      path: "rules[0].changes[0].actions[0]",
      message: "unknown action `chanegd`",
      hint: "did you mean `changed`?",
    });
  });

  it("an action the kind never has", () => {
    expect(problemOf(ruleWith("changes: [{ kind: gate, actions: [withdrawn] }]"))).toMatchObject({
      path: "rules[0].changes[0].actions",
      message: "`gate` changes are never `withdrawn`",
      hint: "`gate` changes are `assigned` or `changed`",
    });
    expect(problemOf(ruleWith("changes: [{ kind: cancelled, actions: [withdrawn] }]")).hint).toBe(
      "`cancelled` changes are `added`",
    );
  });

  it.each([
    ["{ kind: gate, states: [BRD] }", "states", "only `state` takes `states`"],
    ["{ kind: cancelled, states: [BRD] }", "states", "`cancelled` already means state CNX"],
    [
      "{ kind: departure_time, fields: [actualOffBlockTime] }",
      "fields",
      "only `time` takes `fields`; `departure_time` already means",
    ],
    ["{ kind: gate, fields: [actualOffBlockTime] }", "fields", "only `time` takes `fields`"],
    [
      "{ kind: gate, delay_at_least: 15m }",
      "delay_at_least",
      "only time kinds take it: `time`, `departure_time`",
    ],
    ["{ kind: state, shift_at_least: 15m }", "shift_at_least", "only time kinds take it"],
  ])("an option the kind does not take: %s", (selector, option, hint) => {
    const problem = problemOf(ruleWith(`changes: [${selector}]`));
    expect(problem).toMatchObject({
      path: `rules[0].changes[0].${option}`,
      message: expect.stringContaining(`\`${option}\` does not apply to`),
    });
    expect(problem.hint).toContain(hint);
    // It points at the option's key.
    expect(
      ruleWith(`changes: [${selector}]`)
        .split("\n")[3]
        ?.slice(problem.column - 1),
    ).toMatch(new RegExp(`^${option}:`));
  });

  it("an unknown option, with a did-you-mean", () => {
    expect(problemOf(ruleWith("changes: [{ kind: gate, whithin: 3h }]"))).toMatchObject({
      path: "rules[0].changes[0].whithin",
      message: "unknown key `whithin`",
      hint: "did you mean `within`?",
    });
  });

  it("a selector without a kind, a list as selector, an empty list", () => {
    expect(problemOf(ruleWith("changes: [{ states: [BRD] }]"))).toMatchObject({
      message: "change selector has no `kind`",
      column: 15,
    });
    expect(problemOf(ruleWith("changes: [[gate]]"))).toMatchObject({
      message: "a change selector must be a kind name or a mapping, not a list",
    });
    expect(problemOf(ruleWith("changes: []"))).toMatchObject({
      path: "rules[0].changes",
      message: "`changes` is an empty list: the rule would match no change",
    });
    expect(problemOf(ruleWith("changes: [{ kind: state, states: [] }]"))).toMatchObject({
      path: "rules[0].changes[0].states",
    });
    expect(problemOf(ruleWith("changes: { kind: gate }"))).toMatchObject({
      message: "`changes` must be a value or a list, not a mapping",
    });
  });

  it("bad thresholds", () => {
    expect(
      problemOf(ruleWith("changes: [{ kind: departure_time, delay_at_least: 15 }]")),
    ).toMatchObject({
      path: "rules[0].changes[0].delay_at_least",
      message: "`15` has no unit",
    });
    expect(problemOf(ruleWith("changes: [{ kind: gate, within: 0s }]"))).toMatchObject({
      message: "`within` must be more than 0",
    });
    expect(problemOf(ruleWith("changes: [{ kind: gate, within: soon }]"))).toMatchObject({
      message: "`soon` is not a duration",
    });
  });

  it("reports every bad selector", () => {
    expect(
      problemsOf(ruleWith("changes: [gat, pier, peir, { kind: stat }]")).map((p) => p.path),
    ).toEqual(["rules[0].changes[0]", "rules[0].changes[2]", "rules[0].changes[3].kind"]);
  });
});
