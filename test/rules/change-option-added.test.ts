/**
 * A change-selector option added as one entry of the options table — here a test-only
 * `delay_below` (time changes less late than a bound) — is read from rule files with
 * positioned problems, a did-you-mean and the kinds that take it, matched, and told
 * apart in check keys, with no other change.
 */
import { describe, expect, it, vi } from "vitest";
import type { ChangeOption } from "../../src/rules/change-options.js";
import { changeFilterKey } from "../../src/rules/match/check-key.js";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import type { ChangeSelector } from "../../src/rules/rule.js";
import { changeEvent } from "./event-builder.js";
import { oneRule, problemOf, ruleWith } from "./read/rule-text.js";
import { rule, select } from "./rule-builder.js";

vi.mock("../../src/rules/change-options.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/rules/change-options.js")>();
  const delayBelowMinutes: ChangeOption<number> = {
    key: "delay_below",
    form: { kind: "duration", unitMs: 60_000 },
    refusedFor: (_name, spec) => (spec.time ? undefined : "only time kinds take it"),
    test: (bound) => (view) =>
      view.event.delayMinutes !== undefined && view.event.delayMinutes < bound,
  };
  // The entry; OPTION_ENTRIES is the module's own view of the table, derived again.
  const CHANGE_OPTIONS = { ...real.CHANGE_OPTIONS, delayBelowMinutes };
  return { ...real, CHANGE_OPTIONS, OPTION_ENTRIES: Object.entries(CHANGE_OPTIONS) };
});

/** A selector with the test-only option, which the real ChangeSelector type does not have. */
const below = (minutes: number): ChangeSelector =>
  ({ ...select("time"), delayBelowMinutes: minutes }) as ChangeSelector;

const late = (delayMinutes: number) =>
  changeEvent({ kind: "time", field: "publicEstimatedOffBlockTime", delayMinutes });

describe("an option added to the table", () => {
  it("is read from rule files in its unit", () => {
    expect(oneRule(ruleWith("changes: [{ kind: time, delay_below: 90s }]")).changes).toEqual([
      { name: "time", kinds: ["time"], delayBelowMinutes: 1.5 },
    ]);
  });

  it("refuses a bad value at its position", () => {
    expect(problemOf(ruleWith("changes:\n  - { kind: time, delay_below: 15 }"))).toMatchObject({
      path: "rules[0].changes[0].delay_below",
      line: 5,
      column: 36,
    });
  });

  it("is refused for kinds that cannot take it, and suggested for a misspelt key", () => {
    expect(problemOf(ruleWith("changes: [{ kind: gate, delay_below: 1h }]"))).toMatchObject({
      message: "`delay_below` does not apply to `gate`",
      hint: "only time kinds take it",
    });
    expect(problemOf(ruleWith("changes: [{ kind: time, delay_bleow: 1h }]")).hint).toBe(
      "did you mean `delay_below`?",
    );
  });

  it("is matched", () => {
    const set = new RuleSet([rule("r", { changes: [below(30)] })]);
    expect(set.match([late(10)], 0)).toHaveLength(1);
    expect(set.match([late(45)], 0)).toHaveLength(0);
  });

  it("keeps rules that differ only in it apart", () => {
    expect(changeFilterKey([below(30)])).not.toBe(changeFilterKey([below(31)]));
    expect(changeFilterKey([below(30)])).not.toBe(changeFilterKey([select("time")]));
  });
});
